"""Stubs giving Flax's and Equinox's layers (and Flax's pooling functions)
the dtype they return (``jaxtypes.layer_rules``).

``flax.linen``, ``flax.nnx`` and ``equinox.nn`` re-export their layers from
the modules that define them (``flax/linen/__init__.py`` is imports only).  The stub of such a
package (``render``) keeps its imports, made absolute, and declares each
typed layer in place of its import: a subclass of the real class, generic in
its computation dtype and its parameters' dtype, whose ``__init__``
overloads read the ``dtype=`` and ``param_dtype=`` arguments and whose
``__call__`` (and ``Embed.attend``) overloads give the output dtype of
``jaxtypes.layer_rules``' rule.  Everything else about the layer (its fields, its
other methods) is the real class's, inherited.  An Equinox layer has one
dtype, its parameters' (``dtype=``; left out, JAX's default float, given
for x64 off as everywhere in the stubs); a pooling function is declared in
place of its import with overloads for the dtypes it keeps.

Only answers that hold with x64 on and off are typed (a float64 input or
``param_dtype=jnp.float64`` gives ``Array[Any]``), as are calls whose dtype
is not known statically (``dtype=self.dtype`` typed ``Any``, or a
``jnp.dtype``): the first overloads catch an argument typed ``Any``
(``_UnknownArgument``, which nothing derives from, matches only ``Any``),
and a positional ``dtype`` falls to the layer's own signature, also
``Array[Any]``.
"""

from __future__ import annotations

import ast
import copy
import functools
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from jaxtypes import lattice, layer_rules
from jaxtypes._stubgen import flax_helpers, function_overloads, variable_stubs
from jaxtypes._stubgen.record import LAYER_LIBRARIES, PackageInstall, find_installed
from jaxtypes._stubgen.syntax import Qualifier as _Qualifier
from jaxtypes._stubgen.syntax import (
    absolute_module,
    all_params,
    is_overload,
    parse_expr,
    positional_params,
    qualified_stub,
    stub_view,
)
from jaxtypes._stubgen.syntax import module_names as _module_names

__all__ = [
    "LAYER_LIBRARIES",
    "LIBRARIES",
    "LayerClass",
    "LayerInstall",
    "locate",
    "render",
    "render_package",
    "status",
    "typed_layers",
]


@dataclass(frozen=True)
class LayerInstall(PackageInstall):
    library: str  # a key of LIBRARIES: "flax", "equinox"

    @property
    def supported(self) -> bool:
        return self.version in LAYER_LIBRARIES[self.library]


def locate(library: str) -> LayerInstall | None:
    """The ``library`` installed in this environment (found without importing it), if any."""
    found = find_installed(library)
    return None if found is None else LayerInstall(found.root, found.version, library)


def status(install: LayerInstall | None) -> str | None:
    """One line on what the stubs do for an installed layer library; None when it is not installed."""
    if install is None:
        return None
    library = install.library
    if install.supported:
        packages = ", ".join(package for package, _ in LIBRARIES[library].values())
        typed = typed_layers(library)
        functions = sum(1 for entry in _entries(library) if isinstance(entry, LayerFunction))
        counted = f"{len(typed) - functions} classes" + (f", {functions} functions" if functions else "")
        return f"{library} {install.version}: the layers of {packages} are typed ({counted})"
    return (
        f"{library} {install.version} is not a version these stubs know "
        f"(supported: {', '.join(LAYER_LIBRARIES[library])}): its layers keep {library}'s own typing"
    )


def render(install: LayerInstall) -> dict[str, str]:
    """{stub path relative to the library's root: its text} for a supported release."""
    return {
        rel[: -len(".py")] + ".pyi": render_package(install.root, rel, install.library)
        for rel in LIBRARIES[install.library]
    }


@dataclass(frozen=True)
class LayerClass:
    """A layer re-exported by a package: its public name, the module defining
    it (relative to its library's root), its rule in ``jaxtypes.layer_rules.RULES``, and
    the rule of its ``attend`` method, if typed."""

    name: str
    source: str
    rule: str
    attend: str | None = None
    # Array parameters that must be left out (None) for the rule to apply:
    # an attention layer typed for self-attention only.
    absent: tuple[str, ...] = ()


@dataclass(frozen=True)
class LayerFunction:
    """A function a package re-exports (Flax's pooling), typed by its rule in
    ``jaxtypes.layer_rules.RULES``: an input of a dtype it keeps gives that dtype."""

    name: str
    source: str
    rule: str


def _pool(name: str) -> LayerFunction:
    return LayerFunction(name, "linen/pooling.py", f"flax.linen.pooling.{name}")


# Linen's deprecated keyword of one array for keys and values: left out.
_INPUTS_KV: Final = ("inputs_kv",)


def _layer(
    package: str, directory: str, name: str, source: str, attend: bool = False, absent: tuple[str, ...] = ()
) -> LayerClass:
    rule = f"{package}.{name}"
    return LayerClass(name, f"{directory}/{source}.py", rule, f"{rule}.attend" if attend else None, absent)


def _linen(name: str, source: str, attend: bool = False, absent: tuple[str, ...] = ()) -> LayerClass:
    return _layer("flax.linen", "linen", name, source, attend, absent)


def _nnx(name: str, source: str, attend: bool = False, absent: tuple[str, ...] = ()) -> LayerClass:
    return _layer("flax.nnx", "nnx/nn", name, source, attend, absent)


def _eqx(name: str, source: str) -> LayerClass:
    return _layer("equinox.nn", "nn", name, f"_{source}")


