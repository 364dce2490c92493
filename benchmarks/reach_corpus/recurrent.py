"""Recurrences over time with lax.scan and fori_loop: an Elman RNN in bfloat16,
a cumulative sum, an exponential moving average and a linear recurrence."""

import jax
import jax.numpy as jnp
from jaxtypes import Array, bfloat16, float32, int32


def rnn_cell(h: Array[float32], x: Array[bfloat16], w_h: Array[float32],
             w_x: Array[bfloat16]) -> Array[float32]:
    from_input = jnp.dot(x, w_x, preferred_element_type=jnp.float32)
    pre = h @ w_h + from_input
    new_h = jnp.tanh(pre)
    return new_h


def rnn(xs: Array[bfloat16], h0: Array[float32], w_h: Array[float32],
        w_x: Array[bfloat16]) -> tuple[Array[float32], Array[float32]]:
    def step(h: Array[float32], x: Array[bfloat16]) -> tuple[Array[float32], Array[float32]]:
        new_h = rnn_cell(h, x, w_h, w_x)
        return new_h, new_h

    final, hs = jax.lax.scan(step, h0, xs)
    return final, hs


def cumulative_sum(xs: Array[int32]) -> Array[int32]:
    def step(total: Array[int32], x: Array[int32]) -> tuple[Array[int32], Array[int32]]:
        new_total = total + x
        return new_total, new_total

    start = jnp.zeros((), jnp.int32)
    _, sums = jax.lax.scan(step, start, xs)
    return sums


def moving_average(xs: Array[float32], decay: float) -> Array[float32]:
    def step(avg: Array[float32], x: Array[float32]) -> tuple[Array[float32], Array[float32]]:
        updated = decay * avg + (1.0 - decay) * x
        return updated, updated

    _, averages = jax.lax.scan(step, xs[0], xs)
    return averages


def linear_recurrence(a: Array[float32], b: Array[float32]) -> Array[float32]:
    def combine(h: Array[float32], ab: tuple[Array[float32], Array[float32]]) -> tuple[Array[float32], Array[float32]]:
        a_t, b_t = ab
        h_next = a_t * h + b_t
        return h_next, h_next

    h0 = jnp.zeros_like(b[0])
    _, hs = jax.lax.scan(combine, h0, (a, b))
    return hs


def power_iteration(m: Array[float32], steps: int) -> Array[float32]:
    def body(i: int, v: Array[float32]) -> Array[float32]:
        w = m @ v
        return w / jnp.linalg.norm(w)

    v0 = jnp.ones((m.shape[0],), jnp.float32)
    v = jax.lax.fori_loop(0, steps, body, v0)
    return v


def discounted_returns(rewards: Array[float32], gamma: float) -> Array[float32]:
    def step(future: Array[float32], reward: Array[float32]) -> tuple[Array[float32], Array[float32]]:
        ret = reward + gamma * future
        return ret, ret

    _, returns = jax.lax.scan(step, jnp.float32(0.0), rewards, reverse=True)
    return returns


def main() -> dict[str, jax.Array]:
    key = jax.random.PRNGKey(5)
    k1, k2, k3 = jax.random.split(key, 3)
    steps, width = 6, 8
    xs = jax.random.normal(k1, (steps, width), jnp.bfloat16)
    w_h = jax.random.normal(k2, (width, width), jnp.float32) * 0.1
    w_x = (jax.random.normal(k3, (width, width)) * 0.1).astype(jnp.bfloat16)
    h0 = jnp.zeros((width,), jnp.float32)
    final, hs = rnn(xs, h0, w_h, w_x)
    counts = jnp.arange(steps, dtype=jnp.int32)
    sums = cumulative_sum(counts)
    averages = moving_average(hs[:, 0], 0.9)
    gates = jax.nn.sigmoid(hs)
    recurrent = linear_recurrence(gates, hs)
    top = power_iteration(w_h @ w_h.T, 5)
    returns = discounted_returns(hs[:, 1], 0.99)
    return {"final": final, "sums": sums, "averages": averages, "recurrent": recurrent,
            "top": top, "returns": returns}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
