"""JAX's transforms keep the types of the functions they transform.

``jax.jit(f)`` and ``@jax.jit`` (also ``partial(jax.jit, static_argnums=...)``)
keep ``f``'s parameters and return type (a ``JittedFunction[P, R]``, which
also keeps what JAX's ``JitWrapped`` declares: ``lower``, ``trace``...);
``jax.checkpoint``/``jax.remat`` return ``f``'s own type; ``jax.grad(f)``
returns, per call, the type of ``f``'s first argument (the one it
differentiates by default) and ``jax.value_and_grad(f)`` a pair of ``f``'s
result and that (with ``has_aux=True``, ``((value, aux), grad)``): they
return ``GradientFunction[F]`` and ``ValueAndGradientFunction[F]``, which
read ``f``'s first parameter when called, so that a lambda (whose parameters
a checker infers from what is expected) is not given an unsolved TypeVar;
``lax.fori_loop`` and ``lax.cond`` return their carry's / branches' type.
Each typed declaration is an overload in front of JAX's own declaration,
which still takes every other call (``argnums=1``, a body whose carry type
differs from its initial value...); ``jit``, ``checkpoint`` and ``remat``
take every call JAX's declarations take, which are left out (mypy answers
``Any`` for a call two overloads match where an argument holds ``Any``:
``jax.jit(step)`` of a ``step`` taking a bare ``jax.Array``).  ``jax.vmap``, ``lax.scan`` and
``lax.while_loop`` are already generic in JAX's own typing.

``jax.tree.map`` and ``jax.tree_util.tree_map`` of a function over one or two
trees that are a ``dict``, ``list`` or ``tuple`` of arrays keep the container
and give its leaves the function's result type; ``jax.tree.reduce`` (and
``tree_reduce``) with an ``initializer`` gives the function's result or the
initializer (JAX's own declaration asks the function to return the
initializer's type, which mypy holds a sum over arrays started at ``0`` to).
Any other tree (nested containers, a NamedTuple, a dataclass) keeps JAX's
declaration: no checker can map each field type of a NamedTuple or dataclass
through a function, as there is no type-level map over a class's fields.

The declarations are built from JAX's own (read from the installed source),
so every parameter JAX declares is kept; only the function argument and the
result are retyped.  ``jax/__init__.py`` is given a stub holding its
re-exports (``render_jax_init``).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Final

from jaxtypes._stubgen.syntax import (
    BUILTINS,
    ModuleShapeError,
    absolute_module,
    annotation_names,
    as_overload,
    check_exports,
    declarations,
    exported_import,
    is_private_machinery,
    module_file,
    parse_expr,
    required_overloads,
    stub_def,
    stub_view,
)

__all__ = [
    "TRANSFORMS",
    "LAX_TRANSFORMS",
    "TREE_FUNCTIONS",
    "render_jax_init",
    "render_tree_module",
    "lax_transform_defs",
]

_P: Final = "_JaxtypesP"
_R: Final = "_JaxtypesR"
_A: Final = "_JaxtypesA"
_X: Final = "_JaxtypesX"
_F: Final = "_JaxtypesF"
_T: Final = "_JaxtypesT"
_K: Final = "_JaxtypesK"
_D: Final = "_JaxtypesD"
_D2: Final = "_JaxtypesD2"
JITTED: Final = "JittedFunction"
# What an IDE's hover (or a checker's message) shows of them: ``jit(fun:
# (**Params) -> Result) -> JittedFunction[Params, Result]``.  Declared by the
# markers stub under these names (``marker_typevar_lines``) and imported under
# the private ones, which a JAX module does not export.
_PUBLIC: Final = {
    _P: "Params",
    _R: "Result",
    _A: "Arg",
    _X: "Aux",
    _T: "T",
    _F: "F",
    _K: "Key",
    _D: "LeafDtype",
    _D2: "OtherLeafDtype",
}


def marker_typevar_lines() -> list[str]:
    """The declarations of the transforms' TypeVars in the markers stub
    (``jaxtypes._stubgen.function_overloads.transform_markers`` adds them)."""
    bounds = {_F: ", bound=_Callable[..., Any]"}
    return [
        "from collections.abc import Callable as _Callable",
        "from typing_extensions import ParamSpec as _ParamSpec",
        *(
            f'{public} = {"_ParamSpec" if local == _P else "TypeVar"}("{public}"{bounds.get(local, "")})'
            for local, public in _PUBLIC.items()
        ),
    ]


_PRELUDE: Final = f"""
from collections.abc import Callable as _JaxtypesCallable
from typing import Any as _JaxtypesAny, Generic as _JaxtypesGeneric, Literal as _JaxtypesLiteral
from typing import overload as _jaxtypes_overload
from typing_extensions import Concatenate as _JaxtypesConcatenate
from typing_extensions import TypeVar as _JaxtypesTypeVar
from jax._src.pjit import JitWrapped as _JaxtypesJitWrapped
from jaxtypes.markers import {", ".join(f"{public} as {local}" for local, public in _PUBLIC.items())}

