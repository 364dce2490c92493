"""A numpy dtype object made of one known dtype: ``np.dtype("bfloat16")``.

numpy's stubs type ``np.dtype(X)`` by its own scalar types and names
(``np.dtype("float32")`` is ``np.dtype[np.float32]``); of JAX's other dtypes
(``"bfloat16"``, ``jnp.bfloat16``, the 4- and 8-bit floats: ml_dtypes'
scalar types, which declare no dtype) they know nothing and answer
``np.dtype[Any]``.  ``jnp.dtype`` is numpy's class.  At run time the object
is the dtype JAX reads (``x.astype(np.dtype("bfloat16"))`` is a bfloat16
array), so where numpy's answer names no dtype the plugin gives the call
the type of ``x.dtype`` of that dtype, ``DtypeValue[bfloat16]`` (a numpy
dtype to every checker), which ``DType[bfloat16]``, ``astype`` and every
``dtype=`` read back.  A dtype numpy's stubs name keeps numpy's type.
"""

from __future__ import annotations

from typing import Callable

from mypy.plugin import FunctionContext
from mypy.types import AnyType, Instance, Type, UnionType, get_proper_type

from . import errors, names
from .type_nodes import Builder, one_dtype

__all__ = ["numpy_dtype_hooks"]


def numpy_dtype_hooks(builder: Builder) -> dict[str, Callable[[FunctionContext], Type]]:
    """{numpy's dtype class: the hook of its call}, guarded (a bug keeps numpy's type)."""

    def hook(ctx: FunctionContext) -> Type:
        return _call(ctx, builder)

    return {names.NUMPY_DTYPE: errors.guarded(lambda ctx: ctx.default_return_type)(hook)}


def _call(ctx: FunctionContext, builder: Builder) -> Type:
    default = get_proper_type(ctx.default_return_type)
    if not ctx.arg_types or len(ctx.arg_types[0]) != 1 or not isinstance(default, Instance):
        return ctx.default_return_type
    if default.args and not _names_no_dtype(default.args[0]):
        return ctx.default_return_type
    node = one_dtype(ctx.arg_types[0][0], builder)  # (numpy refuses an array or a value)
    return ctx.default_return_type if node is None else builder.dtype_value(builder.marker(node))


def _names_no_dtype(arg: Type) -> bool:
    """numpy's answer names no scalar type: ``Any``, or a union holding it
    (``np.dtype(jnp.bfloat16)`` is ``np.dtype[np.object_ | Any]``)."""
    p = get_proper_type(arg)
    if isinstance(p, AnyType):
        return True
    return isinstance(p, UnionType) and any(isinstance(get_proper_type(item), AnyType) for item in p.items)
