"""TypeVar-generic helpers type-check: a dtype known only as T keeps T."""

from typing import TypeVar

from typing_extensions import assert_type

from jaxtypes import Array, bfloat16, float32

T = TypeVar("T")


def double(x: Array[T]) -> Array[T]:
    return x + x


def square(x: Array[T]) -> Array[T]:
    return x * x


def negate(x: Array[T]) -> Array[T]:
    return -x


def first(x: Array[T]) -> Array[T]:
    return x[0].reshape(-1).T


def use(a: Array[float32], b: Array[bfloat16]) -> None:
    assert_type(double(a), Array[float32])
    assert_type(square(b), Array[bfloat16])
    assert_type(negate(a), Array[float32])
    assert_type(first(b), Array[bfloat16])