Typed = tuple[LayerClass | LayerFunction, ...]
# {package's __init__ relative to flax's root: (package, its typed layers and functions)}
_FLAX_PACKAGES: Final[Mapping[str, tuple[str, Typed]]] = {
    "linen/__init__.py": (
        "flax.linen",
        (
            *(_linen(n, "linear") for n in ("Dense", "DenseGeneral", "Einsum", "Conv", "ConvTranspose")),
            _linen("Embed", "linear", attend=True),
            *(_linen(n, "normalization") for n in ("LayerNorm", "RMSNorm", "GroupNorm", "BatchNorm")),
            _linen("Dropout", "stochastic"),
            _linen("MultiHeadDotProductAttention", "attention", absent=_INPUTS_KV),
            _pool("avg_pool"),
            _pool("max_pool"),
        ),
    ),
    "nnx/__init__.py": (
        "flax.nnx",
        (
            *(_nnx(n, "linear") for n in ("Linear", "LinearGeneral", "Einsum", "Conv", "ConvTranspose")),
            _nnx("Embed", "linear", attend=True),
            *(_nnx(n, "normalization") for n in ("LayerNorm", "RMSNorm", "GroupNorm", "BatchNorm")),
            _nnx("Dropout", "stochastic"),
            _nnx("MultiHeadAttention", "attention"),
            *(_pool(name) for name in ("avg_pool", "max_pool", "min_pool")),
        ),
    ),
}
# The same for equinox.  MultiheadAttention's query, key and value each take
# the input's type of an overload (layer_rules.INPUTS): the overload's answer is
# each one's alone, and so theirs together (JAX's promotion is a join).
_EQUINOX_PACKAGES: Final[Mapping[str, tuple[str, Typed]]] = {
    "nn/__init__.py": (
        "equinox.nn",
        (
            _eqx("Linear", "linear"),
            _eqx("MLP", "mlp"),
            *(_eqx(name, "conv") for name in layer_rules.EQX_CONVOLUTIONS),
            _eqx("Embedding", "embedding"),
            *(_eqx(n, "normalisation") for n in ("LayerNorm", "RMSNorm", "GroupNorm")),
            _eqx("Dropout", "dropout"),
            _eqx("MultiheadAttention", "attention"),
            *(_eqx(f"{kind}Pool{n}d", "pool") for kind in ("Max", "Avg") for n in (1, 2, 3)),
        ),
    )
}
EQUINOX_TYPED_CLASSES: Final = frozenset(c.name for _, typed in _EQUINOX_PACKAGES.values() for c in typed)
"""The Equinox layers the stubs make generic (``Linear[NoDtype, float32]``)."""
# {library: its packages}; each library's supported releases: record.LAYER_LIBRARIES.
LIBRARIES: Final[Mapping[str, Mapping[str, tuple[str, Typed]]]] = {"flax": _FLAX_PACKAGES, "equinox": _EQUINOX_PACKAGES}

_MARKERS: Final = "_jaxtypes_markers"
_OVERRIDE_IGNORE: Final = "  # ty: ignore[incompatible-method-override]"
_FIELD_IGNORE: Final = (
    "  # pyrefly: ignore[bad-override-mutable-attribute]  # ty: ignore[incompatible-attribute-override]"
)
_PARAM_FIELD: Final = "Param[_jaxtypes_jax.Array[_JaxtypesLayerParamT]]"
_JAX_ARRAY: Final = "_jaxtypes_jax.Array"
# The parameters' dtypes typed: those whose rule needs no x64 setting.
_PARAM_DTYPES: Final = ("float32", "bfloat16", "float16")
_X32, _X64 = lattice.variant("standard", False), lattice.variant("standard", True)
# The dtype= arguments typed: those tools/oracle/make_layer_tables.py runs
# each layer with (float64 aside: x64 decides it), where the rule accepts them.
_GIVEN_DTYPES: Final = ("bfloat16", "float16", "float32", "float8_e4m3fn", "complex64", "int32")
_FLOATS: Final = tuple(n for n in lattice.STRONG if lattice.kind(n) in "fc")


def _marker(node: str) -> str:
    return f"{_MARKERS}.{lattice.MARKER_NAME.get(node, node)}"


def _union(nodes: tuple[str, ...] | list[str]) -> str:
    return " | ".join(_marker(n) for n in nodes)


_PRELUDE: Final = f"""
import builtins as _jaxtypes_builtins
from typing import Any as _JaxtypesAny, Generic as _JaxtypesGeneric, Literal as _JaxtypesLiteral, overload as _jaxtypes_overload, type_check_only as _jaxtypes_type_check_only
from typing_extensions import TypeVar as _JaxtypesTypeVar
import jax as _jaxtypes_jax
import jaxtypes.markers as {_MARKERS}

# The computation dtype of a layer made without ``dtype``, the markers' public
# class (a hover shows ``Dense[NoDtype, float32]``), imported under a private name.
from jaxtypes.markers import NoDtype as _JaxtypesNoDtype

# What a dtype argument of a known marker is (jnp.float32, x.dtype): the public
# alias, which an IDE's hover shows by its name.
from jaxtypes.typing import DType as _JaxtypesDType

# The TypeVars of dtype= and param_dtype=, which an IDE's hover on a layer's
# class shows (``dtype: DType[D@__init__]``): declared by the
# markers stub under public-looking names (jaxtypes._stubgen.function_overloads),
# imported under private ones, which the package does not export.  (So are
# the bounded ones, ``_bounded_typevars``.)
from jaxtypes.markers import {function_overloads.UNKNOWN_VAR} as _JaxtypesUnknownT, {function_overloads.PARAM_DTYPE_VAR} as _JaxtypesParamT, {function_overloads.RESULT_TYPEVAR_NAMES[function_overloads.RESULT_VAR]} as _JaxtypesDtypeT
# The class's own parameters: an __init__'s self type may not use them (ty).
# Covariant, so that a layer made without dtype (Linear[NoDtype, DefaultFloat])
# is a field declared Linear[NoDtype, float32].
_JaxtypesLayerDtypeT = _JaxtypesTypeVar("_JaxtypesLayerDtypeT", covariant=True)
_JaxtypesLayerParamT = _JaxtypesTypeVar("_JaxtypesLayerParamT", covariant=True)
"""
# Equinox's parameters default to JAX's default float, which x64 decides: the
# stubs give it as float32 (x64 off, as everywhere in them), and the mypy
# plugin answers for the project's x64 setting.
_DEFAULT_FLOAT: Final = "_JaxtypesDefaultFloat"
_EQUINOX_PRELUDE: Final = f"""
from jaxtypes.markers import DefaultFloat as {_DEFAULT_FLOAT}
"""
# The class standing for "JAX's default float", declared in the markers stub
# (marker_typevar_lines), whose name a hover shows ("no dtype" is the package's
# own jaxtypes.markers.NoDtype, public as jaxtypes.typing.NoDtype).
_MARKER_CLASSES: Final = (
    # A float32 to the checkers, as everywhere in the stubs (x64 off), so that
    # such a layer is one of float32 parameters; the mypy plugin reads the
    # class itself and answers for the project's x64 setting.
    '@type_check_only\nclass DefaultFloat(float32):\n    """The dtype of an Equinox layer made without ``dtype``:'
    ' JAX\'s default float (float32; float64 with x64 on)."""',
)


