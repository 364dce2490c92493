"""``uint32`` and ``int8`` promote to int64, which x64 off truncates to int32:
``uint32(2**32 - 1) + int8(1)`` is 0 (https://github.com/jax-ml/jax/issues/4187)."""

import jax.numpy as jnp
import numpy as np

from jaxtypes import Array, int8, int64, uint32


def total(a: Array[uint32], b: Array[int8]) -> Array[int64]:
    return a + b  # bug: int32, the value wraps


def main() -> Array[int64]:
    return total(jnp.asarray(np.uint32(2**32 - 1)), jnp.asarray(np.int8(1)))
