"""The stub of ``jax.nn.initializers``: initializers typed by their dtype.

JAX declares every initializer builder (``lecun_normal(...)``,
``normal(...)``, ``constant(...)``) as returning the protocol
``Initializer``, whose call returns a bare ``Array``.  The stub makes
``Initializer`` generic in the dtype an initializer returns when called
without one (``Initializer[float32]``): a builder's ``dtype=`` gives it
(left out, JAX's default float, float32 with x64 off as everywhere in the
stubs), and a call's ``dtype`` argument overrides it, as JAX's
initializers do (``dtype = self's default if dtype is None``).  ``zeros``
and ``ones`` are initializers themselves: ``(key, shape, dtype) -> Array``.
Flax re-exports these (``flax.linen.initializers``,
``flax.nnx.initializers``), so its initializers are typed too.

Only the dtypes every initializer returns as given with x64 on and off are
typed (``INITIALIZER_DTYPES``; ``float64`` becomes float32 with x64 off);
any other, or one known only at run time, gives ``Array[Any]``.  The first
overload of each signature catches a ``dtype`` typed ``Any``, as in
``jaxtypes._stubgen.function_overloads``; it is also the overload a checker
takes when it matches an initializer against ``Callable[..., T]`` (Flax's
``Module.param(name, init_fn, *init_args) -> T``), where the call's
``dtype`` is not seen: ``Array[Any]`` there, never a wrong dtype.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Final

from jaxtypes import lattice
from jaxtypes._stubgen.syntax import Qualifier, as_overload, module_names, parse_expr, required_overloads, stub_def

__all__ = ["INITIALIZER_DTYPES", "FILL_DTYPES", "SOURCE", "STUB", "render", "marker_typevar_lines"]

SOURCE: Final = "_src/nn/initializers.py"  # relative to jax's root
STUB: Final = "nn/initializers.pyi"
# The dtype arguments an initializer returns as given, x64 on and off, in
# every initializer that accepts them: JAX's random draws take floating
# dtypes (uniform and truncated_normal no complex, orthogonal and
# delta_orthogonal only float32 and complex64, whose QR decomposition
# refuses the others: those calls raise, and the stubs do not report them).
INITIALIZER_DTYPES: Final = ("bfloat16", "float16", "float32", "complex64", "float8_e4m3fn", "float8_e5m2")
# zeros, ones and constant fill with any dtype: those not 64 bits wide, which
# x64 decides.
FILL_DTYPES: Final = (*INITIALIZER_DTYPES, "bool", "int8", "int16", "int32", "uint8", "uint16", "uint32")
_DEFAULT: Final = lattice.default_dtype("f", False)  # float32: the stubs' x64 off

_ALIAS: Final = "_jaxtypes_src"
_MARKERS: Final = "_jaxtypes_markers"
_ARRAY: Final = "_jaxtypes_jax.Array"
# Public-looking names in the markers stub (a hover shows ``dtype:
# InitializerDtype@lecun_normal``), imported under private ones.
_PUBLIC: Final = {"_JaxtypesInitT": "InitializerDtype", "_JaxtypesFillT": "FillDtype"}
_BOUNDS: Final = {"_JaxtypesInitT": INITIALIZER_DTYPES, "_JaxtypesFillT": FILL_DTYPES}
_FILLS: Final = ("zeros", "ones")  # initializers themselves
_FILL_BUILDERS: Final = ("constant",)


def marker_typevar_lines() -> list[str]:
    """The declarations of the initializers' TypeVars in the markers stub."""
    return [
        f'{_PUBLIC[local]} = TypeVar("{_PUBLIC[local]}", bound={" | ".join(lattice.MARKER_NAME[n] for n in nodes)})'
        for local, nodes in _BOUNDS.items()
    ]


def _marker(node: str) -> str:
    return f"{_MARKERS}.{lattice.MARKER_NAME[node]}"


