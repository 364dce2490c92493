# mypy: disable-error-code="import-untyped"
# (Optax ships no py.typed marker: mypy reads it as untyped, as in a project using it.)
"""``optax.inject_hyperparams`` infers the hyperparameters' dtype from the
parameters: bfloat16 parameters make the learning rate, betas and epsilon
bfloat16 (1e-3 becomes 0.000999451), unlike the float32 of the plain optimizer
(https://github.com/google-deepmind/optax/issues/1414)."""

from typing import Any, cast

import jax.numpy as jnp
import optax

from jaxtypes import Array, float32


def learning_rate() -> Array[float32]:
    optimizer = optax.inject_hyperparams(optax.adamw)(learning_rate=1e-3)
    state = optimizer.init(jnp.array([1, 2], dtype=jnp.bfloat16))
    lr: Array[float32] = cast(Any, state).hyperparams["learning_rate"]  # bug: bfloat16
    return lr


def main() -> Array[float32]:
    return learning_rate()
