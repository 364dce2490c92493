"""Setting NaN into an integer array (``jax.ops.index_update``, now
``.at[].set``) silently gives -2147483648: the array stays int32
(https://github.com/jax-ml/jax/issues/6432)."""

import jax.numpy as jnp

from jaxtypes import Array, float32, int32


def mask_zeros(a: Array[int32]) -> Array[float32]:
    out: Array[float32] = a.at[a == 0].set(jnp.nan)  # bug: int32, NaN becomes -2147483648
    return out


def main() -> Array[float32]:
    return mask_zeros(jnp.array([0, 47, 0]))
