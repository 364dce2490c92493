"""The answer: cast the inputs explicitly to avoid the corner case
(https://github.com/jax-ml/jax/issues/16748)."""

import jax.numpy as jnp

from jaxtypes import Array, int32, uint32


def halve(x: Array[uint32], y: Array[int32]) -> Array[uint32]:
    out: Array[uint32] = x >> y.astype(jnp.uint32)
    return out


def main() -> Array[uint32]:
    x = jnp.array(0xFFFFFFFF, jnp.uint32)
    y = jnp.array(1, jnp.int32)
    return halve(x, y)
