"""With x64 the promotion's int64 is kept (https://github.com/jax-ml/jax/issues/4187)."""

import jax.numpy as jnp
import numpy as np

from jaxtypes import Array, int8, int64, uint32


def total(a: Array[uint32], b: Array[int8]) -> Array[int64]:
    return a + b


def main() -> Array[int64]:
    return total(jnp.asarray(np.uint32(2**32 - 1)), jnp.asarray(np.int8(1)))
