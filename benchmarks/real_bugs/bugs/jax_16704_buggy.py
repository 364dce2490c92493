"""int4 values do not promote implicitly: adding an int8 array to an int4 one
raises (https://github.com/jax-ml/jax/issues/16704)."""

import jax.numpy as jnp

from jaxtypes import Array, int4, int8


def add_bias(q: Array[int4], bias: Array[int8]) -> Array[int8]:
    return q + bias  # bug: TypePromotionError, int4 and int8


def main() -> Array[int8]:
    q = jnp.ones(4, dtype=jnp.int4)
    bias = jnp.ones(4, dtype=jnp.int8)
    return add_bias(q, bias)
