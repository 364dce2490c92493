"""The fix: ``dtype=float``, JAX's default float for the configuration
(https://github.com/climate-analytics-lab/jax-gcm/pull/393)."""

import jax.numpy as jnp

from jaxtypes import Array, float64


def sigma_levels(values: list[float]) -> Array[float64]:
    levels: Array[float64] = jnp.array(values, dtype=float)
    return levels


def main() -> Array[float64]:
    return sigma_levels([0.1, 0.5, 0.9])
