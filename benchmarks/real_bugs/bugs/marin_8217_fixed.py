"""The fix: accumulate the logits in float32 (``preferred_element_type``)
(https://github.com/marin-community/marin/pull/8217)."""

import jax.numpy as jnp

from jaxtypes import Array, bfloat16, float32


def block_logits(x: Array[bfloat16], w: Array[bfloat16]) -> Array[float32]:
    logits: Array[float32] = jnp.dot(x, w, preferred_element_type=jnp.float32)
    return logits


def main() -> Array[float32]:
    x = jnp.ones((4, 16), dtype=jnp.bfloat16)
    w = jnp.ones((16, 32), dtype=jnp.bfloat16)
    return block_logits(x, w)
