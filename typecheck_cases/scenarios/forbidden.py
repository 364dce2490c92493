"""Operations JAX rejects are type errors."""

import numpy as np

from jaxtypes import (
    Array, bool_, complex64, float8_e4m3fn, float8_e5m2, float32, int4, int8, uint4, weak_complex,
    weak_float, weak_int,
)


def no_promotion_path(f8: Array[float8_e4m3fn], f8b: Array[float8_e5m2], c: Array[complex64],
                      i4: Array[int4], u4: Array[uint4], f: Array[float32]) -> None:
    f8 + c  # E: promotion
    f8 * f8b  # E: promotion
    i4 + f  # E: promotion
    i4 + u4  # E: promotion
    i4 * 1.5  # E: promotion
    f8 + 1j  # E: promotion


def unsupported(f: Array[float32], b: Array[bool_], c: Array[complex64], i: Array[int8]) -> None:
    f & f  # E: unsupported
    f | 1  # E: unsupported
    i << 1.0  # E: unsupported
    ~f  # E: unsupported
    -b  # E: unsupported
    b - b  # E: unsupported
    c // c  # E: unsupported
    c % 2  # E: unsupported
    c.argmax()  # E: unsupported-method
    c.clip(0, 1)  # E: unsupported-method
    b.round()  # E: unsupported-method


def weak_markers_are_not_dtypes(x: Array[float32]) -> None:
    # JAX raises TypeError: a weak marker types Python scalars, it is no dtype.
    x.astype(weak_float)  # E: dtype-argument
    x.astype(weak_int)  # E: dtype-argument
    x.astype(weak_complex)  # E: dtype-argument
    x.sum(dtype=weak_float)  # E: dtype-argument
    x.mean(dtype=weak_float)  # E: dtype-argument
    x.astype(float32)
    x.astype(np.float32)
    x.astype(float)
    x.astype("bfloat16")
    x.sum(dtype=int)
