"""MaxText's KV cache dtype was ``jnp.int8 if quantize_kvcache else
jnp.bfloat16``, never float32: inference with float32 activations failed on
"Key and Value Dtypes should match" (https://github.com/AI-Hypercomputer/maxtext/issues/595).
The cache's dtype is chosen at run time: ``Array[float32 | int8]``."""

import jax.numpy as jnp

from jaxtypes import Array, float32, int8


def cached_key(key: Array[float32], quantize_kvcache: bool) -> Array[float32 | int8]:
    cache: Array[float32 | int8] = jnp.zeros(key.shape, dtype=jnp.int8 if quantize_kvcache else jnp.bfloat16)  # bug: bfloat16
    cache = cache.at[:, :1].set(key[:, :1])
    return cache


def main() -> Array[float32 | int8]:
    return cached_key(jnp.ones((2, 4), dtype=jnp.float32), False)
