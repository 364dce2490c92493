"""Optimiser updates with explicit dtypes: SGD with momentum, Adam, and a
mixed-precision step keeping a float32 master copy of bfloat16 parameters."""

import jax
import jax.numpy as jnp
from jaxtypes import Array, bfloat16, float32, int32


def sgd_momentum(param: Array[float32], grad: Array[float32], velocity: Array[float32],
                 lr: float, momentum: float = 0.9) -> tuple[Array[float32], Array[float32]]:
    new_velocity = momentum * velocity + grad
    new_param = param - lr * new_velocity
    return new_param, new_velocity


def adam_update(param: Array[float32], grad: Array[float32], mu: Array[float32],
                nu: Array[float32], step: Array[int32], lr: float = 1e-3,
                b1: float = 0.9, b2: float = 0.999,
                eps: float = 1e-8) -> tuple[Array[float32], Array[float32], Array[float32]]:
    new_mu = b1 * mu + (1.0 - b1) * grad
    new_nu = b2 * nu + (1.0 - b2) * jnp.square(grad)
    count = (step + 1).astype(jnp.float32)
    mu_hat = new_mu / (1.0 - b1 ** count)
    nu_hat = new_nu / (1.0 - b2 ** count)
    update = mu_hat / (jnp.sqrt(nu_hat) + eps)
    new_param = param - lr * update
    return new_param, new_mu, new_nu


def weight_decay(param: Array[float32], update: Array[float32], rate: float) -> Array[float32]:
    decayed = update + rate * param
    return decayed


def global_norm(grads: dict[str, Array[float32]]) -> Array[float32]:
    squares = [jnp.sum(jnp.square(g)) for g in grads.values()]
    total = jnp.sqrt(sum(squares))
    return total


def clip_by_norm(grad: Array[float32], norm: Array[float32], max_norm: float) -> Array[float32]:
    factor = jnp.minimum(1.0, max_norm / (norm + 1e-6))
    clipped = grad * factor
    return clipped


def cosine_schedule(step: Array[int32], total: int, peak: float) -> Array[float32]:
    progress = jnp.minimum(step / total, 1.0)
    cosine = 0.5 * (1.0 + jnp.cos(jnp.pi * progress))
    lr = peak * cosine
    return lr


def mixed_precision_step(master: Array[float32], grad16: Array[bfloat16], loss_scale: float,
                         lr: float) -> tuple[Array[float32], Array[bfloat16]]:
    grad32 = grad16.astype(jnp.float32) / loss_scale
    finite = jnp.all(jnp.isfinite(grad32))
    safe_grad = jnp.where(finite, grad32, jnp.zeros_like(grad32))
    new_master = master - lr * safe_grad
    params16 = new_master.astype(jnp.bfloat16)
    return new_master, params16


def ema(average: Array[float32], value: Array[float32], decay: float) -> Array[float32]:
    updated = decay * average + (1.0 - decay) * value
    return updated


def linear_warmup(step: Array[int32], warmup: int, peak: float) -> Array[float32]:
    peak_lr = jnp.asarray(peak)
    floor = jnp.full((), 0.1 * peak)
    fraction = jnp.minimum(step / warmup, 1.0)
    lr = jnp.maximum(peak_lr * fraction, floor)
    return lr


def main() -> dict[str, jax.Array]:
    key = jax.random.PRNGKey(3)
    k1, k2 = jax.random.split(key)
    param = jax.random.normal(k1, (8, 4), jnp.float32)
    grad = jax.random.normal(k2, (8, 4), jnp.float32) * 0.1
    velocity = jnp.zeros_like(param)
    param_sgd, velocity = sgd_momentum(param, grad, velocity, 0.01)
    mu = jnp.zeros((8, 4), jnp.float32)
    nu = jnp.zeros((8, 4), dtype=jnp.float32)
    step = jnp.array(0, dtype=jnp.int32)
    param_adam, mu, nu = adam_update(param, grad, mu, nu, step)
    decayed = weight_decay(param, grad, 1e-4)
    norm = global_norm({"w": grad, "b": grad[0]})
    clipped = clip_by_norm(grad, norm, 1.0)
    lr = cosine_schedule(step, 100, 3e-4)
    master, params16 = mixed_precision_step(param, grad.astype(jnp.bfloat16), 1024.0, 0.01)
    averaged = ema(param, param_adam, 0.99)
    warm = linear_warmup(step, 10, 1e-3)
    return {"sgd": param_sgd, "adam": param_adam, "decayed": decayed, "clipped": clipped,
            "lr": lr, "master": master, "params16": params16, "ema": averaged,
            "warm": warm}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
