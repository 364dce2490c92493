# mypy: disable-error-code="import-untyped"
# (Optax ships no py.typed marker: mypy reads it as untyped, as in a project using it.)
"""The hyperparameters' dtype given explicitly (``hyperparam_dtype``), as the
issue asks the signature's float32 to be honoured
(https://github.com/google-deepmind/optax/issues/1414)."""

from typing import Any, cast

import jax.numpy as jnp
import optax

from jaxtypes import Array, float32


def learning_rate() -> Array[float32]:
    optimizer = optax.inject_hyperparams(optax.adamw, hyperparam_dtype=jnp.float32)(learning_rate=1e-3)
    state = optimizer.init(jnp.array([1, 2], dtype=jnp.bfloat16))
    lr: Array[float32] = cast(Any, state).hyperparams["learning_rate"]
    return lr


def main() -> Array[float32]:
    return learning_rate()
