"""The answer: exponentiate a float (``256.``)
(https://github.com/jax-ml/jax/issues/8604)."""

import jax.numpy as jnp

from jaxtypes import Array, float32


def denominators(n: int) -> Array[float32]:
    return 256.0 ** jnp.arange(1, n)


def main() -> Array[float32]:
    scales = (1 / denominators(5)).astype(jnp.float32)
    del scales
    return denominators(5)
