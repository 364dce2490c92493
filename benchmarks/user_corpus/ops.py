"""Functional building blocks shared by the models: norms, activations,
rotary embeddings, masks, losses and int8 quantisation.  Written as public
JAX code writes them: ``jax.Array`` in, ``jax.Array`` out, ``ArrayLike``
where a Python number may be passed."""

import math

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike


def rms_norm(x: jax.Array, scale: jax.Array, eps: float = 1e-6) -> jax.Array:
    orig_dtype = x.dtype
    x32 = x.astype(jnp.float32)
    var = jnp.mean(jnp.square(x32), axis=-1, keepdims=True)
    normed = x32 * jax.lax.rsqrt(var + eps)
    out = normed * (1.0 + scale.astype(jnp.float32))
    return out.astype(orig_dtype)


def layer_norm(x: jax.Array, gamma: jax.Array, beta: jax.Array, eps: float = 1e-5) -> jax.Array:
    mean = jnp.mean(x, axis=-1, keepdims=True)
    centered = x - mean
    var = jnp.mean(centered * centered, axis=-1, keepdims=True)
    y = centered / jnp.sqrt(var + eps)
    return y * gamma + beta


def gelu(x: jax.Array) -> jax.Array:
    c = math.sqrt(2.0 / math.pi)
    inner = c * (x + 0.044715 * x**3)
    return 0.5 * x * (1.0 + jnp.tanh(inner))


def swiglu(x: jax.Array, gate: jax.Array) -> jax.Array:
    activated = jax.nn.silu(gate)
    return x * activated


def rotary_frequencies(head_dim: int, max_len: int, base: float = 10000.0) -> tuple[jax.Array, jax.Array]:
    fraction = jnp.arange(0, head_dim, 2, dtype=jnp.float32) / head_dim
    inv_freq = 1.0 / (base**fraction)
    positions = jnp.arange(max_len, dtype=jnp.float32)
    angles = jnp.outer(positions, inv_freq)
    return jnp.sin(angles), jnp.cos(angles)


def apply_rotary(x: jax.Array, sin: jax.Array, cos: jax.Array) -> jax.Array:
    x1, x2 = jnp.split(x, 2, axis=-1)
    sin = sin[None, :, None, :].astype(x.dtype)
    cos = cos[None, :, None, :].astype(x.dtype)
    rotated = jnp.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)
    return rotated


def causal_mask(seq_len: int) -> jax.Array:
    idx = jnp.arange(seq_len)
    mask = idx[:, None] >= idx[None, :]
    return mask


def padding_mask(tokens: jax.Array, pad_id: int = 0) -> jax.Array:
    keep = tokens != pad_id
    return keep[:, None, None, :]


def onehot(labels: jax.Array, num_classes: int, on_value: float = 1.0, off_value: float = 0.0) -> jax.Array:
    hot = labels[..., None] == jnp.arange(num_classes)[None]
    encoded = jnp.where(hot, on_value, off_value)
    return encoded.astype(jnp.float32)


def cross_entropy_loss(logits: jax.Array, labels: jax.Array, label_smoothing: float = 0.0) -> jax.Array:
    num_classes = logits.shape[-1]
    targets = onehot(labels, num_classes)
    if label_smoothing > 0:
        targets = targets * (1.0 - label_smoothing) + label_smoothing / num_classes
    log_probs = jax.nn.log_softmax(logits.astype(jnp.float32), axis=-1)
    loss = -jnp.sum(targets * log_probs, axis=-1)
    return loss


def weighted_mean(values: jax.Array, weights: ArrayLike | None = None) -> jax.Array:
    if weights is None:
        return jnp.mean(values)
    w = jnp.asarray(weights, dtype=jnp.float32)
    total = jnp.sum(values * w)
    return total / jnp.maximum(jnp.sum(w), 1.0)


def accuracy(logits: jax.Array, labels: jax.Array) -> jax.Array:
    predictions = jnp.argmax(logits, axis=-1)
    correct = predictions == labels
    return jnp.mean(correct.astype(jnp.float32))


def quantize_int8(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    amax = jnp.max(jnp.abs(x), axis=-1, keepdims=True)
    scale = jnp.maximum(amax.astype(jnp.float32), 1e-8) / 127.0
    q = jnp.round(x / scale).astype(jnp.int8)
    return q, scale


def dequantize_int8(q: jax.Array, scale: jax.Array) -> jax.Array:
    return q.astype(jnp.float32) * scale


def int8_matmul(x: jax.Array, w_q: jax.Array, w_scale: jax.Array) -> jax.Array:
    x_q, x_scale = quantize_int8(x)
    acc = jax.lax.dot_general(x_q, w_q, (((x_q.ndim - 1,), (0,)), ((), ())), preferred_element_type=jnp.int32)
    out = acc.astype(jnp.float32) * x_scale * w_scale.reshape(1, -1)
    return out


def main() -> jax.Array:
    key = jax.random.PRNGKey(0)
    k1, k2, k3 = jax.random.split(key, 3)
    x = jax.random.normal(k1, (2, 8, 32))
    x16 = x.astype(jnp.bfloat16)
    scale = jnp.zeros((32,), jnp.float32)
    y = rms_norm(x, scale)
    y16 = rms_norm(x16, scale)
    ln = layer_norm(x, jnp.ones((32,)), jnp.zeros((32,)))
    act = gelu(ln)
    gated = swiglu(x16, x16)
    sin, cos = rotary_frequencies(8, 8)
    heads = x.reshape(2, 8, 4, 8)
    rotated = apply_rotary(heads, sin, cos)
    mask = causal_mask(8)
    tokens = jax.random.randint(k2, (2, 8), 0, 10)
    pad = padding_mask(tokens)
    logits = jax.random.normal(k3, (2, 8, 10))
    losses = cross_entropy_loss(logits, tokens, label_smoothing=0.1)
    loss = weighted_mean(losses, pad[:, 0, 0, :])
    acc = accuracy(logits, tokens)
    w = jax.random.normal(k2, (32, 16))
    w_q, w_scale = quantize_int8(w.T)
    w_q = w_q.T
    approx = int8_matmul(x.reshape(-1, 32), w_q, w_scale)
    err = jnp.abs(approx - x.reshape(-1, 32) @ w).max()
    total = loss + acc + err + y16.astype(jnp.float32).sum() + y.sum() + act.sum()
    total = total + gated.astype(jnp.float32).mean() + rotated.sum() + mask.sum()
    return total
