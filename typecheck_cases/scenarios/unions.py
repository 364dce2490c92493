"""Unions of arrays on either side give the union of the results."""

from typing_extensions import assert_type

from jaxtypes import Array, bfloat16, float16, float32, int8, int16, uint8


def left(x: Array[float32] | Array[int8], u: Array[uint8]) -> None:
    assert_type(x + u, Array[float32] | Array[int16])
    assert_type(x * 2, Array[float32] | Array[int8])


def right(u: Array[uint8], x: Array[float32] | Array[int8]) -> None:
    assert_type(u + x, Array[float32] | Array[int16])


def both(x: Array[bfloat16] | Array[float16], y: Array[bfloat16] | Array[float16]) -> None:
    assert_type(x + y, Array[bfloat16] | Array[float32] | Array[float16])


def optional(x: Array[float32] | None) -> None:
    if x is not None:
        assert_type(x + 1, Array[float32])
