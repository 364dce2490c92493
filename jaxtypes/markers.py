"""Dtype markers: the type arguments of ``Array[...]``.

At runtime each concrete marker is the numpy or ml_dtypes scalar type of its
dtype, so it works wherever a dtype does (``np.dtype(jaxtypes.bfloat16)``,
``x.astype(jaxtypes.float32)``).  For type checkers the generated stub
(``jaxtypes/markers.pyi``) declares each as its own class carrying the
promotion rules.  The weak markers type weakly typed values (Python scalars
and JAX's weakly typed arrays); they are not dtypes.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from jaxtypes import lattice

__all__ = [
    "bool_",
    "uint1",
    "uint2",
    "uint4",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "int1",
    "int2",
    "int4",
    "int8",
    "int16",
    "int32",
    "int64",
    "float4_e2m1fn",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e8m0fnu",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "bfloat16",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "weak_int",
    "weak_float",
    "weak_complex",
    "MARKER_OF_NODE",
    "NODE_OF_MARKER",
    "NoDtype",
]

bool_ = np.bool_
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128
bfloat16 = ml_dtypes.bfloat16
uint1, uint2, uint4 = ml_dtypes.uint1, ml_dtypes.uint2, ml_dtypes.uint4
int1, int2, int4 = ml_dtypes.int1, ml_dtypes.int2, ml_dtypes.int4
float4_e2m1fn = ml_dtypes.float4_e2m1fn
float6_e2m3fn = ml_dtypes.float6_e2m3fn
float6_e3m2fn = ml_dtypes.float6_e3m2fn
float8_e3m4 = ml_dtypes.float8_e3m4
float8_e4m3 = ml_dtypes.float8_e4m3
float8_e8m0fnu = ml_dtypes.float8_e8m0fnu
float8_e4m3b11fnuz = ml_dtypes.float8_e4m3b11fnuz
float8_e4m3fn = ml_dtypes.float8_e4m3fn
float8_e4m3fnuz = ml_dtypes.float8_e4m3fnuz
float8_e5m2 = ml_dtypes.float8_e5m2
float8_e5m2fnuz = ml_dtypes.float8_e5m2fnuz


class _WeakMarker:
    """Base of the weak markers: a type argument only, never instantiated."""

    node: str = ""

    def __new__(cls, *args: object, **kwargs: object) -> "_WeakMarker":
        raise TypeError(f"{cls.__name__} is a type marker for Array[...]; it has no instances")


class weak_int(_WeakMarker):
    """Marker of weakly typed integers (Python int, JAX's weak int arrays): i*."""

    node = lattice.WEAK_INT


class weak_float(_WeakMarker):
    """Marker of weakly typed floats (Python float, JAX's weak float arrays): f*."""

    node = lattice.WEAK_FLOAT


class weak_complex(_WeakMarker):
    """Marker of weakly typed complex values (Python complex, JAX's weak complex arrays): c*."""

    node = lattice.WEAK_COMPLEX


class NoDtype:
    """The computation dtype of a Flax or Equinox layer made without ``dtype``: its parameters' and its input's
    promotion decide (``eqx.nn.Linear[NoDtype, float32]``, a layer of float32 parameters)."""


MARKER_OF_NODE: dict[str, type] = {
    lattice.BOOL: bool_,
    **{n: globals()[n] for n in lattice.STRONG if n != lattice.BOOL},
    lattice.WEAK_INT: weak_int,
    lattice.WEAK_FLOAT: weak_float,
    lattice.WEAK_COMPLEX: weak_complex,
}
NODE_OF_MARKER: dict[type, str] = {m: n for n, m in MARKER_OF_NODE.items()}
