"""Training loops: losses, grad / value_and_grad, jit, SGD and Adam by hand."""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp


def linear(params: dict[str, jax.Array], x: jax.Array) -> jax.Array:
    return jnp.dot(x, params["w"]) + params["b"]


def mse_loss(params: dict[str, jax.Array], x: jax.Array, y: jax.Array) -> jax.Array:
    pred = linear(params, x)
    return jnp.mean((pred - y) ** 2)


def l2_penalty(params: Any, weight: float = 1e-4) -> jax.Array:
    leaves = jax.tree_util.tree_leaves(params)
    return weight * sum(jnp.sum(p * p) for p in leaves)


@jax.jit
def sgd_step(params: dict[str, jax.Array], x: jax.Array, y: jax.Array) -> dict[str, jax.Array]:
    grads = jax.grad(mse_loss)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)


@functools.partial(jax.jit, static_argnames=("learning_rate",))
def sgd_step_lr(params: dict[str, jax.Array], x: jax.Array, y: jax.Array,
                learning_rate: float) -> tuple[dict[str, jax.Array], jax.Array]:
    loss, grads = jax.value_and_grad(mse_loss)(params, x, y)
    new_params = jax.tree_util.tree_map(lambda p, g: p - learning_rate * g, params, grads)
    return new_params, loss


class AdamState(NamedTuple):
    step: jax.Array
    mu: dict[str, jax.Array]
    nu: dict[str, jax.Array]


def adam_init(params: dict[str, jax.Array]) -> AdamState:
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    return AdamState(step=jnp.zeros((), jnp.int32), mu=zeros, nu=zeros)


def adam_update(grads: dict[str, jax.Array], state: AdamState, params: dict[str, jax.Array],
                lr: float = 1e-3, b1: float = 0.9, b2: float = 0.999,
                eps: float = 1e-8) -> tuple[dict[str, jax.Array], AdamState]:
    step = state.step + 1
    mu = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, state.mu, grads)
    nu = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, state.nu, grads)
    mu_hat = jax.tree_util.tree_map(lambda m: m / (1 - b1 ** step), mu)
    nu_hat = jax.tree_util.tree_map(lambda v: v / (1 - b2 ** step), nu)
    new_params = jax.tree_util.tree_map(
        lambda p, m, v: p - lr * m / (jnp.sqrt(v) + eps), params, mu_hat, nu_hat)
    return new_params, AdamState(step, mu, nu)


@jax.jit
def adam_step(params: dict[str, jax.Array], state: AdamState, x: jax.Array,
              y: jax.Array) -> tuple[dict[str, jax.Array], AdamState, jax.Array]:
    loss, grads = jax.value_and_grad(mse_loss)(params, x, y)
    params, state = adam_update(grads, state, params)
    return params, state, loss


def clip_by_global_norm(grads: dict[str, jax.Array], max_norm: float) -> dict[str, jax.Array]:
    norm = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree_util.tree_leaves(grads)))
    factor = jnp.minimum(1.0, max_norm / (norm + 1e-6))
    return jax.tree_util.tree_map(lambda g: g * factor, grads)


def batches(x: jax.Array, y: jax.Array, batch_size: int, key: jax.Array):
    perm = jax.random.permutation(key, x.shape[0])
    for start in range(0, x.shape[0], batch_size):
        idx = perm[start:start + batch_size]
        yield x[idx], y[idx]


def fit(key: jax.Array, x: jax.Array, y: jax.Array, epochs: int = 3) -> dict[str, jax.Array]:
    k_w, k_data = jax.random.split(key)
    params = {"w": jax.random.normal(k_w, (x.shape[1], y.shape[1])), "b": jnp.zeros(y.shape[1])}
    state = adam_init(params)
    losses: list[float] = []
    for epoch in range(epochs):
        k_data, k_epoch = jax.random.split(k_data)
        for xb, yb in batches(x, y, 16, k_epoch):
            params, state, loss = adam_step(params, state, xb, yb)
            losses.append(float(loss))
    return params


def evaluate(params: dict[str, jax.Array], x: jax.Array, y: jax.Array) -> dict[str, float]:
    pred = linear(params, x)
    err = pred - y
    return {
        "mse": float(jnp.mean(err ** 2)),
        "mae": float(jnp.abs(err).mean()),
        "max": float(jnp.max(jnp.abs(err))),
    }


def hessian_diag(f, x: jax.Array) -> jax.Array:
    hess = jax.hessian(f)(x)
    return jnp.diagonal(hess)


def logistic_loss(w: jax.Array, x: jax.Array, y: jax.Array) -> jax.Array:
    logits = x @ w
    return jnp.mean(jax.nn.softplus(logits) - y * logits)


def newton_step(w: jax.Array, x: jax.Array, y: jax.Array) -> jax.Array:
    g = jax.grad(logistic_loss)(w, x, y)
    h = jax.hessian(logistic_loss)(w, x, y)
    return w - jnp.linalg.solve(h + 1e-3 * jnp.eye(w.shape[0]), g)
