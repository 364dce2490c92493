"""Equinox layers as its public examples use them: the MNIST CNN of
"Convolutional Neural Network on MNIST" (a list of layers applied in turn),
the MLP of the front page and the BERT example's blocks (layers as annotated
fields of an ``eqx.Module``, called through ``jax.vmap``), a mixed-precision
block whose parameters are bfloat16, and a model made in the training script
and mapped over a batch (see norms.py for the corpus as a whole)."""

from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtypes import Array, bfloat16, float32, int32


class CNN(eqx.Module):
    """https://docs.kidger.site/equinox/examples/mnist/"""

    layers: list[Any]

    def __init__(self, key: Array[Any]) -> None:
        key1, key2, key3 = jax.random.split(key, 3)
        self.layers = [
            eqx.nn.Conv2d(1, 3, kernel_size=4, key=key1),
            eqx.nn.MaxPool2d(kernel_size=2),
            jax.nn.relu,
            jnp.ravel,
            eqx.nn.Linear(48, 16, key=key2),
            jax.nn.sigmoid,
            eqx.nn.Linear(16, 10, key=key3),
            jax.nn.log_softmax,
        ]

    def __call__(self, x: Array[float32]) -> Array[float32]:
        for layer in self.layers:
            x = layer(x)
        return x


class FeedForward(eqx.Module):
    """The BERT example's feed-forward block: layers as annotated fields."""

    mlp: eqx.nn.Linear
    output: eqx.nn.Linear
    layernorm: eqx.nn.LayerNorm
    dropout: eqx.nn.Dropout

    def __init__(self, hidden_size: int, intermediate_size: int, key: Array[Any]) -> None:
        mlp_key, output_key = jax.random.split(key)
        self.mlp = eqx.nn.Linear(hidden_size, intermediate_size, key=mlp_key)
        self.output = eqx.nn.Linear(intermediate_size, hidden_size, key=output_key)
        self.layernorm = eqx.nn.LayerNorm(shape=hidden_size)
        self.dropout = eqx.nn.Dropout(0.1, inference=True)

    def __call__(self, inputs: Array[float32]) -> Array[float32]:
        hidden = self.mlp(inputs)
        hidden = jax.nn.gelu(hidden)
        output = self.output(hidden)
        output = self.dropout(output)
        output = output + inputs
        normed = self.layernorm(output)
        return normed


class Embedder(eqx.Module):
    """The BERT example's embedder: token and position tables, mapped over the sequence."""

    token_embedder: eqx.nn.Embedding
    position_embedder: eqx.nn.Embedding
    layernorm: eqx.nn.LayerNorm

    def __init__(self, vocab_size: int, max_length: int, embedding_size: int, key: Array[Any]) -> None:
        token_key, position_key = jax.random.split(key)
        self.token_embedder = eqx.nn.Embedding(vocab_size, embedding_size, key=token_key)
        self.position_embedder = eqx.nn.Embedding(max_length, embedding_size, key=position_key)
        self.layernorm = eqx.nn.LayerNorm(shape=embedding_size)

    def __call__(self, token_ids: Array[int32]) -> Array[float32]:
        tokens = jax.vmap(self.token_embedder)(token_ids)
        positions = jax.vmap(self.position_embedder)(jnp.arange(token_ids.shape[-1]))
        embedded = tokens + positions
        normed = jax.vmap(self.layernorm)(embedded)
        return normed


class HalfBlock(eqx.Module):
    """A block whose parameters are bfloat16 (Equinox's ``dtype=``)."""

    up: eqx.nn.Linear
    down: eqx.nn.Linear
    norm: eqx.nn.RMSNorm

    def __init__(self, size: int, key: Array[Any]) -> None:
        up_key, down_key = jax.random.split(key)
        self.up = eqx.nn.Linear(size, 2 * size, dtype=jnp.bfloat16, key=up_key)
        self.down = eqx.nn.Linear(2 * size, size, dtype=jnp.bfloat16, key=down_key)
        self.norm = eqx.nn.RMSNorm(size, dtype=jnp.bfloat16)

    def __call__(self, x: Array[bfloat16]) -> Array[bfloat16]:
        h = jax.vmap(self.up)(x)
        h = jax.nn.silu(h)
        out = jax.vmap(self.down)(h)
        normed = jax.vmap(self.norm)(out)
        return normed


def make_and_apply(key: Array[Any], xs: Array[float32]) -> Array[float32]:
    """The front page's MLP, made and mapped over a batch in the training script."""
    model = eqx.nn.MLP(in_size=8, out_size=4, width_size=16, depth=2, key=key)
    ys = jax.vmap(model)(xs)
    conv = eqx.nn.Conv1d(8, 4, kernel_size=3, padding=1, key=key)
    seq = conv(xs.T)
    pooled = seq.mean(axis=-1)
    return ys + pooled


def main() -> dict[str, Any]:
    key = jax.random.PRNGKey(0)
    images = jnp.ones((1, 8, 8), jnp.float32)
    cnn_out = CNN(key)(images)
    ff = FeedForward(8, 16, key)
    ff_out = jax.vmap(ff)(jnp.ones((4, 8), jnp.float32))
    embedder = Embedder(32, 16, 8, key)
    embedded = embedder(jnp.arange(4, dtype=jnp.int32))
    half = HalfBlock(8, key)
    half_out = half(jnp.ones((4, 8), jnp.bfloat16))
    mlp_out = make_and_apply(key, jnp.ones((4, 8), jnp.float32))
    return {"cnn": cnn_out, "ff": ff_out, "embedded": embedded, "half": half_out, "mlp": mlp_out}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, main()))
