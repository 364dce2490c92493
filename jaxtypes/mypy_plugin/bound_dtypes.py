"""Arrays whose dtype is a TypeVar bound to a category of dtypes.

With ``D = TypeVar("D", bound=jaxtypes.typing.floating)`` and
``x: Array[D]``, the answer of ``x * 2.0``, ``jnp.sqrt(x)``, ``x.sum()`` is the
rule's answer for each dtype D may take: ``Array[D]`` where each dtype gives
itself, the one dtype where all give the same (``x * y`` of an
``Array[float32]``), else ``Array[Any]``.  A dtype of the bound that JAX
refuses is no error of the call (D may never take it): the answer is then
``Array[Any]``.  With x64 off only the dtypes an array can have count (JAX
makes no float64 array then: ``jnp.zeros(3, jnp.float64)`` is float32).  A
TypeVar without such a bound is left to the hook.
"""

from __future__ import annotations

from typing import Callable, Final, TypeVar, Union, cast

from mypy.expandtype import expand_type
from mypy.plugin import FunctionContext, MethodContext
from mypy.types import Instance, Type, TypeType, TypeVarType, UnionType, get_proper_type

from jaxtypes import lattice
from jaxtypes.lattice import Variant

from . import errors
from .type_nodes import Builder, array_dtype, array_info, marker_alts

__all__ = ["over_bound"]

# A hook's context: a method's, a function's, or either (JAX's functions' hooks).
_C = TypeVar("_C", bound=Union[MethodContext, FunctionContext])
MAX_TYPE_DEPTH: Final = 6


def _type_vars(t: Type, found: dict[object, TypeVarType], depth: int = 0) -> None:
    if depth > MAX_TYPE_DEPTH:
        return
    p = get_proper_type(t)
    if isinstance(p, TypeVarType):
        found.setdefault(p.id, p)
    elif isinstance(p, Instance):
        for arg in p.args:
            _type_vars(arg, found, depth + 1)
    elif isinstance(p, UnionType):
        for item in p.items:
            _type_vars(item, found, depth + 1)
    elif isinstance(p, TypeType):
        _type_vars(p.item, found, depth + 1)


def _bound_nodes(tv: TypeVarType, x64: bool) -> list[str] | None:
    alts = marker_alts(tv.upper_bound)
    if not alts or not all(isinstance(a, str) and a in lattice.NODES for a in alts):
        return None
    nodes = [a for a in alts if isinstance(a, str) and (lattice.is_weak(a) or lattice.canonicalize(a, x64) == a)]
    return nodes or None


def _with_unknown_result(t: Type, builder: Builder) -> Type:
    """The default answer with an unknown dtype, so that the hook computes its
    own rather than keep the stubs' (which read the TypeVar's bound)."""
    p = get_proper_type(t)
    if isinstance(p, Instance) and array_info(p) is not None:
        return builder.any_array(p)
    return t


def over_bound(hook: Callable[[_C], Type], v: Variant, builder: Builder) -> Callable[[_C], Type]:
    """``hook``, answering for a TypeVar bound to marker dtypes from its
    answers for each of them."""

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def wrapped(ctx: _C) -> Type:
        found: dict[object, TypeVarType] = {}
        if isinstance(ctx, MethodContext):
            _type_vars(ctx.type, found)
        for types in ctx.arg_types:
            for t in types:
                _type_vars(t, found)
        bounded = [(tv, nodes) for tv in found.values() if (nodes := _bound_nodes(tv, v.x64)) is not None]
        if len(bounded) != 1:
            return hook(ctx)
        tv, nodes = bounded[0]
        default = _with_unknown_result(ctx.default_return_type, builder)
        results: list[Type] = []
        msg = getattr(ctx.api, "msg", None)
        if msg is None:
            return hook(ctx)
        held: list[str] = []
        errors.held_reports.append(held)
        try:
            with msg.filter_errors() as watcher:
                for node in nodes:
                    env = {tv.id: builder.marker(node)}
                    sub: Union[MethodContext, FunctionContext] = ctx._replace(
                        arg_types=[[expand_type(t, env) for t in types] for types in ctx.arg_types],
                        default_return_type=default,
                    )
                    if isinstance(sub, MethodContext) and isinstance(ctx, MethodContext):
                        sub = sub._replace(type=expand_type(ctx.type, env))
                    results.append(hook(cast(_C, sub)))
                refused = watcher.has_new_errors() or bool(held)
        finally:
            errors.held_reports.remove(held)
        answers = [array_dtype(r) for r in results]
        template = get_proper_type(results[0]) if results else None
        if not isinstance(template, Instance) or array_info(template) is None:
            return hook(ctx)  # (not an array: a tuple, a pytree; left to the hook)
        if refused or any(a is None for a in answers):
            return builder.any_array(template)
        if all(a == [node] for a, node in zip(answers, nodes)):
            return builder.array_of(template, [tv])
        if all(a == answers[0] for a in answers):
            return builder.array_of(template, answers[0])
        return builder.any_array(template)

    return wrapped
