"""The keys are cast to the cache's dtype before they are written
(https://github.com/kuprel/min-dalle/issues/13)."""

from jax import lax
import jax.numpy as jnp

from jaxtypes import Array, float16, float32


def update_cache(keys_state: Array[float16], keys: Array[float32], token_index: int) -> Array[float16]:
    keys_state = lax.dynamic_update_slice(keys_state, keys.astype(keys_state.dtype), (0, token_index, 0))
    return keys_state


def main() -> Array[float16]:
    keys_state = jnp.zeros((2, 8, 4), dtype=jnp.float16)
    keys = jnp.ones((2, 1, 4), dtype=jnp.float32)
    return update_cache(keys_state, keys, 3)
