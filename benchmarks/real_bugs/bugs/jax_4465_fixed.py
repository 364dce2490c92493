"""The int32 accumulator JAX added for this: ``preferred_element_type``
(https://github.com/jax-ml/jax/issues/4465)."""

import jax.numpy as jnp

from jaxtypes import Array, int8, int32


def int8_matmul(x: Array[int8]) -> Array[int32]:
    return jnp.matmul(x, x, preferred_element_type=jnp.int32)


def main() -> Array[int32]:
    x = jnp.array(100).reshape((1, 1)).astype(jnp.int8)
    return int8_matmul(x)
