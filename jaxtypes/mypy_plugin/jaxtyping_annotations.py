"""jaxtyping's dtype annotations: ``Float32[Array, "b n"]`` is ``Array[float32]``.

To a type checker jaxtyping's names are ``typing.Annotated`` (jaxtyping
declares them so under ``TYPE_CHECKING``): ``Float32[Array, "b n"]`` is a
plain ``jax.Array``, whatever the dtype it names.  mypy hands the plugin
every ``Annotated[...]`` it analyses, under that one name, with the name as
written (``Float32``, ``jt.Int8``, ``F32`` after ``import Float32 as F32``).
When the name is one of jaxtyping's concrete dtypes, imported from jaxtyping
(directly, renamed, through a module alias, or re-exported by a module that
imported it from jaxtyping), and the annotated type is a dtype-generic array
(``jax.Array`` with the stubs of ``jaxtypes jax-stubs``, ``jaxtypes.Array``),
the plugin gives the array that dtype.  jaxtyping's categories (``Float``,
``Int``, ``Shaped``, ...) say no one dtype and stay the plain array
(``Array[Any]``), as does any other ``Annotated``, which mypy analyses as
always.  ``Float32[jaxtypes.Array[float32], "n"]``, the spelling that carries
the dtype to the checkers without plugins, is the same type; an annotation
whose two halves name different dtypes is an error (``jax-dtype``).
"""

from __future__ import annotations

from typing import Callable, Final

from mypy.nodes import ImportFrom, MypyFile
from mypy.plugin import AnalyzeTypeContext
from mypy.semanal import SemanticAnalyzer
from mypy.typeanal import TypeAnalyser
from mypy.types import Instance, Type, get_proper_type

from . import errors, names
from .type_nodes import array_info

__all__ = ["ANNOTATED", "DTYPE_OF_NAME", "annotated_hook"]

ANNOTATED: Final = ("typing.Annotated", "typing_extensions.Annotated")
# Import hops followed from a re-exporting module back to jaxtyping.
_MAX_HOPS: Final = 4
# jaxtyping's names of one dtype (its ``_indirection`` module) -> lattice node.
DTYPE_OF_NAME: Final = {
    "Bool": "bool",
    **{f"Int{bits}": f"int{bits}" for bits in (2, 4, 8, 16, 32, 64)},
    **{f"UInt{bits}": f"uint{bits}" for bits in (2, 4, 8, 16, 32, 64)},
    "BFloat16": "bfloat16",
    "Float16": "float16",
    "Float32": "float32",
    "Float64": "float64",
    "Complex64": "complex64",
    "Complex128": "complex128",
    "Float8e4m3b11fnuz": "float8_e4m3b11fnuz",
    "Float8e4m3fn": "float8_e4m3fn",
    "Float8e4m3fnuz": "float8_e4m3fnuz",
    "Float8e5m2": "float8_e5m2",
    "Float8e5m2fnuz": "float8_e5m2fnuz",
}


def _mypy_annotated(ctx: AnalyzeTypeContext) -> Type:
    """What mypy makes of the ``Annotated[...]`` itself (its first argument,
    or its error for a malformed one)."""
    found = (
        ctx.api.try_analyze_special_unbound_type(ctx.type, ANNOTATED[0]) if isinstance(ctx.api, TypeAnalyser) else None
    )
    return found if found is not None else ctx.api.analyze_type(ctx.type.args[0])


def _from_jaxtyping(module: MypyFile | None, name: str, modules: dict[str, MypyFile], hops: int = 0) -> str | None:
    """jaxtyping's name that ``name`` in ``module`` was imported as, if any."""
    if module is None or hops > _MAX_HOPS:
        return None
    for imp in module.imports:
        if not isinstance(imp, ImportFrom) or imp.relative:
            continue
        for original, alias in imp.names:
            if (alias or original) != name:
                continue
            if imp.id == names.JAXTYPING or imp.id.startswith(names.JAXTYPING + "."):
                return original
            return _from_jaxtyping(modules.get(imp.id), original, modules, hops + 1)
    return None


def _written_name(ctx: AnalyzeTypeContext) -> str | None:
    """jaxtyping's name the annotation was written with, or None."""
    written = ctx.type.name
    head, _, last = written.rpartition(".")
    semantic = ctx.api.api if isinstance(ctx.api, TypeAnalyser) else None
    if not isinstance(semantic, SemanticAnalyzer):
        return None
    if head:  # jt.Float32: jt must be jaxtyping (or a module re-exporting it)
        sym = semantic.lookup_qualified(head, ctx.context, suppress_errors=True)
        node = sym.node if sym is not None else None
        if isinstance(node, MypyFile):
            if node.fullname == names.JAXTYPING:
                return last
            return _from_jaxtyping(node, last, semantic.modules)
        return None
    return _from_jaxtyping(semantic.cur_mod_node, written, semantic.modules)


def annotated_hook() -> Callable[[AnalyzeTypeContext], Type]:
    """The hook of ``Annotated[...]``: jaxtyping's dtype names give the array their dtype."""

    @errors.guarded(_mypy_annotated)
    def hook(ctx: AnalyzeTypeContext) -> Type:
        analysed = _mypy_annotated(ctx)
        name = _written_name(ctx)
        node = DTYPE_OF_NAME.get(name) if name is not None else None
        array = get_proper_type(analysed)
        if node is None or not isinstance(array, Instance) or array_info(array) is None or len(array.args) != 1:
            return analysed
        marker = ctx.api.named_type(names.MARKER_FULLNAME[node], [])
        given = get_proper_type(array.args[0])
        if isinstance(given, Instance) and given.type.fullname != marker.type.fullname:
            # Float32[Array[bfloat16], "n"]: the two halves disagree
            ctx.api.fail(
                f"{ctx.type.name}[...] is an array of {node}, but the array it annotates is declared "
                f"{array.type.name}[{given.type.name}]: write the same dtype in both",
                ctx.context,
                code=errors.JAX_DTYPE,
            )
            return analysed
        return Instance(array.type, [marker])

    return hook
