"""A bfloat16 by int8 matmul is bfloat16: -207.66 comes back as -208, which the
user took for a wrong value; the product they wanted is float32
(https://github.com/jax-ml/jax/issues/17214)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, bfloat16, float32, int8


def dequantized_matmul(x: Array[bfloat16], w: Array[int8]) -> Array[float32]:
    return jax.numpy.matmul(x, w, precision=jax.lax.Precision.HIGHEST)  # bug: bfloat16


def main() -> Array[float32]:
    x = jnp.array([[-1.6171875, 0.5703125]], dtype=jax.numpy.bfloat16)
    w = jnp.array([[127], [-4]], dtype=jax.numpy.int8)
    return dequantized_matmul(x, w)
