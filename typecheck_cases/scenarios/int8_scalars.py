"""int8 arithmetic with Python scalars stays int8 (weak types keep the width)."""

from typing_extensions import assert_type

from jaxtypes import Array, bool_, float32, int8, int16, uint8, weak_float


def quantised(x: Array[int8], y: Array[int8], u: Array[uint8]) -> None:
    assert_type(x + 1, Array[int8])
    assert_type(2 * x, Array[int8])
    assert_type(x - 3, Array[int8])
    assert_type(x * 2 + 1, Array[int8])
    assert_type(x // 2, Array[int8])
    assert_type(x % 3, Array[int8])
    assert_type(x ** 2, Array[int8])
    assert_type(x & 0x0F, Array[int8])
    assert_type(x << 1, Array[int8])
    assert_type(x + True, Array[int8])
    assert_type(x > 0, Array[bool_])
    # A Python float makes the result a weakly typed float, as in JAX.
    assert_type(x * 0.5, Array[weak_float])
    assert_type(x / 2, Array[float32])
    # Two arrays promote: int8 with uint8 is int16.
    assert_type(x + u, Array[int16])
    assert_type(x + y, Array[int8])


def stays_int8(x: Array[int8]) -> Array[int8]:
    return (x * 3 + 7) // 2


def not_int8(x: Array[int8]) -> Array[int8]:
    return x / 2  # E: return
