"""A mixed-precision model step, annotated with jax.Array[dtype].

`python -m examples.show_dtypes` (from the checkout's root) type-checks this file with each checker (with
the stubs of `jaxtypes jax-stubs`), runs it under JAX, and prints the dtype
each checker infers for every reveal_type() below next to the one JAX
computes, and which of the lines marked `# error` each checker catches.
"""

from __future__ import annotations

import jax
from typing_extensions import reveal_type

from jaxtypes import bfloat16, complex64, float32, int4, int8, uint8


def dense(x: jax.Array[bfloat16], kernel: jax.Array[float32], bias: jax.Array[float32]) -> jax.Array[float32]:
    reveal_type(x @ kernel)                    # bfloat16 with float32
    reveal_type(x @ kernel.astype(bfloat16))   # cast the params down first
    return x @ kernel + bias


def dense_bf16(x: jax.Array[bfloat16], kernel: jax.Array[float32]) -> jax.Array[bfloat16]:
    return x @ kernel                          # error: the result is float32, not bfloat16


def quantised(q: jax.Array[int8], u: jax.Array[uint8]) -> None:
    reveal_type(q * 2 + 1)                     # Python ints are weak
    reveal_type(q * 0.5)                       # a Python float wins, weakly
    reveal_type(q / 2)                         # true division of ints
    reveal_type(q + u)                         # int8 with uint8
    reveal_type(q.sum())                       # sums widen narrow ints
    reveal_type(q.mean())
    q & 0.5                                    # error: bitwise op on a float


def packed(q4: jax.Array[int4], scale: jax.Array[float32]) -> None:
    q4 * scale                                 # error: int4 does not promote with a float


def spectral(z: jax.Array[complex64], w: jax.Array[float32]) -> None:
    reveal_type(z * w)
    reveal_type(abs(z))
    reveal_type((z * w).real)
