"""With x64 turned on globally (pmwd enables it), a library constant made as
``jnp.array([1.])`` is float64, and ``jax.lax``, which does not promote,
refuses it beside the user's float32 values
(https://github.com/eelregit/pmwd/issues/33)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, float32


def shift(position: Array[float32]) -> Array[float32]:
    foo = jnp.array([1.0])
    return jax.lax.add(position, foo)  # bug: TypeError, float32 and float64


def main() -> Array[float32]:
    return shift(jnp.zeros(1, dtype=jnp.float32))
