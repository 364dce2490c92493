"""Model code written as public Flax projects write it, for measuring what
the checkers and jaxtypes' stubs cost on it (``python -m benchmarks.reach
--corpus-dir benchmarks/flax_corpus``; docs/costs.md).

Unlike ``benchmarks/model_corpus/``, nothing here is written for jaxtypes:
no jaxtypes import, arrays annotated ``jax.Array`` (or not at all) as the
public code does, dtypes held in ``Dtype = Any`` module fields and config
dataclasses.  Each file follows one public source and has a ``main()``
that ``reach.py`` runs under ``jax.jit`` at tiny sizes:

- this file: the CNN and the training and evaluation steps of Flax's MNIST
  example ("examples/mnist/train.py",
  https://github.com/google/flax/blob/main/examples/mnist/train.py);
- ``resnet.py``: Flax's ImageNet ResNet with BatchNorm ("examples/imagenet/models.py");
- ``vit.py``: a Vision Transformer ("vit_jax/models_vit.py",
  https://github.com/google-research/vision_transformer);
- ``lm1b.py``: the LM1B/WMT decoder with a decoding cache ("examples/lm1b/models.py");
- ``gemma.py``: a Gemma-style decoder with RMSNorm, RoPE and grouped attention
  ("gemma/gm/nn", https://github.com/google-deepmind/gemma; Flax's examples/gemma);
- ``nnx_mlp.py``: Flax NNX's MLP and its training step ("Flax basics",
  https://flax.readthedocs.io/en/latest/nnx_basics.html);
- ``training.py``: an Optax training loop with ``TrainState``, learning-rate
  schedules, gradient accumulation by ``lax.scan`` and per-example ``vmap``.
"""

from typing import Any

import jax
import jax.numpy as jnp
import optax
from flax import linen as nn
from flax.training import train_state


class CNN(nn.Module):
    """A simple CNN model."""

    @nn.compact
    def __call__(self, x):
        x = nn.Conv(features=8, kernel_size=(3, 3))(x)
        x = nn.relu(x)
        x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
        x = nn.Conv(features=16, kernel_size=(3, 3))(x)
        x = nn.relu(x)
        x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
        x = x.reshape((x.shape[0], -1))  # flatten
        x = nn.Dense(features=32)(x)
        x = nn.relu(x)
        x = nn.Dense(features=10)(x)
        return x


class TypedCNN(nn.Module):
    """The same network as newer examples annotate it."""

    features: int = 8
    num_classes: int = 10
    dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, x: jax.Array, train: bool = False) -> jax.Array:
        x = nn.Conv(self.features, kernel_size=(3, 3), dtype=self.dtype)(x)
        x = nn.relu(x)
        x = nn.max_pool(x, window_shape=(2, 2), strides=(2, 2))
        x = nn.Conv(self.features * 2, kernel_size=(3, 3), dtype=self.dtype)(x)
        x = nn.relu(x)
        x = nn.max_pool(x, window_shape=(2, 2), strides=(2, 2))
        x = x.reshape((x.shape[0], -1))
        x = nn.Dropout(rate=0.25, deterministic=not train)(x)
        x = nn.Dense(32, dtype=self.dtype)(x)
        x = nn.relu(x)
        logits = nn.Dense(self.num_classes, dtype=self.dtype)(x)
        return logits


def apply_model(state: train_state.TrainState, images: jax.Array, labels: jax.Array):
    """Computes gradients, loss and accuracy for a single batch."""

    def loss_fn(params):
        logits = state.apply_fn({"params": params}, images)
        one_hot = jax.nn.one_hot(labels, 10)
        loss = jnp.mean(optax.softmax_cross_entropy(logits=logits, labels=one_hot))
        return loss, logits

    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
    (loss, logits), grads = grad_fn(state.params)
    accuracy = jnp.mean(jnp.argmax(logits, -1) == labels)
    return grads, loss, accuracy


def update_model(state: train_state.TrainState, grads: Any) -> train_state.TrainState:
    return state.apply_gradients(grads=grads)


def cross_entropy_loss(logits: jax.Array, labels: jax.Array) -> jax.Array:
    one_hot_labels = jax.nn.one_hot(labels, num_classes=10)
    xent = optax.softmax_cross_entropy(logits=logits, labels=one_hot_labels)
    return jnp.mean(xent)


def compute_metrics(logits: jax.Array, labels: jax.Array) -> dict[str, jax.Array]:
    loss = cross_entropy_loss(logits, labels)
    accuracy = jnp.mean(jnp.argmax(logits, -1) == labels)
    metrics = {"loss": loss, "accuracy": accuracy}
    return metrics


def train_epoch(state: train_state.TrainState, images: jax.Array, labels: jax.Array, batch_size: int):
    """Train for a single epoch (the batches in a fixed order: no host RNG under jit)."""
    steps_per_epoch = images.shape[0] // batch_size
    epoch_loss = []
    epoch_accuracy = []
    for i in range(steps_per_epoch):
        batch_images = images[i * batch_size : (i + 1) * batch_size]
        batch_labels = labels[i * batch_size : (i + 1) * batch_size]
        grads, loss, accuracy = apply_model(state, batch_images, batch_labels)
        state = update_model(state, grads)
        epoch_loss.append(loss)
        epoch_accuracy.append(accuracy)
    train_loss = jnp.mean(jnp.stack(epoch_loss))
    train_accuracy = jnp.mean(jnp.stack(epoch_accuracy))
    return state, train_loss, train_accuracy


def create_train_state(rng: jax.Array, learning_rate: float, momentum: float) -> train_state.TrainState:
    """Creates initial `TrainState`."""
    cnn = CNN()
    params = cnn.init(rng, jnp.ones([1, 8, 8, 1]))["params"]
    tx = optax.sgd(learning_rate, momentum)
    return train_state.TrainState.create(apply_fn=cnn.apply, params=params, tx=tx)


def eval_typed(rng: jax.Array, images: jax.Array, labels: jax.Array) -> dict[str, jax.Array]:
    model = TypedCNN(dtype=jnp.bfloat16)
    variables = model.init(rng, images)
    logits = model.apply(variables, images)
    logits32 = logits.astype(jnp.float32)
    dropout_rng = jax.random.fold_in(rng, 1)
    train_logits = model.apply(variables, images, train=True, rngs={"dropout": dropout_rng})
    metrics = compute_metrics(logits32, labels)
    metrics["train_max"] = jnp.max(train_logits)
    return metrics


def main() -> dict[str, Any]:
    rng = jax.random.PRNGKey(0)
    rng, init_rng = jax.random.split(rng)
    state = create_train_state(init_rng, learning_rate=0.1, momentum=0.9)
    images = jax.random.uniform(rng, (8, 8, 8, 1))
    labels = jnp.arange(8) % 10
    state, train_loss, train_accuracy = train_epoch(state, images, labels, batch_size=4)
    _, test_loss, test_accuracy = apply_model(state, images, labels)
    typed = eval_typed(rng, images, labels)
    return {"train_loss": train_loss, "train_accuracy": train_accuracy, "test_loss": test_loss,
            "test_accuracy": test_accuracy, "typed": typed}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
