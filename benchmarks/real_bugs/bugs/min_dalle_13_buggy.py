"""min-dalle's decoder writes the new keys into its float16 attention cache
with ``lax.dynamic_update_slice``, which requires one dtype: float32 keys
raised a TypeError (https://github.com/kuprel/min-dalle/issues/13)."""

from jax import lax
import jax.numpy as jnp

from jaxtypes import Array, float16, float32


def update_cache(keys_state: Array[float16], keys: Array[float32], token_index: int) -> Array[float16]:
    keys_state = lax.dynamic_update_slice(keys_state, keys, (0, token_index, 0))  # bug: TypeError, float16 and float32
    return keys_state


def main() -> Array[float16]:
    keys_state = jnp.zeros((2, 8, 4), dtype=jnp.float16)
    keys = jnp.ones((2, 1, 4), dtype=jnp.float32)
    return update_cache(keys_state, keys, 3)