_JaxtypesFn = _JaxtypesTypeVar("_JaxtypesFn", bound=_JaxtypesCallable[..., _JaxtypesAny], covariant=True)

class {JITTED}(_JaxtypesJitWrapped, _JaxtypesGeneric[{_P}, {_R}]):
    \"\"\"``jax.jit(f)``: called as ``f`` is, giving what ``f`` gives.\"\"\"
    def __call__(self, *args: {_P}.args, **kwargs: {_P}.kwargs) -> {_R}: ...

# grad(f) and value_and_grad(f) keep ``f`` itself (so a lambda's parameters
# are inferred from its body, not from a TypeVar) and read its first
# parameter's type when called.  Where a checker cannot solve that (ty, when
# the argument's type is not the parameter's: a FrozenDict for params: Any),
# value_and_grad still gives f's declared value, the gradient Any.
class GradientFunction(_JaxtypesGeneric[_JaxtypesFn]):
    \"\"\"``jax.grad(f)``: called as ``f`` is, giving the type of ``f``'s first argument.\"\"\"
    @_jaxtypes_overload
    def __call__(self: GradientFunction[_JaxtypesCallable[_JaxtypesConcatenate[{_A}, {_P}], _JaxtypesAny]],
                 a: {_A}, /, *args: {_P}.args, **kwargs: {_P}.kwargs) -> {_A}: ...
    @_jaxtypes_overload
    def __call__(self, *args: _JaxtypesAny, **kwargs: _JaxtypesAny) -> _JaxtypesAny: ...

class ValueAndGradientFunction(_JaxtypesGeneric[_JaxtypesFn]):
    \"\"\"``jax.value_and_grad(f)``: ``(f's result, the gradient, typed as f's first argument)``.\"\"\"
    @_jaxtypes_overload
    def __call__(self: ValueAndGradientFunction[_JaxtypesCallable[_JaxtypesConcatenate[{_A}, {_P}], {_R}]],
                 a: {_A}, /, *args: {_P}.args, **kwargs: {_P}.kwargs) -> tuple[{_R}, {_A}]: ...
    @_jaxtypes_overload
    def __call__(self: ValueAndGradientFunction[_JaxtypesCallable[..., {_R}]],
                 *args: _JaxtypesAny, **kwargs: _JaxtypesAny) -> tuple[{_R}, _JaxtypesAny]: ...
    @_jaxtypes_overload
    def __call__(self, *args: _JaxtypesAny, **kwargs: _JaxtypesAny) -> tuple[_JaxtypesAny, _JaxtypesAny]: ...

class ValueAndGradientWithAuxFunction(_JaxtypesGeneric[_JaxtypesFn]):
    \"\"\"``jax.value_and_grad(f, has_aux=True)``: ``((value, aux), gradient)``.\"\"\"
    @_jaxtypes_overload
    def __call__(self: ValueAndGradientWithAuxFunction[
                     _JaxtypesCallable[_JaxtypesConcatenate[{_A}, {_P}], tuple[{_R}, {_X}]]],
                 a: {_A}, /, *args: {_P}.args, **kwargs: {_P}.kwargs) -> tuple[tuple[{_R}, {_X}], {_A}]: ...
    @_jaxtypes_overload
    def __call__(self: ValueAndGradientWithAuxFunction[_JaxtypesCallable[..., tuple[{_R}, {_X}]]],
                 *args: _JaxtypesAny, **kwargs: _JaxtypesAny) -> tuple[tuple[{_R}, {_X}], _JaxtypesAny]: ...
    @_jaxtypes_overload
    def __call__(self, *args: _JaxtypesAny, **kwargs: _JaxtypesAny
                 ) -> tuple[tuple[_JaxtypesAny, _JaxtypesAny], _JaxtypesAny]: ...
