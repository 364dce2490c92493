"""A hand-written AdamW with gradient clipping and a warmup-cosine schedule,
in Optax's style: a ``GradientTransformation`` of ``init``/``update``
functions over pytrees, its state a NamedTuple of arrays."""

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax
from jax.typing import ArrayLike


class ScaleByAdamState(NamedTuple):
    count: jax.Array
    mu: Any
    nu: Any


def warmup_cosine(step: ArrayLike, peak_value: float, warmup_steps: int, total_steps: int) -> jax.Array:
    step = jnp.asarray(step, dtype=jnp.float32)
    warmup = peak_value * step / max(warmup_steps, 1)
    progress = jnp.clip((step - warmup_steps) / max(total_steps - warmup_steps, 1), 0.0, 1.0)
    cosine = 0.5 * peak_value * (1.0 + jnp.cos(jnp.pi * progress))
    return jnp.where(step < warmup_steps, warmup, cosine)


def global_norm(tree: Any) -> jax.Array:
    leaves = jax.tree_util.tree_leaves(tree)
    squares = [jnp.sum(jnp.square(x.astype(jnp.float32))) for x in leaves]
    return jnp.sqrt(sum(squares))


def clip_by_global_norm(updates: Any, max_norm: float) -> Any:
    norm = global_norm(updates)
    factor = jnp.minimum(1.0, max_norm / (norm + 1e-6))
    return jax.tree_util.tree_map(lambda u: (u * factor).astype(u.dtype), updates)


def bias_correction(moment: jax.Array, decay: float, count: jax.Array) -> jax.Array:
    correction = 1 - decay**count
    return moment / correction.astype(moment.dtype)


def scale_by_adam(b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> optax.GradientTransformation:
    def init_fn(params: Any) -> ScaleByAdamState:
        mu = jax.tree_util.tree_map(lambda p: jnp.zeros_like(p, dtype=jnp.float32), params)
        nu = jax.tree_util.tree_map(lambda p: jnp.zeros_like(p, dtype=jnp.float32), params)
        return ScaleByAdamState(count=jnp.zeros([], jnp.int32), mu=mu, nu=nu)

    def update_fn(updates: Any, state: ScaleByAdamState, params: Any = None) -> tuple[Any, ScaleByAdamState]:
        del params
        mu = jax.tree_util.tree_map(lambda g, m: b1 * m + (1 - b1) * g, updates, state.mu)
        nu = jax.tree_util.tree_map(lambda g, v: b2 * v + (1 - b2) * jnp.square(g), updates, state.nu)
        count = state.count + 1
        mu_hat = jax.tree_util.tree_map(lambda m: bias_correction(m, b1, count), mu)
        nu_hat = jax.tree_util.tree_map(lambda v: bias_correction(v, b2, count), nu)
        new_updates = jax.tree_util.tree_map(lambda m, v: m / (jnp.sqrt(v) + eps), mu_hat, nu_hat)
        return new_updates, ScaleByAdamState(count=count, mu=mu, nu=nu)

    return optax.GradientTransformation(init_fn, update_fn)


def adamw_step(
    param: jax.Array, grad: jax.Array, mu: jax.Array, nu: jax.Array, step: jax.Array, lr: ArrayLike, weight_decay: float
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """One parameter's AdamW update, as fused optimizers write it by hand."""
    grad32 = grad.astype(jnp.float32)
    mu = 0.9 * mu + 0.1 * grad32
    nu = 0.999 * nu + 0.001 * grad32 * grad32
    t = (step + 1).astype(jnp.float32)
    mu_hat = mu / (1 - 0.9**t)
    nu_hat = nu / (1 - 0.999**t)
    update = mu_hat / (jnp.sqrt(nu_hat) + 1e-8) + weight_decay * param.astype(jnp.float32)
    new_param = param - (jnp.asarray(lr) * update).astype(param.dtype)
    return new_param, mu, nu


def main() -> jax.Array:
    params = {"w": jnp.ones((4, 4), jnp.float32), "b": jnp.zeros((4,), jnp.bfloat16)}
    grads = {"w": jnp.full((4, 4), 0.5, jnp.float32), "b": jnp.ones((4,), jnp.bfloat16)}
    tx = optax.chain(optax.clip_by_global_norm(1.0), scale_by_adam(), optax.scale(-1e-3))
    state = tx.init(params)
    updates, state = tx.update(grads, state, params)
    new_params = optax.apply_updates(params, updates)
    clipped = clip_by_global_norm(grads, 0.1)
    norm = global_norm(clipped)
    lr = warmup_cosine(5, 1e-3, 10, 100)
    late_lr = warmup_cosine(jnp.array(50), 1e-3, 10, 100)
    w = params["w"]
    mu = jnp.zeros_like(w)
    nu = jnp.zeros_like(w)
    step = jnp.array(0, jnp.int32)
    w, mu, nu = adamw_step(w, grads["w"], mu, nu, step, lr, 1e-4)
    b16 = params["b"]
    b16, mu_b, nu_b = adamw_step(b16, grads["b"], jnp.zeros(4), jnp.zeros(4), step, late_lr, 0.0)
    total = norm + w.sum() + b16.astype(jnp.float32).sum() + new_params["w"].sum()
    return total + mu_b.sum() + nu_b.sum()
