"""The dtype-generic ``Array`` base class (option 4 of JAX's typing roadmap).

At runtime ``Array`` is an abstract base class: ``Array[float32]`` subscripts,
``isinstance(x, Array)`` is True for JAX arrays and for the tracers inside
``jax.jit``/``jax.vmap`` (JAX is consulted only when it is already imported),
for classes registered with ``Array.register``, and False for numpy arrays.
The members below declare what JAX arrays provide; the generated stub
(``jaxtypes/_array.pyi``) gives each operator and method its promoted
dtype.  The bodies never run: JAX's arrays are virtual subclasses.
"""

from __future__ import annotations

import sys
from abc import ABCMeta
from typing import Any, Generic

from typing_extensions import TypeVar

from jaxtypes import array_surface, operation_table

__all__ = ["Array"]

DT = TypeVar("DT", default=Any)


class _ArrayMeta(ABCMeta):
    def __instancecheck__(cls, instance: Any) -> bool:
        if cls is Array:
            jax = sys.modules.get("jax")
            jax_array = getattr(jax, "Array", None) if jax is not None else None
            # JAX's own check covers ArrayImpl and every tracer.
            if jax_array is not None and isinstance(instance, jax_array):
                return True
        return super().__instancecheck__(instance)


def _abstract(name: str) -> NotImplementedError:
    return NotImplementedError(f"Array.{name} is provided by concrete array types")


class Array(Generic[DT], metaclass=_ArrayMeta):
    """A JAX array whose dtype is ``DT`` (one of the markers in ``jaxtypes``)."""

    __slots__ = ()

    # -- attributes
    @property
    def dtype(self) -> Any:
        raise _abstract("dtype")

    @property
    def shape(self) -> tuple[int, ...]:
        raise _abstract("shape")

    @property
    def ndim(self) -> int:
        raise _abstract("ndim")

    @property
    def size(self) -> int:
        raise _abstract("size")

    @property
    def T(self) -> Any:
        raise _abstract("T")

    @property
    def real(self) -> Any:
        raise _abstract("real")

    @property
    def imag(self) -> Any:
        raise _abstract("imag")

    # -- methods
    def astype(self, dtype: Any, copy: bool = False, device: Any = None) -> Any:
        raise _abstract("astype")

    def reshape(self, *args: Any, order: str = "C", out_sharding: Any = None) -> Any:
        raise _abstract("reshape")

    def transpose(self, *args: Any) -> Any:
        raise _abstract("transpose")

    def sum(
        self,
        axis: Any = None,
        dtype: Any = None,
        out: None = None,
        keepdims: bool = False,
        initial: Any = None,
        where: Any = None,
        promote_integers: bool = True,
    ) -> Any:
        raise _abstract("sum")

    def prod(
        self,
        axis: Any = None,
        dtype: Any = None,
        out: None = None,
        keepdims: bool = False,
        initial: Any = None,
        where: Any = None,
        promote_integers: bool = True,
    ) -> Any:
        raise _abstract("prod")

    def mean(
        self, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False, *, where: Any = None
    ) -> Any:
        raise _abstract("mean")

    def var(
        self,
        axis: Any = None,
        dtype: Any = None,
        out: None = None,
        ddof: int = 0,
        keepdims: bool = False,
        *,
        where: Any = None,
        correction: Any = None,
    ) -> Any:
        raise _abstract("var")

    def std(
        self,
        axis: Any = None,
        dtype: Any = None,
        out: None = None,
        ddof: int = 0,
        keepdims: bool = False,
        *,
        where: Any = None,
        correction: Any = None,
    ) -> Any:
        raise _abstract("std")

    def max(
        self, axis: Any = None, out: None = None, keepdims: bool = False, initial: Any = None, where: Any = None
    ) -> Any:
        raise _abstract("max")

    def min(
        self, axis: Any = None, out: None = None, keepdims: bool = False, initial: Any = None, where: Any = None
    ) -> Any:
        raise _abstract("min")

    def argmax(self, axis: int | None = None, out: None = None, keepdims: bool | None = None) -> Any:
        raise _abstract("argmax")

    def argmin(self, axis: int | None = None, out: None = None, keepdims: bool | None = None) -> Any:
        raise _abstract("argmin")

    def all(self, axis: Any = None, out: None = None, keepdims: bool = False, *, where: Any = None) -> Any:
        raise _abstract("all")

    def any(self, axis: Any = None, out: None = None, keepdims: bool = False, *, where: Any = None) -> Any:
        raise _abstract("any")

    def clip(self, min: Any = None, max: Any = None) -> Any:
        raise _abstract("clip")

    def round(self, decimals: int = 0, out: None = None) -> Any:
        raise _abstract("round")

    def conj(self) -> Any:
        raise _abstract("conj")

    def item(self, *args: int) -> Any:
        raise _abstract("item")

    def tolist(self) -> Any:
        raise _abstract("tolist")

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any:
        raise _abstract("__array__")

    # -- container and conversion protocols
    def __getitem__(self, key: Any, /) -> Any:
        raise _abstract("__getitem__")

    def __len__(self) -> int:
        raise _abstract("__len__")

    def __iter__(self) -> Any:
        raise _abstract("__iter__")

    def __bool__(self) -> bool:
        raise _abstract("__bool__")

    def __int__(self) -> int:
        raise _abstract("__int__")

    def __float__(self) -> float:
        raise _abstract("__float__")

    def __complex__(self) -> complex:
        raise _abstract("__complex__")

    def __index__(self) -> int:
        raise _abstract("__index__")


def _operator(name: str, unary: bool = False) -> Any:
    def binary(self: Any, other: Any, /) -> Any:
        raise _abstract(name)

    def unary_op(self: Any, /) -> Any:
        raise _abstract(name)

    method = unary_op if unary else binary
    method.__name__ = name
    method.__qualname__ = f"Array.{name}"
    return method


def _install_operators() -> None:
    """The operators (jaxtypes.operation_table): their promoted dtypes live in the
    stub; at runtime they only exist."""
    for op in operation_table.of_kind("binary", "comparison", "unary"):
        setattr(Array, op.member, _operator(op.member, unary=op.kind == "unary"))
        if op.reflected_member is not None:
            setattr(Array, op.reflected_member, _operator(op.reflected_member))
    # Like JAX arrays: unhashable (the stub declares ``__hash__: None``).
    setattr(Array, "__hash__", None)


_install_operators()


def _surface_member(name: str) -> Any:
    """An abstract member with the stub's own signature (so that stubtest
    compares like with like): its declaration, compiled with a body that
    raises; annotations stay unevaluated strings."""
    *decorators, declaration = array_surface.SURFACE[name]
    namespace: dict[str, Any] = {"_abstract": _abstract}
    source = declaration.removesuffix(" ...") + f" raise _abstract({name!r})"
    exec(compile("from __future__ import annotations\n" + source, f"<jaxtypes.Array.{name}>", "exec"), namespace)
    member = namespace[name]
    member.__qualname__ = f"Array.{name}"
    return property(member) if decorators == ["@property"] else member


def _install_surface() -> None:
    """The rest of jax.Array's members (jaxtypes.array_surface): typed in the
    stub; at runtime they only exist."""
    for name in array_surface.SURFACE:
        setattr(Array, name, _surface_member(name))


_install_surface()
