"""With x64 off (JAX's default), a 64-bit array exists only if it was made
under enable_x64; JAX keeps its dtype on its own, but computes in 32 bits as
soon as it is promoted with anything else (JAX's answers, asserted)."""

from typing_extensions import assert_type

from jaxtypes import Array, float32, float64, int8, int32, int64, uint32, weak_float


def kept(x: Array[float64], i: Array[int64]) -> None:
    assert_type(x + x, Array[float64])
    assert_type(i * i, Array[int64])


def promoted(x: Array[float64], f: Array[float32], i: Array[int64], b: Array[int8]) -> None:
    assert_type(x @ f, Array[float32])
    assert_type(x * 2.0, Array[float32])
    assert_type(i + b, Array[int32])


def unsigned(u: Array[uint32], s: Array[int32]) -> None:
    # x64 off: uint32 with int32 is int32, not int64 (the x32 lattice).
    assert_type(u + s, Array[int32])
    assert_type(u * 1.5, Array[weak_float])
