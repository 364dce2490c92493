"""Functions whose answer overloads cannot express: ``jaxtypes.result_type``,
``jaxtypes.promote_types`` and ``jaxtypes.promote_dtype``.

Their arguments are read as JAX reads them (see ``dtypes.dtype_like``):
markers and numpy scalar types as type objects, dtype-name string literals,
``numpy.dtype[...]``, arrays (``Array[...]``, ``numpy.ndarray[..., dtype[...]]``),
Python scalars (weak) and the types ``int``/``float``/``complex`` (weak),
``bool`` and ``None`` (the default float).  Any argument of unknown dtype, or a
``*args`` argument, leaves the declared type alone.

Static types:

* ``result_type(...)`` and ``promote_types(a, b)`` return numpy dtype objects
  at run time; the plugin types them ``numpy.dtype[numpy.<scalar>]``
  (``numpy.dtype[numpy.float32]``), or ``numpy.dtype[Any]`` for the dtypes
  numpy does not define (bfloat16, the float8s, int4 ...: ml_dtypes has no
  type information).  ``Array.astype`` reads ``numpy.dtype[numpy.float32]``
  back as ``float32``.  ``result_type(..., return_weak_type_flag=True)`` is
  ``tuple[numpy.dtype[...], bool]``.
* ``promote_dtype(*args, dtype=None, inexact=True)`` is a tuple with one
  element per argument: an ``Array[...]`` argument becomes ``Array[<common
  dtype>]``, ``None`` stays ``None``, anything else (numpy arrays, Python
  scalars) ``numpy.ndarray[Any, numpy.dtype[...]]``.

Arguments JAX cannot promote are errors (``jax-promotion``), as are invalid
dtype arguments (``jax-dtype``).
"""

from __future__ import annotations

from typing import Any, Callable

from mypy.nodes import ARG_POS
from mypy.plugin import FunctionContext
from mypy.types import AnyType, Instance, NoneType, TupleType, Type, TypeOfAny, UnionType, get_proper_type

from jaxtypes import lattice
from jaxtypes.lattice import Variant
from jaxtypes.layer_rules import FLAX_INEXACT_FLOOR

from . import errors, names
from .methods import bool_value
from .type_nodes import Builder, DTypeLike, array_info, dtype_like

__all__ = ["result_type_hook", "promote_types_hook", "promote_dtype_hook", "common_dtype"]

_MAX_COMBINATIONS = 256


class _Unknown(Exception):
    pass


class _Failed(Exception):
    """An error was reported: answer with the declared type."""


def _formal(ctx: FunctionContext, name: str) -> tuple[list[Type], list[Any]]:
    try:
        i = ctx.callee_arg_names.index(name)
    except ValueError:
        return [], []
    return ctx.arg_types[i], ctx.arg_kinds[i]


def _positional(ctx: FunctionContext) -> list[Type]:
    """The types of the ``*args`` actuals; _Unknown if one is a ``*xs``."""
    if not ctx.arg_types:
        return []
    if any(k != ARG_POS for k in ctx.arg_kinds[0]):
        raise _Unknown
    return list(ctx.arg_types[0])


def _read(t: Type, builder: Builder, ctx: FunctionContext) -> list[DTypeLike]:
    found = dtype_like(t, builder)
    if found is None:
        raise _Unknown
    for d in found:
        if d.node is None and d.kind != "none":
            errors.report(ctx.api, f"Invalid dtype: {d.invalid}", ctx.context, code=errors.JAX_DTYPE)
            raise _Failed
    return found


def result_token(d: DTypeLike, v: Variant) -> tuple[str, bool]:
    """The (dtype node, weak) ``jax.numpy.result_type`` sees for an argument."""
    if d.kind == "none":
        return lattice.default_dtype("f", v.x64), False
    assert d.node is not None
    if d.node in lattice.WEAK:  # Python scalars, int/float/complex, weakly typed arrays
        return lattice.default_dtype(d.node[0], v.x64), True
    if d.kind == "array":  # JAX keeps an array's dtype
        return d.node, False
    return lattice.canonicalize(d.node, v.x64), False


def _combinations(alternatives: list[list[DTypeLike]]) -> list[tuple[DTypeLike, ...]]:
    combos: list[tuple[DTypeLike, ...]] = [()]
    for alts in alternatives:
        combos = [c + (a,) for c in combos for a in alts]
        if len(combos) > _MAX_COMBINATIONS:
            raise _Unknown
    return combos


