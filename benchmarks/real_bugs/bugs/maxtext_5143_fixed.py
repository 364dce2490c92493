# mypy: disable-error-code="import-untyped"
# (Optax ships no py.typed marker: mypy reads it as untyped, as in a project using it.)
"""The norm computed in float32, as the PR's engine does
(https://github.com/AI-Hypercomputer/maxtext/pull/5143)."""

import jax
import jax.numpy as jnp
import optax

from jaxtypes import Array, bfloat16, float32


def grad_norm(grads: dict[str, Array[bfloat16]]) -> Array[float32]:
    norm: Array[float32] = optax.global_norm(jax.tree.map(lambda g: g.astype(jnp.float32), grads))
    return norm


def main() -> Array[float32]:
    return grad_norm({"w": jnp.full((4, 4), 300.0, dtype=jnp.bfloat16)})
