"""Comparisons give Array[bool_] wherever the operands promote."""

from typing import Any

from typing_extensions import assert_type

from jaxtypes import Array, bfloat16, bool_, complex64, float8_e4m3fn, float32, int8, uint8


def compare(x: Array[float32], i: Array[int8], u: Array[uint8], b: Array[bfloat16]) -> None:
    assert_type(x < i, Array[bool_])
    assert_type(i >= u, Array[bool_])
    assert_type(b == x, Array[bool_])
    assert_type(x != 0.5, Array[bool_])
    assert_type(i > 1, Array[bool_])
    assert_type(1 < i, Array[bool_])
    assert_type(2.5 >= b, Array[bool_])
    # A deviation in every checker: Python's int.__eq__ accepts any object, so
    # a scalar on the left of == is typed as Python's comparison, a bool
    # (JAX gives Array[bool_]).  Asserted as the checkers see it.
    assert_type(1 == i, bool)


def unknown_dtypes(a: Array[Any], x: Array[float32], i: Array[int8]) -> None:
    # bool whatever the other operand's dtype (jax.Array[Any] on the left is
    # bool too: tests/test_jax_stubs.py's interop scenario)
    assert_type(x == a, Array[bool_])
    assert_type(i < a, Array[bool_])


def no_path(f8: Array[float8_e4m3fn], c: Array[complex64]) -> None:
    f8 < c  # E: promotion
    # deviation (ty): ty accepts == through object.__eq__
    f8 == c  # E: promotion
