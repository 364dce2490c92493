"""``lax.cond``, ``lax.switch`` and ``lax.fori_loop`` of known dtypes: the
branches must give, and a loop's body must return, arrays of the dtypes of
each other / of the carry it was given, which JAX checks when it traces the
call ("cond branches must have equal output types", "scan body function
carry input and carry output must have equal types": a TypeError).  JAX
compares types without their weak flag (a weakly typed float32 matches a
float32), so a weak dtype is read as the default dtype of its kind.

Only a result known exactly on both sides is compared: an array of one
dtype, or a tuple of them; anything else (a TypeVar, a union, an unknown
dtype, a lambda whose parameters mypy reads as ``Any``) is not reported.
``lax.scan`` and ``lax.while_loop`` need no hook: JAX's own declarations give
the carry one TypeVar, so mypy already reports a body returning another
dtype as an argument error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mypy.plugin import FunctionContext
from mypy.types import CallableType, Instance, TupleType, Type, get_proper_type

from jaxtypes import lattice

from . import errors, names
from .type_nodes import array_dtype

__all__ = ["control_flow_hooks"]


def _dtypes(t: Type, x64: bool) -> list[str] | None:
    """The dtype of each array of a result (an array, or a tuple of arrays),
    weak ones as their kind's default; None when one is not known exactly."""
    p = get_proper_type(t)
    items: Sequence[Type] = p.items if isinstance(p, TupleType) else [p]
    out: list[str] = []
    for item in items:
        if not isinstance(get_proper_type(item), Instance):
            return None
        alts = array_dtype(item)
        if alts is None or len(alts) != 1 or not isinstance(alts[0], str):
            return None
        node = alts[0]
        out.append(lattice.default_dtype(node[0], x64) if node in lattice.WEAK else node)
    return out


def _result(t: Type) -> Type | None:
    p = get_proper_type(t)
    return p.ret_type if isinstance(p, CallableType) else None


def _differ(first: list[str], second: list[str]) -> str | None:
    """How two results' dtypes differ, for the message; None when they match
    (or differ in structure, which JAX reports otherwise)."""
    if len(first) != len(second) or first == second:
        return None
    pairs = [(a, b) for a, b in zip(first, second) if a != b]
    return ", ".join(f"{a} and {b}" for a, b in pairs)


def _branches_hook(what: str, v: lattice.Variant) -> Callable[[FunctionContext], Type]:
    """cond(pred, true_fun, false_fun, ...) and switch(index, branches, ...)."""

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: FunctionContext) -> Type:
        if what == "cond":
            if len(ctx.arg_types) < 3 or len(ctx.arg_types[1]) != 1 or len(ctx.arg_types[2]) != 1:
                return ctx.default_return_type
            funs = [ctx.arg_types[1][0], ctx.arg_types[2][0]]
        else:
            if len(ctx.arg_types) < 2 or len(ctx.arg_types[1]) != 1:
                return ctx.default_return_type
            branches = get_proper_type(ctx.arg_types[1][0])
            if not isinstance(branches, TupleType):  # (a list's items are joined: no one type each)
                return ctx.default_return_type
            funs = list(branches.items)
        results = [_result(f) for f in funs]
        known = [_dtypes(r, v.x64) for r in results if r is not None]
        if len(known) != len(funs) or any(k is None for k in known):
            return ctx.default_return_type
        first = known[0]
        assert first is not None
        for other in known[1:]:
            assert other is not None
            differ = _differ(first, other)
            if differ is not None:
                errors.report(
                    ctx.api,
                    f"The branches of {what} give arrays of different dtypes, {differ}: JAX requires "
                    f"equal output types (cast one branch's result, e.g. y.astype(x.dtype))",
                    ctx.context,
                    errors.JAX_UNSUPPORTED,
                )
                break
        return ctx.default_return_type

    return hook


def _fori_loop_hook(v: lattice.Variant) -> Callable[[FunctionContext], Type]:
    """fori_loop(lower, upper, body_fun, init_val): body_fun's result is the carry."""

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: FunctionContext) -> Type:
        if len(ctx.arg_types) < 4 or len(ctx.arg_types[2]) != 1 or len(ctx.arg_types[3]) != 1:
            return ctx.default_return_type
        result = _result(ctx.arg_types[2][0])
        carry_out = None if result is None else _dtypes(result, v.x64)
        carry_in = _dtypes(ctx.arg_types[3][0], v.x64)
        if carry_in is None or carry_out is None:
            return ctx.default_return_type
        differ = _differ(carry_in, carry_out)
        if differ is not None:
            errors.report(
                ctx.api,
                f"The body of fori_loop changes its carry's dtype, {differ}: JAX requires the carry "
                f"to keep its type (cast the body's result, e.g. y.astype(x.dtype))",
                ctx.context,
                errors.JAX_UNSUPPORTED,
            )
        return ctx.default_return_type

    return hook


def control_flow_hooks(v: lattice.Variant) -> dict[str, Callable[[FunctionContext], Type]]:
    """{function's full name: its hook} for the plugin's function hooks."""
    hooks: dict[str, Callable[[FunctionContext], Type]] = {}
    for name in names.LAX_COND:
        hooks[name] = _branches_hook("cond", v)
    for name in names.LAX_SWITCH:
        hooks[name] = _branches_hook("switch", v)
    for name in names.LAX_FORI_LOOP:
        hooks[name] = _fori_loop_hook(v)
    return hooks
