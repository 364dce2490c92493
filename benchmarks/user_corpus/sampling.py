"""Decoding from the attention layer's cache: temperature and top-k
sampling, as inference scripts write them."""

import jax
import jax.numpy as jnp

import attention
from config import ModelConfig


def top_k_logits(logits: jax.Array, k: int) -> jax.Array:
    values, _ = jax.lax.top_k(logits, k)
    threshold = values[..., -1:]
    return jnp.where(logits < threshold, -jnp.inf, logits)


def sample_token(key: jax.Array, logits: jax.Array, temperature: float = 1.0, top_k: int = 0) -> jax.Array:
    logits = logits.astype(jnp.float32)
    if top_k > 0:
        logits = top_k_logits(logits, top_k)
    if temperature == 0.0:
        return jnp.argmax(logits, axis=-1)
    scaled = logits / temperature
    return jax.random.categorical(key, scaled, axis=-1)


def generate(
    key: jax.Array, params: attention.Params, embedding: jax.Array, prompt: jax.Array, steps: int, cfg: ModelConfig
) -> jax.Array:
    batch = prompt.shape[0]
    cache = attention.init_cache(batch, cfg)
    tokens = prompt
    last = prompt[:, -1]
    for _ in range(steps):
        x = embedding[last][:, None, :].astype(cfg.dtype)
        hidden, cache = attention.decode_step(params, cache, x, cfg)
        logits = hidden[:, 0] @ embedding.T.astype(hidden.dtype)
        key, sub = jax.random.split(key)
        last = sample_token(sub, logits, temperature=0.8, top_k=5)
        tokens = jnp.concatenate([tokens, last[:, None]], axis=1)
    return tokens


def log_likelihood(logits: jax.Array, tokens: jax.Array) -> jax.Array:
    log_probs = jax.nn.log_softmax(logits.astype(jnp.float32), axis=-1)
    picked = jnp.take_along_axis(log_probs, tokens[..., None], axis=-1)[..., 0]
    return picked.sum(axis=-1)


def main() -> jax.Array:
    cfg = ModelConfig(max_len=8)
    key = jax.random.PRNGKey(3)
    params = attention.init_attention_params(key, cfg)
    embedding = jax.random.normal(key, (cfg.vocab_size, cfg.d_model))
    prompt = jnp.array([[1, 2], [3, 4]], dtype=jnp.int32)
    tokens = generate(key, params, embedding, prompt, steps=3, cfg=cfg)
    logits = jax.random.normal(key, (2, 5, cfg.vocab_size))
    ll = log_likelihood(logits, tokens[:, :5])
    greedy = sample_token(key, logits[:, -1], temperature=0.0)
    return ll.sum() + greedy.sum() + tokens.sum()
