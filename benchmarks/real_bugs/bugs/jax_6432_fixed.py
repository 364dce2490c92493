"""As in the thread: make the array float first, ``a.astype(float)``
(https://github.com/jax-ml/jax/issues/6432)."""

import jax.numpy as jnp

from jaxtypes import Array, float32, int32


def mask_zeros(a: Array[int32]) -> Array[float32]:
    b = a.astype(jnp.float32)
    out: Array[float32] = b.at[b == 0].set(jnp.nan)
    return out


def main() -> Array[float32]:
    return mask_zeros(jnp.array([0, 47, 0]))
