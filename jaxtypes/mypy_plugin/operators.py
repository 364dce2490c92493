"""Array's operators: ``a + b``, ``1 - a``, ``-a``, ``abs(a)``, ``a < b`` ...

Each hook reads the dtype alternatives of the receiver and of the other
operand (a union distributes; unknown dtypes answer ``Array[Any]``), asks
``jaxtypes.operation_rules`` under the configured variant, and reports what JAX rejects.

Type variables (``def f(x: Array[T], y: Array[T])``): an operator that keeps
its operands' dtype (``+ - * @ & | ^ << >>`` and the unary ones) gives
``Array[T]`` for two ``Array[T]``; a comparison always gives ``Array[bool_]``;
anything else involving ``T`` is ``Array[Any]``.
"""

from __future__ import annotations

import functools
from typing import Callable, Final, Tuple

from mypy.errorcodes import ErrorCode
from mypy.nodes import CallExpr
from mypy.plugin import FunctionContext, MethodContext
from mypy.types import AnyType, Instance, Type, TypeVarType, UnionType, get_proper_type

from jaxtypes import lattice, operation_rules
from jaxtypes.lattice import Variant

from . import errors, names
from .argument_values import expression_type
from .type_nodes import Alt, Builder, Operand, array_dtype, array_info, shareable

__all__ = ["binary_hook", "unary_hook", "abs_function_hook", "binary_outcome", "failure", "report"]

# Operators whose result has their operands' dtype whenever JAX accepts them,
# so Array[T] op Array[T] is Array[T].
_KEEPS_DTYPE: Final = frozenset({"add", "mul", "matmul", "sub", "and", "or", "xor", "lshift", "rshift"})


@functools.lru_cache(maxsize=None)
def binary_outcome(
    op: str,
    a: str,
    b: str,
    v: Variant,
    a_is_scalar: bool,
    b_is_scalar: bool,
    a_is_numpy_scalar: bool = False,
    b_is_numpy_scalar: bool = False,
) -> operation_rules.Outcome:
    return operation_rules.binary(
        op,
        a,
        b,
        v,
        a_is_scalar=a_is_scalar,
        b_is_scalar=b_is_scalar,
        a_is_numpy_scalar=a_is_numpy_scalar,
        b_is_numpy_scalar=b_is_numpy_scalar,
    )


@functools.lru_cache(maxsize=None)
def unary_outcome(op: str, a: str, v: Variant) -> operation_rules.Outcome:
    return operation_rules.unary(op, a, v)


class _Unknown(Exception):
    """Some alternative has an unknown dtype: the answer is Array[Any]."""


def _symbol(op: str) -> str:
    return f'"{operation_rules.SYMBOLS[op]}"'


# An error to report: its message and code.
_Failure = Tuple[str, ErrorCode]


def failure(
    outcome: operation_rules.Outcome, op: str, left: tuple[str, bool], right: tuple[str, bool] | None, v: Variant
) -> _Failure:
    if outcome.error == "promotion":
        operands_ = [left] if right is None else [left, right]
        return errors.promotion_message(_symbol(op), operands_, v), errors.JAX_PROMOTION
    return errors.unsupported_message(outcome.message), errors.JAX_UNSUPPORTED


def _fail(
    ctx: MethodContext | FunctionContext,
    outcome: operation_rules.Outcome,
    op: str,
    left: tuple[str, bool],
    right: tuple[str, bool] | None,
    v: Variant,
) -> None:
    report(ctx, [failure(outcome, op, left, right, v)])


def report(ctx: MethodContext | FunctionContext, failures: list[_Failure]) -> None:
    for message, code in failures:
        ctx.api.fail(message, ctx.context, code=code)


