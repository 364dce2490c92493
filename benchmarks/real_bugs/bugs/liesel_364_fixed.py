"""The Python float passed as it is, weakly typed: float16 is kept
(https://github.com/liesel-devs/liesel/issues/364)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, float16


def fn(a: Array[float16], b: float) -> Array[float16]:
    return a + b


def main() -> Array[float16]:
    a = jnp.arange(5, dtype=jnp.float16)
    b_weak = 1.0
    return jax.jit(fn)(a, b_weak)
