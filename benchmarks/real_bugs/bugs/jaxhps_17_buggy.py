"""jaxhps built its local solutions with a hard-coded ``jnp.float64``: complex
data (a PML layer's) lost its imaginary part
(https://github.com/meliao/jaxhps/pull/17)."""

import jax.numpy as jnp

from jaxtypes import Array, complex128


def local_solve(rhs: Array[complex128]) -> Array[complex128]:
    out: Array[complex128] = jnp.zeros(rhs.shape, dtype=jnp.float64)  # bug: float64, drops the imaginary part
    out = out.at[:].set(rhs)
    return out


def main() -> Array[complex128]:
    return local_solve(jnp.full((4,), 1 + 2j, dtype=jnp.complex128))
