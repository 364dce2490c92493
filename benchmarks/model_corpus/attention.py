"""Rotary embeddings and multi-head attention with a KV cache, as Gemma and
Flax's attention write them (see norms.py for the corpus as a whole)."""

import dataclasses
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jaxtypes import Array, bfloat16, bool_, float32, int32

K_MASK = -2.3819763e38  # Gemma's large negative logit


@dataclasses.dataclass(frozen=True)
class AttentionConfig:
    num_heads: int = 2
    num_kv_heads: int = 1
    head_dim: int = 8
    width: int = 16
    dtype: Any = jnp.bfloat16
    param_dtype: Any = jnp.float32
    attn_logits_soft_cap: float | None = 50.0


def apply_rope(inputs: Array[bfloat16], positions: Array[int32], max_wavelength: int = 10_000) -> Array[bfloat16]:
    head_dim = inputs.shape[-1]
    fraction = 2 * jnp.arange(0, head_dim // 2) / head_dim
    timescale = max_wavelength**fraction
    sinusoid_inp = positions[..., jnp.newaxis] / timescale[jnp.newaxis, jnp.newaxis, :]
    sinusoid_inp = sinusoid_inp[..., jnp.newaxis, :]
    sin = jnp.sin(sinusoid_inp)
    cos = jnp.cos(sinusoid_inp)
    first_half, second_half = jnp.split(inputs, 2, axis=-1)
    first_part = first_half * cos - second_half * sin
    second_part = second_half * cos + first_half * sin
    out = jnp.concatenate([first_part, second_part], axis=-1)
    return out.astype(inputs.dtype)


def rotary_freqs(seq_len: int, dim: int, theta: float = 10000.0) -> tuple[Array[float32], Array[float32]]:
    inv_freq = 1.0 / (theta ** (jnp.arange(0, dim, 2, dtype=jnp.float32) / dim))
    t = jnp.arange(seq_len, dtype=jnp.float32)
    freqs = jnp.outer(t, inv_freq)
    return jnp.cos(freqs), jnp.sin(freqs)


def rotate_half(x: Array[float32], cos: Array[float32], sin: Array[float32]) -> Array[float32]:
    x1, x2 = x[..., ::2], x[..., 1::2]
    rotated = jnp.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
    return rotated.reshape(x.shape)


def causal_mask(length: int) -> Array[bool_]:
    mask = jnp.tril(jnp.ones((length, length), dtype=jnp.bool_))
    return mask


def make_attention_mask(query_ok: Array[bool_], key_ok: Array[bool_]) -> Array[Any]:
    mask = jnp.logical_and(query_ok[..., :, None], key_ok[..., None, :])
    return jnp.expand_dims(mask, axis=-3)


def dot_product_attention(query: Array[bfloat16], key: Array[bfloat16], value: Array[bfloat16],
                          mask: Array[bool_] | None = None) -> Array[bfloat16]:
    depth = query.shape[-1]
    query = query / jnp.sqrt(depth).astype(query.dtype)
    logits = jnp.einsum("...qhd,...khd->...hqk", query, key)
    if mask is not None:
        big_neg = jnp.finfo(logits.dtype).min
        logits = jnp.where(mask, logits, big_neg)
    weights = jax.nn.softmax(logits.astype(jnp.float32)).astype(value.dtype)
    out = jnp.einsum("...hqk,...khd->...qhd", weights, value)
    return out


class KVCache(NamedTuple):
    k: Array[bfloat16]
    v: Array[bfloat16]
    end_index: Array[int32]


class Attention:
    """Grouped-query attention holding its parameters in a dict, Gemma-style."""

    def __init__(self, key: Array[Any], config: AttentionConfig) -> None:
        self.config = config
        kq, kkv, ko = jax.random.split(key, 3)
        init = jax.nn.initializers.normal(stddev=0.02)
        self.params = {
            "q_einsum": init(kq, (config.num_heads, config.width, config.head_dim), config.param_dtype),
            "kv_einsum": init(kkv, (2, config.num_kv_heads, config.width, config.head_dim), config.param_dtype),
            "attn_vec_einsum": init(ko, (config.num_heads, config.head_dim, config.width), config.param_dtype),
        }

    def __call__(self, x: Array[bfloat16], positions: Array[int32], cache: KVCache | None,
                 mask: Array[bool_]) -> tuple[KVCache | None, Array[bfloat16]]:
        cfg = self.config
        w_q = self.params["q_einsum"].astype(cfg.dtype)
        w_kv = self.params["kv_einsum"].astype(cfg.dtype)
        query_proj = jnp.einsum("BTD,NDH->BTNH", x, w_q)
        key_proj, value_proj = jnp.einsum("BSD,CKDH->CBSKH", x, w_kv)
        query_proj = apply_rope(query_proj, positions)
        query_scaled = query_proj * cfg.head_dim**-0.5
        key_proj = apply_rope(key_proj, positions)
        if cache is not None:
            end_index = cache.end_index[0]
            slice_indices = (0, end_index % cache.v.shape[1], 0, 0)
            value_proj = jax.lax.dynamic_update_slice(cache.v, value_proj, slice_indices)
            key_proj = jax.lax.dynamic_update_slice(cache.k, key_proj, slice_indices)
        repeats = cfg.num_heads // cfg.num_kv_heads
        key_rep = jnp.repeat(key_proj, repeats, axis=-2)
        value_rep = jnp.repeat(value_proj, repeats, axis=-2)
        logits = jnp.einsum("BTNH,BSNH->BTNS", query_scaled, key_rep)
        if cfg.attn_logits_soft_cap is not None:
            logits = jnp.tanh(logits / cfg.attn_logits_soft_cap)
            logits = logits * cfg.attn_logits_soft_cap
        padded_logits = jnp.where(jnp.expand_dims(mask, -2), logits, K_MASK)
        probs = jax.nn.softmax(padded_logits, axis=-1).astype(key_proj.dtype)
        encoded = jnp.einsum("BTNS,BSNH->BTNH", probs, value_rep)
        attn_output = jnp.einsum("BTNH,NHD->BTD", encoded, self.params["attn_vec_einsum"].astype(cfg.dtype))
        new_cache = None
        if cache is not None:
            new_cache = KVCache(k=key_proj, v=value_proj, end_index=cache.end_index + x.shape[1])
        return new_cache, attn_output


def init_cache(batch: int, length: int, config: AttentionConfig) -> KVCache:
    shape = (batch, length, config.num_kv_heads, config.head_dim)
    return KVCache(k=jnp.zeros(shape, dtype=config.dtype), v=jnp.zeros(shape, dtype=config.dtype),
                   end_index=jnp.zeros((batch,), dtype=jnp.int32))


def main() -> dict[str, Any]:
    config = AttentionConfig()
    rng = jax.random.PRNGKey(1)
    rng, init_rng, x_rng = jax.random.split(rng, 3)
    attn = Attention(init_rng, config)
    x = jax.random.normal(x_rng, (2, 4, config.width)).astype(jnp.bfloat16)
    positions = jnp.broadcast_to(jnp.arange(4, dtype=jnp.int32), (2, 4))
    mask = jnp.broadcast_to(causal_mask(4), (2, 4, 4))
    _, out = attn(x, positions, None, mask)
    cache = init_cache(2, 4, config)
    new_cache, out_cached = attn(x, positions, cache, mask)
    assert new_cache is not None
    end = new_cache.end_index
    q = x.reshape(2, 4, 2, 8)
    flax_out = dot_product_attention(q, q, q, make_attention_mask(jnp.ones((2, 4), bool), jnp.ones((2, 4), bool)))
    cos, sin = rotary_freqs(4, 8)
    rotated = rotate_half(q.astype(jnp.float32), cos[None, :, None, :4], sin[None, :, None, :4])
    return {"out": out, "cached": out_cached, "end": end, "flax": flax_out, "rot": rotated}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
