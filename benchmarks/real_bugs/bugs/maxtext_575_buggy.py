"""MaxText's RotaryEmbedding: ``jnp.sin``/``jnp.cos`` of the float32 phases
are float32, so a bfloat16 input comes out float32 and the attention that
follows sees mixed dtypes (https://github.com/AI-Hypercomputer/maxtext/pull/575)."""

import jax.numpy as jnp

from jaxtypes import Array, bfloat16, int32


def rotary_embedding(inputs: Array[bfloat16], position: Array[int32]) -> Array[bfloat16]:
    embedding_dims = inputs.shape[-1]
    half_embedding_dim = embedding_dims // 2
    fraction = 2 * jnp.arange(0, half_embedding_dim) / embedding_dims
    timescale = 1.0 * (10_000.0 / 1.0) ** fraction
    position = position[:, :, jnp.newaxis, jnp.newaxis]
    sinusoid_inp = position / timescale
    sin = jnp.sin(sinusoid_inp)
    cos = jnp.cos(sinusoid_inp)
    first_half, second_half = jnp.split(inputs, 2, axis=-1)
    first_part = first_half * cos - second_half * sin
    second_part = second_half * cos + first_half * sin
    x_out = jnp.concatenate((first_part, second_part), axis=-1)
    return x_out  # bug: float32, not the input's bfloat16


def main() -> Array[bfloat16]:
    inputs = jnp.ones((1, 4, 2, 8), dtype=jnp.bfloat16)
    position = jnp.arange(4, dtype=jnp.int32)[jnp.newaxis, :]
    return rotary_embedding(inputs, position)
