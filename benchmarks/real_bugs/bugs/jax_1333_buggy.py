"""``jax.numpy.ones((2, 2), dtype=np.float64)`` is float32: without x64 the
requested float64 is truncated (with a warning) (https://github.com/jax-ml/jax/issues/1333)."""

import jax
import numpy as np

from jaxtypes import Array, float64


def ones64() -> Array[float64]:
    a: Array[float64] = jax.numpy.ones((2, 2), dtype=np.float64)  # bug: float32
    return a


def main() -> Array[float64]:
    return ones64()
