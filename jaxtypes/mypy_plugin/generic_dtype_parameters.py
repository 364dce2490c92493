"""A call of the project's own dtype-generic code with a dtype's name.

``def cast(x: jax.Array, dtype: DType[D]) -> jax.Array[D]`` declares its
parameter ``type[D] | DtypeValue[D]``: a checker solves D from
``jnp.bfloat16`` or ``x.dtype``, but a dtype's name (``cast(x,
"bfloat16")``) or numpy's dtype object of it (``np.dtype(np.float32)``),
which JAX reads as well, solve nothing and are no such value.  The
signature hook of the project's functions, classes and methods binds D to
the dtype such an argument names, and gives that parameter what
``DType[bfloat16]`` takes with the plugin (``dtype_values``): ``cast(x,
"bfloat16")`` is ``Array[bfloat16]``; a string the plugin does not read as
a dtype (``"bfloat17"``, ``"<f4"``) binds D to ``Any``, as ``dtype=`` reads
it.  A parameter whose D the call's receiver already bound
(``Layer[bfloat16]``'s method) is ``DType[bfloat16]`` so too.

JAX's, numpy's and the other libraries' functions declare no ``DType``
parameter: they are not hooked, and neither are Array's operators.
"""

from __future__ import annotations

from typing import Callable, Union

from mypy.expandtype import expand_type
from mypy.nodes import CallExpr, Expression, MemberExpr, NameExpr, StrExpr
from mypy.plugin import FunctionSigContext, MethodSigContext
from mypy.subtypes import is_same_type, is_subtype
from mypy.types import (
    AnyType,
    CallableType,
    FunctionLike,
    Instance,
    Type,
    TypeOfAny,
    TypeType,
    TypeVarId,
    TypeVarType,
    UnionType,
    get_proper_type,
)

from . import errors, names
from .argument_values import expression_type
from .dtype_values import dtype_value_type
from .type_nodes import Builder, dtype_like, marker_alts, one_dtype

__all__ = ["signature_hook", "is_hooked"]

SigContext = Union[FunctionSigContext, MethodSigContext]

# Packages that declare no DType parameter (their calls are most calls).
_NOT_HOOKED = frozenset(
    {
        "builtins",
        "typing",
        "typing_extensions",
        "numpy",
        "ml_dtypes",
        "jax",
        "jaxlib",
        "jaxtypes",
        "flax",
        "equinox",
        "optax",
        "chex",
        "jaxtyping",
    }
)


def is_hooked(fullname: str) -> bool:
    """Whether calls of ``fullname`` go through the hook: the project's own code."""
    return fullname.partition(".")[0] not in _NOT_HOOKED


def signature_hook(builder: Builder) -> Callable[[SigContext], FunctionLike]:
    """The signature hook, guarded (a bug keeps the declared signature)."""

    def hook(ctx: SigContext) -> FunctionLike:
        return _signature(ctx, builder)

    return errors.guarded(lambda ctx: ctx.default_signature)(hook)


def _signature(ctx: SigContext, builder: Builder) -> FunctionLike:
    sig = ctx.default_signature
    bound: dict[TypeVarId, Type] = {}
    replaced: dict[int, Type] = {}
    for i, formal in enumerate(sig.arg_types):
        item = _dtype_parameter(formal)
        if item is None:
            continue
        actual = ctx.args[i] if i < len(ctx.args) else []
        dtype, given = _named_dtype(actual[0], ctx, builder) if len(actual) == 1 else (None, None)
        if isinstance(item, TypeVarType):
            if dtype is None or not is_same_type(bound.get(item.id, dtype), dtype):
                continue
            if isinstance(dtype, Instance) and not _within(dtype, item):
                continue  # the declared bound refuses it: mypy's own error
            bound[item.id] = dtype
            item = dtype
        replaced[i] = dtype_value_type(item, builder)
        if given is not None and dtype is not None and is_same_type(dtype, item):
            # numpy's own dtype object of it (np.dtype[np.float32]), which
            # DType[float32] does not take (dtype_values): this call's is it
            replaced[i] = UnionType.make_union([replaced[i], given])
    if not replaced:
        return sig
    new = expand_type(sig, bound) if bound else sig
    assert isinstance(new, CallableType)
    arg_types = [replaced.get(i, t) for i, t in enumerate(new.arg_types)]
    # (mypy types copy_modified's parameters with its FlexibleAlias, Unknown to pyright)
    return new.copy_modified(  # pyright: ignore[reportUnknownMemberType]
        arg_types=arg_types, variables=[v for v in new.variables if v.id not in bound]
    )


def _dtype_parameter(formal: Type) -> Type | None:
    """X when ``formal`` is ``type[X] | DtypeValue[X]`` (``DType[X]`` as the
    checkers read it, X a TypeVar or one dtype), else None."""
    p = get_proper_type(formal)
    if not isinstance(p, UnionType) or len(p.items) != 2:
        return None
    kinds: dict[str, Type] = {}
    for member in p.items:
        m = get_proper_type(member)
        if isinstance(m, TypeType):
            kinds["type"] = m.item
        elif isinstance(m, Instance) and m.type.fullname in names.DTYPE_VALUES and len(m.args) == 1:
            kinds["value"] = m.args[0]
    if set(kinds) != {"type", "value"} or kinds["type"] != kinds["value"]:
        return None
    item = kinds["type"]
    if isinstance(get_proper_type(item), (TypeVarType, AnyType)):
        return get_proper_type(item)
    alts = marker_alts(item)
    return item if alts is not None and len(alts) == 1 and isinstance(alts[0], str) else None


def _named_dtype(expr: Expression, ctx: SigContext, builder: Builder) -> tuple[Type | None, Instance | None]:
    """The marker of the one dtype a dtype value says, ``Any`` for a dtype
    value of no known dtype (a ``str``, ``DType[Any]``), None for anything
    else (another value: the declared parameter's error); and the value's
    type when it is numpy's own dtype object of that dtype."""
    if not isinstance(expr, (StrExpr, NameExpr, MemberExpr, CallExpr)):
        return None, None
    t = expression_type(ctx.api, expr)
    node = one_dtype(t, builder)
    if node is not None:
        p = get_proper_type(t)
        numpy_dtype = p if isinstance(p, Instance) and p.type.fullname == names.NUMPY_DTYPE else None
        return builder.marker(node), numpy_dtype
    unknown = AnyType(TypeOfAny.special_form)
    if dtype_like(t, builder) is None and is_subtype(t, dtype_value_type(unknown, builder)):
        return unknown, None
    return None, None


def _within(marker: Instance, tv: TypeVarType) -> bool:
    """Whether the marker is within D's bound (a category, or a union of markers)."""
    bound = get_proper_type(tv.upper_bound)
    if isinstance(bound, AnyType) or (isinstance(bound, Instance) and bound.type.fullname == "builtins.object"):
        return True
    if isinstance(bound, UnionType):
        return any(_is_subclass(marker, item) for item in bound.items)
    return _is_subclass(marker, bound)


def _is_subclass(marker: Instance, bound: Type) -> bool:
    b = get_proper_type(bound)
    return isinstance(b, Instance) and marker.type.has_base(b.type.fullname)
