"""liesel converted Python scalars to strongly typed JAX arrays: a strong
float32 ``1.0`` upcasts a float16 variable to float32, where the weakly typed
Python float keeps float16 (https://github.com/liesel-devs/liesel/issues/364)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, float16, float32


def to_strong_jax(x: float) -> Array[float32]:
    return jnp.asarray(x, dtype=jnp.asarray(x).dtype)


def fn(a: Array[float16], b: Array[float32]) -> Array[float16]:
    return a + b  # bug: float32, the strong scalar wins


def main() -> Array[float16]:
    a = jnp.arange(5, dtype=jnp.float16)
    b_strong = to_strong_jax(1.0)
    return jax.jit(fn)(a, b_strong)
