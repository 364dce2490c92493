"""The fix: without quantization the cache takes the activations' dtype
(https://github.com/AI-Hypercomputer/maxtext/pull/936)."""

import jax.numpy as jnp

from jaxtypes import Array, float32, int8


def cached_key(key: Array[float32], quantize_kvcache: bool) -> Array[float32 | int8]:
    cache: Array[float32 | int8] = jnp.zeros(key.shape, dtype=jnp.int8 if quantize_kvcache else key.dtype)
    cache = cache.at[:, :1].set(key[:, :1])
    return cache


def main() -> Array[float32 | int8]:
    return cached_key(jnp.ones((2, 4), dtype=jnp.float32), False)
