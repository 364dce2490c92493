"""``jnp.where`` of float64 NumPy arrays gave float32: with x64 off (JAX's
default) every 64-bit dtype is truncated to 32 bits
(https://github.com/jax-ml/jax/issues/11012)."""

import jax.numpy as jnp
import numpy as np

from jaxtypes import Array, float64


def fill_nan() -> Array[float64]:
    mask = np.array(True)
    a = np.ones((2, 2), dtype=np.float64)
    b = np.array(np.nan, dtype=np.float64)
    out: Array[float64] = jnp.where(mask, a, b)  # bug: float32
    return out


def main() -> Array[float64]:
    return fill_nan()
