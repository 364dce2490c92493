# mypy: disable-error-code="import-untyped"
# (Optax ships no py.typed marker: mypy reads it as untyped, as in a project using it.)
"""Library functions called directly and through ``jax.jit``, with Optax's
and Flax's own declarations: each line marked ``jitted`` must get exactly the
errors of the ``direct`` line before it, in each checker, with the stubs
(tests/test_pytrees_and_control_flow.py).  Optax declares a state as
``chex.ArrayTree``, a union of arrays, scalars, iterables and mappings, so
pyright, basedpyright, pyrefly and ty report ``state[0].mu`` on the direct
call; JAX's own ``jit`` returns ``Any``, which hid it."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax
from flax.training import train_state

optimizer = optax.adam(1e-3)
params = {"w": jnp.zeros(3)}
opt_state = optimizer.init(params)
update = jax.jit(optimizer.update)


def loss(p: dict[str, jax.Array], x: jax.Array) -> jax.Array:
    return jnp.sum(p["w"] * x)


def step(p, state, x):  # unannotated, as Optax's examples write it
    value, grads = jax.value_and_grad(loss)(p, x)
    updates, state = optimizer.update(grads, state, p)
    return optax.apply_updates(p, updates), state, value


def train_step(state: train_state.TrainState, x: jax.Array) -> train_state.TrainState:
    return state.apply_gradients(grads=jax.grad(loss)(state.params, x))


def demo() -> None:
    ts = train_state.TrainState.create(apply_fn=loss, params=params, tx=optimizer)
    x = jnp.ones(3)
    a = optimizer.update(params, opt_state, params)[1][0].mu  # direct
    b = update(params, opt_state, params)[1][0].mu  # jitted
    c = step(params, opt_state, x)[1][0].mu  # direct
    d = jax.jit(step)(params, opt_state, x)[1][0].mu  # jitted
    e = train_step(ts, x).opt_state[0].mu  # direct
    f = jax.jit(train_step)(ts, x).opt_state[0].mu  # jitted
    g = step(params, opt_state, x)[0]["w"]  # direct
    h = jax.jit(step)(params, opt_state, x)[0]["w"]  # jitted
    i = train_step(ts, x).params  # direct
    j = jax.jit(train_step)(ts, x).params  # jitted
    assert all(v is not None for v in (a, b, c, d, e, f, g, h, i, j))