def _dtype_argument(var: str) -> str:
    # What a dtype argument of a known marker is: jnp.float32 (a marker class), x.dtype.
    return f"_JaxtypesDType[{var}]"


def _outputs_by_input(
    rule: str, param: str | None, variants: tuple[lattice.Variant, ...] = (_X32, _X64)
) -> dict[str, list[str]]:
    """{output node: the input nodes giving it} for ``param_dtype`` (None:
    left out), over the inputs whose answer is the same in ``variants`` (by
    default x64 off and on: the answers x64 does not change)."""
    out: dict[str, list[str]] = {}
    for node in lattice.STRONG:
        answers = {layer_rules.result(rule, node, v, param_dtype=param).node for v in variants}
        answer = answers.pop() if len(answers) == 1 else None
        if answer is not None:
            out.setdefault(answer, []).append(node)
    return out


def _x64_off_outputs(rule: str) -> dict[str, list[str]]:
    """``_outputs_by_input`` with x64 off, the parameters in the default float
    (Equinox's ``dtype`` left out)."""
    return _outputs_by_input(rule, None, (_X32,))


def _classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}


def _lineage(cls: ast.ClassDef, classes: Mapping[str, ast.ClassDef]) -> list[ast.ClassDef]:
    """The class and its bases defined in the same module, base first."""
    out = [cls]
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id in classes:
            out = _lineage(classes[base.id], classes) + out
    return out


def _method(lineage: list[ast.ClassDef], name: str) -> ast.FunctionDef | None:
    found = _methods(lineage, name)
    return found[0] if found else None


def _methods(lineage: list[ast.ClassDef], name: str) -> list[ast.FunctionDef]:
    """The signatures of method ``name`` in the nearest class defining it: its
    ``@overload`` declarations when it has them, else its one definition."""
    for cls in reversed(lineage):
        defs = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name]
        if defs:
            overloads = [d for d in defs if is_overload(d)]
            return overloads or defs[:1]
    return []


def _dataclass_init(lineage: list[ast.ClassDef]) -> ast.FunctionDef:
    """The ``__init__`` a Linen module's fields make (``dataclass_transform``):
    its fields in order, then Module's ``parent`` and ``name``, keyword-only."""
    fields: dict[str, ast.arg] = {}
    defaults: dict[str, bool] = {}
    for cls in lineage:
        for node in cls.body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                if "ClassVar" in ast.unparse(node.annotation) or node.target.id.startswith("_"):
                    continue
                fields[node.target.id] = ast.arg(node.target.id, node.annotation)
                defaults[node.target.id] = node.value is not None
    args = list(fields.values())
    required = [a for a in args if not defaults[a.arg]]
    optional = [a for a in args if defaults[a.arg]]
    fn = ast.parse(
        "def __init__(self, *, parent: _JaxtypesAny = ..., name: _jaxtypes_builtins.str | None = ...) -> None: ..."
    ).body[0]
    assert isinstance(fn, ast.FunctionDef)
    fn.args.args = [fn.args.args[0], *required, *optional]
    fn.args.defaults = [ast.Constant(...) for _ in optional]
    return fn


def _docstring(node: ast.ClassDef | ast.FunctionDef) -> ast.Expr | None:
    """The docstring statement of a class or function of the library's
    source, as written (an IDE's hover shows it, cleaned, as it does the
    library's own), or None when it has none."""
    doc = ast.get_docstring(node, clean=False)
    return None if doc is None else ast.Expr(ast.Constant(doc))


