"""Embeddings, dense layers, a gelu MLP, layer norm and RMS norm."""

import jax
import jax.numpy as jnp
from jaxtypes import Array, bfloat16, float32, int32


def embed(tokens: Array[int32], table: Array[float32]) -> Array[float32]:
    vectors = jnp.take(table, tokens, axis=0)
    scaled = vectors * jnp.sqrt(jnp.float32(table.shape[-1]))
    return scaled


def embed_one_hot(tokens: Array[int32], table: Array[bfloat16]) -> Array[bfloat16]:
    one_hot = jax.nn.one_hot(tokens, table.shape[0], dtype=jnp.bfloat16)
    vectors = one_hot @ table
    return vectors


def dense(x: Array[bfloat16], kernel: Array[bfloat16], bias: Array[float32]) -> Array[float32]:
    y = jnp.dot(x, kernel, preferred_element_type=jnp.float32)
    out = y + bias
    return out


def mlp(x: Array[bfloat16], w1: Array[bfloat16], b1: Array[float32],
        w2: Array[bfloat16], b2: Array[float32]) -> Array[float32]:
    hidden = dense(x, w1, b1)
    activated = jax.nn.gelu(hidden)
    hidden16 = activated.astype(jnp.bfloat16)
    out = dense(hidden16, w2, b2)
    return out


def swiglu(x: Array[bfloat16], w_gate: Array[bfloat16], w_up: Array[bfloat16]) -> Array[bfloat16]:
    gate = x @ w_gate
    up = x @ w_up
    activated = jax.nn.silu(gate) * up
    return activated


def layer_norm(x: Array[float32], scale: Array[float32], bias: Array[float32],
               eps: float = 1e-5) -> Array[float32]:
    mean = jnp.mean(x, axis=-1, keepdims=True)
    centered = x - mean
    var = jnp.mean(jnp.square(centered), axis=-1, keepdims=True)
    inv = jax.lax.rsqrt(var + eps)
    normed = centered * inv
    out = normed * scale + bias
    return out


def rms_norm(x: Array[bfloat16], scale: Array[float32], eps: float = 1e-6) -> Array[bfloat16]:
    x32 = x.astype(jnp.float32)
    ms = jnp.mean(x32 * x32, axis=-1, keepdims=True)
    normed = x32 / jnp.sqrt(ms + eps)
    scaled = normed * (1.0 + scale)
    out = scaled.astype(jnp.bfloat16)
    return out


def dropout(key: jax.Array, x: Array[float32], rate: float) -> Array[float32]:
    keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
    kept = jnp.where(keep, x / (1.0 - rate), 0.0)
    return kept


def init_dense(key: jax.Array, n_in: int, n_out: int) -> tuple[Array[bfloat16], Array[float32]]:
    std = 1.0 / n_in ** 0.5
    kernel = jax.random.truncated_normal(key, -2.0, 2.0, (n_in, n_out), jnp.float32) * std
    bias = jnp.zeros((n_out,), jnp.float32)
    return kernel.astype(jnp.bfloat16), bias


def main() -> dict[str, jax.Array]:
    key = jax.random.PRNGKey(1)
    k_tab, k1, k2, k_drop = jax.random.split(key, 4)
    vocab, width, hidden = 50, 16, 64
    tokens = jax.random.randint(k_tab, (2, 6), 0, vocab)
    table = jax.random.normal(k_tab, (vocab, width), jnp.float32) * 0.02
    x = embed(tokens, table)
    x16 = embed_one_hot(tokens, table.astype(jnp.bfloat16))
    w1, b1 = init_dense(k1, width, hidden)
    w2, b2 = init_dense(k2, hidden, width)
    y = mlp(x.astype(jnp.bfloat16), w1, b1, w2, b2)
    gated = swiglu(x16, w1, w1)
    scale = jnp.ones((width,), jnp.float32)
    shift = jnp.zeros((width,), jnp.float32)
    ln = layer_norm(y, scale, shift)
    rms = rms_norm(x16, jnp.zeros((width,), jnp.float32))
    dropped = dropout(k_drop, ln, 0.1)
    return {"x": x, "ln": ln, "rms": rms, "dropped": dropped, "gated": gated}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