def common_dtype(
    args: list[list[DTypeLike]], v: Variant, ctx: FunctionContext, what: str, *, none_is_absent: bool = False
) -> list[tuple[str, bool]]:
    """``result_type`` of every combination of alternatives: (node, weak) answers.

    With ``none_is_absent`` a None alternative is left out (promote_dtype skips
    None arguments) instead of standing for the default float.  Reports (and
    raises _Failed) where JAX finds no promotion path."""
    out: list[tuple[str, bool]] = []
    failed = False
    for combo in _combinations(args):
        tokens = [result_token(d, v) for d in combo if not (none_is_absent and d.kind == "none")]
        if not tokens:
            continue
        try:
            answer = lattice.result_type(tokens, v)
        except lattice.NoJoin:
            shown = [(lattice.jax_type(n, w), w) for n, w in tokens]
            errors.report(ctx.api, errors.promotion_message(what, shown, v), ctx.context, code=errors.JAX_PROMOTION)
            failed = True
            break
        except ValueError as err:  # a weakly typed sub-byte int has no default dtype
            errors.report(ctx.api, f"Invalid dtype: {err}", ctx.context, code=errors.JAX_DTYPE)
            failed = True
            break
        if answer not in out:
            out.append(answer)
    if failed:
        raise _Failed
    return out


def _dtype_type(builder: Builder, nodes: list[str], default: Type) -> Type:
    types: list[Type] = []
    for node in nodes:
        t = builder.numpy_dtype(node)
        if t is None:
            return default
        types.append(t)
    return types[0] if len(types) == 1 else UnionType.make_union(types)


def result_type_hook(v: Variant, builder: Builder) -> Callable[[FunctionContext], Type]:
    """The function hook of ``jaxtypes.result_type``."""

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: FunctionContext) -> Type:
        try:
            actuals = _positional(ctx)
            if not actuals:
                errors.report(
                    ctx.api,
                    "jaxtypes.result_type() needs at least one array or dtype",
                    ctx.context,
                    code=errors.JAX_DTYPE,
                )
                return ctx.default_return_type
            flag_types, _ = _formal(ctx, "return_weak_type_flag")
            flag = bool_value(flag_types[0]) if flag_types else False
            answers = common_dtype([_read(t, builder, ctx) for t in actuals], v, ctx, "jaxtypes.result_type()")
        except (_Unknown, _Failed):
            return ctx.default_return_type
        dtype = _dtype_type(builder, list(dict.fromkeys(n for n, _ in answers)), ctx.default_return_type)
        if flag is None:
            return ctx.default_return_type
        if flag:
            return TupleType(
                [dtype, builder.builtin("bool")],
                ctx.api.named_generic_type("builtins.tuple", [AnyType(TypeOfAny.special_form)]),
            )
        return dtype

    return hook


def promote_token(d: DTypeLike) -> str | None:
    """The node ``jax.numpy.promote_types`` sees: int/float/complex (the types)
    are weak, anything else goes through numpy.dtype (no canonicalization)."""
    if d.kind == "none":
        return "float64"  # numpy.dtype(None)
    if d.kind == "type":
        return d.node
    if d.kind == "dtype":
        return d.node
    return None  # arrays and values are not dtypes: leave it to the signature


def promote_types_hook(v: Variant, builder: Builder) -> Callable[[FunctionContext], Type]:
    """The function hook of ``jaxtypes.promote_types(a, b)``."""

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: FunctionContext) -> Type:
        if len(ctx.arg_types) != 2 or any(len(a) != 1 for a in ctx.arg_types):
            return ctx.default_return_type
        try:
            sides = [_read(a[0], builder, ctx) for a in ctx.arg_types]
        except (_Unknown, _Failed):
            return ctx.default_return_type
        results: list[str] = []
        for da in sides[0]:
            for db in sides[1]:
                a, b = promote_token(da), promote_token(db)
                if a is None or b is None:
                    return ctx.default_return_type
                joined = lattice.join(a, b, v)
                if joined is None:
                    errors.report(
                        ctx.api,
                        errors.promotion_message(
                            "jaxtypes.promote_types()", [(a, a in lattice.WEAK), (b, b in lattice.WEAK)], v
                        ),
                        ctx.context,
                        code=errors.JAX_PROMOTION,
                    )
                    return ctx.default_return_type
                # A weak answer is numpy's dtype of int/float/complex.
                scalar = lattice.PYTHON_SCALAR_OF_NODE.get(joined)
                node = scalar.dtype if scalar is not None else joined
                if node not in results:
                    results.append(node)
        return _dtype_type(builder, results, ctx.default_return_type)

    return hook