def _docstrings_once(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with a docstring on the first declaration of each function
    only (pyright and basedpyright show it for every overload; the stub is
    half the size)."""
    seen: set[str] = set()
    for node in body:
        if isinstance(node, ast.FunctionDef):
            if node.name in seen:
                node.body = [ast.Expr(ast.Constant(...))]
            seen.add(node.name)
    return body


def _overload(fn: ast.FunctionDef) -> ast.FunctionDef:
    fn.decorator_list = [ast.Name("_jaxtypes_overload", ast.Load())]
    return fn


def _set_self(fn: ast.FunctionDef, self_type: str) -> None:
    first = positional_params(fn)[0]
    first.annotation = parse_expr(self_type)


def _with_dtypes(init: ast.FunctionDef, wanted: Mapping[str, str], self_type: str) -> ast.FunctionDef | None:
    """An ``__init__`` overload: ``dtype`` and ``param_dtype`` annotated as
    ``wanted`` says ("omit": left out; not in it: as the layer declares),
    every parameter from the first of them on keyword-only; None when the
    layer has no ``dtype``."""
    fn = copy.deepcopy(init)
    _set_self(fn, self_type)
    a = fn.args
    positional = positional_params(fn)
    if "dtype" not in {p.arg for p in all_params(fn)}:
        return None
    first_default = len(positional) - len(a.defaults)
    cut = next((i for i, p in enumerate(positional) if p.arg in ("dtype", "param_dtype")), len(positional))
    moved = positional[cut:]
    moved_defaults = [
        a.defaults[i - first_default] if i >= first_default else None for i in range(cut, len(positional))
    ]
    a.posonlyargs = [p for p in a.posonlyargs if p in positional[:cut]]
    a.args = [p for p in a.args if p in positional[:cut]]
    a.defaults = a.defaults[: max(0, cut - first_default)]
    a.kwonlyargs = moved + a.kwonlyargs
    a.kw_defaults = moved_defaults + a.kw_defaults
    kept_args: list[ast.arg] = []
    kept_defaults: list[ast.expr | None] = []
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        annotation = wanted.get(p.arg)
        if annotation == "omit":
            continue
        if annotation is not None:
            p = ast.arg(p.arg, parse_expr(annotation.removesuffix(" = ...")))
            d = ast.Constant(...) if annotation.endswith(" = ...") else None
        kept_args.append(p)
        kept_defaults.append(d)
    a.kwonlyargs, a.kw_defaults = kept_args, kept_defaults
    return _overload(fn)


def _init_plans(cls: str, library: str) -> list[tuple[dict[str, str], str]]:
    """({dtype parameter: its annotation}, self type) of each typed ``__init__`` overload."""
    unknown, no_dtype = "_JaxtypesUnknownT", "_JaxtypesNoDtype"
    if library == "equinox":  # one dtype, the parameters'
        return [
            ({"dtype": unknown}, f"{cls}[{no_dtype}, _JaxtypesAny]"),
            ({"dtype": "None = ..."}, f"{cls}[{no_dtype}, {_DEFAULT_FLOAT}]"),
            ({"dtype": _dtype_argument("_JaxtypesParamT")}, f"{cls}[{no_dtype}, _JaxtypesParamT]"),
        ]
    return [
        ({"dtype": unknown}, f"{cls}[_JaxtypesAny, _JaxtypesAny]"),
        ({"dtype": "None = ...", "param_dtype": unknown}, f"{cls}[{no_dtype}, _JaxtypesAny]"),
        ({"dtype": "None = ...", "param_dtype": "omit"}, f"{cls}[{no_dtype}, {_marker(layer_rules.FLAX_PARAM_DTYPE)}]"),
        (
            {"dtype": "None = ...", "param_dtype": _dtype_argument("_JaxtypesParamT")},
            f"{cls}[{no_dtype}, _JaxtypesParamT]",
        ),
        # dtype= given: the parameters' dtype still matters to what the
        # layer holds (nnx's kernel, bias...: _param_fields).
        (
            {"dtype": _dtype_argument("_JaxtypesDtypeT"), "param_dtype": unknown},
            f"{cls}[_JaxtypesDtypeT, _JaxtypesAny]",
        ),
        (
            {"dtype": _dtype_argument("_JaxtypesDtypeT"), "param_dtype": "omit"},
            f"{cls}[_JaxtypesDtypeT, {_marker(layer_rules.FLAX_PARAM_DTYPE)}]",
        ),
        (
            {"dtype": _dtype_argument("_JaxtypesDtypeT"), "param_dtype": _dtype_argument("_JaxtypesParamT")},
            f"{cls}[_JaxtypesDtypeT, _JaxtypesParamT]",
        ),
        # dtype= known, param_dtype= of a dtype no type says (a config's
        # ``param_dtype: jnp.dtype``, a string): the output is still dtype=.
        ({"dtype": _dtype_argument("_JaxtypesDtypeT")}, f"{cls}[_JaxtypesDtypeT, _JaxtypesAny]"),
    ]


def _init_overloads(cls: str, init: ast.FunctionDef, library: str) -> list[ast.FunctionDef]:
    plans = _init_plans(cls, library)
    out = [fn for wanted, self_type in plans if (fn := _with_dtypes(init, wanted, self_type)) is not None]
    last = copy.deepcopy(init)
    _set_self(last, f"{cls}[_JaxtypesAny, _JaxtypesAny]")
    out.append(_overload(last))
    if library == "equinox":
        # Equinox's Module declares __new__ (returning the class it is given),
        # and ty and pyrefly take the type it returns, unparametrized, over the
        # self type of the __init__ overload: __new__ says the same.
        out += [_as_new(fn) for fn in out]
    return out


def _as_new(init: ast.FunctionDef) -> ast.FunctionDef:
    """The ``__new__`` overload matching an ``__init__`` overload: the same
    parameters, returning its self type."""
    fn = copy.deepcopy(init)
    fn.name = "__new__"
    first = positional_params(fn)[0]
    fn.returns, first.annotation = first.annotation, None
    first.arg = "cls"
    return fn


def _inputs(fn: ast.FunctionDef, count: int = 1) -> list[ast.arg]:
    """The layer's input arrays: the positional parameters after self."""
    return positional_params(fn)[1 : 1 + count]


def _overload_of(
    call: ast.FunctionDef,
    self_type: str,
    input_type: str | None,
    result: str | None,
    absent: tuple[str, ...] = (),
    inputs: Sequence[int] = (0,),
) -> ast.FunctionDef:
    """An overload of ``call`` whose inputs at the positions ``inputs`` take ``input_type``."""
    fn = copy.deepcopy(call)
    _set_self(fn, self_type)
    if input_type is not None:
        params = _inputs(fn, max(inputs) + 1)
        for i in inputs:
            params[i].annotation = parse_expr(input_type)
    for a in all_params(fn):
        if a.arg in absent:
            a.annotation = ast.Constant(None)
    if result is not None:
        fn.returns = parse_expr(result)
    return _overload(fn)


def _required_through(fn: ast.FunctionDef, index: int) -> None:
    """Make the positional parameters up to ``index`` (self is 0) take no default."""
    positional = len(fn.args.posonlyargs) + len(fn.args.args)
    keep = max(positional - (index + 1), 0)
    fn.args.defaults = fn.args.defaults[len(fn.args.defaults) - min(keep, len(fn.args.defaults)) :]


def _takes_state(call: ast.FunctionDef) -> bool:
    """Whether a signature also takes and returns a state (Equinox's
    normalizations: ``norm(x, state)`` is ``(output, state)``)."""
    return "state" in {a.arg for a in all_params(call)}


def _call_overloads(
    cls: str, calls: list[ast.FunctionDef], rule: str, generic: bool, absent: tuple[str, ...] = ()
) -> list[ast.FunctionDef]:
    """The overloads of a method whose output the layer rule ``rule`` gives,
    from its signatures ``calls``: the first that takes no state typed (with
    ``absent`` left out), then each as the layer declares it, giving
    ``Array[Any]`` (or, taking a state, what it declares)."""
    anything = f"{_JAX_ARRAY}[_JaxtypesAny]"
    array_call = next((c for c in calls if not _takes_state(c)), calls[0])
    count = layer_rules.INPUTS.get(rule, 1)
    typed: list[ast.FunctionDef] = []
    for self_type, input_type, result in _typed_cases(cls, rule, generic):
        if input_type == _UNKNOWN_INPUT and count > 1:
            # any one input of unknown dtype: each its own overload (one
            # TypeVar for all would have to match every input), which takes
            # that input (Flax's keys and values default to the query: left
            # out, they would match a TypeVar of their own)
            for i in range(count):
                fn = _overload_of(array_call, self_type, input_type, result, absent, (i,))
                _required_through(fn, i + 1)
                typed.append(fn)
        else:
            typed.append(_overload_of(array_call, self_type, input_type, result, absent, tuple(range(count))))
    return typed + [_overload_of(call, cls, None, None if _takes_state(call) else anything) for call in calls]


def _by_input(
    cls: str, self_param: str, outputs: Mapping[str, list[str]], keeps: bool = False
) -> list[tuple[str, str | None, str]]:
    """One typed case per output: the inputs giving it, for a layer whose
    parameters' dtype is ``self_param``; with ``keeps``, the inputs that keep
    their dtype in one case (``_kept_var``)."""
    self_type = f"{cls}[_JaxtypesNoDtype, {self_param}]"
    kept = [result for result, inputs in outputs.items() if inputs == [result]] if keeps else []
    out: list[tuple[str, str | None, str]] = (
        [(self_type, f"{_JAX_ARRAY}[{_kept_var(kept)}]", f"{_JAX_ARRAY}[{_kept_var(kept)}]")] if kept else []
    )
    return out + [
        (self_type, f"{_JAX_ARRAY}[{_union(inputs)}]", f"{_JAX_ARRAY}[{_marker(result)}]")
        for result, inputs in outputs.items()
        if result not in kept
    ]


def _kept_var(nodes: list[str]) -> str:
    """The TypeVar bound to ``nodes`` (``_kept_vars`` declares it)."""
    return f"_JaxtypesKept{len(nodes)}_{zlib.crc32(' '.join(nodes).encode()):08x}"


def _kept_vars(rules: list[str]) -> dict[str, tuple[str, ...]]:
    """{TypeVar: its bound's nodes} of the dtypes a layer of ``rules``
    keeps ("keeps" family, per parameters' dtype) or a function keeps."""
    lines: dict[str, tuple[str, ...]] = {}
    for rule in rules:
        family = layer_rules.RULES[rule].family
        if family == "keeps":
            every = [_outputs_by_input(rule, p) for p in _PARAM_DTYPES] + [_x64_off_outputs(rule)]
            kept_sets = [[result for result, inputs in outputs.items() if inputs == [result]] for outputs in every]
        elif family in _FUNCTION_FAMILIES or family in _POOLING_FAMILIES:
            kept_sets = [_kept_inputs(rule)]
        else:
            continue
        for kept in kept_sets:
            if kept:
                lines[_kept_var(kept)] = tuple(kept)
    return lines


# The families of functions (Flax's pooling), typed for the inputs whose dtype they keep.
_FUNCTION_FAMILIES: Final = ("pool", "average")
# The families of layers without parameters (Equinox's pooling), typed the same way.
_POOLING_FAMILIES: Final = ("pool", "window_average")


def _kept_inputs(rule: str) -> list[str]:
    """The input nodes a function of ``rule`` returns as they are, x64 on and off."""
    return [result for result, inputs in _outputs_by_input(rule, None).items() if result in inputs]


def _function_overloads(function: LayerFunction, tree: ast.Module, alias: str) -> list[ast.stmt]:
    """The overloads of a function that keeps its input's dtype: one for an
    input of unknown dtype, one for the dtypes it keeps (``avg_pool`` counting
    the padding, its default), then its own signature giving ``Array[Any]``."""
    source = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function.name)
    declared = qualified_stub(source, _Qualifier(alias, _module_names(tree)))
    kept = _kept_var(_kept_inputs(function.rule))
    anything = f"{_JAX_ARRAY}[_JaxtypesAny]"
    out: list[ast.stmt] = []
    for input_type, result in (
        (f"{_JAX_ARRAY}[_JaxtypesUnknownT]", anything),
        (f"{_JAX_ARRAY}[{kept}]", f"{_JAX_ARRAY}[{kept}]"),
    ):
        fn = copy.deepcopy(declared)
        positional_params(fn)[0].annotation = parse_expr(input_type)
        for a in all_params(fn):
            if a.arg == "count_include_pad":  # (False divides by a float32 count)
                a.annotation = parse_expr("_JaxtypesLiteral[True]")
        fn.returns = parse_expr(result)
        out.append(_overload(fn))
    last = copy.deepcopy(declared)
    last.returns = parse_expr(anything)
    return [*out, _overload(last)]


