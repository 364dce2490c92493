"""``jnp.clip`` of a uint64 array with a Python ``max`` above int64's range
raises an OverflowError under x64: the Python int is read as int64
(https://github.com/jax-ml/jax/issues/34455)."""

import jax.numpy as jnp

from jaxtypes import Array, uint64


def clip_top(x: Array[uint64]) -> Array[uint64]:
    return jnp.clip(x, min=0, max=9223372036854775808)  # bug: OverflowError, the bound is no int64


def main() -> Array[uint64]:
    return clip_top(jnp.asarray(0, dtype=jnp.uint64))
