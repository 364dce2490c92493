# mypy: disable-error-code="import-untyped"
# (Optax ships no py.typed marker: mypy reads it as untyped, as in a project using it.)
"""MaxText clipped bfloat16 gradients with ``optax.clip_by_global_norm``, whose
norm is computed in the gradients' own dtype: a bfloat16 sum of squares that
overflows on large models, unlike the float32 norm MaxText reports
(https://github.com/AI-Hypercomputer/maxtext/pull/5143)."""

import jax.numpy as jnp
import optax

from jaxtypes import Array, bfloat16, float32


def grad_norm(grads: dict[str, Array[bfloat16]]) -> Array[float32]:
    norm: Array[float32] = optax.global_norm(grads)  # bug: bfloat16
    return norm


def main() -> Array[float32]:
    return grad_norm({"w": jnp.full((4, 4), 300.0, dtype=jnp.bfloat16)})