def _dtype_overloads(fn: ast.FunctionDef, var: str, result: str, default: str) -> list[ast.FunctionDef]:
    """``fn``'s overloads by its ``dtype`` parameter: one typed ``Any``
    (unknown), left out or None (``result`` of ``default``), a dtype of
    ``var``'s bound, then its own declaration (``result`` of Any)."""

    def retyped(f: ast.FunctionDef, annotation: str | None, returns: str) -> ast.FunctionDef:
        out = as_overload(f)
        if annotation is not None:
            for a in out.args.args + out.args.kwonlyargs:
                if a.arg == "dtype":
                    a.annotation = parse_expr(annotation)
        out.returns = parse_expr(returns)
        return out

    unknown = [retyped(f, "_JaxtypesUnknownT", result.format("_JaxtypesAny")) for f in required_overloads(fn, "dtype")]
    defaulted = retyped(fn, "None", result.format(default))
    # (DType[V]: the public alias, which an IDE's hover shows by its name)
    given = [retyped(f, f"_JaxtypesDType[{var}]", result.format(var)) for f in required_overloads(fn, "dtype")]
    return [*unknown, defaulted, *given, retyped(fn, None, result.format("_JaxtypesAny"))]


def _initializer_class(source: ast.ClassDef, qualify: Qualifier) -> ast.ClassDef:
    """JAX's ``Initializer`` protocol, generic in the dtype its call returns
    without a ``dtype`` argument."""
    (call,) = [n for n in source.body if isinstance(n, ast.FunctionDef) and n.name == "__call__"]
    declared = qualify.visit(stub_def(call))
    overloads = _dtype_overloads(declared, "_JaxtypesInitT", f"{_ARRAY}[{{}}]", "_JaxtypesDefaultT")
    body: list[ast.stmt] = [n for n in source.body[:1] if isinstance(n, ast.Expr)]
    body += overloads
    return ast.ClassDef(
        "Initializer",
        [parse_expr("_JaxtypesProtocol[_JaxtypesDefaultT]")],
        [],
        body,
        [ast.Name("_jaxtypes_type_check_only", ast.Load())],
    )


def render(jax_root: Path) -> str:
    """The text of ``jax/nn/initializers.pyi`` (without the header) for the JAX at ``jax_root``."""
    public = ast.parse((jax_root / "nn" / "initializers.py").read_text(encoding="utf-8"))
    source = ast.parse((jax_root / SOURCE).read_text(encoding="utf-8"))
    qualify = Qualifier(_ALIAS, module_names(source))
    functions = {n.name: n for n in source.body if isinstance(n, ast.FunctionDef)}
    classes = {n.name: n for n in source.body if isinstance(n, ast.ClassDef)}
    aliases = {
        t.id: n.value.id
        for n in source.body
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    exported = [a.asname or a.name for n in public.body if isinstance(n, ast.ImportFrom) for a in n.names]
    defs: list[ast.stmt] = []
    kept: list[str] = []
    for name in exported:
        target = aliases.get(name, name)
        fn = functions.get(target)
        if name == "Initializer" and name in classes:
            defs.append(_initializer_class(classes[name], qualify))
        elif target != name and fn is not None and _typed(fn):
            defs.append(ast.parse(f"{name} = {target}").body[0])
        elif fn is not None and _typed(fn):
            declared = qualify.visit(stub_def(fn))
            if name in _FILLS:
                defs += _dtype_overloads(declared, "_JaxtypesFillT", f"{_ARRAY}[{{}}]", _marker(_DEFAULT))
            else:
                var = "_JaxtypesFillT" if name in _FILL_BUILDERS else "_JaxtypesInitT"
                defs += _dtype_overloads(declared, var, "Initializer[{}]", _marker(_DEFAULT))
        else:
            kept.append(name)
    prelude = f"""
from typing import Any as _JaxtypesAny, Protocol as _JaxtypesProtocol, overload, type_check_only as _jaxtypes_type_check_only
import jax as _jaxtypes_jax
import jax._src.nn.initializers as {_ALIAS}
import jaxtypes.markers as {_MARKERS}
from jaxtypes.typing import DType as _JaxtypesDType
from jaxtypes.markers import AnyDtype as _JaxtypesUnknownT, D_co as _JaxtypesDefaultT, {", ".join(f"{p} as {lo}" for lo, p in _PUBLIC.items())}
"""
    imports = [f"from jax._src.nn.initializers import {name} as {name}" for name in kept]
    text = "\n".join([prelude, *imports, ""]) + ast.unparse(ast.fix_missing_locations(ast.Module(defs, [])))
    return text + "\n"


def _typed(fn: ast.FunctionDef) -> bool:
    """Whether ``fn`` takes a ``dtype`` (a builder or an initializer)."""
    return any(a.arg == "dtype" for a in fn.args.args + fn.args.kwonlyargs)