def _binary_alt(
    op: str, a: Alt, other: Operand, reflected: bool, v: Variant, failures: list[_Failure], reported: set[str]
) -> Alt | None:
    """The result alternative of ``a <op> other`` (``other <op> a`` if reflected);
    None after adding the error to ``failures``."""
    b = other.alt
    if isinstance(a, TypeVarType) or isinstance(b, TypeVarType):
        if op in operation_rules.COMPARISONS:
            return lattice.BOOL
        if (
            not reflected
            and op in _KEEPS_DTYPE
            and not other.scalar
            and isinstance(a, TypeVarType)
            and isinstance(b, TypeVarType)
            and a.id == b.id
        ):
            return a
        raise _Unknown
    numpy_scalar = other.numpy == "scalar"
    if other.numpy:  # JAX takes a NumPy operand as a strong array of its canonical dtype
        b = operation_rules.numpy_operand(b, v)
    if reflected:
        outcome = binary_outcome(op, b, a, v, other.scalar, False, numpy_scalar, False)
        left, right = (b, other.scalar), (a, False)
    else:
        outcome = binary_outcome(op, a, b, v, False, other.scalar, False, numpy_scalar)
        left, right = (a, False), (b, other.scalar)
    if outcome.node is not None:
        return outcome.node
    key = f"{left}{right}"
    if key not in reported:
        reported.add(key)
        failures.append(failure(outcome, op, left, right, v))
    return None


def _array_or_any(t: Type) -> bool:
    p = get_proper_type(t)
    return isinstance(p, AnyType) or (isinstance(p, Instance) and array_info(p) is not None)


def _collect(results: list[Alt | None]) -> list[Alt]:
    out: list[Alt] = []
    for r in results:
        if r is not None and r not in out:
            out.append(r)
    return out


def _numpy_of_unknown_dtype(t: Type) -> bool:
    """Whether ``t`` is a NumPy array of unknown dtype (``NDArray[Any]``)."""
    p = get_proper_type(t)
    if not (isinstance(p, Instance) and p.type.fullname == names.NUMPY_NDARRAY and len(p.args) == 2):
        return False
    dtype = get_proper_type(p.args[1])
    if isinstance(dtype, AnyType):
        return True
    return isinstance(dtype, Instance) and len(dtype.args) == 1 and isinstance(get_proper_type(dtype.args[0]), AnyType)


def _operand_type(ctx: MethodContext) -> Type:
    """The other operand's type; for a NumPy call written as the operand
    (``x + np.ones(2, np.float32)``), the call's type without the operator's
    parameter as its type context.  mypy infers a call given as an argument
    from the parameter's type first: from ``np.ndarray[Any, Any]`` numpy's
    generic overload of ``np.ones`` gets an ``Any`` scalar type, which its
    ``dtype`` argument then fails, and mypy takes numpy's last overload,
    ``NDArray[Any]``.  Only that case is inferred again (a parameter that
    keeps the scalar type made mypy slower on every operator)."""
    other = ctx.arg_types[0][0]
    args = ctx.args[0] if ctx.args else []
    if len(args) != 1 or not isinstance(args[0], CallExpr) or not _numpy_of_unknown_dtype(other):
        return other
    with ctx.api.msg.filter_errors():  # (mypy reported the call's errors in context)
        alone = expression_type(ctx.api, args[0])
    return alone if isinstance(get_proper_type(alone), Instance) else other


