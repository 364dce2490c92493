"""The answer: compute in float32 (https://github.com/jax-ml/jax/issues/17214)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, bfloat16, float32, int8


def dequantized_matmul(x: Array[bfloat16], w: Array[int8]) -> Array[float32]:
    return x.astype("float32") @ w.astype("float32")


def main() -> Array[float32]:
    x = jnp.array([[-1.6171875, 0.5703125]], dtype=jax.numpy.bfloat16)
    w = jnp.array([[127], [-4]], dtype=jax.numpy.int8)
    return dequantized_matmul(x, w)
