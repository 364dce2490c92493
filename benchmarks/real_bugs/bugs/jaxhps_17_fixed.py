"""The fix: the data's own dtype instead of float64
(https://github.com/meliao/jaxhps/pull/17)."""

import jax.numpy as jnp

from jaxtypes import Array, complex128


def local_solve(rhs: Array[complex128]) -> Array[complex128]:
    out: Array[complex128] = jnp.zeros(rhs.shape, dtype=rhs.dtype)
    out = out.at[:].set(rhs)
    return out


def main() -> Array[complex128]:
    return local_solve(jnp.full((4,), 1 + 2j, dtype=jnp.complex128))
