"""Sampling from a language model's logits: temperature, top-k, nucleus, greedy."""

import jax
import jax.numpy as jnp
from jaxtypes import Array, float32, int32, uint32


def sample_temperature(key: Array[uint32], logits: Array[float32], temperature: float) -> Array[int32]:
    scaled = logits / temperature
    tokens = jax.random.categorical(key, scaled, axis=-1)
    return tokens


def sample_top_k(key: Array[uint32], logits: Array[float32], k: int) -> Array[int32]:
    top_values, top_indices = jax.lax.top_k(logits, k)
    choice = jax.random.categorical(key, top_values, axis=-1)
    tokens = jnp.take_along_axis(top_indices, choice[..., None], axis=-1)
    return tokens[..., 0]


def top_p_mask(logits: Array[float32], top_p: float) -> Array[float32]:
    sorted_logits = jnp.sort(logits, axis=-1)[..., ::-1]
    probs = jax.nn.softmax(sorted_logits, axis=-1)
    cumulative = jnp.cumsum(probs, axis=-1)
    cutoff_index = jnp.sum(cumulative < top_p, axis=-1, keepdims=True)
    cutoff = jnp.take_along_axis(sorted_logits, cutoff_index, axis=-1)
    filtered = jnp.where(logits < cutoff, -jnp.inf, logits)
    return filtered


def greedy(logits: Array[float32]) -> Array[int32]:
    tokens = jnp.argmax(logits, axis=-1)
    return tokens


def gumbel_sample(key: Array[uint32], logits: Array[float32]) -> Array[int32]:
    uniform = jax.random.uniform(key, logits.shape, minval=1e-6, maxval=1.0)
    gumbel = -jnp.log(-jnp.log(uniform))
    tokens = jnp.argmax(logits + gumbel, axis=-1)
    return tokens


def token_log_prob(logits: Array[float32], tokens: Array[int32]) -> Array[float32]:
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    chosen = jnp.take_along_axis(log_probs, tokens[:, None], axis=-1)
    return chosen[:, 0]


def main() -> dict[str, jax.Array]:
    key = jax.random.PRNGKey(4)
    k_logits, k_temp, k_top, k_gumbel, k_perm = jax.random.split(key, 5)
    logits = jax.random.normal(k_logits, (3, 20), jnp.float32) * 2.0
    temp_tokens = sample_temperature(k_temp, logits, 0.7)
    top_tokens = sample_top_k(k_top, logits, 5)
    nucleus = top_p_mask(logits, 0.9)
    greedy_tokens = greedy(logits)
    gumbel_tokens = gumbel_sample(k_gumbel, nucleus)
    log_p = token_log_prob(logits, temp_tokens)
    order = jax.random.permutation(k_perm, 20)
    noise = jax.random.normal(k_perm, (3,), dtype=jnp.float32)
    return {"temp": temp_tokens, "top": top_tokens, "greedy": greedy_tokens,
            "gumbel": gumbel_tokens, "log_p": log_p, "order": order, "noise": noise}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
