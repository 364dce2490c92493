"""The maintainer's answer: reset and step must return states of the same
dtypes (https://github.com/RobertTLange/gymnax/issues/52)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, bool_, float32


def auto_reset(done: Array[bool_], state_re: Array[float32], state_st: Array[float32]) -> Array[float32]:
    return jax.lax.select(done, state_re, state_st)


def main() -> Array[float32]:
    done = jnp.asarray(True)
    state_re = jnp.asarray(0, dtype=jnp.float32)
    state_st = jnp.asarray(1.0, dtype=jnp.float32)
    return auto_reset(done, state_re, state_st)
