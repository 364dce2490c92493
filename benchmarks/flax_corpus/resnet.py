"""Flax's ImageNet ResNet ("examples/imagenet/models.py" and "train.py",
https://github.com/google/flax/blob/main/examples/imagenet/models.py):
modules built with ``functools.partial``, BatchNorm statistics as a mutable
collection, a half-precision ``dtype`` field, a training step with weight
decay and a dynamic loss scale.  Shrunk to tiny sizes (see mnist.py)."""

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import optax
from flax import linen as nn
from flax.training import dynamic_scale as dynamic_scale_lib
from flax.training import train_state

ModuleDef = Any


class ResNetBlock(nn.Module):
    """ResNet block."""

    filters: int
    conv: ModuleDef
    norm: ModuleDef
    act: Callable
    strides: tuple[int, int] = (1, 1)

    @nn.compact
    def __call__(self, x):
        residual = x
        y = self.conv(self.filters, (3, 3), self.strides)(x)
        y = self.norm()(y)
        y = self.act(y)
        y = self.conv(self.filters, (3, 3))(y)
        y = self.norm(scale_init=nn.initializers.zeros_init())(y)

        if residual.shape != y.shape:
            residual = self.conv(self.filters, (1, 1), self.strides, name="conv_proj")(residual)
            residual = self.norm(name="norm_proj")(residual)

        return self.act(residual + y)


class BottleneckResNetBlock(nn.Module):
    """Bottleneck ResNet block."""

    filters: int
    conv: ModuleDef
    norm: ModuleDef
    act: Callable
    strides: tuple[int, int] = (1, 1)

    @nn.compact
    def __call__(self, x):
        residual = x
        y = self.conv(self.filters, (1, 1))(x)
        y = self.norm()(y)
        y = self.act(y)
        y = self.conv(self.filters, (3, 3), self.strides)(y)
        y = self.norm()(y)
        y = self.act(y)
        y = self.conv(self.filters * 4, (1, 1))(y)
        y = self.norm(scale_init=nn.initializers.zeros_init())(y)

        if residual.shape != y.shape:
            residual = self.conv(self.filters * 4, (1, 1), self.strides, name="conv_proj")(residual)
            residual = self.norm(name="norm_proj")(residual)

        return self.act(residual + y)


class ResNet(nn.Module):
    """ResNetV1.5."""

    stage_sizes: Sequence[int]
    block_cls: ModuleDef
    num_classes: int
    num_filters: int = 64
    dtype: Any = jnp.float32
    act: Callable = nn.relu
    conv: ModuleDef = nn.Conv

    @nn.compact
    def __call__(self, x, train: bool = True):
        conv = partial(self.conv, use_bias=False, dtype=self.dtype)
        norm = partial(
            nn.BatchNorm,
            use_running_average=not train,
            momentum=0.9,
            epsilon=1e-5,
            dtype=self.dtype,
            axis_name=None,
        )

        x = conv(self.num_filters, (7, 7), (2, 2), padding=[(3, 3), (3, 3)], name="conv_init")(x)
        x = norm(name="bn_init")(x)
        x = nn.relu(x)
        x = nn.max_pool(x, (3, 3), strides=(2, 2), padding="SAME")
        for i, block_size in enumerate(self.stage_sizes):
            for j in range(block_size):
                strides = (2, 2) if i > 0 and j == 0 else (1, 1)
                x = self.block_cls(
                    self.num_filters * 2**i, strides=strides, conv=conv, norm=norm, act=self.act
                )(x)
        x = jnp.mean(x, axis=(1, 2))
        x = nn.Dense(self.num_classes, dtype=self.dtype)(x)
        x = jnp.asarray(x, self.dtype)
        return x


ResNet18 = partial(ResNet, stage_sizes=[2, 2, 2, 2], block_cls=ResNetBlock)
ResNet50 = partial(ResNet, stage_sizes=[3, 4, 6, 3], block_cls=BottleneckResNetBlock)
# Tiny versions for the driver.
ResNetTiny = partial(ResNet, stage_sizes=[1, 1], block_cls=ResNetBlock, num_filters=4)
BottleneckTiny = partial(ResNet, stage_sizes=[1], block_cls=BottleneckResNetBlock, num_filters=2)


class TrainState(train_state.TrainState):
    batch_stats: Any
    dynamic_scale: dynamic_scale_lib.DynamicScale | None


def cross_entropy_loss(logits: jax.Array, labels: jax.Array) -> jax.Array:
    one_hot_labels = jax.nn.one_hot(labels, num_classes=10)
    xentropy = optax.softmax_cross_entropy(logits=logits, labels=one_hot_labels)
    return jnp.mean(xentropy)


def compute_metrics(logits: jax.Array, labels: jax.Array) -> dict[str, jax.Array]:
    loss = cross_entropy_loss(logits, labels)
    accuracy = jnp.mean(jnp.argmax(logits, -1) == labels)
    metrics = {"loss": loss, "accuracy": accuracy}
    return metrics


