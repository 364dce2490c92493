"""A mixed-precision model step, annotated with jaxtypes.

`python examples/show_dtypes.py` type-checks this file and prints the dtype
each checker infers for every reveal_type() below.
"""

from typing import TypeVar

from jaxtypes import Array, bfloat16, complex64, float32, int8, uint8

T = TypeVar("T")


def dense(x: Array[bfloat16], kernel: Array[float32], bias: Array[float32]) -> Array[float32]:
    reveal_type(x @ kernel)                    # bfloat16 with float32
    reveal_type(x @ kernel.astype(bfloat16))   # cast the params down first
    return x @ kernel + bias


def quantised(q: Array[int8], u: Array[uint8]) -> None:
    reveal_type(q * 2 + 1)                     # Python ints are weak
    reveal_type(q * 0.5)                       # a Python float wins, weakly
    reveal_type(q / 2)                         # true division of ints
    reveal_type(q + u)                         # int8 with uint8
    reveal_type(q.sum())                       # sums widen narrow ints
    reveal_type(q.mean())


def spectral(z: Array[complex64], w: Array[float32]) -> None:
    reveal_type(z * w)
    reveal_type(abs(z))
    reveal_type((z * w).real)


def generic(x: Array[T]) -> Array[T]:
    return x + x
