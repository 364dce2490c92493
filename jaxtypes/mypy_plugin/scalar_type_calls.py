"""Calls of JAX's scalar types: ``jnp.float64(1)``.

In the JAX stubs of ``jaxtypes jax-stubs`` JAX's scalar types are the dtype
markers, whose call gives an array of the dtype JAX canonicalizes to with
x64 off (``jnp.float64(1)`` is ``Array[float32]``).  JAX gives the dtype as
the configuration canonicalizes it ("Double (64bit) precision",
https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html): the
plugin answers for the project's x64.
"""

from __future__ import annotations

from typing import Callable

from mypy.plugin import FunctionContext
from mypy.types import Instance, Type, get_proper_type

from jaxtypes import lattice
from jaxtypes.lattice import Variant

from . import names
from .type_nodes import Builder, array_info

__all__ = ["scalar_type_call_hooks"]


def scalar_type_call_hooks(v: Variant, builder: Builder) -> dict[str, Callable[[FunctionContext], Type]]:
    """{fully qualified name of a strong dtype's marker: its call's hook}."""
    return {names.MARKER_FULLNAME[node]: _hook(node, v, builder) for node in lattice.STRONG}


def _hook(node: str, v: Variant, builder: Builder) -> Callable[[FunctionContext], Type]:
    dtype = lattice.canonicalize(node, v.x64)

    def hook(ctx: FunctionContext) -> Type:
        template = get_proper_type(ctx.default_return_type)
        if not isinstance(template, Instance) or array_info(template) is None:
            return ctx.default_return_type
        return builder.array(template, builder.marker(dtype))

    return hook