def create_learning_rate_fn(base_learning_rate: float, steps_per_epoch: int, num_epochs: int = 10, warmup_epochs: int = 2):
    """Create learning rate schedule."""
    warmup_fn = optax.linear_schedule(
        init_value=0.0, end_value=base_learning_rate, transition_steps=warmup_epochs * steps_per_epoch
    )
    cosine_epochs = max(num_epochs - warmup_epochs, 1)
    cosine_fn = optax.cosine_decay_schedule(init_value=base_learning_rate, decay_steps=cosine_epochs * steps_per_epoch)
    schedule_fn = optax.join_schedules(
        schedules=[warmup_fn, cosine_fn], boundaries=[warmup_epochs * steps_per_epoch]
    )
    return schedule_fn


def train_step(state: TrainState, batch: dict[str, jax.Array], learning_rate_fn: Callable, weight_decay: float = 1e-4):
    """Perform a single training step."""

    def loss_fn(params):
        """loss function used for training."""
        logits, new_model_state = state.apply_fn(
            {"params": params, "batch_stats": state.batch_stats}, batch["image"], mutable=["batch_stats"]
        )
        loss = cross_entropy_loss(logits, batch["label"])
        weight_penalty_params = jax.tree_util.tree_leaves(params)
        weight_l2 = sum(jnp.sum(x**2) for x in weight_penalty_params if x.ndim > 1)
        weight_penalty = weight_decay * 0.5 * weight_l2
        loss = loss + weight_penalty
        return loss, (new_model_state, logits)

    step = state.step
    dynamic_scale = state.dynamic_scale
    lr = learning_rate_fn(step)

    if dynamic_scale:
        grad_fn = dynamic_scale.value_and_grad(loss_fn, has_aux=True)
        dynamic_scale, is_fin, aux, grads = grad_fn(state.params)
    else:
        grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
        aux, grads = grad_fn(state.params)
    new_model_state, logits = aux[1]
    metrics = compute_metrics(logits, batch["label"])
    metrics["learning_rate"] = lr

    new_state = state.apply_gradients(grads=grads, batch_stats=new_model_state["batch_stats"])
    if dynamic_scale:
        # if is_fin == False the gradients contain Inf/NaNs and optimizer state and
        # params should be restored (= skip this step).
        new_state = new_state.replace(
            opt_state=jax.tree_util.tree_map(
                partial(jnp.where, is_fin), new_state.opt_state, state.opt_state
            ),
            params=jax.tree_util.tree_map(partial(jnp.where, is_fin), new_state.params, state.params),
            dynamic_scale=dynamic_scale,
        )
        metrics["scale"] = dynamic_scale.scale

    return new_state, metrics


def eval_step(state: TrainState, batch: dict[str, jax.Array]) -> dict[str, jax.Array]:
    variables = {"params": state.params, "batch_stats": state.batch_stats}
    logits = state.apply_fn(variables, batch["image"], train=False, mutable=False)
    return compute_metrics(logits, batch["label"])


def initialized(key: jax.Array, image_size: int, model: nn.Module):
    input_shape = (1, image_size, image_size, 3)

    @jax.jit
    def init(*args):
        return model.init(*args)

    variables = init({"params": key}, jnp.ones(input_shape, model.dtype))
    return variables["params"], variables["batch_stats"]


def create_train_state(
    rng: jax.Array, model: nn.Module, image_size: int, learning_rate_fn: Callable, half_precision: bool
) -> TrainState:
    """Create initial training state."""
    dynamic_scale = None
    if half_precision:
        dynamic_scale = dynamic_scale_lib.DynamicScale()
    params, batch_stats = initialized(rng, image_size, model)
    tx = optax.sgd(learning_rate=learning_rate_fn, momentum=0.9, nesterov=True)
    state = TrainState.create(
        apply_fn=model.apply, params=params, tx=tx, batch_stats=batch_stats, dynamic_scale=dynamic_scale
    )
    return state


def main() -> dict[str, Any]:
    rng = jax.random.PRNGKey(0)
    image_size = 16
    learning_rate_fn = create_learning_rate_fn(0.1, steps_per_epoch=4)
    model = ResNetTiny(num_classes=10)
    state = create_train_state(rng, model, image_size, learning_rate_fn, half_precision=False)
    images = jax.random.normal(rng, (2, image_size, image_size, 3))
    labels = jnp.array([3, 7])
    batch = {"image": images, "label": labels}
    state, metrics = train_step(state, batch, learning_rate_fn)
    eval_metrics = eval_step(state, batch)
    half = BottleneckTiny(num_classes=10, dtype=jnp.bfloat16)
    half_state = create_train_state(rng, half, image_size, learning_rate_fn, half_precision=True)
    half_batch = {"image": images.astype(jnp.bfloat16), "label": labels}
    half_state, half_metrics = train_step(half_state, half_batch, learning_rate_fn)
    return {"metrics": metrics, "eval": eval_metrics, "half": half_metrics}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