_UNKNOWN_INPUT: Final = f"{_JAX_ARRAY}[_JaxtypesUnknownT]"


def _typed_cases(cls: str, rule: str, generic: bool) -> list[tuple[str, str | None, str]]:
    """(self type, input type or None for the declared one, result) of each
    typed overload, in the order a checker must try them."""
    family = layer_rules.RULES[rule].family
    equinox = rule.startswith("equinox.")
    anything = f"{_JAX_ARRAY}[_JaxtypesAny]"
    # An input of unknown dtype (Array[Any]) matches only its own overloads
    # (mypy takes the first overload an Array[Any] matches, whatever the others say).
    unknown_input = _UNKNOWN_INPUT
    if not generic and family in _POOLING_FAMILIES:
        # Equinox's pooling: the input's dtype, for each dtype it keeps
        # with x64 on and off (as Flax's max_pool function).
        kept = f"{_JAX_ARRAY}[{_kept_var(_kept_inputs(rule))}]"
        return [(cls, unknown_input, anything), (cls, kept, kept)]
    if not generic:
        # Dropout: the input's dtype, for a float or complex input (Equinox's
        # returns an integer input as it is in inference mode, else as a float:
        # not typed).
        dropout: list[tuple[str, str | None, str]] = [
            (cls, unknown_input, anything),
            (cls, f"{_JAX_ARRAY}[_JaxtypesFloatT]", f"{_JAX_ARRAY}[_JaxtypesFloatT]"),
        ]
        return dropout
    out: list[tuple[str, str | None, str]] = [
        (f"{cls}[_JaxtypesUnknownT, _JaxtypesAny]", None, anything),
        (f"{cls}[_JaxtypesNoDtype, _JaxtypesUnknownT]", None, anything),
    ]
    if family in ("flax_embed", "param"):  # the parameters' dtype, whatever the input
        if equinox:  # (first: JAX's default float is a float32 the variable would keep)
            default = _marker(lattice.default_dtype("f", False))
            out.append((f"{cls}[_JaxtypesNoDtype, {_DEFAULT_FLOAT}]", None, f"{_JAX_ARRAY}[{default}]"))
        out.append((f"{cls}[_JaxtypesNoDtype, _JaxtypesParamDtypeT]", None, f"{_JAX_ARRAY}[_JaxtypesParamDtypeT]"))
    else:
        out.append((f"{cls}[_JaxtypesNoDtype, _JaxtypesAny]", unknown_input, anything))
        keeps = family == "keeps"
        for param in _PARAM_DTYPES:
            out += _by_input(cls, _marker(param), _outputs_by_input(rule, param), keeps)
        if equinox:
            out += _by_input(cls, _DEFAULT_FLOAT, _x64_off_outputs(rule), keeps)
    out.append((f"{cls}[_JaxtypesNoDtype, _JaxtypesAny]", None, anything))
    given = None if equinox else _given_dtype_var(rule)
    if given is not None:
        out.append((f"{cls}[{given}, _JaxtypesAny]", _inputs_with_given_dtype(rule), f"{_JAX_ARRAY}[{given}]"))
    return out


