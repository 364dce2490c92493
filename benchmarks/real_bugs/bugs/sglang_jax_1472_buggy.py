"""sglang-jax's RotaryEmbedding stored its inverse frequencies in float32 but
converted them to the model's dtype (bfloat16) before the phase computation,
rounding them: the error grows with the position
(https://github.com/sgl-project/sglang-jax/issues/1472)."""

import jax.numpy as jnp
import numpy as np
from numpy.typing import NDArray

from jaxtypes import Array, float32, int32


def inverse_frequencies(inv_freq_np: NDArray[np.float32]) -> Array[float32]:
    # The model's dtype (self.dtype) is bfloat16 in the report.
    inv_freq: Array[float32] = jnp.asarray(inv_freq_np, dtype=jnp.bfloat16)  # bug: rounded to bfloat16
    return inv_freq


def rope_phases(positions: Array[int32], inv_freq_np: NDArray[np.float32]) -> Array[float32]:
    inv_freq = inverse_frequencies(inv_freq_np)
    freqs = jnp.einsum("n,d->nd", positions.astype(jnp.float32), inv_freq)
    return freqs


def main() -> Array[float32]:
    inv_freq_np = (1.0 / (10_000.0 ** (np.arange(0, 128, 2) / 128))).astype(np.float32)
    rope_phases(jnp.arange(4096, dtype=jnp.int32), inv_freq_np)
    return inverse_frequencies(inv_freq_np)
