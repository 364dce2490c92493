# mypy: disable-error-code="import-untyped"
# (Optax ships no py.typed marker: mypy reads it as untyped, as in a project using it.)
"""Idioms of public training code, written as JAX's, Optax's and Flax's
examples write them: tree maps over parameter dicts, an optimizer state
held in a NamedTuple, a jitted Optax update step (its state read back with
``optax.tree_utils.tree_get``, as Optax's documentation does), a Flax
TrainState step, and scan, fori_loop, while_loop and cond with typed carries.

Correct code (``demo()`` runs it under JAX): the stubs must add no error to
it in any checker (tests/test_user_contexts.py)."""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax
from flax.training import train_state
from jax import lax


def init_params(key: jax.Array, sizes: tuple[int, int]) -> dict[str, jax.Array]:
    return {"w": jax.random.normal(key, sizes), "b": jnp.zeros(sizes[1])}


def loss_fn(params: dict[str, jax.Array], x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


# SGD by hand, as JAX's tutorials write it.
@jax.jit
def sgd_update(params: dict[str, jax.Array], x: jax.Array, y: jax.Array, lr: float = 0.1) -> dict[str, jax.Array]:
    grads = jax.grad(loss_fn)(params, x, y)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


def global_norm(tree: dict[str, jax.Array]) -> jax.Array:
    return jnp.sqrt(sum(jnp.sum(jnp.square(g)) for g in jax.tree_util.tree_leaves(tree)))


def squared_norm(tree: dict[str, jax.Array]) -> jax.Array:
    total = jax.tree.reduce(lambda acc, g: acc + jnp.sum(g**2), tree, initializer=0.0)
    return jnp.asarray(total)


def to_half(params: dict[str, jax.Array]) -> dict[str, jax.Array]:
    return jax.tree_util.tree_map(lambda p: p.astype(jnp.bfloat16), params)


# An optimizer state as a NamedTuple of trees (optax's ScaleByAdamState).
class AdamState(NamedTuple):
    step: jax.Array
    mu: dict[str, jax.Array]
    nu: dict[str, jax.Array]


def adam_init(params: dict[str, jax.Array]) -> AdamState:
    zeros = jax.tree.map(jnp.zeros_like, params)
    return AdamState(step=jnp.zeros((), jnp.int32), mu=zeros, nu=zeros)


@functools.partial(jax.jit, static_argnames=("b1", "b2"))
def adam_update(
    grads: dict[str, jax.Array], state: AdamState, b1: float = 0.9, b2: float = 0.999
) -> tuple[dict[str, jax.Array], AdamState]:
    mu = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, state.mu, grads)
    nu = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, state.nu, grads)
    step = state.step + 1
    updates = jax.tree.map(lambda m, v: -1e-3 * m / (jnp.sqrt(v) + 1e-8), mu, nu)
    return updates, AdamState(step, mu, nu)


# Optax's own training step (its "Getting started" example).
optimizer = optax.adam(1e-2)


@jax.jit
def step(params, opt_state, x, y):
    loss_value, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    params = optax.apply_updates(params, updates)
    return params, opt_state, loss_value


jitted_update = jax.jit(optimizer.update)


def first_moment(opt_state: optax.OptState) -> jax.Array:
    return optax.tree_utils.tree_get(opt_state, "mu")["w"]


# Flax's TrainState step.
@jax.jit
def train_step(state: train_state.TrainState, x: jax.Array, y: jax.Array) -> train_state.TrainState:
    grads = jax.grad(loss_fn)(state.params, x, y)
    return state.apply_gradients(grads=grads)


# Loops with carries of one dtype.
def cumulative(xs: jax.Array) -> tuple[jax.Array, jax.Array]:
    def body(carry: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        carry = carry + x
        return carry, carry

    return lax.scan(body, jnp.zeros((), xs.dtype), xs)


def power_iteration(m: jax.Array, steps: int) -> jax.Array:
    def body(i: int, v: jax.Array) -> jax.Array:
        v = m @ v
        return v / jnp.linalg.norm(v)

    return lax.fori_loop(0, steps, body, jnp.ones(m.shape[0], m.dtype))


def halve_until_small(x: jax.Array) -> jax.Array:
    return lax.while_loop(lambda v: jnp.max(jnp.abs(v)) > 1.0, lambda v: v * 0.5, x)


def relu_or_identity(x: jax.Array, use_relu: bool) -> jax.Array:
    return lax.cond(use_relu, lambda v: jnp.maximum(v, 0.0), lambda v: v, x)


def demo() -> None:
    key = jax.random.key(0)
    x, y = jnp.ones((4, 3)), jnp.zeros((4, 2))
    params = init_params(key, (3, 2))
    params = sgd_update(params, x, y)
    assert params["w"].dtype == jnp.float32
    assert global_norm(params).dtype == squared_norm(params).dtype == jnp.float32
    assert to_half(params)["b"].dtype == jnp.bfloat16
    state = adam_init(params)
    updates, state = adam_update(params, state)
    assert state.mu["w"].dtype == jnp.float32 and state.step.dtype == jnp.int32
    assert updates["b"].dtype == jnp.float32
    opt_state = optimizer.init(params)
    params, opt_state, loss_value = step(params, opt_state, x, y)
    assert loss_value.dtype == jnp.float32
    updates, opt_state = jitted_update(params, opt_state, params)
    params = optax.apply_updates(params, updates)
    assert first_moment(opt_state).dtype == jnp.float32
    ts = train_state.TrainState.create(apply_fn=loss_fn, params=params, tx=optimizer)
    ts = train_step(ts, x, y)
    assert int(ts.step) == 1
    total, partial = cumulative(jnp.arange(4.0))
    assert total.dtype == partial.dtype == jnp.float32
    assert power_iteration(jnp.eye(3), 3).dtype == jnp.float32
    assert halve_until_small(jnp.full(3, 8.0)).dtype == jnp.float32
    assert relu_or_identity(jnp.ones(3, jnp.bfloat16), True).dtype == jnp.bfloat16