def _given_dtypes(rule: str) -> tuple[str, ...]:
    """The dtype= arguments whose output the rule gives as that dtype, x64
    on and off, for a float32 input."""
    return tuple(
        d
        for d in _GIVEN_DTYPES
        if layer_rules.result(rule, "float32", _X32, dtype=d).node
        == d
        == layer_rules.result(rule, "float32", _X64, dtype=d).node
    )


def _given_dtype_var(rule: str) -> str | None:
    """The TypeVar bound to ``_given_dtypes(rule)`` (``_given_dtype_vars``)."""
    dtypes = _given_dtypes(rule)
    return f"_JaxtypesGiven_{'_'.join(dtypes)}" if dtypes else None


def _given_dtype_vars(rules: list[str]) -> dict[str, tuple[str, ...]]:
    """{TypeVar ``_given_dtype_var`` names: its bound's nodes}."""
    lines: dict[str, tuple[str, ...]] = {}
    for rule in rules:
        name = _given_dtype_var(rule)
        if name is not None:
            lines[name] = _given_dtypes(rule)
    return lines


def _rules(typed: Typed) -> list[str]:
    """The rules of these layers and functions (and of their ``attend``)."""
    return [r for entry in typed for r in (entry.rule, getattr(entry, "attend", None)) if r is not None]


def _bounded_typevars(rules: list[str], library: str) -> dict[str, tuple[str, ...]]:
    """{TypeVar (as a package's stub names it): its bound's nodes} of the
    bounded TypeVars the stub of a package of ``rules`` uses."""
    out = {"_JaxtypesParamDtypeT": _PARAM_DTYPES, "_JaxtypesFloatT": _FLOATS} | _kept_vars(rules)
    return out if library == "equinox" else out | _given_dtype_vars(rules)


