"""The fix: a float timestep keeps a float dtype
(https://github.com/huggingface/diffusers/pull/13669)."""

import jax.numpy as jnp

from jaxtypes import Array, float32


def timestep_array(timesteps: float) -> Array[float32]:
    t: Array[float32] = jnp.array([timesteps], dtype=jnp.float32)
    return t


def main() -> Array[float32]:
    return timestep_array(1e-4)
