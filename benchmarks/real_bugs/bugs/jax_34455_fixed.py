"""The bound given as a uint64 scalar (https://github.com/jax-ml/jax/issues/34455)."""

import jax.numpy as jnp

from jaxtypes import Array, uint64


def clip_top(x: Array[uint64]) -> Array[uint64]:
    return jnp.clip(x, min=0, max=jnp.uint64(9223372036854775808))


def main() -> Array[uint64]:
    return clip_top(jnp.asarray(0, dtype=jnp.uint64))
