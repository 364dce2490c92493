"""An int8 matmul gives int8: ``100 * 100`` comes back as 16; the user wanted
int8 inputs with an int32 accumulator (https://github.com/jax-ml/jax/issues/4465)."""

import jax.numpy as jnp

from jaxtypes import Array, int8, int32


def int8_matmul(x: Array[int8]) -> Array[int32]:
    return jnp.matmul(x, x)  # bug: int8, 10000 wraps to 16


def main() -> Array[int32]:
    x = jnp.array(100).reshape((1, 1)).astype(jnp.int8)
    return int8_matmul(x)
