"""Operations JAX rejects are type errors."""

from jaxtypes import (
    Array, bool_, complex64, float8_e4m3fn, float8_e5m2, float32, int4, int8, uint4,
)


def no_promotion_path(f8: Array[float8_e4m3fn], f8b: Array[float8_e5m2], c: Array[complex64],
                      i4: Array[int4], u4: Array[uint4], f: Array[float32]) -> None:
    f8 + c  # E
    f8 * f8b  # E
    i4 + f  # E
    i4 + u4  # E
    i4 * 1.5  # E
    f8 + 1j  # E


def unsupported(f: Array[float32], b: Array[bool_], c: Array[complex64], i: Array[int8]) -> None:
    f & f  # E
    f | 1  # E
    i << 1.0  # E
    ~f  # E
    -b  # E
    b - b  # E
    c // c  # E
    c % 2  # E
    c.argmax()  # E
    c.clip(0, 1)  # E
    b.round()  # E
