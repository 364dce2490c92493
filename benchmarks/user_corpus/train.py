"""Training the Linen transformer: a ``TrainState`` with a dynamic loss
scale for bfloat16, metrics, a jitted train step and an eval step, as the
Flax examples (lm1b, wmt) structure them."""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import optax
from flax import struct
from flax.training import train_state

import ops
from config import ModelConfig, TrainConfig, bfloat16_config, float32_config
from linen_model import Transformer
from optim import warmup_cosine


class TrainState(train_state.TrainState):
    loss_scale: jax.Array


@struct.dataclass
class Metrics:
    loss: jax.Array
    accuracy: jax.Array
    count: jax.Array

    def merge(self, other: Metrics) -> Metrics:
        return Metrics(self.loss + other.loss, self.accuracy + other.accuracy, self.count + other.count)

    def compute(self) -> dict[str, jax.Array]:
        denom = jnp.maximum(self.count, 1).astype(jnp.float32)
        return {"loss": self.loss / denom, "accuracy": self.accuracy / denom}


@struct.dataclass
class Batch:
    inputs: jax.Array
    targets: jax.Array
    weights: jax.Array


def make_batch(key: jax.Array, tcfg: TrainConfig, vocab: int) -> Batch:
    tokens = jax.random.randint(key, (tcfg.batch_size, tcfg.seq_len + 1), 1, vocab)
    inputs = tokens[:, :-1]
    targets = tokens[:, 1:]
    weights = jnp.where(targets > 0, 1.0, 0.0)
    return Batch(inputs, targets, weights)


def create_state(key: jax.Array, cfg: ModelConfig, tcfg: TrainConfig) -> TrainState:
    model = Transformer(cfg)
    variables = model.init(key, jnp.ones((1, tcfg.seq_len), jnp.int32))
    schedule = functools.partial(
        warmup_cosine, peak_value=tcfg.learning_rate, warmup_steps=tcfg.warmup_steps, total_steps=tcfg.total_steps
    )
    tx = optax.chain(
        optax.clip_by_global_norm(tcfg.max_grad_norm), optax.adamw(schedule, weight_decay=tcfg.weight_decay)
    )
    initial_scale = 2.0**15 if cfg.dtype == jnp.bfloat16 else 1.0
    return TrainState.create(
        apply_fn=model.apply, params=variables["params"], tx=tx, loss_scale=jnp.asarray(initial_scale, jnp.float32)
    )


def compute_metrics(logits: jax.Array, batch: Batch, label_smoothing: float) -> Metrics:
    losses = ops.cross_entropy_loss(logits, batch.targets, label_smoothing)
    loss = jnp.sum(losses * batch.weights)
    correct = (jnp.argmax(logits, -1) == batch.targets).astype(jnp.float32)
    accuracy = jnp.sum(correct * batch.weights)
    count = jnp.sum(batch.weights)
    return Metrics(loss=loss, accuracy=accuracy, count=count)


def train_step(state: TrainState, batch: Batch, tcfg: TrainConfig) -> tuple[TrainState, Metrics]:
    def loss_fn(params: Any) -> tuple[jax.Array, jax.Array]:
        logits = state.apply_fn({"params": params}, batch.inputs)
        losses = ops.cross_entropy_loss(logits, batch.targets, tcfg.label_smoothing)
        mean_loss = jnp.sum(losses * batch.weights) / jnp.maximum(jnp.sum(batch.weights), 1.0)
        return mean_loss * state.loss_scale, logits

    (scaled_loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
    grads = jax.tree_util.tree_map(lambda g: g / state.loss_scale, grads)
    finite = jnp.all(jnp.array([jnp.all(jnp.isfinite(g)) for g in jax.tree_util.tree_leaves(grads)]))
    new_state = state.apply_gradients(grads=grads)
    new_scale = jnp.where(finite, state.loss_scale, state.loss_scale / 2)
    new_state = new_state.replace(loss_scale=new_scale)
    metrics = compute_metrics(logits, batch, tcfg.label_smoothing)
    return new_state, metrics


def eval_step(state: TrainState, batch: Batch) -> Metrics:
    logits = state.apply_fn({"params": state.params}, batch.inputs)
    return compute_metrics(logits, batch, 0.0)


def train(cfg: ModelConfig, tcfg: TrainConfig, steps: int) -> dict[str, jax.Array]:
    key = jax.random.PRNGKey(0)
    state = create_state(key, cfg, tcfg)
    step_fn = jax.jit(functools.partial(train_step, tcfg=tcfg))
    metrics = Metrics(jnp.zeros(()), jnp.zeros(()), jnp.zeros(()))
    for i in range(steps):
        batch = make_batch(jax.random.fold_in(key, i), tcfg, cfg.vocab_size)
        state, step_metrics = step_fn(state, batch)
        metrics = metrics.merge(step_metrics)
    eval_metrics = eval_step(state, make_batch(key, tcfg, cfg.vocab_size))
    summary = metrics.compute()
    summary["eval_loss"] = eval_metrics.compute()["loss"]
    return summary


def main() -> jax.Array:
    tcfg = TrainConfig()
    f32 = train(float32_config(), tcfg, steps=2)
    bf16 = train(bfloat16_config(), tcfg, steps=2)
    return f32["loss"] + bf16["loss"] + f32["eval_loss"]
