"""Equinox's layer calls under the project's ``[tool.jaxtypes]`` settings.

A layer of ``equinox.nn`` made without ``dtype`` has parameters in JAX's
default float, which x64 decides; the stubs of ``jaxtypes jax-stubs`` give
it for x64 off (the layer's second type argument is the stubs'
``_JaxtypesDefaultFloat``), and give no error for an input the layer
refuses.  The plugin asks ``jaxtypes.layers`` for the call's output in the
configured x64 and promotion, from the input's dtype and the layer's.  A
call it cannot read exactly (an input of unknown dtype, a layer whose dtype
is not known) gets ``Array[Any]``; an input the layer refuses is an error
(``jax-promotion``, ``jax-unsupported``), as for JAX's functions.
"""

from __future__ import annotations

from typing import Callable

from mypy.plugin import MethodContext
from mypy.types import Instance, Type, get_proper_type

from jaxtypes import layers, lattice
from jaxtypes.lattice import Variant

from . import errors, names
from .dtypes import Builder, array_info, dtype_like

__all__ = ["typed_layer_calls", "layer_call_hook"]


def typed_layer_calls() -> dict[str, str]:
    """{fully qualified name mypy gives a layer's call: its rule's name}."""
    return {f"{name}.__call__": name for name in layers.RULES if name.startswith(names.EQUINOX_NN)}


def _param(layer: Instance) -> str | None:
    """The node of the layer's parameters (None: JAX's default float)."""
    if len(layer.args) != 2:  # Dropout: no parameters
        return None
    arg = get_proper_type(layer.args[1])
    if isinstance(arg, Instance):
        if arg.type.fullname == names.EQUINOX_DEFAULT_FLOAT:
            return None
        node = names.NODE_OF_MARKER.get(arg.type.fullname)
        if node is not None and node in lattice.STRONG:
            return node
    raise LookupError


def _input(types: list[Type], builder: Builder) -> str:
    """The node of the layer's input array (strong)."""
    found = dtype_like(types[0], builder) if len(types) == 1 else None
    if not found or len(found) != 1 or found[0].kind != "array" or found[0].node not in lattice.STRONG:
        raise LookupError
    return found[0].node


def layer_call_hook(rule_name: str, v: Variant, builder: Builder) -> Callable[[MethodContext], Type]:
    family = layers.RULES[rule_name].family

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: MethodContext) -> Type:
        result = get_proper_type(ctx.default_return_type)
        layer = get_proper_type(ctx.type)
        if not isinstance(result, Instance) or array_info(result) is None or not isinstance(layer, Instance):
            return ctx.default_return_type  # the form with a state: as Equinox declares it
        try:
            param = _param(layer)
            node = _input(ctx.arg_types[0], builder) if ctx.arg_types else None
        except LookupError:
            return builder.any_array(result)
        if node is None or (family == "to_float" and lattice.kind(node) not in "fc"):
            # (Dropout returns an integer input as it is in inference mode)
            return builder.any_array(result)
        out = layers.result(rule_name, node, v, param_dtype=param)
        if out.node is None:
            if out.error is not None:
                code = errors.JAX_PROMOTION if out.error == "promotion" else errors.JAX_UNSUPPORTED
                ctx.api.fail(f"{rule_name.rpartition('.')[2]}: {out.message}", ctx.context, code=code)
            return builder.any_array(result)
        return builder.array_of(result, [out.node])

    return hook
