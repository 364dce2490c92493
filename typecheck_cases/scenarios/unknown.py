"""Unknown dtypes stay unknown: Array[Any] and bare Array never silently
become a concrete dtype (an unknown result is compatible with any annotation,
so a wrong concrete answer would show up as an error below)."""

from typing import Any

from jaxtypes import Array, bool_, complex128, float32, int8


def any_left(a: Array[Any], x: Array[int8]) -> None:
    y: Array[complex128] = a + x
    z: Array[bool_] = a + x
    w: Array[int8] = a * 2


def any_right(x: Array[int8], a: Array[Any]) -> None:
    y: Array[complex128] = x + a
    z: Array[bool_] = x * a


def bare(a: Array, x: Array[float32]) -> None:
    y: Array[complex128] = a + x
    z: Array[bool_] = x - a
    w: Array[int8] = a.sum()
    v: Array[bool_] = a.mean()


def bare_is_any(a: Array) -> Array[int8]:
    return a