def promote_dtype_hook(v: Variant, builder: Builder) -> Callable[[FunctionContext], Type]:
    """The function hook of ``jaxtypes.promote_dtype(*args, dtype=None, inexact=True)``."""

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: FunctionContext) -> Type:
        try:
            actuals = _positional(ctx)
            inexact_types, _ = _formal(ctx, "inexact")
            inexact = bool_value(inexact_types[0]) if inexact_types else True
            dtype_types, _ = _formal(ctx, "dtype")
            explicit = None
            if dtype_types and not isinstance(get_proper_type(dtype_types[0]), NoneType):
                explicit = _read(dtype_types[0], builder, ctx)
            nodes = _target_nodes(actuals, explicit, inexact, v, builder, ctx)
        except (_Unknown, _Failed):
            return ctx.default_return_type
        items = [_element(t, nodes, builder) for t in actuals]
        known = [i for i in items if i is not None]
        if len(known) < len(items):
            return ctx.default_return_type
        return TupleType(known, ctx.api.named_generic_type("builtins.tuple", [AnyType(TypeOfAny.special_form)]))

    return hook


def _inexact(node: str) -> bool:
    return lattice.kind(node) in "fc"


def _target_nodes(
    actuals: list[Type],
    explicit: list[DTypeLike] | None,
    inexact: bool | None,
    v: Variant,
    builder: Builder,
    ctx: FunctionContext,
) -> list[str] | None:
    """The dtype(s) promote_dtype casts to; None when there is nothing to cast."""
    if explicit is not None:
        nodes: list[str] = []
        for d in explicit:
            # None: the None of an optional dtype (_read lets only that through).
            if d.kind in ("array", "value") or d.node is None:
                raise _Unknown
            # jaxtypes.dtype(): canonicalized; int/float/complex are the defaults.
            node = (
                lattice.default_dtype(d.node[0], v.x64)
                if d.node in lattice.WEAK
                else lattice.canonicalize(d.node, v.x64)
            )
            if not _inexact(node):
                if inexact is None:
                    raise _Unknown
                if inexact:
                    errors.report(
                        ctx.api,
                        f"promote_dtype(..., inexact=True) needs an inexact dtype, got {node}; "
                        "pass inexact=False to cast to it",
                        ctx.context,
                        code=errors.JAX_DTYPE,
                    )
                    raise _Failed
            if node not in nodes:
                nodes.append(node)
        return nodes
    # None arguments are passed through; an Optional one counts when it is not None.
    present = [_read(t, builder, ctx) for t in actuals]
    nodes = []
    for node, _ in common_dtype(present, v, ctx, "jaxtypes.promote_dtype()", none_is_absent=True):
        if not _inexact(node):
            if inexact is None:
                raise _Unknown
            if inexact:
                node = FLAX_INEXACT_FLOOR
        if node not in nodes:
            nodes.append(node)
    return nodes or None


def _element(t: Type, nodes: list[str] | None, builder: Builder) -> Type | None:
    """The type of one element of promote_dtype's tuple."""
    p = get_proper_type(t)
    if isinstance(p, UnionType):
        items = [_element(i, nodes, builder) for i in p.items]
        known = [i for i in items if i is not None]
        if len(known) < len(items):
            return None
        return UnionType.make_union(known)
    if isinstance(p, NoneType):
        return p
    if nodes is None:
        return None
    if isinstance(p, Instance) and array_info(p) is not None:
        return builder.array_of(p, list(nodes))
    if isinstance(p, AnyType):
        return p
    # numpy arrays (x.astype) and anything else (numpy.asarray): a numpy array.
    ndarray = builder.named(names.NUMPY_NDARRAY)
    if ndarray is None:
        return None
    dtype = _dtype_type(builder, nodes, AnyType(TypeOfAny.special_form))
    return Instance(ndarray, [AnyType(TypeOfAny.special_form), dtype])