"""

_CALLABLE = "_JaxtypesCallable"
_CONCAT = "_JaxtypesConcatenate"


def _retyped(fn: ast.FunctionDef, params: Mapping[str, str], returns: str) -> ast.FunctionDef:
    """``fn`` with ``params`` and its result retyped; ``ValueError`` when it
    lacks one of them (a JAX that declares the function otherwise)."""
    missing = set(params) - {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
    if missing:
        raise ValueError(f"{fn.name} has no parameter {', '.join(sorted(missing))}")
    out = as_overload(fn)
    out.decorator_list = [ast.Name("_jaxtypes_overload", ast.Load())]
    for arg in out.args.posonlyargs + out.args.args + out.args.kwonlyargs:
        if arg.arg in params:
            arg.annotation = parse_expr(params[arg.arg])
    out.returns = parse_expr(returns)
    return out


def _jit(defs: list[ast.FunctionDef]) -> list[ast.FunctionDef]:
    """jit(fun, ...) and the decorator factory jit(...), from JAX's overloads."""
    out: list[ast.FunctionDef] = []
    for fn in defs:
        names = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        jitted = f"{JITTED}[{_P}, {_R}]"
        if names[:1] == ["fun"]:
            out.append(_retyped(fn, {"fun": f"{_CALLABLE}[{_P}, {_R}]"}, jitted))
        elif not names:
            out.append(_retyped(fn, {}, f"{_CALLABLE}[[{_CALLABLE}[{_P}, {_R}]], {jitted}]"))
    return out


def _grad(defs: list[ast.FunctionDef]) -> list[ast.FunctionDef]:
    fn = defs[0]
    pinned = {"fun": _F, "argnums": "_JaxtypesLiteral[0]", "has_aux": "_JaxtypesLiteral[False]"}
    return [_retyped(fn, pinned, f"GradientFunction[{_F}]")]


def _value_and_grad(defs: list[ast.FunctionDef]) -> list[ast.FunctionDef]:
    fn = defs[0]
    plain = {"fun": _F, "argnums": "_JaxtypesLiteral[0]", "has_aux": "_JaxtypesLiteral[False]"}
    out = [_retyped(fn, plain, f"ValueAndGradientFunction[{_F}]")]
    aux = {"fun": _F, "argnums": "_JaxtypesLiteral[0]", "has_aux": "_JaxtypesLiteral[True]"}
    with_aux = _retyped(fn, aux, f"ValueAndGradientWithAuxFunction[{_F}]")
    for form in required_overloads(with_aux, "has_aux"):
        form.decorator_list = [ast.Name("_jaxtypes_overload", ast.Load())]
        out.append(form)
    return out


def _same_function(defs: list[ast.FunctionDef]) -> list[ast.FunctionDef]:
    return [_retyped(defs[0], {"fun": _F}, _F)]


# public name in jax -> how its typed overloads are made from JAX's declarations
TRANSFORMS: Final[dict[str, Callable[[list[ast.FunctionDef]], list[ast.FunctionDef]]]] = {
    "jit": _jit,
    "grad": _grad,
    "value_and_grad": _value_and_grad,
    "checkpoint": _same_function,
    "remat": _same_function,
}


# The transforms whose typed overloads take every call JAX's declarations take
# (JAX's parameters, and a function parameter any callable matches), which
# are left out: mypy answers Any for a call two overloads of different
# return types match where they differ in the type of an argument holding
# Any, and ``jax.jit(step)`` of a ``step`` taking a bare ``jax.Array``
# (``Array[Any]``) matched both ``fun: Callable[P, R]`` and JAX's ``fun:
# Callable``.
_TAKING_EVERY_CALL: Final = (_jit, _same_function)