# What an IDE's hover on a layer's method or a pooling function shows of its
# bounded TypeVars (``avg_pool(...) -> Array[KeptDtype1@avg_pool]``): public-
# looking names, declared by the markers stub (``marker_typevar_lines``), as
# a Flax module would export its own, and imported under the private ones.
_PUBLIC_FIXED: Final = {"_JaxtypesParamDtypeT": "ParamFloat", "_JaxtypesFloatT": "InexactDtype"}
_PUBLIC_NUMBERED: Final = {"_JaxtypesKept": "KeptDtype", "_JaxtypesGiven_": "GivenLayerDtype"}


@functools.lru_cache(maxsize=None)
def _public_typevars() -> dict[str, tuple[str, tuple[str, ...]]]:
    """{TypeVar as a package's stub names it: (its name in the markers stub,
    its bound's nodes)}, over every package of every library."""
    found: dict[str, tuple[str, ...]] = {}
    for library, packages in LIBRARIES.items():
        for _, typed in packages.values():
            found |= _bounded_typevars(_rules(typed), library)
    out: dict[str, tuple[str, tuple[str, ...]]] = {}
    counts = dict.fromkeys(_PUBLIC_NUMBERED.values(), 0)
    for local in sorted(found):
        public = _PUBLIC_FIXED.get(local)
        if public is None:
            (prefix,) = [p for p in _PUBLIC_NUMBERED if local.startswith(p)]
            stem = _PUBLIC_NUMBERED[prefix]
            public, counts[stem] = f"{stem}{counts[stem]}", counts[stem] + 1
        out[local] = (public, found[local])
    return out


def marker_typevar_lines() -> list[str]:
    """The declarations of the layer stubs' bounded TypeVars, and of the
    class of "JAX's default float", in the markers stub
    (``jaxtypes._stubgen.function_overloads.transform_markers`` adds them)."""
    return [
        *(
            f'{public} = TypeVar("{public}", bound={" | ".join(lattice.MARKER_NAME[n] for n in nodes)})'
            for public, nodes in _public_typevars().values()
        ),
        *_MARKER_CLASSES,
    ]


def _typevar_imports(rules: list[str], library: str) -> str:
    """The import of the bounded TypeVars a package's stub uses, under its names for them."""
    public = _public_typevars()
    names = ", ".join(f"{public[local][0]} as {local}" for local in _bounded_typevars(rules, library))
    return f"from jaxtypes.markers import {names}"


def _inputs_with_given_dtype(rule: str) -> str | None:
    """The inputs a layer given a dtype accepts (Linen's normalizations refuse
    those that do not promote with float32), as an annotation; None: any."""
    inputs = [
        n
        for n in lattice.STRONG
        if layer_rules.result(rule, n, _X32, dtype="float32").ok
        and layer_rules.result(rule, n, _X64, dtype="float32").ok
    ]
    return None if len(inputs) == len(lattice.STRONG) else f"{_JAX_ARRAY}[{_union(inputs)}]"


# The families of layers that take no dtype (Dropout, Equinox's pooling): not generic.
_WITHOUT_DTYPE: Final = ("float_keeps", "to_float", *_POOLING_FAMILIES)
_RULE_SOURCE: Final = {"flax": "FLIP 1777", "equinox": "JAX's promotion of its input and parameters"}


def _is_generic(layer: LayerClass) -> bool:
    return layer_rules.RULES[layer.rule].family not in _WITHOUT_DTYPE


def _is_param_call(node: ast.expr) -> bool:
    """``nnx.Param(...)`` (or ``Param(...)``) whose arguments read the
    layer's ``param_dtype``: a parameter made in that dtype."""
    if not isinstance(node, ast.Call) or ast.unparse(node.func) not in ("nnx.Param", "Param"):
        return False
    return any(
        isinstance(n, (ast.Name, ast.Attribute)) and ast.unparse(n).endswith("param_dtype") for n in ast.walk(node)
    )


def _param_fields(init: ast.FunctionDef) -> list[ast.stmt]:
    """Declarations of an NNX layer's parameters its ``__init__`` makes in
    ``param_dtype`` (``self.kernel = nnx.Param(kernel_init(key, shape,
    self.param_dtype))``), as ``nnx.Param`` of an array of the layer's
    parameter dtype, optional where Flax declares or makes them so
    (``self.bias: nnx.Param[jax.Array] | None``, ``nnx.data(None)``)."""
    made: dict[str, bool] = {}
    optional: set[str] = set()
    for node in ast.walk(init):
        target: ast.expr | None = None
        value: ast.expr | None = None
        if isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
            if "None" in ast.unparse(node.annotation):
                optional.add(ast.unparse(target))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        if not (isinstance(target, ast.Attribute) and ast.unparse(target.value) == "self") or value is None:
            continue
        if _is_param_call(value):
            made[target.attr] = True
        elif "None" in ast.unparse(value):
            optional.add(ast.unparse(target))  # nnx.data(None)
    array = _PARAM_FIELD
    return [
        ast.AnnAssign(ast.Name(name), parse_expr(f"{array} | None" if f"self.{name}" in optional else array), None, 1)
        for name in made
    ]


