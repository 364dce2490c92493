"""A small convolutional classifier in Equinox with an Optax training step,
as the Equinox examples write it: layers held in fields typed by their
class, ``jax.vmap`` over the batch, ``eqx.filter_value_and_grad``."""

import equinox as eqx
import jax
import jax.numpy as jnp
import optax


class ConvBlock(eqx.Module):
    conv: eqx.nn.Conv2d
    norm: eqx.nn.LayerNorm

    def __init__(self, in_channels: int, out_channels: int, size: int, key: jax.Array):
        self.conv = eqx.nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, key=key)
        self.norm = eqx.nn.LayerNorm((out_channels, size, size))

    def __call__(self, x: jax.Array) -> jax.Array:
        y = self.conv(x)
        y = self.norm(y)
        return jax.nn.relu(y)


class CNN(eqx.Module):
    block1: ConvBlock
    block2: ConvBlock
    linear: eqx.nn.Linear
    dropout: eqx.nn.Dropout

    def __init__(self, key: jax.Array, num_classes: int = 10):
        k1, k2, k3 = jax.random.split(key, 3)
        self.block1 = ConvBlock(1, 4, 8, k1)
        self.block2 = ConvBlock(4, 8, 4, k2)
        self.linear = eqx.nn.Linear(8 * 2 * 2, num_classes, key=k3)
        self.dropout = eqx.nn.Dropout(0.1)

    def __call__(self, x: jax.Array, key: jax.Array | None = None) -> jax.Array:
        x = self.block1(x)
        x = eqx.nn.MaxPool2d(kernel_size=2, stride=2)(x)
        x = self.block2(x)
        x = eqx.nn.AvgPool2d(kernel_size=2, stride=2)(x)
        features = jnp.ravel(x)
        features = self.dropout(features, key=key, inference=key is None)
        logits = self.linear(features)
        return logits


class MLPHead(eqx.Module):
    layers: list
    activation: str = eqx.field(static=True)

    def __init__(self, sizes: list[int], key: jax.Array, activation: str = "gelu"):
        keys = jax.random.split(key, len(sizes) - 1)
        self.layers = [eqx.nn.Linear(a, b, key=k) for a, b, k in zip(sizes[:-1], sizes[1:], keys)]
        self.activation = activation

    def __call__(self, x: jax.Array) -> jax.Array:
        for layer in self.layers[:-1]:
            x = layer(x)
            x = jax.nn.gelu(x) if self.activation == "gelu" else jax.nn.relu(x)
        out = self.layers[-1](x)
        return out


def compute_loss(model: CNN, images: jax.Array, labels: jax.Array) -> jax.Array:
    logits = jax.vmap(model)(images)
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    picked = jnp.take_along_axis(log_probs, labels[:, None], axis=-1)
    return -jnp.mean(picked)


@eqx.filter_jit
def make_step(
    model: CNN, opt_state: optax.OptState, images: jax.Array, labels: jax.Array, optim: optax.GradientTransformation
) -> tuple[CNN, optax.OptState, jax.Array]:
    loss, grads = eqx.filter_value_and_grad(compute_loss)(model, images, labels)
    updates, opt_state = optim.update(grads, opt_state, eqx.filter(model, eqx.is_array))
    model = eqx.apply_updates(model, updates)
    return model, opt_state, loss


def predict(model: CNN, images: jax.Array) -> jax.Array:
    logits = jax.vmap(model)(images)
    probs = jax.nn.softmax(logits, axis=-1)
    return jnp.argmax(probs, axis=-1)


def main() -> jax.Array:
    key = jax.random.PRNGKey(42)
    kmodel, kdata, klabel, khead = jax.random.split(key, 4)
    model = CNN(kmodel)
    images = jax.random.uniform(kdata, (4, 1, 8, 8))
    labels = jax.random.randint(klabel, (4,), 0, 10)
    optim = optax.adamw(1e-3)
    opt_state = optim.init(eqx.filter(model, eqx.is_array))
    model, opt_state, loss = make_step(model, opt_state, images, labels, optim)
    predictions = predict(model, images)
    accuracy = jnp.mean((predictions == labels).astype(jnp.float32))
    head = MLPHead([6, 12, 3], khead)
    head_out = jax.vmap(head)(jnp.ones((2, 6)))
    return loss + accuracy + head_out.sum()
