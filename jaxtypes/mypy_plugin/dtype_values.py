"""A dtype value's annotation: what ``DType[D]`` takes with the plugin.

``jaxtypes.typing.DType[D]`` is, to every checker, JAX's scalar type of D or
an ``x.dtype`` of D (``type[D] | DtypeValue[D]``).  JAX also takes a dtype's
name wherever it takes a dtype (``jnp.zeros(3, "bfloat16")``), and a numpy
dtype object; no generic alias can say which string is D's, so in the other
set-ups neither is a ``DType`` value.  The plugin analyses the annotation:

* ``DType[bfloat16]`` also takes the names JAX reads as bfloat16
  (``"bfloat16"``; ``"float32"`` and ``"f4"`` for float32), as literals,
  and numpy's dtype object of a dtype numpy's stubs do not name
  (``np.dtype("bfloat16")``, typed as ``x.dtype`` of it by
  ``numpy_dtype_calls``).  Not numpy's ``np.dtype[np.float32]``: JAX's
  scalar types are numpy dtypes of no known dtype to the checkers, so such
  a member would take every one of them (``DType[int8] = jnp.float32``);
* ``DType[Any]``, a dtype value of unknown dtype, also takes any string and
  any numpy dtype (``np.dtype("bfloat16")``, ``jnp.dtype(...)``), which say
  no dtype to a checker;
* ``DType[D]`` of a TypeVar, or of several dtypes, stays as declared: D is
  solved from a scalar type or an ``x.dtype``, and from a name or a numpy
  dtype object by the call's own hook (``generic_dtype_parameters``).

``astype`` and every ``dtype=`` read such a value as they read its members
(a name is read as its dtype).
"""

from __future__ import annotations

from typing import Callable

from mypy import errorcodes as codes
from mypy.plugin import AnalyzeTypeContext
from mypy.types import AnyType, LiteralType, Type, TypeOfAny, TypeType, UnionType, get_proper_type

from jaxtypes import lattice

from . import errors
from .type_nodes import Builder, marker_alts, names_of_dtype

__all__ = ["dtype_annotation_hook", "dtype_value_type"]


def dtype_annotation_hook(builder: Builder) -> Callable[[AnalyzeTypeContext], Type]:
    """The type-analyze hook of ``DType``, guarded (a bug costs the
    annotation, not the check: ``Any``)."""

    def analyze(ctx: AnalyzeTypeContext) -> Type:
        return _analyze(ctx, builder)

    return errors.guarded(_unknown)(analyze)


def _unknown(ctx: AnalyzeTypeContext) -> Type:
    return AnyType(TypeOfAny.special_form)


def _analyze(ctx: AnalyzeTypeContext, builder: Builder) -> Type:
    """``DType[X]`` as the module says; a malformed one is mypy's error."""
    args = ctx.type.args
    if len(args) > 1:
        ctx.api.fail(f'"DType" takes one dtype, as DType[bfloat16]; got {len(args)} arguments', ctx.context)
        return AnyType(TypeOfAny.from_error)
    if not args and getattr(getattr(ctx.api, "options", None), "disallow_any_generics", False):
        # (what mypy says of any bare generic alias under --strict)
        ctx.api.fail('Missing type parameters for generic type "DType"', ctx.context, code=codes.TYPE_ARG)
    item = ctx.api.analyze_type(args[0]) if args else AnyType(TypeOfAny.from_omitted_generics)
    return dtype_value_type(item, builder)


def dtype_value_type(item: Type, builder: Builder) -> Type:
    """What ``DType[item]`` takes, as the module says."""
    text = builder.builtin("str")
    members: list[Type] = [TypeType.make_normalized(item), builder.dtype_value(item)]
    if isinstance(get_proper_type(item), AnyType):
        members.append(text)
        numpy_dtype = builder.numpy_dtype(None)
        if numpy_dtype is not None:
            members.append(numpy_dtype)
    else:
        alts = marker_alts(item)
        if alts is not None and len(alts) == 1 and isinstance(alts[0], str) and not lattice.is_weak(alts[0]):
            members += [LiteralType(name, text) for name in names_of_dtype(alts[0])]
    return UnionType.make_union(members)
