"""Flax NNX as its documentation writes it ("Flax basics",
https://flax.readthedocs.io/en/latest/nnx_basics.html, and "MNIST tutorial",
https://flax.readthedocs.io/en/latest/mnist_tutorial.html): modules holding
their layers as attributes, a custom ``nnx.Param`` layer, ``nnx.Rngs``, a
CNN with ``nnx.Conv`` and ``nnx.BatchNorm``, ``nnx.Optimizer`` updated by
``nnx.value_and_grad``, metrics by ``nnx.MultiMetric``, and an ensemble made
with ``nnx.vmap``.  Shrunk to tiny sizes (see mnist.py)."""

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import optax
from flax import nnx


class Linear(nnx.Module):
    """A linear layer written by hand (Flax basics)."""

    def __init__(self, din: int, dout: int, *, rngs: nnx.Rngs):
        key = rngs.params()
        self.w = nnx.Param(jax.random.uniform(key, (din, dout)))
        self.b = nnx.Param(jnp.zeros((dout,)))
        self.din, self.dout = din, dout

    def __call__(self, x: jax.Array) -> jax.Array:
        return x @ self.w + self.b


class Count(nnx.Variable):
    pass


class Counter(nnx.Module):
    def __init__(self):
        self.count = Count(jnp.array(0))

    def __call__(self):
        self.count[...] += 1


