"""The answer: cast explicitly, ``arr.astype('int8')``
(https://github.com/jax-ml/jax/issues/16704)."""

import jax.numpy as jnp

from jaxtypes import Array, int4, int8


def add_bias(q: Array[int4], bias: Array[int8]) -> Array[int8]:
    return q.astype(jnp.int8) + bias


def main() -> Array[int8]:
    q = jnp.ones(4, dtype=jnp.int4)
    bias = jnp.ones(4, dtype=jnp.int8)
    return add_bias(q, bias)
