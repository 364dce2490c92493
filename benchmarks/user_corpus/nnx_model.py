"""An MLP classifier in Flax NNX with a training step, in the style of the
Flax NNX documentation: modules built from ``rngs``, a ``Config`` of
dtypes, ``nnx.Optimizer`` and ``nnx.value_and_grad``."""

import dataclasses

import jax
import jax.numpy as jnp
import optax
from flax import nnx


@dataclasses.dataclass
class MLPConfig:
    in_features: int = 16
    hidden: int = 32
    num_classes: int = 5
    dtype: jnp.dtype = jnp.float32
    param_dtype: jnp.dtype = jnp.float32


class MLP(nnx.Module):
    def __init__(self, cfg: MLPConfig, rngs: nnx.Rngs):
        self.cfg = cfg
        self.linear1 = nnx.Linear(cfg.in_features, cfg.hidden, dtype=cfg.dtype, param_dtype=cfg.param_dtype, rngs=rngs)
        self.norm = nnx.LayerNorm(cfg.hidden, dtype=cfg.dtype, param_dtype=cfg.param_dtype, rngs=rngs)
        self.dropout = nnx.Dropout(0.1, rngs=rngs)
        self.linear2 = nnx.Linear(cfg.hidden, cfg.num_classes, dtype=cfg.dtype, param_dtype=cfg.param_dtype, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        h = self.linear1(x)
        h = self.norm(h)
        h = nnx.relu(h)
        h = self.dropout(h)
        logits = self.linear2(h)
        return logits


class Embedder(nnx.Module):
    def __init__(self, vocab: int, features: int, *, rngs: nnx.Rngs):
        self.embedding = nnx.Embed(vocab, features, rngs=rngs)

    def encode(self, tokens: jax.Array) -> jax.Array:
        return self.embedding(tokens)

    def decode(self, x: jax.Array) -> jax.Array:
        return self.embedding.attend(x)


def loss_fn(model: MLP, x: jax.Array, labels: jax.Array) -> jax.Array:
    logits = model(x)
    losses = optax.softmax_cross_entropy_with_integer_labels(logits.astype(jnp.float32), labels)
    return losses.mean()


@nnx.jit
def train_step(model: MLP, optimizer: nnx.Optimizer, x: jax.Array, labels: jax.Array) -> jax.Array:
    loss, grads = nnx.value_and_grad(loss_fn)(model, x, labels)
    optimizer.update(model, grads)
    return loss


def evaluate(model: MLP, x: jax.Array, labels: jax.Array) -> dict[str, jax.Array]:
    model.eval()
    logits = model(x)
    predictions = jnp.argmax(logits, axis=-1)
    accuracy = jnp.mean(predictions == labels)
    loss = loss_fn(model, x, labels)
    model.train()
    return {"accuracy": accuracy, "loss": loss}


def main() -> jax.Array:
    key = jax.random.PRNGKey(0)
    kx, ky = jax.random.split(key)
    x = jax.random.normal(kx, (8, 16))
    labels = jax.random.randint(ky, (8,), 0, 5)
    total = jnp.zeros(())
    for dtype in (jnp.float32, jnp.bfloat16):
        cfg = MLPConfig(dtype=dtype)
        model = MLP(cfg, nnx.Rngs(0))
        optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
        loss = train_step(model, optimizer, x, labels)
        metrics = evaluate(model, x, labels)
        total = total + loss + metrics["accuracy"]
    embedder = Embedder(64, 16, rngs=nnx.Rngs(1))
    tokens = jnp.arange(6).reshape(2, 3)
    emb = embedder.encode(tokens)
    scores = embedder.decode(emb)
    total = total + scores.sum()
    return total
