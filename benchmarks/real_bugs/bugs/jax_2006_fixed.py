"""The answer: with 64-bit mode enabled, pass ``dtype=jnp.int64``
(https://github.com/jax-ml/jax/issues/2006)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, int64


def draw(key: jax.Array) -> Array[int64]:
    return jax.random.randint(key, (), 0, 2**31, dtype=jnp.int64)


def main() -> Array[int64]:
    return draw(jax.random.PRNGKey(1))
