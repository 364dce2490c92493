"""Stubs giving Optax's losses and ``optax.global_norm`` the dtype of their
inputs.

Optax declares its losses over ``jax.typing.ArrayLike`` returning a bare
``jax.Array`` (and ships no ``py.typed``: mypy reads it as untyped), so a
bfloat16 loss or gradient norm passes for any dtype
(https://github.com/google-deepmind/optax/issues/1020).  The stub of each
package that re-exports them (``optax``, ``optax.losses``: ``render``) keeps
the package's imports and aliases, every public name exported explicitly as
PEP 484 asks of a stub, and declares each function of ``FUNCTIONS`` in place
of its import, with overloads:

* an input of unknown dtype (``Array[Any]``) gives ``Array[Any]`` (mypy takes
  the first overload an ``Array[Any]`` matches);
* the first array alone, its dtype (``LossDtype``, a TypeVar bound to
  ``LOSS_DTYPES``); arrays given together, their one dtype
  (``LossPairDtype``, constrained to them);
* one overload per dtype of ``LOSS_DTYPES``: every array of the result's
  dtype in that dtype (integer labels of ``LABEL_DTYPES``, a Python scalar
  ``delta``/``epsilon``) gives that dtype;
* the function's own signature, giving what Optax declares.

Arrays given together share a constrained TypeVar, not a bound one: arrays
of two dtypes would solve a bound one to their union in pyright, pyrefly
and ty (``Array[bfloat16 | float32]``), where JAX promotes them (float32);
they match no typed overload and fall to Optax's own signature.  The
per-dtype overloads are for mypy without the plugin, which solves a TypeVar
from the declared type of where the result goes (``losses: Array[float32] =
...`` of bfloat16 logits): that fails the TypeVar's overload, and the
dtype's own then gives the bug its error.  An empty tree's
``global_norm`` is float32 whatever its declared leaves (there is no leaf to
follow): the stubs give the leaves' dtype.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from jaxtypes import lattice
from jaxtypes._stubgen.record import LAYER_LIBRARIES, PackageInstall
from jaxtypes._stubgen.syntax import (
    ModuleShapeError,
    Qualifier,
    absolute_module,
    all_params,
    as_overload,
    check_exports,
    exported_import,
    is_private_machinery,
    module_names,
    parse_expr,
    positional_params,
    required_overloads,
    stub_def,
    stub_view,
)

__all__ = [
    "LIBRARY",
    "LOSS_DTYPES",
    "LABEL_DTYPES",
    "PACKAGES",
    "TypedFunction",
    "FUNCTIONS",
    "render",
    "render_package",
    "status",
    "marker_typevar_lines",
]

LIBRARY: Final = "optax"
# The float dtypes every typed function returns as given, x64 on and off:
# each float JAX computes in, but float64 (float32 with x64 off) and the
# float6 types, which XLA's CPU backend cannot hold ("Invalid XLA
# PrimitiveType"), so that tests/test_optax_stubs.py could not run them.
LOSS_DTYPES: Final = tuple(n for n in lattice.FLOATS if n not in lattice.FLOAT6 and lattice.canonicalize(n, False) == n)
# Integer labels (softmax_cross_entropy_with_integer_labels): every integer
# of a byte or more; a bool label is refused by take_along_axis.
LABEL_DTYPES: Final = tuple(n for n in lattice.UNSIGNED_INTS + lattice.SIGNED_INTS if n not in lattice.INTN)
# {package's __init__ relative to optax's root: the package}
PACKAGES: Final = {"__init__.py": "optax", "losses/__init__.py": "optax.losses"}


@dataclass(frozen=True)
class TypedFunction:
    """A function a package re-exports, whose result has the dtype of its arrays.

    ``arrays``: its parameters taking arrays of the result's dtype (the first
    is required; a later one may be left out where Optax's default is None);
    ``labels``: integer arrays; ``scalars``: parameters the typed overloads
    take as Python scalars (weakly typed: they keep the arrays' dtype);
    ``tree``: the first array may also be a mapping or a sequence of arrays."""

    name: str
    package: str  # key of PACKAGES
    source: str  # the module defining it, relative to optax's root
    arrays: tuple[str, ...]
    labels: tuple[str, ...] = ()
    scalars: tuple[str, ...] = ()
    tree: bool = False


def _loss(
    name: str, source: str, arrays: tuple[str, ...], labels: tuple[str, ...] = (), scalars: tuple[str, ...] = ()
) -> TypedFunction:
    return TypedFunction(name, "losses/__init__.py", f"losses/_{source}.py", arrays, labels, scalars)


_PAIR: Final = ("logits", "labels")
_REGRESSION: Final = ("predictions", "targets")
FUNCTIONS: Final = (
    _loss("softmax_cross_entropy_with_integer_labels", "classification", ("logits",), labels=("labels",)),
    _loss("softmax_cross_entropy", "classification", _PAIR),
    _loss("safe_softmax_cross_entropy", "classification", _PAIR),
    _loss("sigmoid_binary_cross_entropy", "classification", _PAIR),
    _loss("squared_error", "regression", _REGRESSION),
    _loss("l2_loss", "regression", _REGRESSION),
    _loss("huber_loss", "regression", _REGRESSION, scalars=("delta",)),
    _loss("log_cosh", "regression", _REGRESSION),
    _loss("cosine_similarity", "regression", _REGRESSION, scalars=("epsilon",)),
    _loss("cosine_distance", "regression", _REGRESSION, scalars=("epsilon",)),
    TypedFunction("global_norm", "__init__.py", "_src/linear_algebra.py", ("updates",), tree=True),
)

_ARRAY: Final = "_jaxtypes_jax.Array"
_ANY_ARRAY: Final = f"{_ARRAY}[_JaxtypesAny]"
_UNKNOWN_ARRAY: Final = f"{_ARRAY}[_JaxtypesUnknownT]"
# The dtype of one array alone, bound to LOSS_DTYPES: declared by the markers
# stub under a public-looking name, which a hover shows (``Array[LossDtype@l2_loss]``).
_LOSS_VAR: Final = "_JaxtypesLossT"
# The one dtype of arrays given together, constrained to LOSS_DTYPES: a
# constrained TypeVar is solved to one of its dtypes, never a union, and it
# is what mypy without the plugin solves a context-dependent argument in
# (``softmax_cross_entropy(x.astype(f32), y.astype(f32))``), where the first
# per-dtype overload would take each cast as its own dtype.
_PAIR_VAR: Final = "_JaxtypesLossPairT"
_PRELUDE: Final = """
from collections.abc import Mapping as _JaxtypesMapping, Sequence as _JaxtypesSequence
from typing import Any as _JaxtypesAny, overload as _jaxtypes_overload
import jax as _jaxtypes_jax
import jaxtypes.markers as _jaxtypes_markers
from jaxtypes.markers import AnyDtype as _JaxtypesUnknownT
from jaxtypes.markers import LossDtype as _JaxtypesLossT
from jaxtypes.markers import LossPairDtype as _JaxtypesLossPairT
"""


def _marker(node: str) -> str:
    return f"_jaxtypes_markers.{lattice.MARKER_NAME[node]}"


def marker_typevar_lines() -> list[str]:
    """The declarations of ``LossDtype`` and ``LossPairDtype`` in the markers stub."""
    names = [lattice.MARKER_NAME[n] for n in LOSS_DTYPES]
    return [
        f'LossDtype = TypeVar("LossDtype", bound={" | ".join(names)})',
        f'LossPairDtype = TypeVar("LossPairDtype", {", ".join(names)})',
    ]


def status(install: PackageInstall | None) -> str | None:
    """One line on what the stubs do for the installed Optax; None when it is not installed."""
    if install is None:
        return None
    if install.version in LAYER_LIBRARIES[LIBRARY]:
        losses = sum(1 for f in FUNCTIONS if f.package == "losses/__init__.py")
        return (
            f"optax {install.version}: its losses ({losses} functions of optax.losses, re-exported by optax) "
            "and optax.global_norm are typed"
        )
    return (
        f"optax {install.version} is not a version these stubs know "
        f"(supported: {', '.join(LAYER_LIBRARIES[LIBRARY])}): its losses keep optax's own typing"
    )


def render(root: Path) -> dict[str, str]:
    """{stub path relative to optax's root: its text} for the Optax at ``root``."""
    return {rel[: -len(".py")] + ".pyi": render_package(root, rel) for rel in PACKAGES}


def _retyped(fn: ast.FunctionDef, annotations: dict[str, str], returns: str) -> ast.FunctionDef:
    out = as_overload(fn)
    out.decorator_list = [ast.Name("_jaxtypes_overload", ast.Load())]
    for a in all_params(out):
        if a.arg in annotations:
            a.annotation = parse_expr(annotations[a.arg])
    out.returns = parse_expr(returns)
    return out


def _required(fn: ast.FunctionDef) -> set[str]:
    """The positional parameters of ``fn`` without a default."""
    positional = positional_params(fn)
    return {a.arg for a in positional[: len(positional) - len(fn.args.defaults)]}


def _overloads(function: TypedFunction, declared: ast.FunctionDef) -> list[ast.stmt]:
    """The typed function's overloads (the module docstring)."""
    params = {a.arg for a in all_params(declared)}
    missing = set(function.arrays + function.labels + function.scalars) - params
    if missing:
        raise ModuleShapeError(f"optax.{function.name} has no parameter {', '.join(sorted(missing))}")
    first, others = function.arrays[0], function.arrays[1:]
    optional = [p for p in others if p not in _required(declared)]
    out: list[ast.stmt] = []
    for param in function.arrays + function.labels:  # an array of unknown dtype
        unknown = _tree_of(_UNKNOWN_ARRAY) if function.tree and param == first else _UNKNOWN_ARRAY
        # (made required: left out, it would catch the calls the typed overloads are for)
        forms = [declared] if param in _required(declared) else required_overloads(declared, param)
        out += [_retyped(f, {param: unknown}, _ANY_ARRAY) for f in forms]
    labels = f"{_ARRAY}[{' | '.join(_marker(n) for n in LABEL_DTYPES)}]"
    fixed = {p: labels for p in function.labels} | {p: "float" for p in function.scalars}
    alone = len(others) == len(optional)  # the first array may be the only one
    if alone:  # its dtype, a TypeVar's
        kept = f"{_ARRAY}[{_LOSS_VAR}]"
        out.append(_retyped(declared, {first: kept, **dict.fromkeys(others, "None"), **fixed}, kept))
    # Then one overload per dtype: for arrays of one dtype given together (a
    # TypeVar would take two dtypes as their union), and for the array alone
    # where mypy solved the TypeVar from the declared type of where the result
    # goes (a wrong dtype fails that overload, and would reach Optax's own).
    alone_form = [(declared, dict.fromkeys(others, "None"))] if alone else []
    # (an optional array made required: left out, the overload above took the call)
    together = [f for p in optional for f in required_overloads(declared, p)] if optional else [declared]
    typed_forms = alone_form + ([(f, {}) for f in together] if others else [])
    if others:  # arrays given together: their one dtype, a constrained TypeVar's
        pair = f"{_ARRAY}[{_PAIR_VAR}]"
        first_pair = _tree_of(pair) if function.tree else pair
        for form in together:
            out.append(_retyped(form, {first: first_pair, **dict.fromkeys(others, pair), **fixed}, pair))
    for node in LOSS_DTYPES:
        array = f"{_ARRAY}[{_marker(node)}]"
        first_type = _tree_of(array) if function.tree else array
        for form, nones in typed_forms:
            annotations = {first: first_type, **dict.fromkeys(others, array), **nones, **fixed}
            out.append(_retyped(form, annotations, array))
    own = declared.returns is not None
    out.append(_retyped(declared, {}, ast.unparse(declared.returns) if own and declared.returns else _ANY_ARRAY))
    return out


def _tree_of(array: str) -> str:
    """``array``, or a mapping or a sequence of it."""
    return f"{array} | _JaxtypesMapping[_JaxtypesAny, {array}] | _JaxtypesSequence[{array}]"


def _is_dunder(node: ast.Assign) -> bool:
    return all(isinstance(t, ast.Name) and t.id.startswith("__") and t.id.endswith("__") for t in node.targets)


def render_package(root: Path, rel: str) -> str:
    """The stub of the package ``rel`` (``losses/__init__.py``) of the Optax at ``root``."""
    package = PACKAGES[rel]
    tree = ast.parse((root / rel).read_text(encoding="utf-8"))
    typed = {f.name: f for f in FUNCTIONS if f.package == rel}
    kept: list[ast.stmt] = []
    for node in stub_view(tree.body):
        if isinstance(node, ast.Assign) and _is_dunder(node):  # __version__, __all__
            kept.append(node)
            continue
        if isinstance(node, ast.Expr) or is_private_machinery(node):
            continue  # the docstring; deprecation machinery (check_exports: no public name is lost)
        if isinstance(node, ast.Import):
            aliases = [a for a in node.names if a.asname is not None and not a.asname.startswith("_")]
            if aliases:
                kept.append(ast.Import(aliases))
        elif isinstance(node, ast.ImportFrom):
            # Every public name exported explicitly (``from m import a as a``):
            # a stub's plain ``from m import a`` exports nothing but what __all__ lists.
            aliases = [
                ast.alias(a.name, a.asname or a.name)
                for a in node.names
                if (a.asname or a.name) not in typed and not (a.asname or a.name).startswith("_")
            ]
            if aliases:
                kept += exported_import(ast.ImportFrom(absolute_module(node, package), aliases, 0))
        elif isinstance(node, ast.Assign):  # aliases: clip = transforms.clip
            kept.append(node)
        else:
            raise ModuleShapeError(f"optax/{rel}: unexpected {ast.unparse(node)[:80]}")
    imports: list[ast.stmt] = []
    defs: list[ast.stmt] = []
    sources: dict[str, tuple[str, ast.Module]] = {}
    for function in typed.values():
        if function.source not in sources:
            alias = "_jaxtypes_src_" + Path(function.source).stem
            module = "optax." + function.source[: -len(".py")].replace("/", ".")
            sources[function.source] = (alias, ast.parse((root / function.source).read_text(encoding="utf-8")))
            imports.append(ast.Import([ast.alias(module, alias)]))
        alias, source = sources[function.source]
        found = [n for n in source.body if isinstance(n, ast.FunctionDef) and n.name == function.name]
        if not found:
            raise ModuleShapeError(f"optax/{function.source} defines no {function.name}")
        declared = Qualifier(alias, module_names(source)).visit(stub_def(found[-1]))
        defs += _overloads(function, declared)
    stub = ast.Module([*kept, *ast.parse(_PRELUDE).body, *imports, *defs], type_ignores=[])
    check_exports(tree, stub, f"optax/{rel}")
    return ast.unparse(ast.fix_missing_locations(stub)) + "\n"
