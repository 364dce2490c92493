"""``random.uniform(..., dtype=np.float64)`` gave float32: with x64 off the
requested dtype is truncated (https://github.com/jax-ml/jax/issues/470)."""

from jax import random
import numpy as np

from jaxtypes import Array, float64


def sample() -> Array[float64]:
    x: Array[float64] = random.uniform(random.PRNGKey(0), (1000,), dtype=np.float64)  # bug: float32
    return x


def main() -> Array[float64]:
    return sample()
