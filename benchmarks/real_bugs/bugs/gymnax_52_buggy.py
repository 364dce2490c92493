"""gymnax's auto-reset selects between the reset and the stepped environment
state with ``lax.select``, which requires one dtype: a state field that reset
made int32 and step made float32 raised a TypeError
(https://github.com/RobertTLange/gymnax/issues/52)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, bool_, float32, int32


def auto_reset(done: Array[bool_], state_re: Array[int32], state_st: Array[float32]) -> Array[float32]:
    return jax.lax.select(done, state_re, state_st)  # bug: TypeError, int32 and float32


def main() -> Array[float32]:
    done = jnp.asarray(True)
    state_re = jnp.asarray(0, dtype=jnp.int32)
    state_st = jnp.asarray(1.0, dtype=jnp.float32)
    return auto_reset(done, state_re, state_st)
