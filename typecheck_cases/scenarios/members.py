"""What an IDE completes on an Array, with the dtypes JAX gives."""

from collections.abc import Iterator
from typing import Any

import numpy as np
from typing_extensions import assert_type

from jaxtypes import (
    Array, bfloat16, bool_, complex64, float32, int8, int32, uint8, uint32, weak_float,
)
from jaxtypes.typing import DtypeValue


def members(x: Array[int8], b: Array[bfloat16], c: Array[complex64], u: Array[uint8],
            w: Array[weak_float]) -> None:
    assert_type(x.dtype, DtypeValue[int8])
    assert_type(w.dtype, DtypeValue[weak_float])
    numpy_dtype: np.dtype = x.dtype
    assert_type(b.astype(x.dtype), Array[int8])
    assert_type(x.sum(dtype=b.dtype), Array[bfloat16])
    assert_type(b.astype(w.dtype), Array[Any])  # float32 or float64, as x64 decides
    assert_type(x.shape, tuple[int, ...])
    assert_type(x.ndim, int)
    assert_type(x.size, int)
    assert_type(x.T, Array[int8])
    assert_type(x.reshape(2, -1), Array[int8])
    assert_type(x.transpose(), Array[int8])
    assert_type(x[0], Array[int8])
    assert_type(len(x), int)
    assert_type(iter(x), Iterator[Array[int8]])
    # deviation (ty): ty's float is int | float
    assert_type(float(x), float)
    assert_type(int(x), int)
    assert_type(bool(x), bool)
    assert_type(x.item(), int)
    assert_type(b.item(), float)
    assert_type(c.item(), complex)
    assert_type(x.sum(), Array[int32])
    assert_type(u.sum(), Array[uint32])
    assert_type(x.prod(), Array[int32])
    assert_type(x.mean(), Array[float32])
    assert_type(b.mean(), Array[bfloat16])
    assert_type(x.max(), Array[int8])
    assert_type(b.min(), Array[bfloat16])
    assert_type(x.argmax(), Array[int32])
    assert_type(b.argmin(), Array[int32])
    assert_type(x.all(), Array[bool_])
    assert_type(b.any(), Array[bool_])
    assert_type(x.clip(0, 3), Array[int8])
    assert_type(b.round(), Array[bfloat16])
    assert_type(c.conj(), Array[complex64])
    assert_type(c.real, Array[float32])
    assert_type(c.imag, Array[float32])
    assert_type(abs(c), Array[float32])
    assert_type(x.astype(float32), Array[float32])
    assert_type(x.sum(dtype=float32), Array[float32])
    # Reductions of weakly typed values are strongly typed.
    assert_type(w.sum(), Array[float32])
    assert_type(w.real, Array[weak_float])
