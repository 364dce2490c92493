"""Levanter's fused cross-entropy computed the forward logits of a bfloat16
activation and a bfloat16 head without ``preferred_element_type``: bfloat16
logits, while the backward recomputed them in float32
(https://github.com/marin-community/marin/pull/8217)."""

import jax.numpy as jnp

from jaxtypes import Array, bfloat16, float32


def block_logits(x: Array[bfloat16], w: Array[bfloat16]) -> Array[float32]:
    logits: Array[float32] = jnp.dot(x, w)  # bug: bfloat16
    return logits


def main() -> Array[float32]:
    x = jnp.ones((4, 16), dtype=jnp.bfloat16)
    w = jnp.ones((16, 32), dtype=jnp.bfloat16)
    return block_logits(x, w)