def _fori_loop(defs: list[ast.FunctionDef]) -> list[ast.FunctionDef]:
    types = {"body_fun": f"{_CALLABLE}[[_JaxtypesAny, {_T}], {_T}]", "init_val": _T}
    return [_retyped(defs[0], types, _T)]


def _cond(defs: list[ast.FunctionDef]) -> list[ast.FunctionDef]:
    types = {"true_fun": f"{_CALLABLE}[..., {_T}]", "false_fun": f"{_CALLABLE}[..., {_T}]"}
    return [_retyped(defs[0], types, _T)]


LAX_TRANSFORMS: Final = {"fori_loop": _fori_loop, "cond": _cond}

_ARRAY = "_JaxtypesArray"
# The containers whose leaves ``jax.tree.map`` maps when each item is an
# array ({leaf} is the item type): JAX's pytree registry flattens them item by
# item (https://docs.jax.dev/en/latest/pytrees.html).  Tuples of one to four
# items, by their length: a fixed-length tuple given ``tuple[R, ...]`` back
# would not be assignable to a tuple of its length, which JAX's result is.
_TREE_CONTAINERS: Final = (
    "dict[_JaxtypesK, {leaf}]",
    "list[{leaf}]",
    *(f"tuple[{', '.join(['{leaf}'] * n)}]" for n in range(1, 5)),
)


def _without_rest(fn: ast.FunctionDef, rest: list[str]) -> ast.FunctionDef:
    """``fn`` taking exactly ``len(rest)`` more trees (positional, typed
    ``rest``) in place of its ``*rest``, and only ``is_leaf=None``."""
    fn.args.vararg = None
    if rest:
        fn.args.posonlyargs = (
            fn.args.posonlyargs + fn.args.args + [ast.arg(f"rest{i}", parse_expr(t)) for i, t in enumerate(rest)]
        )
        fn.args.args = []
        fn.args.defaults = []
    for arg in fn.args.kwonlyargs:
        if arg.arg == "is_leaf":  # another is_leaf makes other leaves
            arg.annotation = parse_expr("None")
    return fn


def _tree_map(defs: list[ast.FunctionDef]) -> list[ast.FunctionDef]:
    """map(f, tree) and map(f, tree, other) over a dict, list or tuple of arrays."""
    fn = defs[0]
    leaf, other = f"{_ARRAY}[{_D}]", f"{_ARRAY}[{_D2}]"
    out: list[ast.FunctionDef] = []
    for container in _TREE_CONTAINERS:
        one = {"f": f"{_CALLABLE}[[{leaf}], {_R}]", "tree": container.format(leaf=leaf)}
        out.append(_without_rest(_retyped(fn, one, container.format(leaf=_R)), []))
    for container in _TREE_CONTAINERS:
        two = {"f": f"{_CALLABLE}[[{leaf}, {other}], {_R}]", "tree": container.format(leaf=leaf)}
        typed = _retyped(fn, two, container.format(leaf=_R))
        out.append(_without_rest(typed, [container.format(leaf=other)]))
    return out


def _tree_reduce(defs: list[ast.FunctionDef]) -> list[ast.FunctionDef]:
    """reduce(function, tree, initializer): the function's result, or the
    initializer for a tree without leaves."""
    types = {"function": f"{_CALLABLE}[[{_A}, _JaxtypesAny], {_R}]", "initializer": _A, "is_leaf": "None"}
    typed = _retyped(defs[0], types, f"{_R} | {_A}")
    typed.args.defaults = typed.args.defaults[-1:]  # initializer required: is_leaf's default only
    return [typed]


# module (relative to jax's root) -> its public names typed by the stubs
TREE_FUNCTIONS: Final = {
    "tree.py": {"map": _tree_map, "reduce": _tree_reduce},
    "tree_util.py": {"tree_map": _tree_map, "tree_reduce": _tree_reduce},
}

