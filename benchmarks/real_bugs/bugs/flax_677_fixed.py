"""The fix from the thread: the logits cast to float32 before ``log_softmax``
(https://github.com/google/flax/issues/677)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, bfloat16, float32, int32


def log_probs(logits: Array[bfloat16]) -> Array[float32]:
    return jax.nn.log_softmax(logits.astype(jnp.float32))


def cross_entropy_loss(logits: Array[bfloat16], labels: Array[int32]) -> Array[float32]:
    one_hot_labels = jax.nn.one_hot(labels, logits.shape[-1])
    return -jnp.sum(one_hot_labels * log_probs(logits)) / labels.size


def main() -> Array[float32]:
    logits = jnp.zeros((8, 10), dtype=jnp.bfloat16)
    cross_entropy_loss(logits, jnp.arange(8, dtype=jnp.int32))
    return log_probs(logits)
