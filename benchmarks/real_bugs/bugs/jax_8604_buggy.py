"""``256 ** jnp.arange(1, 5)`` is int32, and 256**4 overflows to 0: the
reciprocals then contain inf (https://github.com/jax-ml/jax/issues/8604)."""

import jax.numpy as jnp

from jaxtypes import Array, float32


def denominators(n: int) -> Array[float32]:
    return 256 ** jnp.arange(1, n)  # bug: int32, 256**4 overflows


def main() -> Array[float32]:
    scales = (1 / denominators(5)).astype(jnp.float32)
    del scales
    return denominators(5)
