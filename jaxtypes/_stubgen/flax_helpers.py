"""Stubs of Flax's dtype helpers, which public Flax code calls between layers:
``flax.linen.dtypes.promote_dtype`` (``q, k = promote_dtype(q, k,
dtype=self.dtype)``), NNX's ``flax.nnx.nn.dtypes.promote_dtype`` (a tuple in,
a tuple out) and ``flax.training.common_utils.onehot``.

Flax declares the first ``-> list[Any]``, the second ``(args: T) -> T`` (the
arguments' own types, which a cast to another dtype makes wrong) and leaves
``onehot`` unannotated.  Their behaviour (flax/linen/dtypes.py,
flax/nnx/nn/dtypes.py, flax/training/common_utils.py): ``promote_dtype``
casts every argument but None with ``jnp.asarray(x, dtype)``, where
``dtype`` is the one given, else ``jnp.result_type`` of the arguments made
inexact (an integer or bool result promoted with float32: float32);
``onehot`` ends with ``.astype(jnp.float32)``.

Typed here, as answers that hold with x64 on and off (a 64-bit dtype gives
``Array[Any]``, as in ``jaxtypes._stubgen.layer_stubs``):

* ``dtype=`` a known dtype (``jnp.bfloat16``, ``x.dtype``): every element is
  an array of it, for arguments that are arrays or scalars (not None);
* ``dtype=None``, one to four JAX arrays: of one inexact dtype, that dtype;
  all integer or bool, float32 (``inexact=False``: of one dtype, that dtype);
* anything else (a dtype typed ``Any``, arrays of different dtypes, an
  argument that may be None) gives elements of unknown type, as Flax's
  own declaration does; an argument of unknown dtype (``Array[Any]``) gives
  ``Array[Any]`` elements.

``zeros_init()`` and ``ones_init()`` (Linen's and NNX's initializer
modules) return JAX's ``zeros`` and ``ones``, where Flax declares its
``Initializer`` (a union with ``Callable[..., Any]``): typed as the stubs'
``jax.nn.initializers.Initializer[float32]``.

Linen's result is a list, as at run time: its elements share one type, so
``q, k = promote_dtype(...)`` unpacks arrays of the dtype.  NNX's is a tuple
of the arguments' length.  The rest of each module is Flax's, declared as it
is (every other function keeps its own signature).

Three more functions live in modules that also define layers, so they are
typed in the package's stub in place of its import (``PACKAGE_FUNCTIONS``,
which ``jaxtypes._stubgen.layer_stubs`` writes in): ``make_attention_mask``
and ``make_causal_mask`` of Linen and NNX end with ``mask.astype(dtype)``
(float32 when ``dtype`` is left out; a dtype x64 changes, or one typed
``Any``, gives ``Array[Any]``), and ``nnx.value_and_grad(f)`` returns what
``f`` returns beside the gradient, as ``jax.value_and_grad`` does, typed
the way Equinox declares its ``filter_value_and_grad`` (the gradient of a
module is an ``nnx.State``: left ``Any``, as Flax declares it).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from jaxtypes import lattice
from jaxtypes._stubgen.syntax import (
    Qualifier,
    absolute_module,
    all_params,
    declarations,
    module_names,
    parse_expr,
    qualified_stub,
    set_keyword,
    stub_def,
    stub_view,
    without_param,
)
from jaxtypes.layer_rules import FLAX_INEXACT_FLOOR

__all__ = ["MODULES", "PACKAGE_FUNCTIONS", "PackageFunction", "package_declarations", "render", "typed_functions"]

_MARKERS: Final = "_jaxtypes_markers"
_ARRAY: Final = "_jaxtypes_jax.Array"
_MAX_ARITY: Final = 4  # promote_dtype's typed arities (public code passes 1 to 4 arrays)


def _m(node: str) -> str:
    return f"{_MARKERS}.{lattice.MARKER_NAME[node]}"


# The strong dtypes JAX keeps as they are with x64 on and off: a 64-bit one
# is 32-bit with x64 off.
_KEPT: Final = tuple(n for n in lattice.STRONG if lattice.canonicalize(n, False) == n)
_INEXACT: Final = tuple(n for n in _KEPT if lattice.kind(n) in "fc")
_INTEGRAL: Final = tuple(n for n in _KEPT if lattice.kind(n) in "biu")

_PRELUDE: Final = f"""
import builtins as _jaxtypes_builtins
from typing import Any as _JaxtypesAny, Literal as _JaxtypesLiteral, overload as _jaxtypes_overload
from typing_extensions import TypeVar as _JaxtypesTypeVar
import jax as _jaxtypes_jax
from jax.typing import ArrayLike as _JaxtypesArrayLike
import jaxtypes.markers as {_MARKERS}
from jaxtypes.markers import AnyDtype as _JaxtypesUnknownT
"""
_TYPEVARS: Final = f"""
# dtype= given: an inexact dtype (inexact=True, the default), any (inexact=False).
_JaxtypesGivenInexactT = _JaxtypesTypeVar("_JaxtypesGivenInexactT", bound={" | ".join(map(_m, _INEXACT))})
_JaxtypesGivenT = _JaxtypesTypeVar("_JaxtypesGivenT", bound={" | ".join(map(_m, _KEPT))})
# dtype=None: the arguments' one dtype (constrained: arrays of two dtypes match none).
_JaxtypesSameInexactT = _JaxtypesTypeVar("_JaxtypesSameInexactT", {", ".join(map(_m, _INEXACT))})
_JaxtypesSameT = _JaxtypesTypeVar("_JaxtypesSameT", {", ".join(map(_m, _KEPT))})
"""
_INTEGRAL_ARRAY: Final = f"{_ARRAY}[{' | '.join(map(_m, _INTEGRAL))}]"
_FLOOR: Final = f"{_ARRAY}[{_m(FLAX_INEXACT_FLOOR)}]"
_UNKNOWN_ARRAY: Final = f"{_ARRAY}[_JaxtypesUnknownT]"


def _given(var: str) -> str:
    return f"{_MARKERS}.DtypeValue[{var}] | type[{var}]"


# The typed cases, in the order a checker must try them: first those of an
# argument of unknown dtype (Any, which matches the later overloads too, the
# first answering for it), then the known ones.
def _dtype_cases() -> list[tuple[str, str, str, str]]:
    """(each argument's type, dtype=, inexact=, element type) of the cases
    of a dtype= given: any number of array-likes (None is no array-like)."""
    return [
        ("_JaxtypesArrayLike", "_JaxtypesUnknownT", "_jaxtypes_builtins.bool = ...", "_JaxtypesAny"),
        (
            "_JaxtypesArrayLike",
            _given("_JaxtypesGivenInexactT"),
            "_JaxtypesLiteral[True] = ...",
            f"{_ARRAY}[_JaxtypesGivenInexactT]",
        ),
        ("_JaxtypesArrayLike", _given("_JaxtypesGivenT"), "_JaxtypesLiteral[False]", f"{_ARRAY}[_JaxtypesGivenT]"),
    ]


def _none_cases(n: int) -> list[tuple[list[str], str, str]]:
    """The cases of dtype=None with ``n`` arguments: (their types, inexact=, element type)."""
    out: list[tuple[list[str], str, str]] = []
    for k in range(n):  # an array of unknown dtype among them
        types = ["_JaxtypesArrayLike"] * n
        types[k] = _UNKNOWN_ARRAY
        out.append((types, "_jaxtypes_builtins.bool = ...", "_JaxtypesAny"))
    same = f"{_ARRAY}[_JaxtypesSameInexactT]"
    out.append(([same] * n, "_jaxtypes_builtins.bool = ...", same))
    out.append(([_INTEGRAL_ARRAY] * n, "_JaxtypesLiteral[True] = ...", _FLOOR))
    out.append(([f"{_ARRAY}[_JaxtypesSameT]"] * n, "_JaxtypesLiteral[False]", f"{_ARRAY}[_JaxtypesSameT]"))
    return out


def _linen_overloads(doc: str | None) -> list[str]:
    lines: list[str] = []

    def add(params: str, result: str) -> None:
        lines.extend(["@_jaxtypes_overload", f"def promote_dtype({params}) -> {result}:"])
        lines.append(f"    {doc!r}" if doc is not None and len(lines) == 2 else "    ...")

    for args, dtype, inexact, element in _dtype_cases():
        add(f"*args: {args}, dtype: {dtype}, inexact: {inexact}", f"list[{element}]")
    for n in range(1, _MAX_ARITY + 1):
        for types, inexact, element in _none_cases(n):
            params = ", ".join(f"arg{i}: {t}" for i, t in enumerate(types))
            add(f"{params}, /, *, dtype: None = ..., inexact: {inexact}", f"list[{element}]")
    add("*args: _JaxtypesAny, dtype: _JaxtypesAny = ..., inexact: _jaxtypes_builtins.bool = ...", "list[_JaxtypesAny]")
    return lines


def _nnx_overloads(doc: str | None) -> list[str]:
    lines: list[str] = []

    def add(args: str, dtype: str, inexact: str, result: str) -> None:
        lines.extend(
            [
                "@_jaxtypes_overload",
                f"def promote_dtype(args: {args}, /, *, dtype: {dtype}, inexact: {inexact}) -> {result}:",
            ]
        )
        lines.append(f"    {doc!r}" if doc is not None and len(lines) == 2 else "    ...")

    for n in range(1, _MAX_ARITY + 1):
        for args, dtype, inexact, element in _dtype_cases():
            add(f"tuple[{', '.join([args] * n)}]", dtype, inexact, f"tuple[{', '.join([element] * n)}]")
        for types, inexact, element in _none_cases(n):
            add(f"tuple[{', '.join(types)}]", "None = ...", inexact, f"tuple[{', '.join([element] * n)}]")
    add("tuple[_JaxtypesAny, ...]", "_JaxtypesAny = ...", "_jaxtypes_builtins.bool = ...", "tuple[_JaxtypesAny, ...]")
    return lines


def _onehot(doc: str | None) -> list[str]:
    # labels[..., None] == jnp.arange(...), selected between the on and off
    # values, then .astype(jnp.float32): float32 whatever the inputs.
    body = f"    {doc!r}" if doc is not None else "    ..."
    return [
        "def onehot(labels: _JaxtypesAny, num_classes: _jaxtypes_builtins.int, on_value: _JaxtypesAny = ..., "
        f"off_value: _JaxtypesAny = ...) -> {_ARRAY}[{_m('float32')}]:",
        body,
    ]


def _constant_init(name: str) -> Callable[[str | None], list[str]]:
    # zeros_init() and ones_init() return JAX's zeros and ones: an
    # initializer of JAX's default float (the stubs' float32; the mypy
    # plugin answers x64's), or of the dtype a call gives.
    def render(doc: str | None) -> list[str]:
        body = f"    {doc!r}" if doc is not None else "    ..."
        return [
            "import jax.nn.initializers as _jaxtypes_jax_initializers",
            f"def {name}() -> _jaxtypes_jax_initializers.Initializer[{_m('float32')}]:",
            body,
        ]

    return render


_CONSTANT_INITS: Final = {"zeros_init": _constant_init("zeros_init"), "ones_init": _constant_init("ones_init")}
# {module relative to flax's root: {function: its typed declaration}}
MODULES: Final[Mapping[str, Mapping[str, Callable[[str | None], list[str]]]]] = {
    "linen/dtypes.py": {"promote_dtype": _linen_overloads},
    "nnx/nn/dtypes.py": {"promote_dtype": _nnx_overloads},
    "training/common_utils.py": {"onehot": _onehot},
    "linen/initializers.py": _CONSTANT_INITS,
    "nnx/nn/initializers.py": _CONSTANT_INITS,
}


def typed_functions() -> list[str]:
    """The qualified names of the functions these stubs type."""
    return [
        f"flax.{rel[: -len('.py')].replace('/', '.')}.{name}"
        for rel, functions in MODULES.items()
        for name in functions
    ]


def _module_stub(root: Path, rel: str, typed: Mapping[str, Callable[[str | None], list[str]]]) -> str:
    tree = ast.parse((root / rel).read_text(encoding="utf-8"))
    package = "flax." + rel[: -len(".py")].replace("/", ".").rpartition(".")[0]
    kept: list[str] = []
    declared: list[str] = []
    found: set[str] = set()
    for node in stub_view(tree.body):
        if isinstance(node, ast.ImportFrom):
            kept.append(ast.unparse(ast.ImportFrom(absolute_module(node, package), node.names, 0)))
        elif isinstance(node, (ast.Import, ast.Assign, ast.AnnAssign)):
            kept.append(ast.unparse(node))
        elif isinstance(node, ast.FunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if node.name in typed:
                found.add(node.name)
                declared += typed[node.name](doc)
            else:
                fn = stub_def(node)
                if doc is not None:
                    fn.body = [ast.Expr(ast.Constant(doc))]
                declared.append(ast.unparse(fn))
    missing = set(typed) - found
    if missing:
        raise ValueError(f"flax/{rel} defines no {', '.join(sorted(missing))}")
    prelude = _PRELUDE + (_TYPEVARS if "promote_dtype" in typed else "")
    text = "\n".join([*kept, prelude, *declared]) + "\n"
    return ast.unparse(ast.parse(text)) + "\n"


def render(root: Path) -> dict[str, str]:
    """{stub path relative to flax's root: its text} of the modules whose
    helpers are typed (``flax/linen/dtypes.pyi`` ...)."""
    return {rel[: -len(".py")] + ".pyi": _module_stub(root, rel, typed) for rel, typed in MODULES.items()}


# ------------------------------------------------ in a package's stub
@dataclass(frozen=True)
class PackageFunction:
    """A function a Flax package re-exports from a module that also defines
    layers: its name, that module (relative to flax's root), and what makes
    its typed overloads of Flax's declarations of it (qualified as the
    package's stub writes them; Flax's own go after them)."""

    name: str
    source: str
    overloads: Callable[[list[ast.FunctionDef]], list[ast.FunctionDef]]


_PACKAGE_PRELUDE: Final = f"""
from collections.abc import Callable as _JaxtypesCallable
from typing_extensions import ParamSpec as _JaxtypesParamSpec
from jaxtypes.markers import AnyDtype as _JaxtypesMaskUnknownT
# A mask's dtype= given: a dtype x64 does not change.
_JaxtypesMaskT = _JaxtypesTypeVar("_JaxtypesMaskT", bound={" | ".join(map(_m, _KEPT))})
_JaxtypesGradP = _JaxtypesParamSpec("_JaxtypesGradP")
_JaxtypesGradR = _JaxtypesTypeVar("_JaxtypesGradR")
_JaxtypesGradAux = _JaxtypesTypeVar("_JaxtypesGradAux")
"""


def _overload(fn: ast.FunctionDef, returns: str) -> ast.FunctionDef:
    """``fn`` as an ``@overload`` returning ``returns`` (layer_stubs keeps the
    docstring of the first one only, the one a hover shows)."""
    fn.decorator_list = [ast.Name("_jaxtypes_overload", ast.Load())]
    fn.returns = parse_expr(returns)
    return fn


def _mask_overloads(declared: list[ast.FunctionDef]) -> list[ast.FunctionDef]:
    # dtype= left out, typed Any, a known dtype (keyword-only: public code
    # names it); then Flax's signature, of an array of unknown dtype.
    (flax,) = declared
    if "dtype" not in {a.arg for a in all_params(flax)}:
        raise ValueError(f"flax's {flax.name} takes no dtype; the stubs type its dtype= only")
    out: list[ast.FunctionDef] = []
    left_out = without_param(flax, "dtype")
    out.append(_overload(left_out, f"{_ARRAY}[{_m('float32')}]"))
    for dtype, result in (
        ("_JaxtypesMaskUnknownT", f"{_ARRAY}[_JaxtypesAny]"),
        (_given("_JaxtypesMaskT"), f"{_ARRAY}[_JaxtypesMaskT]"),
    ):
        given = without_param(flax, "dtype")
        given.args.kwonlyargs = [*given.args.kwonlyargs, ast.arg("dtype", parse_expr(dtype))]
        given.args.kw_defaults = [*given.args.kw_defaults, None]
        out.append(_overload(given, result))
    out.append(_overload(flax, f"{_ARRAY}[_JaxtypesAny]"))
    return out


def _value_and_grad_overloads(declared: list[ast.FunctionDef]) -> list[ast.FunctionDef]:
    # Flax's overload taking f, with has_aux=True (f returns (value, aux))
    # and left out or False; then Flax's own, the decorator form among them.
    (of_f,) = [fn for fn in declared if any(a.arg == "f" for a in all_params(fn))]
    out: list[ast.FunctionDef] = []
    for f, has_aux, returns in (
        (
            "_JaxtypesCallable[_JaxtypesGradP, tuple[_JaxtypesGradR, _JaxtypesGradAux]]",
            "_JaxtypesLiteral[True]",
            "_JaxtypesCallable[_JaxtypesGradP, tuple[tuple[_JaxtypesGradR, _JaxtypesGradAux], _JaxtypesAny]]",
        ),
        (
            "_JaxtypesCallable[_JaxtypesGradP, _JaxtypesGradR]",
            "_JaxtypesLiteral[False] = ...",
            "_JaxtypesCallable[_JaxtypesGradP, tuple[_JaxtypesGradR, _JaxtypesAny]]",
        ),
    ):
        fn = stub_def(of_f)
        fn.body = of_f.body
        for a in all_params(fn):
            if a.arg == "f":
                a.annotation = parse_expr(f)
        set_keyword(fn, "has_aux", has_aux.removesuffix(" = ..."), default=has_aux.endswith(" = ..."))
        out.append(_overload(fn, returns))
    for fn in declared:
        if fn is of_f:
            # has_aux= required here: a call leaving it out matches the typed
            # overload alone, for mypy answers Any where a function typed
            # with Any (``model: nnx.Linear``) matches two overloads.
            set_keyword(fn, "has_aux", default=False)
        out.append(_overload(fn, ast.unparse(fn.returns) if fn.returns is not None else "_JaxtypesAny"))
    return out


_MASKS: Final = ("make_attention_mask", "make_causal_mask")
# {package's __init__ relative to flax's root: the functions typed in its stub}
PACKAGE_FUNCTIONS: Final[Mapping[str, tuple[PackageFunction, ...]]] = {
    "linen/__init__.py": tuple(PackageFunction(n, "linen/attention.py", _mask_overloads) for n in _MASKS),
    "nnx/__init__.py": (
        *(PackageFunction(n, "nnx/nn/attention.py", _mask_overloads) for n in _MASKS),
        PackageFunction("value_and_grad", "nnx/transforms/autodiff.py", _value_and_grad_overloads),
    ),
}


def package_declarations(root: Path, rel: str) -> tuple[set[str], list[ast.stmt]]:
    """(the names, the declarations) of the functions the stub of the
    package ``rel`` of flax at ``root`` types in place of their imports."""
    functions = PACKAGE_FUNCTIONS.get(rel, ())
    if not functions:
        return set(), []
    out: list[ast.stmt] = ast.parse(_PACKAGE_PRELUDE).body
    imported: set[str] = set()
    for function in functions:
        alias = "_jaxtypes_helper_" + function.source[: -len(".py")].replace("/", "_")
        tree = ast.parse((root / function.source).read_text(encoding="utf-8"))
        found = declarations(stub_view(tree.body)).get(function.name)
        if not found:
            raise ValueError(f"flax/{function.source} defines no {function.name}")
        qualify = Qualifier(alias, module_names(tree))
        declared = [qualified_stub(source, qualify) for source in found]
        module = "flax." + function.source[: -len(".py")].replace("/", ".")
        if alias not in imported:
            out.append(ast.Import([ast.alias(module, alias)]))
            imported.add(alias)
        out += function.overloads(declared)
    return {f.name for f in functions}, out
