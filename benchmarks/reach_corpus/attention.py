"""Multi-head self-attention in bfloat16 with a float32 softmax and a causal mask."""

import math

import jax
import jax.numpy as jnp
from jaxtypes import Array, bfloat16, bool_, float32


def split_heads(x: Array[bfloat16], num_heads: int) -> Array[bfloat16]:
    batch, seq, width = x.shape
    heads = x.reshape(batch, seq, num_heads, width // num_heads)
    return heads.transpose(0, 2, 1, 3)


def merge_heads(x: Array[bfloat16]) -> Array[bfloat16]:
    batch, heads, seq, head_dim = x.shape
    moved = jnp.transpose(x, (0, 2, 1, 3))
    return moved.reshape(batch, seq, heads * head_dim)


def causal_mask(seq: int) -> Array[bool_]:
    rows = jnp.arange(seq)[:, None]
    cols = jnp.arange(seq)[None, :]
    mask = cols <= rows
    return mask


def attention_weights(q: Array[bfloat16], k: Array[bfloat16], mask: Array[bool_]) -> Array[float32]:
    scale = 1.0 / math.sqrt(q.shape[-1])
    logits = jnp.einsum("bhqd,bhkd->bhqk", q, k)
    logits32 = logits.astype(jnp.float32) * scale
    big_neg = jnp.finfo(jnp.float32).min
    masked = jnp.where(mask, logits32, big_neg)
    weights = jax.nn.softmax(masked, axis=-1)
    return weights


def stable_softmax(logits: Array[float32]) -> Array[float32]:
    shifted = logits - jnp.max(logits, axis=-1, keepdims=True)
    unnorm = jnp.exp(shifted)
    denom = jnp.sum(unnorm, axis=-1, keepdims=True)
    probs = unnorm / denom
    return probs


def multi_head_attention(
    x: Array[bfloat16],
    w_qkv: Array[bfloat16],
    w_out: Array[bfloat16],
    num_heads: int,
) -> Array[bfloat16]:
    qkv = x @ w_qkv
    q, k, v = jnp.split(qkv, 3, axis=-1)
    qh = split_heads(q, num_heads)
    kh = split_heads(k, num_heads)
    vh = split_heads(v, num_heads)
    mask = causal_mask(x.shape[1])
    weights = attention_weights(qh, kh, mask)
    probs = weights.astype(jnp.bfloat16)
    context = jnp.einsum("bhqk,bhkd->bhqd", probs, vh)
    merged = merge_heads(context)
    out = merged @ w_out
    return out


def attention_entropy(weights: Array[float32]) -> Array[float32]:
    logw = jnp.log(weights + 1e-9)
    per_query = -jnp.sum(weights * logw, axis=-1)
    mean_entropy = jnp.mean(per_query)
    return mean_entropy


def rotary_embedding(x: Array[bfloat16], base: float = 10000.0) -> Array[bfloat16]:
    seq, dim = x.shape[-2], x.shape[-1]
    half = dim // 2
    freqs = 1.0 / (base ** (jnp.arange(half, dtype=jnp.float32) / half))
    positions = jnp.arange(seq, dtype=jnp.float32)
    angles = positions[:, None] * freqs[None, :]
    sin = jnp.sin(angles)
    cos = jnp.cos(angles)
    x32 = x.astype(jnp.float32)
    x1 = x32[..., :half]
    x2 = x32[..., half:]
    rotated = jnp.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
    return rotated.astype(x.dtype)


def main() -> dict[str, jax.Array]:
    key = jax.random.PRNGKey(0)
    k1, k2, k3 = jax.random.split(key, 3)
    batch, seq, width, heads = 2, 8, 32, 4
    x = jax.random.normal(k1, (batch, seq, width), dtype=jnp.bfloat16)
    w_qkv = (jax.random.normal(k2, (width, 3 * width)) * 0.05).astype(jnp.bfloat16)
    w_out = (jax.random.normal(k3, (width, width)) * 0.05).astype(jnp.bfloat16)
    y = multi_head_attention(x, w_qkv, w_out, heads)
    jitted = jax.jit(multi_head_attention, static_argnums=3)
    y_jit = jitted(x, w_qkv, w_out, heads)
    qh = split_heads(x, heads)
    weights = attention_weights(qh, qh, causal_mask(seq))
    entropy = attention_entropy(weights)
    probs = stable_softmax(weights[0, 0])
    rotated = rotary_embedding(qh)
    return {"y": y, "y_jit": y_jit, "entropy": entropy, "probs": probs, "rotated": rotated}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
