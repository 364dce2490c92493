# mypy: disable-error-code="valid-type"
# (The categories below are unions of the markers, classes in markers.pyi,
# which the checkers read; mypy checking this package reads markers.py, whose
# markers are numpy's and ml_dtypes' scalar types bound to names.)
"""Annotations for code that uses JAX arrays (JAX's typing roadmap,
JEP 12049, https://docs.jax.dev/en/latest/jep/12049-type-annotations.html).

Inputs are typed permissively, outputs strictly:

* ``ArrayLike``: anything JAX converts to an array implicitly (JAX arrays and
  tracers, numpy arrays and scalars, Python scalars);
* ``DTypeLike``: anything convertible to a dtype (names, dtypes, scalar types,
  objects with a ``dtype``);
* ``ShapeLike``: an int or a sequence of ints;
* ``DType[D]``: a dtype value whose dtype is the marker D: JAX's scalar type
  (``jnp.bfloat16``, ``jaxtypes.bfloat16``) or ``x.dtype`` of an ``Array[D]``;
  ``DType[Any]`` one of unknown dtype.  Read back by ``astype`` and every
  ``dtype=``; at run time it is numpy's dtype (``DType[float32]`` is
  ``np.dtype[float32]``);
* ``DtypeMarker``: the bound of a TypeVar over the dtypes (not the weak
  markers), ``D = TypeVar("D", bound=DtypeMarker)``; at run time numpy's
  scalar base class, which every concrete marker is;
* ``floating``, ``complexfloating``, ``inexact``, ``signedinteger``,
  ``unsignedinteger``, ``integer``: the markers of each category (numpy's
  names), bounds of a TypeVar over a category, ``bound=floating``;
* ``Shape`` (a tuple of ints), ``StaticScalar``;
* ``DtypeValue``: ``x.dtype`` of an ``Array[float32]`` is a ``DtypeValue[float32]``
  to the checkers (a numpy dtype whose marker ``astype`` and ``dtype=`` read);
  at run time it is numpy's dtype;
* ``NoDtype``: the first type argument of a Flax or Equinox layer made
  without ``dtype`` (``eqx.nn.Linear[NoDtype, float32]``, a field holding an
  Equinox layer of float32 parameters, with the JAX stubs);
* ``Array``: the dtype-generic array base class; ``Array[float32]`` is an
  array whose dtype is float32, bare ``Array`` one of unknown dtype.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, Sequence, SupportsIndex, TypeVar, Union, runtime_checkable

import numpy as np
from typing_extensions import TypeAlias

from jaxtypes._array import Array
from jaxtypes.markers import (
    NoDtype,
    bfloat16,
    complex64,
    complex128,
    float4_e2m1fn,
    float6_e2m3fn,
    float6_e3m2fn,
    float8_e3m4,
    float8_e4m3,
    float8_e4m3b11fnuz,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    float8_e8m0fnu,
    float16,
    float32,
    float64,
    int1,
    int2,
    int4,
    int8,
    int16,
    int32,
    int64,
    uint1,
    uint2,
    uint4,
    uint8,
    uint16,
    uint32,
    uint64,
)

if TYPE_CHECKING:
    # Declared by the stub (jaxtypes/_array.pyi), which checkers read; mypy
    # checking this package's own modules reads _array.py, which has no such class.
    from jaxtypes._array import DtypeMarker, DtypeValue  # type: ignore[attr-defined,unused-ignore]
else:
    DtypeValue = np.dtype  # what x.dtype is at run time
    DtypeMarker = np.generic  # every concrete marker is a numpy scalar type at run time

__all__ = [
    "Array",
    "ArrayLike",
    "DType",
    "DTypeLike",
    "DtypeMarker",
    "DtypeValue",
    "NoDtype",
    "Shape",
    "ShapeLike",
    "StaticScalar",
    "SupportsDType",
    "complexfloating",
    "floating",
    "inexact",
    "integer",
    "signedinteger",
    "unsignedinteger",
]


@runtime_checkable
class SupportsDType(Protocol):
    """An object with a ``dtype`` (arrays, and JAX's scalar type objects)."""

    @property
    def dtype(self) -> np.dtype[Any]: ...


_D = TypeVar("_D")

if TYPE_CHECKING:
    # JAX's scalar type is its marker class to the checkers (``jnp.bfloat16``
    # is ``type[bfloat16]``) and ``x.dtype`` a DtypeValue: a union of both
    # solves D in all six set-ups and is what every dtype= of the stubs reads.
    # An np.dtype[Any] member would leave D unsolved in mypy, pyrefly and ty,
    # and let DType[bfloat16] take jnp.float32 in all six (JAX's scalar types
    # are numpy dtypes to them).  A str member solves D as before, but a
    # DType[float32] value is then no argument of the stubs' typed dtype=
    # overloads (which take the two members above): no member is added
    # until every one of them also takes the whole union.  The mypy plugin
    # adds a dtype's names, and any string or numpy dtype to DType[Any]
    # (jaxtypes/mypy_plugin/dtype_values.py).
    DType: TypeAlias = Union[type[_D], DtypeValue[_D]]
else:
    DType = np.dtype  # numpy's dtype is generic in its scalar type: DType[float32] subscripts
# The categories, as unions of their markers (the order of jaxtypes.lattice):
# a TypeVar bound to one takes exactly these dtypes, which the checkers (and
# the mypy plugin, dtype by dtype) read.
floating: TypeAlias = Union[
    float4_e2m1fn,
    float6_e2m3fn,
    float6_e3m2fn,
    float8_e3m4,
    float8_e4m3,
    float8_e8m0fnu,
    float8_e4m3b11fnuz,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    bfloat16,
    float16,
    float32,
    float64,
]
complexfloating: TypeAlias = Union[complex64, complex128]
inexact: TypeAlias = Union[floating, complexfloating]
signedinteger: TypeAlias = Union[int1, int2, int4, int8, int16, int32, int64]
unsignedinteger: TypeAlias = Union[uint1, uint2, uint4, uint8, uint16, uint32, uint64]
integer: TypeAlias = Union[unsignedinteger, signedinteger]

Shape: TypeAlias = tuple[int, ...]
ShapeLike: TypeAlias = Union[SupportsIndex, Sequence[SupportsIndex]]
StaticScalar: TypeAlias = Union[np.bool_, np.number, bool, int, float, complex]
DTypeLike: TypeAlias = Union[str, type, np.dtype, SupportsDType]
ArrayLike: TypeAlias = Union[Array, np.ndarray, StaticScalar]