_TREE_PRELUDE: Final = f"""
from collections.abc import Callable as _JaxtypesCallable
from typing import Any as _JaxtypesAny
from typing import overload as _jaxtypes_overload
from jax._src.basearray import Array as {_ARRAY}
from jaxtypes.markers import {", ".join(f"{_PUBLIC[v]} as {v}" for v in (_R, _A, _K, _D, _D2))}
"""


def _declarations(source: ast.Module, name: str) -> list[ast.FunctionDef]:
    """JAX's declarations of ``name`` in a source module: its overloads, or
    the function itself when it has none."""
    return declarations(source.body).get(name, [])


def _parameters_of(source: ast.Module, fn: ast.FunctionDef) -> ast.FunctionDef:
    """The declaration whose parameters ``fn`` takes: the function it wraps
    (``@functools.wraps(_cond) def cond(*args, **kwargs)``, JAX 0.4's
    ``lax.cond``) when that is defined in ``source``, under ``fn``'s name;
    ``fn`` otherwise."""
    for decorator in fn.decorator_list:
        if (
            isinstance(decorator, ast.Call)
            and ast.unparse(decorator.func).rpartition(".")[2] == "wraps"
            and len(decorator.args) == 1
            and isinstance(decorator.args[0], ast.Name)
        ):
            wrapped = _declarations(source, decorator.args[0].id)
            if len(wrapped) == 1:
                out = copy.deepcopy(wrapped[0])
                out.name = fn.name
                return out
    return fn


def _same_function_parameter(own: ast.FunctionDef, typed: list[ast.FunctionDef]) -> None:
    """JAX's ``fun: Callable`` as the typed overloads' ``fun: _F`` (bound to
    ``Callable[..., Any]``: the same calls match).  mypy answers Any for a
    call two overloads of different results match where they type an argument
    holding Any differently: ``value_and_grad(loss, has_aux=True)`` of a
    ``loss(params: Any)`` was Any; with one type for ``fun`` the first
    overload's answer stands."""
    typed_funs = {ast.unparse(a.annotation) for d in typed for a in d.args.args if a.arg == "fun" and a.annotation}
    if typed_funs != {_F}:
        return
    for arg in own.args.args:
        if arg.arg == "fun" and arg.annotation is not None and ast.unparse(arg.annotation) == "Callable":
            arg.annotation = parse_expr(_F)


def typed_defs(
    source: ast.Module,
    name: str,
    make: Callable[[list[ast.FunctionDef]], list[ast.FunctionDef]],
    public: str | None = None,
) -> tuple[list[ast.stmt], set[str]]:
    """The typed overloads then JAX's own declarations of ``name`` (each an
    overload; left out for ``_TAKING_EVERY_CALL``), declared as ``public`` (default: ``name``; JAX 0.4 exports
    ``checkpoint_wrapper as checkpoint``), and the names their annotations
    use; nothing when JAX's module does not declare it as a function, or
    declares it in a shape the generator does not know."""
    jax_defs = _declarations(source, name)
    if not jax_defs:
        return [], set()
    signatures = [stub_def(_parameters_of(source, d)) for d in jax_defs]
    try:
        typed = make(signatures)
    except Exception:  # noqa: BLE001 - a parameter it retypes is missing...: JAX's own typing
        return [], set()
    if not typed:
        return [], set()
    own = [as_overload(stub_def(d)) for d in jax_defs] if make not in _TAKING_EVERY_CALL else []
    used = {n for d in [*signatures, *own] for n in annotation_names(d)}  # (JAX's names, before retyping)
    for d in own:
        d.decorator_list = [ast.Name("_jaxtypes_overload", ast.Load())]
        _same_function_parameter(d, typed)
    for d in [*typed, *own]:
        d.name = public or name
    if len(typed) + len(own) == 1:  # (one declaration is no overload)
        typed[0].decorator_list = []
    return [*typed, *own], used


def render_jax_init(root: Path) -> ast.Module | None:
    """A stub for ``jax/__init__.py``: its re-exports and public aliases, with
    the transforms of ``TRANSFORMS`` declared typed.  None when its source is
    not as expected (then JAX's own typing stays)."""
    return _render_reexports(root, "__init__.py", TRANSFORMS, _PRELUDE)


