"""The silent promotion of https://github.com/jax-ml/jax/issues/7368 under the
setting that issue led to, ``jax_numpy_dtype_promotion='strict'``
(https://github.com/jax-ml/jax/pull/10824): float32 times bfloat16 raises
TypePromotionError instead of giving float32."""

import jax.numpy as jnp

from jaxtypes import Array, bfloat16, float32


def scale(x: Array[float32], y: Array[bfloat16]) -> Array[bfloat16]:
    return x * y  # bug: TypePromotionError under strict promotion


def main() -> Array[bfloat16]:
    x: Array[float32] = jnp.ones([3], dtype=jnp.float32)
    y: Array[bfloat16] = jnp.ones([3], dtype=jnp.bfloat16)
    return scale(x, y)
