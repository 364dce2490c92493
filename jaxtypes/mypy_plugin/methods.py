"""Array's dtype methods and properties: sum, prod, mean, max, min, argmax,
argmin, argsort, clip, round, item, astype, real, imag.

Results come from ``jaxtypes.operation_rules.method`` under the configured variant.  An
explicit ``dtype=`` (reductions, ``astype``) is read as the stubs read it: a
marker or a dtype name gives that marker (``astype('bfloat16')`` is
``Array[bfloat16]``), a numpy scalar type or ``numpy.dtype[...]`` its dtype,
the Python types ``int``/``float``/``complex`` JAX's default dtype of the
kind, ``bool`` bool; ``astype(None)`` is the default float.  ``sum``/``prod``
with ``promote_integers=False`` keep narrow integers (bool still becomes
int32, as in JAX).  An Array whose dtype is a TypeVar gives ``Array[Any]``.
"""

from __future__ import annotations

import functools
from typing import Callable

from mypy.plugin import AttributeContext, MethodContext
from mypy.types import Instance, LiteralType, NoneType, Type, TypeVarType, UnionType, get_proper_type

from jaxtypes import lattice, operation_rules
from jaxtypes.lattice import Variant

from . import errors, names
from .type_nodes import Alt, Builder, array_dtype, dtype_like, operands

__all__ = ["method_hook", "default_int_hook", "property_hook", "item_hook", "astype_hook"]


@functools.lru_cache(maxsize=None)
def method_outcome(name: str, a: str, v: Variant, promote_integers: bool = True) -> operation_rules.Outcome:
    return operation_rules.method(name, a, v, promote_integers=promote_integers)


class _Unknown(Exception):
    pass


def _formal(ctx: MethodContext, name: str) -> list[Type]:
    try:
        return ctx.arg_types[ctx.callee_arg_names.index(name)]
    except (ValueError, IndexError):
        return []


def bool_value(t: Type) -> bool | None:
    """The value of a bool argument the checker knows (a literal); None when unknown."""
    p = get_proper_type(t)
    if isinstance(p, LiteralType) and isinstance(p.value, bool):
        return p.value
    if isinstance(p, Instance) and p.last_known_value is not None:
        value = p.last_known_value.value
        return value if isinstance(value, bool) else None
    return None


def explicit_dtype(t: Type, builder: Builder, v: Variant, ctx: MethodContext, *, none_means: str | None) -> list[str]:
    """The nodes a ``dtype=`` argument stands for; raises _Unknown when unknown.

    ``none_means``: the node of ``None`` (astype: the default float), or None
    when a None argument means "no dtype given" (the caller checks that first).
    """
    found = dtype_like(t, builder)
    if found is None:
        raise _Unknown
    out: list[str] = []
    for d in found:
        if d.kind == "none":
            if none_means is None:
                raise _Unknown
            node = none_means
        elif d.node is None:
            errors.report(ctx.api, f"Invalid dtype: {d.invalid}", ctx.context, code=errors.JAX_DTYPE)
            raise _Unknown
        elif d.kind == "type":
            node = lattice.default_dtype(d.node[0], v.x64) if d.weak else d.node
        elif d.kind == "dtype":
            node = d.node
        else:  # an array or a value given as a dtype: leave it to the signature
            raise _Unknown
        if node not in out:
            out.append(node)
    return out


def _report(ctx: MethodContext | AttributeContext, outcome: operation_rules.Outcome) -> None:
    errors.report(ctx.api, errors.unsupported_message(outcome.message), ctx.context, code=errors.JAX_UNSUPPORTED)


def _method_alts(
    name: str, mine: list[Alt], v: Variant, ctx: MethodContext | AttributeContext, promote_integers: bool | None = True
) -> list[Alt]:
    out: list[Alt] = []
    for a in mine:
        if isinstance(a, TypeVarType):
            raise _Unknown
        if promote_integers is None:  # not known statically: both answers must agree
            first, second = method_outcome(name, a, v, True), method_outcome(name, a, v, False)
            if first.node != second.node:
                raise _Unknown
            outcome = first
        else:
            outcome = method_outcome(name, a, v, promote_integers)
        if outcome.node is None:
            _report(ctx, outcome)
        elif outcome.node not in out:
            out.append(outcome.node)
    return out


@functools.lru_cache(maxsize=None)
def clip_outcome(a: str, bounds: tuple[str, ...], v: Variant) -> operation_rules.Outcome:
    """``a.clip(lo, hi)``: jnp.clip promotes with each bound in turn."""
    outcome = operation_rules.clip(a, None, v)
    for bound in bounds:
        if outcome.node is None:
            break
        outcome = operation_rules.clip(outcome.node, bound, v)
    return outcome


def _bound_nodes(ctx: MethodContext, builder: Builder, v: Variant) -> list[tuple[str, ...]]:
    """The alternatives of clip's bounds: tuples of nodes (None bounds left out;
    a NumPy bound is the strong dtype JAX makes of it)."""
    combos: list[tuple[str, ...]] = [()]
    for formal in ("min", "max"):
        types = _formal(ctx, formal)
        if not types or isinstance(get_proper_type(types[0]), NoneType):
            continue
        found = operands(types[0], builder)
        if found is None or any(isinstance(o.alt, TypeVarType) for o in found):
            raise _Unknown
        nodes = [operation_rules.numpy_operand(o.alt, v) if o.numpy else o.alt for o in found if isinstance(o.alt, str)]
        combos = [c + (n,) for c in combos for n in nodes]
        if len(combos) > 64:
            raise _Unknown
    return combos


