"""RecurrentGemma's RG-LRU and temporal convolution, and an LSTM cell as in
Flax's examples (see norms.py for the corpus as a whole)."""

import math
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jaxtypes import Array, bfloat16, float32

PyTree = Any


def rnn_param_init(key: Array[Any], shape: tuple[int, ...], min_rad: float, max_rad: float,
                   dtype: Any = jnp.float32) -> Array[Any]:
    unif = jax.random.uniform(key, shape=shape)
    a_real = 0.5 * jnp.log(unif * (max_rad**2 - min_rad**2) + min_rad**2 + 1e-8)
    softplus_inv = a_real + jnp.log(-jnp.expm1(-a_real))
    return softplus_inv.astype(dtype)


def sqrt_bound_derivative(x: Array[float32], max_gradient: float) -> Array[float32]:
    min_value = 1.0 / (max_gradient**2)
    return jnp.sqrt(jnp.maximum(x, min_value))


def rnn_scan(x: Array[float32], a: Array[float32], h0: Array[float32] | None) -> tuple[Array[float32], Array[float32]]:
    acc_dtype = jnp.float32

    def step(h_t: Array[float32], inputs: tuple[Array[float32], Array[float32]]) -> tuple[Array[float32], Array[float32]]:
        a_t, x_t = inputs
        h_t = a_t.astype(acc_dtype) * h_t + x_t.astype(acc_dtype)
        return h_t, h_t.astype(x.dtype)

    init = jnp.zeros((x.shape[0], x.shape[2]), acc_dtype) if h0 is None else h0
    last_h, y = jax.lax.scan(step, init, (a.swapaxes(0, 1), x.swapaxes(0, 1)))
    return y.swapaxes(0, 1), last_h


class RGLRU:
    """The Real-Gated Linear Recurrent Unit."""

    def __init__(self, key: Array[Any], width: int, num_heads: int) -> None:
        k_a, k_x, k_g = jax.random.split(key, 3)
        block = width // num_heads
        self.num_heads = num_heads
        self.params = {
            "a_param": rnn_param_init(k_a, (width,), 0.9, 0.999),
            "input_gate_w": jax.random.normal(k_x, (num_heads, block, block)) / math.sqrt(block),
            "input_gate_b": jnp.zeros((num_heads, block)),
            "a_gate_w": jax.random.normal(k_g, (num_heads, block, block)) / math.sqrt(block),
            "a_gate_b": jnp.zeros((num_heads, block)),
        }

    def _gate(self, x: Array[float32], w: Array[float32], b: Array[float32]) -> Array[float32]:
        xs = x.reshape(*x.shape[:-1], self.num_heads, -1)
        y = jnp.einsum("... h i, h i j -> ... h j", xs, w) + b
        return y.reshape(*x.shape[:-1], -1)

    def __call__(self, x: Array[float32], segment_pos: Array[Any]) -> tuple[Array[float32], Array[float32]]:
        p = self.params
        gate_x = jax.nn.sigmoid(self._gate(x, p["input_gate_w"], p["input_gate_b"]))
        gate_a = jax.nn.sigmoid(self._gate(x, p["a_gate_w"], p["a_gate_b"]))
        log_a = -8.0 * gate_a * jax.nn.softplus(p["a_param"])
        a = jnp.exp(log_a)
        a_square = jnp.exp(2 * log_a)
        gated_x = x * gate_x
        multiplier = sqrt_bound_derivative(1 - a_square, 1000)
        reset = segment_pos == 0
        multiplier = reset[..., None] + ~reset[..., None] * multiplier
        normalized_x = gated_x * multiplier.astype(x.dtype)
        y, last_h = rnn_scan(normalized_x, a, None)
        return y, last_h


def conv1d(x: Array[bfloat16], w: Array[float32], b: Array[float32]) -> Array[bfloat16]:
    temporal_width = w.shape[0]
    conv_out = jnp.zeros_like(x, dtype=jnp.float32)
    for shift in range(temporal_width):
        x_window = jnp.pad(x[:, : x.shape[1] - shift], ((0, 0), (shift, 0), (0, 0)))
        conv_out += x_window * w[temporal_width - shift - 1]
    conv_out = conv_out + b
    return conv_out.astype(x.dtype)


class LSTMState(NamedTuple):
    c: Array[float32]
    h: Array[float32]


def lstm_cell(params: PyTree, carry: LSTMState, x: Array[float32]) -> tuple[LSTMState, Array[float32]]:
    c, h = carry
    gates = x @ params["wi"] + h @ params["wh"] + params["b"]
    i, f, g, o = jnp.split(gates, 4, axis=-1)
    i = jax.nn.sigmoid(i)
    f = jax.nn.sigmoid(f + 1.0)
    g = jnp.tanh(g)
    o = jax.nn.sigmoid(o)
    new_c = f * c + i * g
    new_h = o * jnp.tanh(new_c)
    return LSTMState(new_c, new_h), new_h


def run_lstm(params: PyTree, xs: Array[float32], hidden: int) -> Array[float32]:
    batch = xs.shape[0]
    carry = LSTMState(jnp.zeros((batch, hidden)), jnp.zeros((batch, hidden)))
    _, ys = jax.lax.scan(lambda c, x: lstm_cell(params, c, x), carry, jnp.swapaxes(xs, 0, 1))
    outputs = jnp.swapaxes(ys, 0, 1)
    return outputs


def main() -> dict[str, Any]:
    key = jax.random.PRNGKey(3)
    k1, k2, k3, k4 = jax.random.split(key, 4)
    width, heads, length = 8, 2, 5
    lru = RGLRU(k1, width, heads)
    x = jax.random.normal(k2, (2, length, width))
    segment_pos = jnp.broadcast_to(jnp.arange(length), (2, length))
    y, last_h = lru(x, segment_pos)
    conv_w = jax.random.normal(k3, (4, width), dtype=jnp.float32)
    conv = conv1d(x.astype(jnp.bfloat16), conv_w, jnp.zeros((width,)))
    params = {"wi": jax.random.normal(k4, (width, 4 * width)) * 0.1,
              "wh": jnp.eye(width, 4 * width, dtype=jnp.float32),
              "b": jnp.zeros((4 * width,), jnp.float32)}
    lstm_out = run_lstm(params, x, width)
    total = y.sum() + lstm_out.sum() + conv.astype(jnp.float32).sum()
    return {"y": y, "last_h": last_h, "conv": conv, "lstm": lstm_out, "total": total}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
