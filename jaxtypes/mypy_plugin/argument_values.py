"""What a call's argument expressions say beyond their types: the branches
of a conditional ``dtype=`` and the values of Python int operands.

- ``dtype=jnp.int8 if quantize else jnp.bfloat16``: mypy joins the two
  branches' types to a dtype of neither; the function hooks
  (``function_calls``) answer each branch and give the union of the two
  arrays (``Array[int8] | Array[bfloat16]``), which an annotation of either
  form (``Array[int8 | bfloat16]``, ``Array[int8] | Array[bfloat16]``) takes.
- ``lax.neg(1 << 32)``: JAX makes a Python int a weakly typed array of its
  default int, int32 with x64 off and int64 with it, and raises OverflowError
  when the value does not fit (it once wrapped silently: jax-ml/jax#3840).
  The value is read where mypy can fold it to a constant
  (``mypy.constant_fold``: literals, ``1 << 32``, ``2**31``, Final names).
"""

from __future__ import annotations

from typing import Union, cast

from mypy.checker import TypeChecker
from mypy.constant_fold import constant_fold_expr
from mypy.nodes import ConditionalExpr, Expression
from mypy.plugin import CheckerPluginInterface, FunctionContext, MethodContext
from mypy.types import Type

__all__ = ["conditional_dtype", "expression_type", "int_values", "int_range"]

Context = Union[FunctionContext, MethodContext]


def expression_type(api: CheckerPluginInterface, expr: Expression) -> Type:
    """mypy's type of an argument's expression.  (``get_expression_type`` is
    new in mypy 1.5; before it, its body: the checker's ``expr_checker``.)"""
    get = getattr(api, "get_expression_type", None)
    if get is not None:
        return cast(Type, get(expr))
    return cast(TypeChecker, api).expr_checker.accept(expr)


def conditional_dtype(ctx: Context) -> tuple[int, list[Type]] | None:
    """(position of ``dtype``, the types of its two branches) when the
    call's ``dtype=`` is a conditional expression, else None."""
    if "dtype" not in ctx.callee_arg_names:
        return None
    i = ctx.callee_arg_names.index("dtype")
    args = ctx.args[i] if i < len(ctx.args) else []
    if len(args) != 1 or not isinstance(args[0], ConditionalExpr):
        return None
    return i, [expression_type(ctx.api, e) for e in (args[0].if_expr, args[0].else_expr)]


def int_values(ctx: Context, positions: set[int], module: str) -> list[tuple[int, Expression]]:
    """The Python int constants passed at these argument positions (a bool is
    no int here: JAX makes it a bool array)."""
    found: list[tuple[int, Expression]] = []
    for i in sorted(positions):
        for expr in ctx.args[i] if i < len(ctx.args) else []:
            value = constant_fold_expr(expr, module)
            if isinstance(value, int) and not isinstance(value, bool):
                found.append((value, expr))
    return found


def int_range(x64: bool) -> tuple[str, int, int]:
    """The default int JAX makes of a Python int, and its bounds."""
    bits = 64 if x64 else 32
    return f"int{bits}", -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