def render_tree_module(root: Path, rel: str) -> ast.Module | None:
    """A stub for ``jax/tree.py`` or ``jax/tree_util.py`` (``rel``), with the
    functions of ``TREE_FUNCTIONS`` declared typed; None as for ``render_jax_init``."""
    return _render_reexports(root, rel, TREE_FUNCTIONS[rel], _TREE_PRELUDE)


def _render_reexports(
    root: Path,
    rel: str,
    transforms: Mapping[str, Callable[[list[ast.FunctionDef]], list[ast.FunctionDef]]],
    prelude_text: str,
) -> ast.Module | None:
    path = root / rel
    if not path.is_file():
        return None
    tree = ast.parse(path.read_text(encoding="utf-8"))
    kept: list[ast.stmt] = []
    defs: list[ast.stmt] = []
    imported: dict[str, set[str]] = {}
    sources: dict[str, ast.Module] = {}
    for node in stub_view(tree.body):
        if isinstance(node, ast.Expr):  # the docstring; calls made at import
            continue
        if isinstance(node, (ast.Try, ast.If)) or is_private_machinery(node):
            continue  # (check_exports below: none of them may bind a public name)
        if isinstance(node, ast.Assign):  # public aliases: Device = _xc.Device
            kept.append(node)
            continue
        if isinstance(node, ast.Import):
            kept.append(node)
            continue
        if not isinstance(node, ast.ImportFrom):
            raise ModuleShapeError(f"jax/{rel}: unexpected {ast.unparse(node)[:80]}")
        remaining: list[ast.alias] = []
        for alias in node.names:
            public = alias.asname or alias.name
            make = transforms.get(public)
            module = node.module or ""
            source_file = module_file(root, module) if make is not None and not node.level else None
            if make is not None and source_file is not None:
                if module not in sources:
                    sources[module] = ast.parse(source_file.read_text(encoding="utf-8"))
                typed, used = typed_defs(sources[module], alias.name, make, public)
                if typed:
                    defs += typed
                    imported.setdefault(module, set()).update(used)
                    continue
            remaining.append(alias)
        if remaining:
            kept += exported_import(ast.ImportFrom(module=node.module, names=remaining, level=node.level))
    if not defs:
        return None
    prelude = ast.parse(prelude_text).body
    names_from = [
        ast.ImportFrom(module=m, names=[ast.alias(n, n) for n in sorted(ns - BUILTINS)], level=0)
        for m, ns in sorted(imported.items())
        if ns - BUILTINS
    ]
    future = ast.parse("from __future__ import annotations").body
    stub = ast.Module(body=future + kept + names_from + prelude + defs, type_ignores=[])
    check_exports(tree, stub, f"jax/{rel}")
    return stub


def defining_module(root: Path, module: str, name: str, depth: int = 4) -> tuple[str, ast.Module] | None:
    """The module (and its tree) that defines function ``name``, following
    the re-exports from ``module`` (``jax._src.lax.control_flow`` re-exports
    ``fori_loop`` from its ``loops``)."""
    path = module_file(root, module)
    if path is None or depth == 0:
        return None
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if any(isinstance(n, ast.FunctionDef) and n.name == name for n in tree.body):
        return module, tree
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names):
            # (relative: from .loops import fori_loop)
            target = absolute_module(node, module if path.name == "__init__.py" else module.rpartition(".")[0])
            original = next(a.name for a in node.names if (a.asname or a.name) == name)
            return defining_module(root, target, original, depth - 1)
    return None


def lax_transform_defs(root: Path, module: str, name: str) -> tuple[list[ast.stmt], set[str], str] | None:
    """The typed declarations of a lax transform re-exported from ``module``,
    the names their annotations use, and the module defining them."""
    make = LAX_TRANSFORMS.get(name)
    found = defining_module(root, module, name) if make is not None else None
    if make is None or found is None:
        return None
    typed, used = typed_defs(found[1], name, make)
    return (typed, used, found[0]) if typed else None


def prelude() -> list[ast.stmt]:
    return copy.deepcopy(ast.parse(_PRELUDE).body)
