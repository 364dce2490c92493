# mypy: disable-error-code="import-untyped"
# (Optax ships no py.typed marker: mypy reads it as untyped, as in a project using it.)
"""``optax.softmax_cross_entropy_with_integer_labels`` of bfloat16 logits is a
bfloat16 loss, quantized to a few values (4.75, 5, 4.59375 ...)
(https://github.com/google-deepmind/optax/issues/1020)."""

import jax
import jax.numpy as jnp
import optax

from jaxtypes import Array, bfloat16, float32, int32


def loss(logits: Array[bfloat16], labels: Array[int32]) -> Array[float32]:
    losses: Array[float32] = optax.softmax_cross_entropy_with_integer_labels(logits, labels)  # bug: bfloat16
    return losses


def main() -> Array[float32]:
    key = jax.random.key(42)
    logits = jax.random.uniform(key, (8, 100), jnp.bfloat16)
    labels = jax.random.randint(key, (8,), 0, 100)
    return loss(logits, labels)