class MLP(nnx.Module):
    def __init__(self, din: int, dmid: int, dout: int, *, rngs: nnx.Rngs):
        self.linear1 = Linear(din, dmid, rngs=rngs)
        self.dropout = nnx.Dropout(rate=0.1, rngs=rngs)
        self.bn = nnx.BatchNorm(dmid, rngs=rngs)
        self.linear2 = Linear(dmid, dout, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        x = nnx.gelu(self.dropout(self.bn(self.linear1(x))))
        return self.linear2(x)


class CNN(nnx.Module):
    """A simple CNN model (the MNIST tutorial)."""

    def __init__(self, *, rngs: nnx.Rngs, dtype: Any = jnp.float32):
        self.conv1 = nnx.Conv(1, 8, kernel_size=(3, 3), dtype=dtype, rngs=rngs)
        self.batch_norm1 = nnx.BatchNorm(8, dtype=dtype, rngs=rngs)
        self.dropout1 = nnx.Dropout(rate=0.025, rngs=rngs)
        self.conv2 = nnx.Conv(8, 16, kernel_size=(3, 3), dtype=dtype, rngs=rngs)
        self.batch_norm2 = nnx.BatchNorm(16, dtype=dtype, rngs=rngs)
        self.avg_pool = partial(nnx.avg_pool, window_shape=(2, 2), strides=(2, 2))
        self.linear1 = nnx.Linear(16 * 2 * 2, 32, dtype=dtype, rngs=rngs)
        self.dropout2 = nnx.Dropout(rate=0.025, rngs=rngs)
        self.linear2 = nnx.Linear(32, 10, dtype=dtype, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        x = self.avg_pool(nnx.relu(self.batch_norm1(self.dropout1(self.conv1(x)))))
        x = self.avg_pool(nnx.relu(self.batch_norm2(self.conv2(x))))
        x = x.reshape(x.shape[0], -1)  # flatten
        x = nnx.relu(self.dropout2(self.linear1(x)))
        x = self.linear2(x)
        return x


class Block(nnx.Module):
    """A residual block with LayerNorm and an embedding input (Flax basics' transformer pieces)."""

    def __init__(self, vocab: int, features: int, *, rngs: nnx.Rngs, dtype: Any = jnp.float32, param_dtype: Any = jnp.float32):
        self.embed = nnx.Embed(vocab, features, dtype=dtype, param_dtype=param_dtype, rngs=rngs)
        self.norm = nnx.LayerNorm(features, dtype=dtype, param_dtype=param_dtype, rngs=rngs)
        self.rms = nnx.RMSNorm(features, dtype=dtype, param_dtype=param_dtype, rngs=rngs)
        self.up = nnx.Linear(features, 2 * features, dtype=dtype, param_dtype=param_dtype, rngs=rngs)
        self.down = nnx.Linear(2 * features, features, dtype=dtype, param_dtype=param_dtype, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=2, in_features=features, dtype=dtype, param_dtype=param_dtype, decode=False, rngs=rngs
        )

    def __call__(self, tokens: jax.Array) -> jax.Array:
        x = self.embed(tokens)
        h = self.norm(x)
        h = self.attn(h)
        x = x + h
        h = self.rms(x)
        h = self.down(nnx.silu(self.up(h)))
        x = x + h
        logits = self.embed.attend(x)
        return logits


def loss_fn(model: CNN, batch: dict[str, jax.Array]) -> tuple[jax.Array, jax.Array]:
    logits = model(batch["image"])
    loss = optax.softmax_cross_entropy_with_integer_labels(logits=logits, labels=batch["label"]).mean()
    return loss, logits


def train_step(model: CNN, optimizer: nnx.Optimizer, metrics: nnx.MultiMetric, batch: dict[str, jax.Array]) -> None:
    """Train for a single step."""
    grad_fn = nnx.value_and_grad(loss_fn, has_aux=True)
    (loss, logits), grads = grad_fn(model, batch)
    metrics.update(loss=loss, logits=logits, labels=batch["label"])  # In-place updates.
    optimizer.update(model, grads)  # In-place updates.


def eval_step(model: CNN, metrics: nnx.MultiMetric, batch: dict[str, jax.Array]) -> None:
    loss, logits = loss_fn(model, batch)
    metrics.update(loss=loss, logits=logits, labels=batch["label"])  # In-place updates.


def mlp_step(model: MLP, optimizer: nnx.Optimizer, x: jax.Array, y: jax.Array) -> jax.Array:
    def loss_fn(model: MLP) -> jax.Array:
        y_pred = model(x)
        return jnp.mean((y_pred - y) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


def ensemble(x: jax.Array) -> jax.Array:
    """Several MLPs made and applied with nnx.vmap."""

    @nnx.split_rngs(splits=3)
    @nnx.vmap(in_axes=(0,), out_axes=0)
    def create_model(rngs: nnx.Rngs) -> Linear:
        return Linear(4, 2, rngs=rngs)

    models = create_model(nnx.Rngs(0))

    @nnx.vmap(in_axes=(0, None), out_axes=0)
    def forward(model: Linear, x: jax.Array) -> jax.Array:
        return model(x)

    y = forward(models, x)
    return y


def main() -> dict[str, Any]:
    x = jnp.ones((3, 4))
    y = jnp.zeros((3, 2))
    model = MLP(4, 8, 2, rngs=nnx.Rngs(params=0, dropout=1))
    optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
    mlp_loss = mlp_step(model, optimizer, x, y)
    model.eval()
    y_eval = model(x)
    counter = Counter()
    counter()
    count = counter.count[...]

    cnn = CNN(rngs=nnx.Rngs(0))
    cnn_optimizer = nnx.Optimizer(cnn, optax.adamw(0.005, 0.9), wrt=nnx.Param)
    metrics = nnx.MultiMetric(accuracy=nnx.metrics.Accuracy(), loss=nnx.metrics.Average("loss"))
    images = jnp.ones((4, 8, 8, 1))
    labels = jnp.array([0, 1, 2, 3])
    batch = {"image": images, "label": labels}
    train_step(cnn, cnn_optimizer, metrics, batch)
    cnn.eval()
    eval_step(cnn, metrics, batch)
    computed = metrics.compute()

    block = Block(16, 8, rngs=nnx.Rngs(2), dtype=jnp.bfloat16)
    tokens = jnp.array([[1, 2, 3], [4, 5, 6]])
    block_logits = block(tokens)
    ensembled = ensemble(x)
    return {"mlp_loss": mlp_loss, "y_eval": y_eval, "count": count, "metrics": computed, "block": block_logits,
            "ensemble": ensembled}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
