"""The answer: ``JAX_ENABLE_X64=1``, with which this file runs and is checked
(https://github.com/jax-ml/jax/issues/1333)."""

import jax
import numpy as np

from jaxtypes import Array, float64


def ones64() -> Array[float64]:
    a: Array[float64] = jax.numpy.ones((2, 2), dtype=np.float64)
    return a


def main() -> Array[float64]:
    return ones64()
