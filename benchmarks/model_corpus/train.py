"""Losses, metrics and a training step with jax.value_and_grad, jax.jit and
jax.vmap, as Flax's examples and Optax's tutorials write them (see norms.py
for the corpus as a whole)."""

import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jaxtypes import Array, bool_, float32, int32

PyTree = Any


class TrainState(NamedTuple):
    step: Array[int32]
    params: PyTree
    opt_state: PyTree


def cross_entropy_loss(logits: Array[float32], labels: Array[int32], num_classes: int) -> Array[float32]:
    one_hot = jax.nn.one_hot(labels, num_classes)
    log_probs = jax.nn.log_softmax(logits)
    loss = -jnp.sum(one_hot * log_probs, axis=-1)
    return loss.mean()


def softmax_cross_entropy_with_integer_labels(logits: Array[float32], labels: Array[int32]) -> Array[float32]:
    logits_max = jnp.max(logits, axis=-1, keepdims=True)
    logits = logits - jax.lax.stop_gradient(logits_max)
    label_logits = jnp.take_along_axis(logits, labels[..., None], axis=-1)[..., 0]
    log_normalizers = jnp.log(jnp.sum(jnp.exp(logits), axis=-1))
    return log_normalizers - label_logits


def weighted_cross_entropy(logits: Array[float32], targets: Array[int32], weights: Array[float32],
                           label_smoothing: float = 0.1) -> tuple[Array[float32], Array[float32]]:
    vocab_size = logits.shape[-1]
    confidence = 1.0 - label_smoothing
    low_confidence = (1.0 - confidence) / (vocab_size - 1)
    normalizing_constant = -(confidence * jnp.log(confidence)
                             + (vocab_size - 1) * low_confidence * jnp.log(low_confidence + 1e-20))
    soft_targets = jax.nn.one_hot(targets, vocab_size) * (confidence - low_confidence) + low_confidence
    loss = -jnp.sum(soft_targets * jax.nn.log_softmax(logits), axis=-1)
    loss = loss - normalizing_constant
    loss = loss * weights
    normalizing_factor = weights.sum()
    return loss.sum(), normalizing_factor


def compute_metrics(logits: Array[float32], labels: Array[int32]) -> dict[str, Array[Any]]:
    loss = cross_entropy_loss(logits, labels, logits.shape[-1])
    accuracy = jnp.mean(jnp.argmax(logits, -1) == labels)
    top5 = jax.lax.top_k(logits, 5)[1]
    top5_acc = jnp.mean(jnp.any(top5 == labels[:, None], axis=-1))
    return {"loss": loss, "accuracy": accuracy, "top5": top5_acc}


def init_mlp(key: Array[Any], sizes: list[int]) -> PyTree:
    keys = jax.random.split(key, len(sizes) - 1)
    return [{"w": jax.random.normal(k, (m, n)) * jnp.sqrt(2.0 / m), "b": jnp.zeros(n)}
            for k, m, n in zip(keys, sizes[:-1], sizes[1:])]


def apply_mlp(params: PyTree, x: Array[Any]) -> Array[Any]:  # float32, or bfloat16 under mixed precision
    for layer in params[:-1]:
        x = jax.nn.relu(x @ layer["w"] + layer["b"])
    last = params[-1]
    logits = x @ last["w"] + last["b"]
    return logits


def loss_fn(params: PyTree, images: Array[float32], labels: Array[int32]) -> tuple[Array[float32], Array[float32]]:
    logits = apply_mlp(params, images)
    loss = softmax_cross_entropy_with_integer_labels(logits, labels).mean()
    l2 = sum(jnp.sum(p["w"] ** 2) for p in params)
    return loss + 1e-4 * l2, logits


@functools.partial(jax.jit, donate_argnums=(0,))
def train_step(state: TrainState, images: Array[float32], labels: Array[int32]) -> tuple[TrainState, dict[str, Array[Any]]]:
    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
    (loss, logits), grads = grad_fn(state.params, images, labels)
    grads = jax.tree.map(lambda g: jnp.clip(g, -1.0, 1.0), grads)
    new_params = jax.tree.map(lambda p, g: p - 0.01 * g, state.params, grads)
    metrics = compute_metrics(logits, labels)
    metrics["train_loss"] = loss
    return TrainState(state.step + 1, new_params, state.opt_state), metrics


@jax.jit
def eval_step(params: PyTree, images: Array[float32], labels: Array[int32]) -> dict[str, Array[Any]]:
    logits = apply_mlp(params, images)
    return compute_metrics(logits, labels)


def per_example_grads(params: PyTree, images: Array[float32], labels: Array[int32]) -> PyTree:
    def single(p: PyTree, x: Array[float32], y: Array[int32]) -> Array[float32]:
        return loss_fn(p, x[None], y[None])[0]
    return jax.vmap(jax.grad(single), in_axes=(None, 0, 0))(params, images, labels)


def mixed_precision_loss(params: PyTree, images: Array[float32], labels: Array[int32],
                         loss_scale: float = 2.0**15) -> Array[float32]:
    half_params = jax.tree.map(lambda p: p.astype(jnp.bfloat16), params)
    x = images.astype(jnp.bfloat16)
    logits = apply_mlp(half_params, x)
    logits = logits.astype(jnp.float32)
    loss = softmax_cross_entropy_with_integer_labels(logits, labels).mean()
    scaled = loss * loss_scale
    return scaled


def all_finite(tree: PyTree) -> Array[bool_]:
    finite = [jnp.all(jnp.isfinite(x)) for x in jax.tree.leaves(tree)]
    return jnp.stack(finite).all()


def main() -> dict[str, Any]:
    rng = jax.random.PRNGKey(5)
    rng, init_rng, data_rng = jax.random.split(rng, 3)
    params = init_mlp(init_rng, [8, 16, 10])
    state = TrainState(jnp.array(0, jnp.int32), params, None)
    images = jax.random.normal(data_rng, (4, 8))
    labels = jnp.arange(4, dtype=jnp.int32)
    state, metrics = train_step(state, images, labels)
    eval_metrics = eval_step(state.params, images, labels)
    grads = per_example_grads(state.params, images, labels)
    grad_norms = jax.vmap(lambda g: jnp.linalg.norm(g))(grads[0]["w"])
    scaled = mixed_precision_loss(state.params, images, labels)
    grads_mp = jax.grad(mixed_precision_loss)(state.params, images, labels)
    finite = all_finite(grads_mp)
    loss_sum, weight_sum = weighted_cross_entropy(apply_mlp(state.params, images), labels, jnp.ones((4,)))
    mean_loss = loss_sum / weight_sum
    step = state.step
    return {"metrics": metrics, "eval": eval_metrics, "norms": grad_norms, "scaled": scaled,
            "finite": finite, "mean_loss": mean_loss, "step": step}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
