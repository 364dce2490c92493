"""A small multi-layer perceptron written the usual way: parameters in dicts
and lists, `jax.Array` annotations, `jax.numpy` and `jax.nn` everywhere."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

Params = list[dict[str, jax.Array]]


def glorot(key: jax.Array, fan_in: int, fan_out: int) -> jax.Array:
    scale = jnp.sqrt(2.0 / (fan_in + fan_out))
    return scale * jax.random.normal(key, (fan_in, fan_out), dtype=jnp.float32)


def init_mlp(key: jax.Array, sizes: Sequence[int]) -> Params:
    keys = jax.random.split(key, len(sizes) - 1)
    params: Params = []
    for k, n_in, n_out in zip(keys, sizes[:-1], sizes[1:]):
        params.append({"w": glorot(k, n_in, n_out), "b": jnp.zeros((n_out,), jnp.float32)})
    return params


def dense(layer: dict[str, jax.Array], x: jax.Array) -> jax.Array:
    return x @ layer["w"] + layer["b"]


def mlp(params: Params, x: jax.Array) -> jax.Array:
    *hidden, last = params
    for layer in hidden:
        x = jax.nn.gelu(dense(layer, x))
    return dense(last, x)


def layer_norm(x: jax.Array, scale: jax.Array, bias: jax.Array, eps: float = 1e-6) -> jax.Array:
    mean = x.mean(axis=-1, keepdims=True)
    var = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + eps) * scale + bias


def dropout(key: jax.Array, x: jax.Array, rate: float, train: bool) -> jax.Array:
    if not train or rate == 0.0:
        return x
    keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
    return jnp.where(keep, x / (1.0 - rate), 0.0)


def residual_block(params: dict[str, jax.Array], x: jax.Array) -> jax.Array:
    h = layer_norm(x, params["ln_scale"], params["ln_bias"])
    h = jax.nn.relu(h @ params["w1"] + params["b1"])
    h = h @ params["w2"] + params["b2"]
    return x + h


def softmax_cross_entropy(logits: jax.Array, labels: jax.Array) -> jax.Array:
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    one_hot = jax.nn.one_hot(labels, logits.shape[-1])
    return -jnp.sum(one_hot * log_probs, axis=-1).mean()


def accuracy(logits: jax.Array, labels: jax.Array) -> jax.Array:
    predictions = jnp.argmax(logits, axis=-1)
    return jnp.mean(predictions == labels)


def count_params(params: Any) -> int:
    return sum(int(leaf.size) for leaf in jax.tree_util.tree_leaves(params))


def conv_layer(x: jax.Array, kernel: jax.Array, stride: int = 1) -> jax.Array:
    # x: (batch, height, width, channels), kernel: (kh, kw, in, out)
    return jax.lax.conv_general_dilated(
        x, kernel, window_strides=(stride, stride), padding="SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
    )


def max_pool(x: jax.Array, window: int = 2) -> jax.Array:
    return jax.lax.reduce_window(
        x, -jnp.inf, jax.lax.max, (1, window, window, 1), (1, window, window, 1), "VALID",
    )


def cnn(params: dict[str, jax.Array], images: jax.Array) -> jax.Array:
    h = jax.nn.relu(conv_layer(images, params["conv1"]))
    h = max_pool(h)
    h = jax.nn.relu(conv_layer(h, params["conv2"]))
    h = h.reshape(h.shape[0], -1)
    return h @ params["head"]


def init_cnn(key: jax.Array, channels: int, classes: int, flat: int) -> dict[str, jax.Array]:
    k1, k2, k3 = jax.random.split(key, 3)
    return {
        "conv1": 0.1 * jax.random.normal(k1, (3, 3, channels, 8)),
        "conv2": 0.1 * jax.random.normal(k2, (3, 3, 8, 16)),
        "head": 0.1 * jax.random.normal(k3, (flat, classes)),
    }
