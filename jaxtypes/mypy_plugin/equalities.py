"""``x == s`` and ``x != s`` with a Python scalar ``s`` that JAX cannot promote ``x`` with.

``Array[int4] == 1.0`` is an error in JAX (no promotion path).  mypy checks
``x.__eq__(1.0)`` and, when that reports an error, tries ``(1.0).__eq__(x)``
instead; float's __eq__ takes any object, so the error would vanish.  The
method hooks of the scalars' ``__eq__``/``__ne__`` report the same error when
their operand is an Array, so both directions fail and mypy keeps the error.
``1.0 == x`` is the same JAX operation and gets the same error.  For any other
operand these hooks change nothing.
"""

from __future__ import annotations

from typing import Callable

from mypy.plugin import MethodContext
from mypy.types import Instance, Type, TypeVarType, get_proper_type

from jaxtypes.lattice import Variant

from . import errors
from .operators import binary_outcome, failure, report
from .type_nodes import Builder, array_dtype, array_info, operands

__all__ = ["scalar_equality_hook"]


def scalar_equality_hook(op: str, v: Variant, builder: Builder) -> Callable[[MethodContext], Type]:
    """The method hook of ``builtins.<scalar>.__eq__`` / ``__ne__``."""

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: MethodContext) -> Type:
        if len(ctx.arg_types) != 1 or len(ctx.arg_types[0]) != 1:
            return ctx.default_return_type
        other = get_proper_type(ctx.arg_types[0][0])
        if not isinstance(other, Instance) or array_info(other) is None:
            return ctx.default_return_type
        mine = array_dtype(other)
        scalars = operands(ctx.type, builder)
        if mine is None or scalars is None:
            return ctx.default_return_type
        for a in mine:
            for s in scalars:
                if isinstance(a, TypeVarType) or isinstance(s.alt, TypeVarType):
                    continue  # comparisons with a type variable's dtype are bool
                outcome = binary_outcome(op, a, s.alt, v, False, s.scalar)
                if outcome.node is None:
                    report(ctx, [failure(outcome, op, (a, False), (s.alt, s.scalar), v)])
                    return ctx.default_return_type
        return ctx.default_return_type

    return hook