def _clip_alts(mine: list[Alt], ctx: MethodContext, builder: Builder, v: Variant) -> list[Alt]:
    out: list[Alt] = []
    for bounds in _bound_nodes(ctx, builder, v):
        for a in mine:
            if isinstance(a, TypeVarType):
                raise _Unknown
            outcome = clip_outcome(a, bounds, v)
            if outcome.node is None:
                if outcome.error == "promotion":
                    errors.report(
                        ctx.api,
                        errors.promotion_message('"clip"', [(a, False)] + [(b, b in lattice.WEAK) for b in bounds], v),
                        ctx.context,
                        code=errors.JAX_PROMOTION,
                    )
                else:
                    _report(ctx, outcome)
            elif outcome.node not in out:
                out.append(outcome.node)
    return out


def method_hook(name: str, v: Variant, builder: Builder) -> Callable[[MethodContext], Type]:
    """The method hook of a dtype method of Array (sum, mean, max, clip, ...)."""

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: MethodContext) -> Type:
        receiver = get_proper_type(ctx.type)
        if not isinstance(receiver, Instance):
            return ctx.default_return_type
        try:
            dtype_arg = _formal(ctx, "dtype")
            if dtype_arg:
                given = get_proper_type(dtype_arg[0])
                if not isinstance(given, NoneType):
                    if name in names.VARIANCES:  # (a real dtype= for a complex array raises)
                        return builder.any_array(receiver)
                    return builder.array_of(receiver, explicit_dtype(dtype_arg[0], builder, v, ctx, none_means=None))
            mine = array_dtype(receiver)
            if mine is None:
                return builder.any_array(receiver)
            if name == "clip":
                return builder.array_of(receiver, _clip_alts(mine, ctx, builder, v))
            promote: bool | None = True
            flag = _formal(ctx, "promote_integers")
            if flag:
                promote = bool_value(flag[0])
            return builder.array_of(receiver, _method_alts(name, mine, v, ctx, promote))
        except _Unknown:
            return builder.any_array(receiver)

    return hook


def default_int_hook(v: Variant, builder: Builder) -> Callable[[MethodContext], Type]:
    """The method hook of ``Array.argsort``: JAX's default integer for the
    configured x64 (int32, int64), whatever the array's dtype (the stubs
    declare int32, x64 off)."""

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: MethodContext) -> Type:
        receiver = get_proper_type(ctx.type)
        if not isinstance(receiver, Instance):
            return ctx.default_return_type
        return builder.array_of(receiver, [lattice.default_dtype("i", v.x64)])

    return hook


def property_hook(name: str, v: Variant, builder: Builder) -> Callable[[AttributeContext], Type]:
    """The attribute hook of ``Array.real`` / ``Array.imag``."""

    @errors.guarded(lambda ctx: ctx.default_attr_type)
    def hook(ctx: AttributeContext) -> Type:
        receiver = get_proper_type(ctx.type)
        if not isinstance(receiver, Instance) or getattr(ctx, "is_lvalue", False):
            return ctx.default_attr_type
        mine = array_dtype(receiver)
        try:
            if mine is None:
                raise _Unknown
            return builder.array_of(receiver, _method_alts(name, mine, v, ctx))
        except _Unknown:
            return builder.any_array(receiver)

    return hook


def item_hook(v: Variant, builder: Builder) -> Callable[[MethodContext], Type]:
    """The method hook of ``Array.item``: bool, int, float or complex."""

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: MethodContext) -> Type:
        receiver = get_proper_type(ctx.type)
        mine = array_dtype(receiver) if isinstance(receiver, Instance) else None
        nodes = [a for a in mine or () if not isinstance(a, TypeVarType)]
        if not mine or len(nodes) < len(mine):
            return ctx.default_return_type
        kinds = list(dict.fromkeys(operation_rules.item_type(n, v) for n in nodes))
        types: list[Type] = [builder.builtin(k) for k in kinds]
        return types[0] if len(types) == 1 else UnionType.make_union(types)

    return hook


def astype_hook(v: Variant, builder: Builder) -> Callable[[MethodContext], Type]:
    """The method hook of ``Array.astype``: markers, dtype names, numpy dtypes,
    Python types; ``None`` is the default float."""

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: MethodContext) -> Type:
        receiver = get_proper_type(ctx.type)
        dtype_arg = _formal(ctx, "dtype")
        if not isinstance(receiver, Instance) or len(dtype_arg) != 1:
            return ctx.default_return_type
        try:
            nodes = explicit_dtype(dtype_arg[0], builder, v, ctx, none_means=lattice.default_dtype("f", v.x64))
        except _Unknown:
            return builder.any_array(receiver)
        # With x64 off JAX truncates a 64-bit dtype asked for (its default
        # jax_explicit_x64_dtypes="warn"): astype("float64") is float32.
        canonical = list(dict.fromkeys(lattice.canonicalize(n, v.x64) for n in nodes))
        return builder.array_of(receiver, canonical)

    return hook
