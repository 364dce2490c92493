"""The fix: the float32 weight cast to the activations' dtype where it is used
(https://github.com/AI-Hypercomputer/maxtext/pull/3746)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, bfloat16, float32


def decoder_layer(y: Array[bfloat16], layer_scalar: Array[float32]) -> tuple[Array[bfloat16], None]:
    y = y + jnp.tanh(y)
    return y * layer_scalar.astype(y.dtype), None


def decoder(x: Array[bfloat16], layer_scalars: Array[float32]) -> Array[bfloat16]:
    y, _ = jax.lax.scan(decoder_layer, x, layer_scalars)
    return y


def main() -> Array[bfloat16]:
    return decoder(jnp.ones((2, 8), dtype=jnp.bfloat16), jnp.ones((4, 1), dtype=jnp.float32))
