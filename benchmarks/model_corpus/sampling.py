"""Autoregressive sampling: temperature, top-k and nucleus filtering, beam
scores and a decode loop, as Gemma's sampler and Flax's WMT example write them
(see norms.py for the corpus as a whole)."""

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jaxtypes import Array, bool_, float32, int32

NEG_INF = -1.0e7


class SamplingState(NamedTuple):
    decoding_step: Array[int32]
    token_buffer: Array[int32]
    logits_buffer: Array[float32]
    done: Array[bool_]
    rng: Array[Any]


def sample_top_p(rng: Array[Any], logits: Array[float32], temperature: float, top_p: float) -> Array[Any]:
    probs = jax.nn.softmax(logits / temperature, axis=-1)
    probs_sorted, indices = jax.lax.top_k(probs, k=probs.shape[-1])
    cumsum_probs = jnp.cumsum(probs_sorted, axis=-1)
    mask = cumsum_probs - probs_sorted > top_p
    probs_sorted = jnp.where(mask, 0.0, probs_sorted)
    probs_sorted /= jnp.sum(probs_sorted, axis=-1, keepdims=True)
    next_token = jax.random.categorical(rng, logits=jnp.log(probs_sorted))
    next_token = jnp.take_along_axis(indices, next_token[..., None], axis=-1)
    return jnp.squeeze(next_token, axis=-1)


def sample_top_k(rng: Array[Any], logits: Array[float32], k: int) -> Array[Any]:
    topk_logits, topk_indices = jax.lax.top_k(logits, k)
    choice = jax.random.categorical(rng, topk_logits)
    return jnp.take_along_axis(topk_indices, choice[:, None], axis=-1)[:, 0]


def temperature_sample(rng: Array[Any], logits: Array[float32], temperature: float = 1.0) -> Array[Any]:
    if temperature == 0.0:
        return jnp.argmax(logits, axis=-1)
    scaled = logits / jnp.maximum(temperature, 1e-6)
    gumbel = jax.random.gumbel(rng, scaled.shape, dtype=scaled.dtype)
    return jnp.argmax(scaled + gumbel, axis=-1)


def apply_repetition_penalty(logits: Array[float32], previous: Array[int32], penalty: float) -> Array[float32]:
    seen = jnp.zeros_like(logits, dtype=jnp.bool_)
    seen = jax.vmap(lambda s, p: s.at[p].set(True))(seen, previous)
    penalised = jnp.where(logits > 0, logits / penalty, logits * penalty)
    return jnp.where(seen, penalised, logits)


def brevity_penalty(alpha: float, length: int) -> Array[float32]:
    return jnp.power(((5.0 + length) / 6.0), alpha)


def beam_scores(log_probs: Array[float32], alive_scores: Array[float32], step: int,
                alpha: float = 0.6) -> tuple[Array[float32], Array[int32]]:
    candidate = alive_scores[..., None] + log_probs
    flat = candidate.reshape(candidate.shape[0], -1)
    penalised = flat / brevity_penalty(alpha, step + 1)
    top_scores, top_ids = jax.lax.top_k(penalised, k=alive_scores.shape[-1])
    return top_scores, top_ids.astype(jnp.int32)


def decode_loop(rng: Array[Any], embedding: Array[float32], prompt: Array[int32], steps: int) -> SamplingState:
    batch, prompt_len = prompt.shape
    vocab = embedding.shape[0]
    token_buffer = jnp.zeros((batch, prompt_len + steps), dtype=jnp.int32)
    token_buffer = token_buffer.at[:, :prompt_len].set(prompt)
    logits_buffer = jnp.zeros((batch, steps, vocab), dtype=jnp.float32)
    state = SamplingState(jnp.array(prompt_len, jnp.int32), token_buffer, logits_buffer,
                          jnp.zeros((batch,), jnp.bool_), rng)

    def cond(s: SamplingState) -> Array[bool_]:
        return (s.decoding_step < prompt_len + steps) & ~jnp.all(s.done)

    def body(s: SamplingState) -> SamplingState:
        last = jax.lax.dynamic_slice_in_dim(s.token_buffer, s.decoding_step - 1, 1, axis=1)[:, 0]
        hidden = embedding[last]
        logits = hidden @ embedding.T
        rng, step_rng = jax.random.split(s.rng)
        next_token = temperature_sample(step_rng, logits, 0.7)
        next_token = jnp.where(s.done, 0, next_token)
        buffer = jax.lax.dynamic_update_slice_in_dim(s.token_buffer, next_token[:, None].astype(jnp.int32),
                                                     s.decoding_step, axis=1)
        logits_buffer = jax.lax.dynamic_update_index_in_dim(s.logits_buffer, logits,
                                                            s.decoding_step - prompt_len, axis=1)
        done = s.done | (next_token == 1)
        return SamplingState(s.decoding_step + 1, buffer, logits_buffer, done, rng)

    return jax.lax.while_loop(cond, body, state)


def log_likelihood(logits: Array[float32], tokens: Array[int32]) -> Array[float32]:
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    token_log_probs = jnp.take_along_axis(log_probs, tokens[..., None], axis=-1).squeeze(-1)
    total = jnp.sum(token_log_probs, axis=-1)
    return total


def main() -> dict[str, Any]:
    rng = jax.random.PRNGKey(7)
    rng, k1, k2, k3, k4 = jax.random.split(rng, 5)
    vocab = 12
    logits = jax.random.normal(k1, (2, vocab))
    top_p = sample_top_p(k2, logits, 0.8, 0.9)
    top_k = sample_top_k(k3, logits, 4)
    greedy = temperature_sample(k4, logits, 0.0)
    previous = jnp.array([[1, 2], [3, 4]], dtype=jnp.int32)
    penalised = apply_repetition_penalty(logits, previous, 1.2)
    log_probs = jax.nn.log_softmax(penalised)
    scores, ids = beam_scores(log_probs[:, None, :], jnp.zeros((2, 3)), 1)
    embedding = jax.random.normal(rng, (vocab, 4))
    prompt = jnp.array([[2, 3], [4, 5]], dtype=jnp.int32)
    final = decode_loop(rng, embedding, prompt, 3)
    tokens = final.token_buffer
    ll = log_likelihood(final.logits_buffer, tokens[:, 2:])
    return {"top_p": top_p, "top_k": top_k, "greedy": greedy, "scores": scores, "ids": ids, "ll": ll}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
