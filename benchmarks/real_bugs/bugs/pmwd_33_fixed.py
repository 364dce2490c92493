"""The constant made in the dtype of the values it meets
(https://github.com/eelregit/pmwd/issues/33)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, float32


def shift(position: Array[float32]) -> Array[float32]:
    foo = jnp.array([1.0], dtype=jnp.float32)
    return jax.lax.add(position, foo)


def main() -> Array[float32]:
    return shift(jnp.zeros(1, dtype=jnp.float32))
