"""Multi-head attention with a key/value cache for decoding, written as
functions over a dict of parameters and a dict cache (the style of
hand-written inference code: parameters and caches are plain dicts of
``jax.Array``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

import ops
from config import ModelConfig

Params = dict[str, jax.Array]
Cache = dict[str, jax.Array]


def init_attention_params(key: jax.Array, cfg: ModelConfig) -> Params:
    kq, kk, kv, ko = jax.random.split(key, 4)
    std = cfg.d_model**-0.5
    shape = (cfg.d_model, cfg.num_heads, cfg.head_dim)
    params = {
        "wq": jax.random.normal(kq, shape, cfg.param_dtype) * std,
        "wk": jax.random.normal(kk, shape, cfg.param_dtype) * std,
        "wv": jax.random.normal(kv, shape, cfg.param_dtype) * std,
        "wo": jax.random.normal(ko, (cfg.num_heads, cfg.head_dim, cfg.d_model), cfg.param_dtype) * std,
    }
    return params


def init_cache(batch: int, cfg: ModelConfig) -> Cache:
    shape = (batch, cfg.max_len, cfg.num_heads, cfg.head_dim)
    return {"k": jnp.zeros(shape, cfg.dtype), "v": jnp.zeros(shape, cfg.dtype), "index": jnp.array(0, dtype=jnp.int32)}


def project(x: jax.Array, w: jax.Array) -> jax.Array:
    w = w.astype(x.dtype)
    return jnp.einsum("btd,dhk->bthk", x, w)


def dot_product_attention(q: jax.Array, k: jax.Array, v: jax.Array, mask: jax.Array | None = None) -> jax.Array:
    depth = q.shape[-1]
    q = q / jnp.sqrt(depth).astype(q.dtype)
    logits = jnp.einsum("bqhd,bkhd->bhqk", q, k)
    logits = logits.astype(jnp.float32)
    if mask is not None:
        big_neg = jnp.finfo(jnp.float32).min
        logits = jnp.where(mask, logits, big_neg)
    weights = jax.nn.softmax(logits, axis=-1)
    weights = weights.astype(v.dtype)
    out = jnp.einsum("bhqk,bkhd->bqhd", weights, v)
    return out


def self_attention(params: Params, x: jax.Array, mask: jax.Array) -> jax.Array:
    q = project(x, params["wq"])
    k = project(x, params["wk"])
    v = project(x, params["wv"])
    attended = dot_product_attention(q, k, v, mask)
    wo = params["wo"].astype(x.dtype)
    out = jnp.einsum("bthk,hkd->btd", attended, wo)
    return out


def update_cache(cache: Cache, k: jax.Array, v: jax.Array) -> Cache:
    index = cache["index"]
    zero = jnp.zeros((), jnp.int32)
    new_k = jax.lax.dynamic_update_slice(cache["k"], k, (zero, index, zero, zero))
    new_v = jax.lax.dynamic_update_slice(cache["v"], v, (zero, index, zero, zero))
    return {"k": new_k, "v": new_v, "index": index + k.shape[1]}


def decode_step(params: Params, cache: Cache, x: jax.Array, cfg: ModelConfig) -> tuple[jax.Array, Cache]:
    q = project(x, params["wq"])
    k = project(x, params["wk"])
    v = project(x, params["wv"])
    cache = update_cache(cache, k, v)
    positions = jnp.arange(cfg.max_len)
    visible = positions[None, None, None, :] < cache["index"]
    attended = dot_product_attention(q, cache["k"], cache["v"], visible)
    wo = params["wo"].astype(x.dtype)
    out = jnp.einsum("bthk,hkd->btd", attended, wo)
    return out, cache


def main() -> jax.Array:
    cfg = ModelConfig(max_len=8)
    key = jax.random.PRNGKey(1)
    params = init_attention_params(key, cfg)
    x = jax.random.normal(key, (2, 8, cfg.d_model), cfg.dtype)
    mask = ops.causal_mask(8)[None, None]
    full = self_attention(params, x, mask)
    cache = init_cache(2, cfg)
    step_out = jnp.zeros((2, 1, cfg.d_model), jnp.float32)
    for t in range(3):
        step_out, cache = decode_step(params, cache, x[:, t : t + 1], cfg)
    index = cache["index"]
    diff = jnp.abs(step_out - full[:, 2:3]).max()
    return diff + index
