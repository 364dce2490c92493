"""An Optax training loop as Flax's and Optax's documentation write it
("Flax: Managing training state", https://flax.readthedocs.io/en/latest/guides/training_techniques/,
Optax's "Gradient accumulation" and "Per-example gradients" examples,
https://optax.readthedocs.io/en/latest/): a ``TrainState`` subclass holding
an EMA of the parameters, a weight-decay mask made with ``jax.tree_util``,
warmup/cosine schedules, gradient clipping, microbatches accumulated by
``jax.lax.scan``, per-example gradient norms by ``jax.vmap``, a
``jax.jit``-ed evaluation and a bfloat16 forward pass with float32
parameters.  Shrunk to tiny sizes (see mnist.py)."""

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import optax
from flax import linen as nn
from flax import struct
from flax.training import train_state
from jax.typing import ArrayLike

PyTree = Any
Dtype = Any


@dataclasses.dataclass(frozen=True)
class Config:
    learning_rate: float = 1e-3
    warmup_steps: int = 2
    total_steps: int = 10
    weight_decay: float = 1e-4
    grad_clip_norm: float = 1.0
    ema_decay: float = 0.99
    num_microbatches: int = 2
    label_smoothing: float = 0.1
    dtype: Dtype = jnp.bfloat16
    param_dtype: Dtype = jnp.float32


class Classifier(nn.Module):
    """An MLP classifier with a half-precision computation dtype."""

    hidden: int = 16
    num_classes: int = 4
    dtype: Dtype = jnp.float32
    param_dtype: Dtype = jnp.float32

    @nn.compact
    def __call__(self, x: jax.Array, train: bool = True) -> jax.Array:
        x = nn.Dense(self.hidden, dtype=self.dtype, param_dtype=self.param_dtype)(x)
        x = nn.LayerNorm(dtype=self.dtype, param_dtype=self.param_dtype)(x)
        x = nn.gelu(x)
        x = nn.Dropout(0.1, deterministic=not train)(x)
        x = nn.Dense(self.num_classes, dtype=self.dtype, param_dtype=self.param_dtype)(x)
        return x


class TrainState(train_state.TrainState):
    ema_params: PyTree = None
    key: jax.Array | None = None


@struct.dataclass
class Metrics:
    loss: jax.Array
    accuracy: jax.Array
    grad_norm: jax.Array
    count: jax.Array

    def merge(self, other: "Metrics") -> "Metrics":
        return Metrics(
            loss=self.loss + other.loss,
            accuracy=self.accuracy + other.accuracy,
            grad_norm=jnp.maximum(self.grad_norm, other.grad_norm),
            count=self.count + other.count,
        )

    def compute(self) -> dict[str, jax.Array]:
        return {"loss": self.loss / self.count, "accuracy": self.accuracy / self.count, "grad_norm": self.grad_norm}


def decay_mask(params: PyTree) -> PyTree:
    """No weight decay on biases and norm scales (rank-1 parameters)."""
    return jax.tree_util.tree_map(lambda p: p.ndim > 1, params)


def make_schedule(config: Config) -> optax.Schedule:
    return optax.warmup_cosine_decay_schedule(
        init_value=0.0,
        peak_value=config.learning_rate,
        warmup_steps=config.warmup_steps,
        decay_steps=config.total_steps,
        end_value=config.learning_rate * 0.1,
    )


def make_optimizer(config: Config) -> optax.GradientTransformation:
    schedule = make_schedule(config)
    return optax.chain(
        optax.clip_by_global_norm(config.grad_clip_norm),
        optax.adamw(schedule, b1=0.9, b2=0.95, weight_decay=config.weight_decay, mask=decay_mask),
    )


def create_train_state(key: jax.Array, config: Config, input_dim: int) -> TrainState:
    model = Classifier(dtype=config.dtype, param_dtype=config.param_dtype)
    init_key, state_key = jax.random.split(key)
    params = model.init(init_key, jnp.ones((1, input_dim), config.param_dtype), train=False)["params"]
    tx = make_optimizer(config)
    return TrainState.create(apply_fn=model.apply, params=params, tx=tx, ema_params=params, key=state_key)


def smoothed_cross_entropy(logits: jax.Array, labels: jax.Array, smoothing: float) -> jax.Array:
    num_classes = logits.shape[-1]
    one_hot = jax.nn.one_hot(labels, num_classes)
    targets = optax.smooth_labels(one_hot, smoothing)
    logits = logits.astype(jnp.float32)
    losses = optax.softmax_cross_entropy(logits, targets)
    return losses


def loss_and_metrics(params: PyTree, state: TrainState, batch: dict[str, jax.Array], key: jax.Array, config: Config):
    logits = state.apply_fn({"params": params}, batch["x"], rngs={"dropout": key})
    losses = smoothed_cross_entropy(logits, batch["y"], config.label_smoothing)
    loss = losses.mean()
    correct = jnp.argmax(logits, -1) == batch["y"]
    accuracy = correct.astype(jnp.float32).sum()
    return loss, accuracy


