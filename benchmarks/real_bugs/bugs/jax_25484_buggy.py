"""``jax.nn.one_hot`` of float labels fails silently: 0.5 and 1.9999999 give
all-zero rows; "would have prevented a subtle bug in our case"
(https://github.com/jax-ml/jax/issues/25484)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, float32, int32


def encode(labels: Array[int32]) -> Array[float32]:
    return jax.nn.one_hot(labels, 4)


def main() -> jax.Array:
    labels = jnp.array(1.9999999, jnp.float32)
    encode(labels)  # bug: float32 labels where int32 ones are expected
    return labels
