"""``jax.grad(f)(...)`` and ``jax.value_and_grad(f)(...)`` where a type holds ``Any``.

The stubs of `jaxtypes jax-stubs` give ``jax.grad(f)`` the type
``GradientFunction[F]`` and ``jax.value_and_grad(f)``
``ValueAndGradientFunction[F]`` (``ValueAndGradientWithAuxFunction[F]``
with ``has_aux=True``), each an overload in front of JAX's own declaration
(``jaxtypes._stubgen.jax_transforms``); calling one gives ``(f's result, the
first argument's type)`` (the first argument's type alone for ``grad``),
again an overload in front of one answering ``Any``.  mypy answers ``Any``
for a call that two overloads of different return types match where an
argument holds ``Any``: ``f`` taking ``params: dict[str, jax.Array]`` (an
``Array[Any]`` inside), or called with such a value, which is most of real
training code.

mypy runs a hook on each overload it tries.  On JAX's own declaration, for
a call the typed overload also takes (``argnums`` left out or ``0``,
``has_aux`` left out or a literal), the hook gives the typed overload's
answer; on the ``Any`` overload of the call, where ``f`` is a plain function
(no type variables, a first parameter taking a positional argument), the
first's answer.  Both overloads then answer alike and mypy keeps it.  (The
stubs type JAX's own declaration's ``fun`` as the typed overloads' type
variable, so mypy without the plugin also keeps the transform's answer for
an ``f`` holding ``Any``; a call with an argument holding ``Any`` stays
``Any`` there.)
"""

from __future__ import annotations

from typing import Callable, Final

from mypy.nodes import ARG_OPT, ARG_POS, IntExpr, NameExpr
from mypy.plugin import FunctionContext, MethodContext
from mypy.types import AnyType, CallableType, Instance, TupleType, Type, TypeOfAny, get_proper_type

from . import errors, names

__all__ = ["gradient_hooks"]

# {JAX's transform: (its typed result without has_aux, with has_aux=True)}
_RESULTS: Final = {
    names.JAX_GRAD: (names.GRADIENT_FUNCTION, None),
    names.JAX_VALUE_AND_GRAD: (names.VALUE_AND_GRADIENT_FUNCTION, names.VALUE_AND_GRADIENT_WITH_AUX_FUNCTION),
}


def gradient_hooks(
    named_type: Callable[[str, list[Type]], Instance],
) -> tuple[dict[str, Callable[[FunctionContext], Type]], dict[str, Callable[[MethodContext], Type]]]:
    """({JAX's transform: its hook}, {its typed result's ``__call__``: its hook})."""
    guard = errors.guarded(lambda ctx: ctx.default_return_type)
    functions = {name: guard(_transform_hook(name, named_type)) for name in _RESULTS}
    calls = {
        f"{names.GRADIENT_FUNCTION}.__call__": guard(_call_hook(False, False)),
        f"{names.VALUE_AND_GRADIENT_FUNCTION}.__call__": guard(_call_hook(True, False)),
        f"{names.VALUE_AND_GRADIENT_WITH_AUX_FUNCTION}.__call__": guard(_call_hook(True, True)),
    }
    return functions, calls


def _argument(ctx: FunctionContext, formal: str) -> list[object] | None:
    """The expressions given for ``formal`` (empty: left out); None when the
    overload tried has no such parameter."""
    if formal not in ctx.callee_arg_names:
        return None
    return list(ctx.args[ctx.callee_arg_names.index(formal)])


def _bool_literal(expr: object) -> bool | None:
    if isinstance(expr, NameExpr) and expr.fullname in ("builtins.True", "builtins.False"):
        return expr.fullname == "builtins.True"
    return None


def _transform_hook(name: str, named_type: Callable[[str, list[Type]], Instance]) -> Callable[[FunctionContext], Type]:
    plain, with_aux = _RESULTS[name]

    def hook(ctx: FunctionContext) -> Type:
        result = get_proper_type(ctx.default_return_type)
        if isinstance(result, Instance) and result.type.fullname in (plain, with_aux):
            return ctx.default_return_type  # the typed overload
        fun, argnums, has_aux = (_argument(ctx, f) for f in ("fun", "argnums", "has_aux"))
        if fun is None or len(fun) != 1 or argnums is None or has_aux is None:
            return ctx.default_return_type
        if argnums and not (len(argnums) == 1 and isinstance(argnums[0], IntExpr) and argnums[0].value == 0):
            return ctx.default_return_type
        aux = _bool_literal(has_aux[0]) if has_aux else False
        typed = with_aux if aux else plain
        if aux is None or typed is None:
            return ctx.default_return_type
        (function,) = ctx.arg_types[ctx.callee_arg_names.index("fun")]
        return named_type(typed, [function])

    return hook


def _call_hook(value: bool, aux: bool) -> Callable[[MethodContext], Type]:
    def hook(ctx: MethodContext) -> Type:
        this = get_proper_type(ctx.type)
        actuals = [t for types in ctx.arg_types for t in types]
        if not isinstance(this, Instance) or len(this.args) != 1 or not actuals:
            return ctx.default_return_type
        f = get_proper_type(this.args[0])
        if (
            not isinstance(f, CallableType)
            or f.variables
            or not f.arg_kinds
            or f.arg_kinds[0] not in (ARG_POS, ARG_OPT)
        ):
            return ctx.default_return_type
        if aux:
            pair = get_proper_type(f.ret_type)
            if not isinstance(pair, TupleType) or len(pair.items) != 2:
                return ctx.default_return_type
        gradient = actuals[0]
        if not value:
            return gradient
        fallback = ctx.api.named_generic_type("builtins.tuple", [AnyType(TypeOfAny.special_form)])
        return TupleType([f.ret_type, gradient], fallback)

    return hook
