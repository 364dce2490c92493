"""``uint32 >> int32`` promotes to int64, which x64 off squashes to int32:
``0xFFFFFFFF >> 1`` comes out as -1 (https://github.com/jax-ml/jax/issues/16748)."""

import jax.numpy as jnp

from jaxtypes import Array, int32, uint32


def halve(x: Array[uint32], y: Array[int32]) -> Array[uint32]:
    out: Array[uint32] = x >> y  # bug: int32, the high bit lost
    return out


def main() -> Array[uint32]:
    x = jnp.array(0xFFFFFFFF, jnp.uint32)
    y = jnp.array(1, jnp.int32)
    return halve(x, y)
