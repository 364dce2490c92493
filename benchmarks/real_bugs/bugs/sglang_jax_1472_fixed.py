"""The fix: the inverse frequencies stay float32 through the phase computation
(https://github.com/sgl-project/sglang-jax/pull/1473)."""

import jax.numpy as jnp
import numpy as np
from numpy.typing import NDArray

from jaxtypes import Array, float32, int32


def inverse_frequencies(inv_freq_np: NDArray[np.float32]) -> Array[float32]:
    inv_freq: Array[float32] = jnp.asarray(inv_freq_np, dtype=jnp.float32)
    return inv_freq


def rope_phases(positions: Array[int32], inv_freq_np: NDArray[np.float32]) -> Array[float32]:
    inv_freq = inverse_frequencies(inv_freq_np)
    freqs = jnp.einsum("n,d->nd", positions.astype(jnp.float32), inv_freq)
    return freqs


def main() -> Array[float32]:
    inv_freq_np = (1.0 / (10_000.0 ** (np.arange(0, 128, 2) / 128))).astype(np.float32)
    rope_phases(jnp.arange(4096, dtype=jnp.int32), inv_freq_np)
    return inverse_frequencies(inv_freq_np)
