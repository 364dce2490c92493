"""The fix: the frequencies are used in the embedding's dtype
(https://github.com/patrick-kidger/equinox/pull/836)."""

import jax.numpy as jnp

from jaxtypes import Array, bfloat16, complex64


def precompute_freqs_cis(embedding_size: int, end: int, theta: float) -> Array[complex64]:
    freqs = 1.0 / (theta ** (jnp.arange(0.0, embedding_size, 2)[jnp.newaxis, :] / embedding_size))
    t = jnp.arange(float(end))
    freqs_outer = jnp.outer(t, freqs)
    return jnp.cos(freqs_outer) + jnp.sin(freqs_outer) * 1j


def rotate_half(x: Array[bfloat16]) -> Array[bfloat16]:
    d_2 = x.shape[-1] // 2
    return jnp.concatenate([-x[..., d_2:], x[..., :d_2]], axis=-1)


def rope(x: Array[bfloat16], theta: float = 10_000.0) -> Array[bfloat16]:
    seq_len, embedding_size = x.shape
    freqs_cis = precompute_freqs_cis(embedding_size, seq_len, theta)
    freqs_real = jnp.tile(freqs_cis.real, (1, 2)).astype(jnp.bfloat16)
    freqs_imag = jnp.tile(freqs_cis.imag, (1, 2)).astype(jnp.bfloat16)
    rotated_x = rotate_half(x)
    return x * freqs_real + rotated_x * freqs_imag


def main() -> Array[bfloat16]:
    return rope(jnp.ones((4, 8), dtype=jnp.bfloat16))
