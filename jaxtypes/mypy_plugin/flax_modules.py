"""A Linen module run by ``Module.apply`` or ``Module.init_with_output``: its ``__call__``'s result.

Flax declares both as returning ``Any``.  They run the module's ``__call__``
(unless ``method=`` names another method) on the arguments after the
variables (``apply``) or the PRNG keys (``init_with_output``): ``apply``
without ``mutable`` or ``capture_intermediates`` returns what ``__call__``
returns, and ``init_with_output`` returns it first in a pair with the new
variables (Flax's documentation, "Module.apply" and
"Module.init_with_output",
https://flax.readthedocs.io/en/latest/api_reference/flax.linen/module.html).
The plugin gives the ``__call__``'s declared return type, seen from the
module's type (a generic module's type arguments applied).  A ``__call__``
that is overloaded, generic in its own arguments, unannotated, or wrapped in
a decorator other than Flax's ``compact`` and ``nowrap`` (which return the
method as it is) leaves Flax's ``Any``: the result would depend on the
arguments, which the plugin does not check against it.
"""

from __future__ import annotations

from typing import Callable, Final

from mypy.expandtype import expand_type_by_instance
from mypy.maptype import map_instance_to_supertype
from mypy.nodes import Decorator, FuncDef, RefExpr
from mypy.plugin import MethodContext
from mypy.types import CallableType, Instance, TupleType, Type, get_proper_type, has_type_vars

from . import errors, names
from .methods import bool_value

__all__ = ["run_hooks"]

# Arguments that change what is run or returned: another method, a pair with
# the mutated collections.
_OTHER_METHOD: Final = "method"
_PAIR_ARGUMENTS: Final = ("mutable", "capture_intermediates")


def run_hooks() -> dict[str, Callable[[MethodContext], Type]]:
    """{fully qualified name of Linen's ``Module`` method: its hook}."""
    guard = errors.guarded(lambda ctx: ctx.default_return_type)
    return {names.FLAX_MODULE_APPLY: guard(_apply), names.FLAX_MODULE_INIT_WITH_OUTPUT: guard(_init_with_output)}


def _given(ctx: MethodContext, formal: str) -> bool:
    return formal in ctx.callee_arg_names and bool(ctx.arg_types[ctx.callee_arg_names.index(formal)])


def _call_result(ctx: MethodContext) -> Type | None:
    """The return type of the module's ``__call__`` as its type sees it; None
    where it is not one type whatever the arguments."""
    module = get_proper_type(ctx.type)
    if not isinstance(module, Instance) or _given(ctx, _OTHER_METHOD):
        return None
    found = module.type.get_method("__call__")
    if isinstance(found, Decorator):
        decorators = [d.fullname for d in found.original_decorators if isinstance(d, RefExpr)]
        if len(decorators) != len(found.original_decorators) or not set(decorators) <= names.FLAX_IDENTITY_DECORATORS:
            return None
        found = found.func
    if not isinstance(found, FuncDef) or found.info.fullname == names.FLAX_MODULE:
        return None
    signature = found.type
    if not isinstance(signature, CallableType) or signature.variables or signature.implicit:
        return None
    owner = map_instance_to_supertype(module, found.info)
    result = expand_type_by_instance(signature.ret_type, owner)
    return None if has_type_vars(result) else result


def _apply(ctx: MethodContext) -> Type:
    for formal in _PAIR_ARGUMENTS:
        if _given(ctx, formal):
            given = ctx.arg_types[ctx.callee_arg_names.index(formal)]
            if len(given) != 1 or bool_value(given[0]) is not False:
                return ctx.default_return_type
    result = _call_result(ctx)
    return ctx.default_return_type if result is None else result


def _init_with_output(ctx: MethodContext) -> Type:
    pair = get_proper_type(ctx.default_return_type)
    result = _call_result(ctx)
    if result is None or not isinstance(pair, TupleType) or len(pair.items) != 2:
        return ctx.default_return_type
    return pair.copy_modified(items=[result, pair.items[1]])