def accumulate_gradients(state: TrainState, batch: dict[str, jax.Array], key: jax.Array, config: Config):
    """Gradients averaged over microbatches, scanned to keep one microbatch in memory."""
    grad_fn = jax.value_and_grad(loss_and_metrics, has_aux=True)
    micro = jax.tree.map(lambda x: x.reshape((config.num_microbatches, -1) + x.shape[1:]), batch)
    keys = jax.random.split(key, config.num_microbatches)

    def step(carry, inputs):
        grad_sum, loss_sum, acc_sum = carry
        microbatch, micro_key = inputs
        (loss, accuracy), grads = grad_fn(state.params, state, microbatch, micro_key, config)
        grad_sum = jax.tree.map(jnp.add, grad_sum, grads)
        return (grad_sum, loss_sum + loss, acc_sum + accuracy), None

    zeros = jax.tree.map(jnp.zeros_like, state.params)
    init = (zeros, jnp.zeros((), jnp.float32), jnp.zeros((), jnp.float32))
    (grad_sum, loss_sum, acc_sum), _ = jax.lax.scan(step, init, (micro, keys))
    grads = jax.tree.map(lambda g: g / config.num_microbatches, grad_sum)
    mean_loss = loss_sum / config.num_microbatches
    return grads, mean_loss, acc_sum


def ema_update(ema: PyTree, new: PyTree, decay: float) -> PyTree:
    return jax.tree.map(lambda e, p: decay * e + (1.0 - decay) * p, ema, new)


@functools.partial(jax.jit, static_argnames=("config",))
def train_step(state: TrainState, batch: dict[str, jax.Array], config: Config) -> tuple[TrainState, Metrics]:
    key, step_key = jax.random.split(state.key)
    grads, loss, accuracy = accumulate_gradients(state, batch, step_key, config)
    grad_norm = optax.tree.norm(grads)
    state = state.apply_gradients(grads=grads)
    ema_params = ema_update(state.ema_params, state.params, config.ema_decay)
    state = state.replace(ema_params=ema_params, key=key)
    count = jnp.array(batch["x"].shape[0], jnp.float32)
    metrics = Metrics(loss=loss * count, accuracy=accuracy, grad_norm=grad_norm, count=count)
    return state, metrics


@jax.jit
def eval_step(params: PyTree, apply_fn_inputs: jax.Array, labels: jax.Array) -> dict[str, jax.Array]:
    logits = Classifier(dtype=jnp.bfloat16).apply({"params": params}, apply_fn_inputs, train=False)
    predictions = jnp.argmax(logits, axis=-1)
    accuracy = jnp.mean(predictions == labels)
    log_probs = jax.nn.log_softmax(logits.astype(jnp.float32))
    nll = -jnp.take_along_axis(log_probs, labels[:, None], axis=-1).mean()
    return {"accuracy": accuracy, "nll": nll}


def per_example_grad_norms(state: TrainState, batch: dict[str, jax.Array], config: Config) -> jax.Array:
    """Per-example gradient norms, as differentially private training clips them."""

    def single_loss(params: PyTree, x: jax.Array, y: jax.Array) -> jax.Array:
        logits = state.apply_fn({"params": params}, x[None], train=False)
        return smoothed_cross_entropy(logits, y[None], config.label_smoothing).sum()

    per_example = jax.vmap(jax.grad(single_loss), in_axes=(None, 0, 0))(state.params, batch["x"], batch["y"])
    norms = jax.vmap(optax.tree.norm)(per_example)
    return norms


def clip_and_noise(grads: PyTree, key: jax.Array, clip: float, noise_multiplier: float) -> PyTree:
    norm = optax.tree.norm(grads)
    scale = jnp.minimum(1.0, clip / (norm + 1e-6))
    leaves, treedef = jax.tree_util.tree_flatten(grads)
    keys = jax.random.split(key, len(leaves))
    noised = [g * scale + noise_multiplier * clip * jax.random.normal(k, g.shape, g.dtype) for g, k in zip(leaves, keys)]
    return jax.tree_util.tree_unflatten(treedef, noised)


def synthetic_batch(key: jax.Array, batch_size: int, input_dim: int, num_classes: int) -> dict[str, jax.Array]:
    x_key, y_key = jax.random.split(key)
    x = jax.random.normal(x_key, (batch_size, input_dim))
    y = jax.random.randint(y_key, (batch_size,), 0, num_classes)
    return {"x": x, "y": y}


def learning_rates(config: Config, steps: ArrayLike) -> jax.Array:
    schedule = make_schedule(config)
    return jax.vmap(schedule)(jnp.asarray(steps))


def main() -> dict[str, Any]:
    config = Config()
    key = jax.random.PRNGKey(0)
    key, init_key, data_key = jax.random.split(key, 3)
    state = create_train_state(init_key, config, input_dim=6)
    batch = synthetic_batch(data_key, 8, 6, 4)
    state, metrics = train_step(state, batch, config)
    state, more = train_step(state, batch, config)
    metrics = metrics.merge(more)
    summary = metrics.compute()
    evaluated = eval_step(state.ema_params, batch["x"], batch["y"])
    norms = per_example_grad_norms(state, batch, config)
    grads = jax.grad(lambda p: loss_and_metrics(p, state, batch, key, config)[0])(state.params)
    noised = clip_and_noise(grads, key, clip=1.0, noise_multiplier=0.5)
    noised_norm = optax.tree.norm(noised)
    lrs = learning_rates(config, jnp.arange(config.total_steps))
    return {"summary": summary, "eval": evaluated, "norms": norms, "noised_norm": noised_norm, "lrs": lrs}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
