"""Calls of JAX's functions with an argument of a wrong type: the error code
each checker gives them changes with the stubs, which make these functions
overloaded (tests/test_user_contexts.py checks the README's table of codes)."""

from __future__ import annotations

import jax
import jax.numpy as jnp


def wrong_arguments(x: jax.Array) -> None:
    jnp.tanh("text")  # wrong argument
    jnp.zeros(3, dtype=1.5j)  # wrong argument
    jax.nn.relu(None)  # wrong argument
    jnp.mean(x, where="text")  # wrong argument
