"""Adam, AdamW, SGD with momentum, gradient clipping and schedules over pytrees,
as Optax writes them (see norms.py for the corpus as a whole)."""

from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
from jaxtypes import Array, float32, int32

Params = Any
Updates = Any
Schedule = Callable[[Array[int32]], Array[float32]]


class ScaleByAdamState(NamedTuple):
    count: Array[int32]
    mu: Updates
    nu: Updates


def safe_int32_increment(count: Array[int32]) -> Array[int32]:
    max_int32_value = jnp.iinfo(jnp.int32).max
    one = jnp.array(1, dtype=jnp.int32)
    return jnp.where(count < max_int32_value, count + one, max_int32_value)


def update_moment(updates: Updates, moments: Updates, decay: float, order: int) -> Updates:
    return jax.tree.map(lambda g, t: (1 - decay) * (g**order) + decay * t, updates, moments)


def bias_correction(moment: Updates, decay: float, count: Array[int32]) -> Updates:
    bias_correction_ = 1 - decay**count
    return jax.tree.map(lambda t: t / bias_correction_.astype(t.dtype), moment)


def adam_init(params: Params, mu_dtype: Any = None) -> ScaleByAdamState:
    mu = jax.tree.map(lambda t: jnp.zeros_like(t, dtype=mu_dtype), params)
    nu = jax.tree.map(jnp.zeros_like, params)
    return ScaleByAdamState(count=jnp.zeros([], jnp.int32), mu=mu, nu=nu)


def adam_update(updates: Updates, state: ScaleByAdamState, b1: float = 0.9, b2: float = 0.999,
                eps: float = 1e-8) -> tuple[Updates, ScaleByAdamState]:
    mu = update_moment(updates, state.mu, b1, 1)
    nu = update_moment(updates, state.nu, b2, 2)
    count_inc = safe_int32_increment(state.count)
    mu_hat = bias_correction(mu, b1, count_inc)
    nu_hat = bias_correction(nu, b2, count_inc)
    updates = jax.tree.map(lambda m, v: m / (jnp.sqrt(v) + eps), mu_hat, nu_hat)
    return updates, ScaleByAdamState(count=count_inc, mu=mu, nu=nu)


def global_norm(updates: Updates) -> Array[Any]:
    leaves = jax.tree.leaves(updates)
    return jnp.sqrt(sum(jnp.sum(jnp.square(x)) for x in leaves))


def clip_by_global_norm(updates: Updates, max_norm: float) -> Updates:
    g_norm = global_norm(updates)
    trigger = jnp.squeeze(g_norm < max_norm)
    return jax.tree.map(lambda t: jax.lax.select(trigger, t, (t / g_norm.astype(t.dtype)) * max_norm), updates)


def warmup_cosine_decay_schedule(init_value: float, peak_value: float, warmup_steps: int,
                                 decay_steps: int, end_value: float = 0.0) -> Schedule:
    def schedule(count: Array[int32]) -> Array[float32]:
        warmup = init_value + (peak_value - init_value) * count / warmup_steps
        progress = jnp.clip((count - warmup_steps) / max(decay_steps - warmup_steps, 1), 0.0, 1.0)
        cosine = 0.5 * (1 + jnp.cos(jnp.pi * progress))
        decayed = (peak_value - end_value) * cosine + end_value
        lr = jnp.where(count < warmup_steps, warmup, decayed)
        return lr.astype(jnp.float32)
    return schedule


def exponential_decay(init_value: float, decay_rate: float, transition_steps: int) -> Schedule:
    def schedule(count: Array[int32]) -> Array[float32]:
        p = count / transition_steps
        p = jnp.floor(p)
        return init_value * jnp.power(decay_rate, p)
    return schedule


def add_decayed_weights(updates: Updates, params: Params, weight_decay: float) -> Updates:
    return jax.tree.map(lambda g, p: g + weight_decay * p, updates, params)


def scale_by_learning_rate(updates: Updates, lr: Array[float32]) -> Updates:
    return jax.tree.map(lambda g: -lr * g, updates)


def apply_updates(params: Params, updates: Updates) -> Params:
    return jax.tree.map(lambda p, u: jnp.asarray(p + u).astype(jnp.asarray(p).dtype), params, updates)


def sgd_momentum(grads: Updates, velocity: Updates, lr: float, momentum: float = 0.9) -> tuple[Updates, Updates]:
    velocity = jax.tree.map(lambda v, g: momentum * v + g, velocity, grads)
    updates = jax.tree.map(lambda v: -lr * v, velocity)
    return updates, velocity


def ema_update(ema: Params, params: Params, decay: float) -> Params:
    return jax.tree.map(lambda e, p: decay * e + (1.0 - decay) * p, ema, params)


def cast_tree(tree: Params, dtype: Any) -> Params:
    return jax.tree.map(lambda x: x.astype(dtype) if jnp.issubdtype(x.dtype, jnp.floating) else x, tree)


def main() -> dict[str, Any]:
    key = jax.random.PRNGKey(4)
    k1, k2 = jax.random.split(key)
    params = {"w": jax.random.normal(k1, (4, 4)), "b": jnp.zeros((4,)),
              "emb": jax.random.normal(k2, (8, 4), dtype=jnp.bfloat16)}
    grads = jax.tree.map(lambda p: jnp.ones_like(p) * 0.1, params)
    state = adam_init(params)
    schedule = warmup_cosine_decay_schedule(0.0, 1e-3, 10, 100)
    updates = clip_by_global_norm(grads, 1.0)
    updates, state = adam_update(updates, state)
    updates = add_decayed_weights(updates, params, 1e-4)
    lr = schedule(state.count)
    updates = scale_by_learning_rate(updates, lr)
    new_params = apply_updates(params, updates)
    velocity = jax.tree.map(jnp.zeros_like, params)
    sgd_updates, velocity = sgd_momentum(grads, velocity, 0.01)
    ema = ema_update(params, new_params, 0.999)
    half = cast_tree(new_params, jnp.bfloat16)
    norm = global_norm(grads)
    decay_lr = exponential_decay(1e-2, 0.5, 10)(state.count)
    w = new_params["w"]
    w_delta = w - params["w"]
    count = state.count
    return {"new": new_params, "sgd": sgd_updates, "ema": ema, "half": half, "norm": norm, "lr": lr,
            "decay_lr": decay_lr, "w_delta": w_delta, "count": count}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
