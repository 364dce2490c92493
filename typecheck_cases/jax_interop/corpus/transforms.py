"""vmap, scan, while_loop, cond, custom_jvp, checkpoint: the transformations
used on plainly annotated arrays."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax


def pairwise_distances(a: jax.Array, b: jax.Array) -> jax.Array:
    def one(x: jax.Array, y: jax.Array) -> jax.Array:
        return jnp.sqrt(jnp.sum((x - y) ** 2))

    return jax.vmap(jax.vmap(one, in_axes=(None, 0)), in_axes=(0, None))(a, b)


def batched_matvec(m: jax.Array, v: jax.Array) -> jax.Array:
    return jax.vmap(jnp.dot)(m, v)


def per_example_grads(w: jax.Array, xs: jax.Array, ys: jax.Array) -> jax.Array:
    def loss(w: jax.Array, x: jax.Array, y: jax.Array) -> jax.Array:
        return (jnp.dot(x, w) - y) ** 2

    return jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(w, xs, ys)


def cumulative_sum(xs: jax.Array) -> jax.Array:
    def step(carry: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        total = carry + x
        return total, total

    _, out = lax.scan(step, jnp.zeros_like(xs[0]), xs)
    return out


def rnn(params: dict[str, jax.Array], xs: jax.Array, h0: jax.Array) -> tuple[jax.Array, jax.Array]:
    def cell(h: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        h_new = jnp.tanh(x @ params["wx"] + h @ params["wh"] + params["b"])
        return h_new, h_new

    return lax.scan(cell, h0, xs)


def ema(xs: jax.Array, decay: float = 0.9) -> jax.Array:
    def step(avg: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        avg = decay * avg + (1.0 - decay) * x
        return avg, avg

    return lax.scan(step, xs[0], xs[1:])[1]


def newton_sqrt(x: jax.Array, iters: int = 20) -> jax.Array:
    def body(i: int, y: jax.Array) -> jax.Array:
        return 0.5 * (y + x / y)

    return lax.fori_loop(0, iters, body, jnp.ones_like(x))


def collatz_steps(n: jax.Array) -> jax.Array:
    def cond(state: tuple[jax.Array, jax.Array]) -> jax.Array:
        value, _ = state
        return value > 1

    def body(state: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        value, steps = state
        value = jnp.where(value % 2 == 0, value // 2, 3 * value + 1)
        return value, steps + 1

    _, steps = lax.while_loop(cond, body, (n, jnp.zeros_like(n)))
    return steps


def safe_log(x: jax.Array) -> jax.Array:
    return lax.cond(jnp.all(x > 0), jnp.log, lambda v: jnp.full_like(v, -jnp.inf), x)


def piecewise(x: jax.Array) -> jax.Array:
    return jnp.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v ** 2])


@jax.custom_jvp
def log1pexp(x: jax.Array) -> jax.Array:
    return jnp.log1p(jnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals: tuple[jax.Array], tangents: tuple[jax.Array]) -> tuple[jax.Array, jax.Array]:
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * jax.nn.sigmoid(x)


def remat_mlp(ws: list[jax.Array], x: jax.Array) -> jax.Array:
    @jax.checkpoint
    def layer(w: jax.Array, h: jax.Array) -> jax.Array:
        return jnp.tanh(h @ w)

    for w in ws:
        x = layer(w, x)
    return x


def jacobian_norm(f, x: jax.Array) -> jax.Array:
    jac = jax.jacfwd(f)(x)
    return jnp.linalg.norm(jac)


def hvp(f, x: jax.Array, v: jax.Array) -> jax.Array:
    return jax.jvp(jax.grad(f), (x,), (v,))[1]


def vjp_example(x: jax.Array) -> jax.Array:
    y, pullback = jax.vjp(jnp.sin, x)
    (grad_x,) = pullback(jnp.ones_like(y))
    return grad_x


def associative_cumprod(xs: jax.Array) -> jax.Array:
    return lax.associative_scan(jnp.multiply, xs)


def stop_gradient_target(pred: jax.Array, target: jax.Array) -> jax.Array:
    return jnp.mean((pred - lax.stop_gradient(target)) ** 2)


def switch_activation(index: jax.Array, x: jax.Array) -> jax.Array:
    return lax.switch(index, [jax.nn.relu, jax.nn.tanh, jax.nn.sigmoid], x)


compiled_distances = jax.jit(pairwise_distances)
