"""The fix: the input promoted to at least float32 before the normalization
(https://github.com/young-geng/EasyLM/pull/50)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, float16, float32


def mean_square(x: Array[float16]) -> Array[float32]:
    x32 = x.astype(jnp.float32)
    return jnp.square(x32).mean(-1, keepdims=True)


def rms_norm(x: Array[float16], weight: Array[float16], eps: float = 1e-6) -> Array[float16]:
    output = x * jax.lax.rsqrt(mean_square(x) + eps)
    return output.astype(jnp.float16) * weight


def main() -> Array[float32]:
    x = jnp.full((2, 8), 300.0, dtype=jnp.float16)
    rms_norm(x, jnp.ones(8, dtype=jnp.float16))
    return mean_square(x)