def binary_hook(op: str, reflected: bool, v: Variant, builder: Builder) -> Callable[[MethodContext], Type]:
    """The method hook of ``Array.__<op>__`` (``__r<op>__`` if reflected)."""
    # Answers by (receiver, other operand) type for this build: mypy's types
    # hash and compare by structure, so equal operand types share one answer
    # (the same result type and the same errors).
    answers: dict[tuple[Type, Type], tuple[Type, list[_Failure]]] = builder.memo()

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: MethodContext) -> Type:
        receiver = get_proper_type(ctx.type)
        if not isinstance(receiver, Instance) or len(ctx.arg_types) != 1 or len(ctx.arg_types[0]) != 1:
            return ctx.default_return_type
        key = (receiver, _operand_type(ctx))
        known = answers.get(key)
        if known is None:
            result, failures, reusable = _binary_answer(*key)
            if reusable:
                answers[key] = (result, failures)
        else:
            result, failures = known
        if failures:
            report(ctx, failures)
        return result

    def _binary_answer(receiver: Instance, other: Type) -> tuple[Type, list[_Failure], bool]:
        """(result type, errors, whether the answer holds wherever the operand
        types are equal: not when a type variable is involved, whose identity
        belongs to its function)."""
        mine = builder.array_alts(receiver)
        theirs = builder.operand_alts(other)
        if mine is None or theirs is None:
            # A comparison with an array of unknown dtype (or a value typed
            # Any) is bool whatever the dtypes, as the stubs say; of anything
            # else (None, a string), it is not JAX's.
            if op in operation_rules.COMPARISONS and (theirs is not None or _array_or_any(other)):
                return builder.array_of(receiver, [lattice.BOOL]), [], True
            return builder.any_array(receiver), [], True
        failures: list[_Failure] = []
        reusable = shareable(mine) and shareable([o.alt for o in theirs])
        if reusable and len(mine) == 1 and len(theirs) == 1:
            # The usual case, two known dtypes: the same answer, fewer steps.
            result = _binary_alt(op, mine[0], theirs[0], reflected, v, failures, set())
            return builder.array_of(receiver, None if result is None else [result]), failures, True
        reported: set[str] = set()
        try:
            results = [_binary_alt(op, a, o, reflected, v, failures, reported) for a in mine for o in theirs]
        except _Unknown:
            return builder.any_array(receiver), [], reusable
        return builder.array_of(receiver, _collect(results)), failures, reusable

    return hook


def _unary_alts(op: str, mine: list[Alt], v: Variant, ctx: MethodContext | FunctionContext) -> list[Alt]:
    results: list[Alt | None] = []
    for a in mine:
        if isinstance(a, TypeVarType):
            results.append(a)  # -x, +x, ~x, abs(x) keep a TypeVar of no marker bound (over_bound answers one)
            continue
        outcome = unary_outcome(op, a, v)
        if outcome.node is None:
            _fail(ctx, outcome, op, (a, False), None, v)
        results.append(outcome.node)
    return _collect(results)


def unary_hook(op: str, v: Variant, builder: Builder) -> Callable[[MethodContext], Type]:
    """The method hook of ``Array.__neg__``, ``__pos__``, ``__invert__``, ``__abs__``."""

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: MethodContext) -> Type:
        receiver = get_proper_type(ctx.type)
        if not isinstance(receiver, Instance):
            return ctx.default_return_type
        mine = array_dtype(receiver)
        if mine is None:
            return builder.any_array(receiver)
        return builder.array_of(receiver, _unary_alts(op, mine, v, ctx))

    return hook


def abs_function_hook(v: Variant, builder: Builder) -> Callable[[FunctionContext], Type]:
    """The function hook of ``builtins.abs``: ``abs(x)`` of an Array (union items
    one by one); anything else keeps mypy's answer."""

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: FunctionContext) -> Type:
        if len(ctx.arg_types) != 1 or len(ctx.arg_types[0]) != 1:
            return ctx.default_return_type
        arg = get_proper_type(ctx.arg_types[0][0])
        items = list(arg.items) if isinstance(arg, UnionType) else [arg]
        out: list[Type] = []
        for item in items:
            p = get_proper_type(item)
            if not isinstance(p, Instance) or not any(p.type.has_base(a) for a in names.ARRAYS):
                return ctx.default_return_type
            mine = array_dtype(p)
            out.append(builder.any_array(p) if mine is None else builder.array_of(p, _unary_alts("abs", mine, v, ctx)))
        return out[0] if len(out) == 1 else UnionType.make_union(out)

    return hook
