"""Flax's variables read back as the array type they hold.

* ``nnx.Variable[A]`` (and ``nnx.Param``, its subclass) declares ``.value``
  and ``.get_value()`` as returning ``A``, but ``variable[...]`` as
  ``jax.Array`` whatever ``A`` is (flax/nnx/variablelib.py, "Variable.
  __getitem__"): the plugin gives ``A`` where it is an array type, as
  indexing an array keeps its dtype.
* Linen's ``self.param(name, init_fn, *init_args, **init_kwargs)`` runs
  ``init_fn(key, *init_args, **init_kwargs)``, and ``self.variable(col,
  name, init_fn, *init_args, **init_kwargs)`` runs ``init_fn(*init_args,
  **init_kwargs)`` (Flax's documentation, "Module.param" and
  "Module.variable",
  https://flax.readthedocs.io/en/latest/api_reference/flax.linen/module.html).
  Flax declares ``init_fn`` a ``Callable[..., T]``, which sees none of the
  arguments; the plugin checks that call (an initializer typed by the stubs
  of ``jax.nn.initializers`` reads its ``dtype`` there) and gives its result
  where it is an array.  ``unbox=`` (boxed metadata) keeps Flax's declaration.
* ``jax.nn.initializers``' builders (and ``zeros``, ``ones``) without a
  ``dtype`` give JAX's default float, which the stubs give as float32 (x64
  off): the plugin gives the project's (float64 with ``x64 = true``).
"""

from __future__ import annotations

from typing import Callable, Final, cast

from mypy.checker import TypeChecker
from mypy.maptype import map_instance_to_supertype
from mypy.nodes import ARG_POS, ArgKind, Expression, RefExpr, TempNode
from mypy.plugin import FunctionContext, MethodContext
from mypy.types import AnyType, Instance, Type, TypeOfAny, get_proper_type

from jaxtypes import lattice
from jaxtypes.lattice import Variant

from . import errors, names
from .type_nodes import Builder

__all__ = ["hooks", "initializer_hooks"]

_INIT_FN: Final = "init_fn"
_UNBOX: Final = "unbox"


def hooks() -> dict[str, Callable[[MethodContext], Type]]:
    """{fully qualified name of the method: its hook}."""
    guard = errors.guarded(lambda ctx: ctx.default_return_type)
    return {
        names.NNX_VARIABLE_GETITEM: guard(_getitem),
        names.FLAX_MODULE_PARAM: guard(_param),
        names.FLAX_MODULE_VARIABLE: guard(_variable),
    }


def _held_array(t: Type) -> Instance | None:
    """The array type a ``Variable[A]`` holds, when ``A`` is one."""
    variable = get_proper_type(t)
    if not isinstance(variable, Instance):
        return None
    base = next((b for b in variable.type.mro if b.fullname == names.NNX_VARIABLE), None)
    if base is None:
        return None
    held = map_instance_to_supertype(variable, base).args
    arg = get_proper_type(held[0]) if held else None
    return arg if isinstance(arg, Instance) and arg.type.fullname == names.JAX_ARRAY else None


def _getitem(ctx: MethodContext) -> Type:
    held = _held_array(ctx.type)
    return ctx.default_return_type if held is None else held


def _initialised(ctx: MethodContext, with_key: bool) -> Instance | None:
    """The array ``init_fn(key, *init_args, **init_kwargs)`` (without ``key``
    for ``variable``) returns, as the checked call types it."""
    formals = ctx.callee_arg_names
    if _INIT_FN not in formals or (_UNBOX in formals and ctx.arg_types[formals.index(_UNBOX)]):
        return None
    start = formals.index(_INIT_FN)
    if len(ctx.arg_types[start]) != 1:
        return None
    (init_type,) = ctx.arg_types[start]
    args: list[Expression] = [TempNode(AnyType(TypeOfAny.special_form))] if with_key else []
    kinds: list[ArgKind] = [ARG_POS] if with_key else []
    arg_names: list[str | None] = [None] if with_key else []
    # The arguments as typed already (checking their expressions again inside
    # mypy's own check of an overloaded call would undo its type overrides).
    for types, arg_kinds, given_names in zip(
        ctx.arg_types[start + 1 :], ctx.arg_kinds[start + 1 :], ctx.arg_names[start + 1 :]
    ):
        args += [TempNode(t, context=ctx.context) for t in types]
        kinds += arg_kinds
        arg_names += given_names
    # A JAX function (jnp.zeros) by its name, so that the plugin's own hook answers it.
    (init_expr,) = ctx.args[start]
    name = init_expr.fullname if isinstance(init_expr, RefExpr) and init_expr.fullname else None
    checker = cast(TypeChecker, ctx.api).expr_checker  # (mypy's checker is the plugin's api)
    with checker.msg.filter_errors() as found:
        result, _ = checker.check_call(init_type, args, kinds, ctx.context, arg_names, callable_name=name)
    result = get_proper_type(result)
    if found.has_new_errors() or not isinstance(result, Instance) or result.type.fullname != names.JAX_ARRAY:
        return None
    return result


def _param(ctx: MethodContext) -> Type:
    result = _initialised(ctx, with_key=True)
    return ctx.default_return_type if result is None else result


def _variable(ctx: MethodContext) -> Type:
    declared = get_proper_type(ctx.default_return_type)
    result = _initialised(ctx, with_key=False)
    if result is None or not isinstance(declared, Instance) or len(declared.args) != 1:
        return ctx.default_return_type
    return Instance(declared.type, [result])


def initializer_hooks(v: Variant, builder: Builder) -> dict[str, Callable[[FunctionContext], Type]]:
    """{``jax.nn.initializers.NAME``: its hook} of the functions whose result
    without ``dtype`` is JAX's default float (none with x64 off, where it is
    the stubs' float32), and of Flax's ``zeros_init``/``ones_init``."""
    default = lattice.default_dtype("f", v.x64)
    if default == lattice.default_dtype("f", False):
        return {}
    guard = errors.guarded(lambda ctx: ctx.default_return_type)

    def hook(ctx: FunctionContext) -> Type:
        given = "dtype" in ctx.callee_arg_names and ctx.arg_types[ctx.callee_arg_names.index("dtype")]
        result = get_proper_type(ctx.default_return_type)
        if given or not isinstance(result, Instance) or len(result.args) != 1:
            return ctx.default_return_type
        arg = get_proper_type(result.args[0])
        stub_default = lattice.MARKER_NAME[lattice.default_dtype("f", False)]
        if not isinstance(arg, Instance) or arg.type.fullname != f"{names.MARKERS_MODULE}.{stub_default}":
            return ctx.default_return_type
        return Instance(result.type, [builder.marker(default)])

    jax_initializers = [f"{names.JAX_INITIALIZERS}.{name}" for name in names.JAX_INITIALIZER_FUNCTIONS]
    return {name: guard(hook) for name in (*jax_initializers, *names.FLAX_CONSTANT_INITIALIZERS)}
