"""Integer labels, as ``one_hot`` assumes (https://github.com/jax-ml/jax/issues/25484)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, float32, int32


def encode(labels: Array[int32]) -> Array[float32]:
    return jax.nn.one_hot(labels, 4)


def main() -> jax.Array:
    labels = jnp.array(2, jnp.int32)
    encode(labels)
    return labels
