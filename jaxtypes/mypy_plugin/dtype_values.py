"""A dtype value's annotation: what ``DType[D]`` takes with the plugin.

``jaxtypes.typing.DType[D]`` is, to every checker, JAX's scalar type of D or
an ``x.dtype`` of D (``type[D] | DtypeValue[D]``).  JAX also takes a dtype's
name wherever it takes a dtype (``jnp.zeros(3, "bfloat16")``), and a numpy
dtype object; no generic alias can say which string is D's, so in the other
set-ups neither is a ``DType`` value.  The plugin analyses the annotation:

* ``DType[bfloat16]`` also takes the names JAX reads as bfloat16
  (``"bfloat16"``; ``"float32"`` and ``"f4"`` for float32), as literals;
* ``DType[Any]``, a dtype value of unknown dtype, also takes any string and
  any numpy dtype (``np.dtype("bfloat16")``, ``jnp.dtype(...)``), which say
  no dtype to a checker;
* ``DType[D]`` of a TypeVar, or of several dtypes, stays as declared: D is
  solved from a scalar type or an ``x.dtype``.

``astype`` and every ``dtype=`` read such a value as they read its members
(a name is read as its dtype).
"""

from __future__ import annotations

from typing import Callable

from mypy import errorcodes as codes
from mypy.plugin import AnalyzeTypeContext
from mypy.types import AnyType, LiteralType, Type, TypeOfAny, TypeType, UnionType, get_proper_type

from jaxtypes import lattice

from . import errors, names
from .type_nodes import marker_alts, names_of_dtype

__all__ = ["dtype_annotation_hook"]


def dtype_annotation_hook() -> Callable[[AnalyzeTypeContext], Type]:
    """The type-analyze hook of ``DType``, guarded (a bug costs the
    annotation, not the check: ``Any``)."""
    return errors.guarded(_unknown)(_analyze)


def _unknown(ctx: AnalyzeTypeContext) -> Type:
    return AnyType(TypeOfAny.special_form)


def _analyze(ctx: AnalyzeTypeContext) -> Type:
    """``DType[X]`` as the module says; a malformed one is mypy's error."""
    args = ctx.type.args
    if len(args) > 1:
        ctx.api.fail(f'"DType" takes one dtype, as DType[bfloat16]; got {len(args)} arguments', ctx.context)
        return AnyType(TypeOfAny.from_error)
    if not args and getattr(getattr(ctx.api, "options", None), "disallow_any_generics", False):
        # (what mypy says of any bare generic alias under --strict)
        ctx.api.fail('Missing type parameters for generic type "DType"', ctx.context, code=codes.TYPE_ARG)
    item = ctx.api.analyze_type(args[0]) if args else AnyType(TypeOfAny.from_omitted_generics)
    text = ctx.api.named_type(names.BUILTIN_STR, [])
    members: list[Type] = [TypeType.make_normalized(item), ctx.api.named_type(_DTYPE_VALUE, [item])]
    if isinstance(get_proper_type(item), AnyType):
        members += [text, ctx.api.named_type(names.NUMPY_DTYPE, [AnyType(TypeOfAny.special_form)])]
    else:
        alts = marker_alts(item)
        if alts is not None and len(alts) == 1 and isinstance(alts[0], str) and not lattice.is_weak(alts[0]):
            members += [LiteralType(name, text) for name in names_of_dtype(alts[0])]
    return UnionType.make_union(members)


_DTYPE_VALUE = names.DTYPE_VALUES[0]
