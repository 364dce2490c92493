"""diffusers' FlaxUNet2DConditionModel wrapped a Python float timestep as
``jnp.array([timesteps], dtype=jnp.int32)``: 1e-4 became 0 before the time
projection (https://github.com/huggingface/diffusers/pull/13669)."""

import jax.numpy as jnp

from jaxtypes import Array, float32


def timestep_array(timesteps: float) -> Array[float32]:
    t: Array[float32] = jnp.array([timesteps], dtype=jnp.int32)  # bug: int32, 1e-4 truncated to 0
    return t


def main() -> Array[float32]:
    return timestep_array(1e-4)