def _layer_class(layer: LayerClass, tree: ast.Module, alias: str, library: str) -> ast.ClassDef:
    classes = _classes(tree)
    lineage = _lineage(classes[layer.name], classes)
    qualify = _Qualifier(alias, _module_names(tree))
    generic = _is_generic(layer)
    init_src = _method(lineage, "__init__")
    init = qualified_stub(init_src if init_src is not None else _dataclass_init(lineage), qualify)
    calls = [qualified_stub(c, qualify) for c in _methods(lineage, "__call__")]
    if not calls:
        raise ValueError(f"{layer.rule} has no __call__ in {layer.source}")
    # The library's docstring, which an IDE's hover shows: the stub's class
    # takes the place of the library's (a note of jaxtypes' where it has none).
    doc = _docstring(classes[layer.name])
    note = f"{layer.rule}, its output dtype typed by jaxtypes ({_RULE_SOURCE[library]})."
    body: list[ast.stmt] = [doc if doc is not None else ast.Expr(ast.Constant(note))]
    if generic and layer.rule.startswith("flax.nnx.") and init_src is not None:
        # Flax infers them nnx.Param[Any]; the stub's Param reads back the
        # array's dtype (variable_stubs), which param_dtype= decides.
        body += _param_fields(init_src)
    if generic:
        body += _init_overloads(layer.name, init, library)
    elif library == "equinox":
        # A subclass of an Equinox module is a dataclass to the checkers
        # (dataclass_transform): without an __init__ of its own it would get
        # one made from its fields.
        body.append(init)
    body += _call_overloads(layer.name, calls, layer.rule, generic, layer.absent)
    if layer.attend is not None:
        attends = [qualified_stub(c, qualify) for c in _methods(lineage, "attend")]
        if attends:
            body += _call_overloads(layer.name, attends, layer.attend, generic)
    bases: list[ast.expr] = [ast.Attribute(ast.Name(alias, ast.Load()), layer.name, ast.Load())]
    if generic:
        bases.append(parse_expr("_JaxtypesGeneric[_JaxtypesLayerDtypeT, _JaxtypesLayerParamT]"))
    return ast.ClassDef(layer.name, bases, [], _docstrings_once(body), [])


def _entries(library: str) -> list[LayerClass | LayerFunction]:
    return [entry for _, typed in LIBRARIES[library].values() for entry in typed]


def typed_layers(library: str) -> list[str]:
    """The qualified names of the layers (and functions) of ``library`` the stubs type."""
    return [f"{package}.{entry.name}" for package, typed in LIBRARIES[library].values() for entry in typed]


def render_package(root: Path, rel: str, library: str) -> str:
    """The stub of the package ``rel`` (``linen/__init__.py``) of ``library`` at ``root``."""
    package, typed = LIBRARIES[library][rel]
    tree = ast.parse((root / rel).read_text(encoding="utf-8"))
    names = {layer.name for layer in typed}
    variables = library == "flax" and rel == variable_stubs.PACKAGE
    if variables:
        names |= set(variable_stubs.variable_classes(root))
    helpers: set[str] = set()
    helper_defs: list[ast.stmt] = []
    if library == "flax":  # Flax's masks and NNX's value_and_grad, in place of their imports
        helpers, helper_defs = flax_helpers.package_declarations(root, rel)
    names |= helpers
    kept: list[ast.stmt] = []
    # Importing ``from .initializers import ...`` makes ``initializers`` an
    # attribute of the package at run time (``nn.initializers.normal``); a
    # stub says so explicitly, or checkers report it missing.
    submodules: list[str] = []
    for node in stub_view(tree.body):
        if isinstance(node, ast.ImportFrom):
            module = absolute_module(node, package)
            if module.startswith(package + "."):
                submodules.append(module[len(package) + 1 :].split(".")[0])
            aliases = [a for a in node.names if not (a.name in names and a.asname in (None, a.name))]
            if aliases:
                kept.append(ast.ImportFrom(module, aliases, 0))
        elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            kept.append(node)
    bound = _module_names(tree) | names
    kept += [ast.ImportFrom(package, [ast.alias(sub, sub)], 0) for sub in dict.fromkeys(submodules) if sub not in bound]
    defs: list[ast.stmt] = []
    imports: list[ast.stmt] = []
    sources: dict[str, tuple[str, ast.Module]] = {}
    for layer in typed:
        if layer.source not in sources:
            alias = "_jaxtypes_src_" + Path(layer.source).stem
            module = f"{library}." + layer.source[: -len(".py")].replace("/", ".")
            sources[layer.source] = (alias, ast.parse((root / layer.source).read_text(encoding="utf-8")))
            imports.append(ast.Import([ast.alias(module, alias)]))
        alias, tree_src = sources[layer.source]
        if isinstance(layer, LayerFunction):
            defs += _function_overloads(layer, tree_src, alias)
        else:
            defs.append(_layer_class(layer, tree_src, alias, library))
    rules = _rules(typed)
    prelude = ast.parse(
        "\n".join([_PRELUDE, _typevar_imports(rules, library), _EQUINOX_PRELUDE if library == "equinox" else ""])
    ).body
    if variables:
        defs += variable_stubs.declarations(root)
    defs += helper_defs
    module_ = ast.Module([*kept, *prelude, *imports, *_docstrings_once(defs)], type_ignores=[])
    text = ast.unparse(ast.fix_missing_locations(module_)) + "\n"
    # The last overload of a generic layer's method, the layer's own signature
    # (self unparametrized), is where ty finds the overloads narrower than the
    # base class's method; they are, by design (checkers do not report a
    # stub's errors, but ty and pyrefly check a --out tree inside a project).
    generic = "|".join(layer.name for layer in typed if isinstance(layer, LayerClass) and _is_generic(layer))
    text = re.sub(
        rf"^(    def (?:__call__|attend)\(self: (?:{generic}), .*:)$", r"\1" + _OVERRIDE_IGNORE, text, flags=re.M
    )
    # An NNX layer's parameters, declared narrower than Flax's nnx.Param[Any]
    # (_param_fields): pyrefly and ty report the override in a --out tree.
    return re.sub(rf"^(    \w+: {re.escape(_PARAM_FIELD)}(?: \| None)?)$", r"\1" + _FIELD_IGNORE, text, flags=re.M)
