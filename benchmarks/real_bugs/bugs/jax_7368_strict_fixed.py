"""Under strict promotion the cast is explicit, as strict mode asks
(https://github.com/jax-ml/jax/issues/7368)."""

import jax.numpy as jnp

from jaxtypes import Array, bfloat16, float32


def scale(x: Array[float32], y: Array[bfloat16]) -> Array[bfloat16]:
    return x.astype(jnp.bfloat16) * y


def main() -> Array[bfloat16]:
    x: Array[float32] = jnp.ones([3], dtype=jnp.float32)
    y: Array[bfloat16] = jnp.ones([3], dtype=jnp.bfloat16)
    return scale(x, y)
