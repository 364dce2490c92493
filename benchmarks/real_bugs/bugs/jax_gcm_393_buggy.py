"""jax-gcm hard-coded ``jnp.float32`` when it made arrays, so turning on x64 did
not make the model float64 (https://github.com/climate-analytics-lab/jax-gcm/pull/393)."""

import jax.numpy as jnp

from jaxtypes import Array, float64


def sigma_levels(values: list[float]) -> Array[float64]:
    levels: Array[float64] = jnp.array(values, dtype=jnp.float32)  # bug: float32 under x64
    return levels


def main() -> Array[float64]:
    return sigma_levels([0.1, 0.5, 0.9])
