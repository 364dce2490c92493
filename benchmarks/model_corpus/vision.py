"""A small convolutional network with batch norm and a patch-embedding ViT
stem, as Flax's MNIST/ImageNet examples and Equinox's CNN example write them
(see norms.py for the corpus as a whole)."""

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
from jaxtypes import Array, bfloat16, float32

PyTree = Any


@dataclasses.dataclass(frozen=True)
class CNNConfig:
    features: tuple[int, ...] = (4, 8)
    num_classes: int = 10
    dtype: jnp.dtype = jnp.float32
    momentum: float = 0.9
    epsilon: float = 1e-5


def conv(x: Array[float32], kernel: Array[float32], strides: tuple[int, int] = (1, 1)) -> Array[float32]:
    y = jax.lax.conv_general_dilated(x, kernel, window_strides=strides, padding="SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return y


def avg_pool(x: Array[float32], window: int = 2) -> Array[float32]:
    summed = jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, window, window, 1), (1, window, window, 1), "VALID")
    return summed / (window * window)


def max_pool(x: Array[float32], window: int = 2) -> Array[Any]:
    pooled = jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, window, window, 1), (1, window, window, 1), "VALID")
    return pooled


def batch_norm(x: Array[float32], params: PyTree, stats: PyTree, train: bool,
               momentum: float = 0.9, eps: float = 1e-5) -> tuple[Array[float32], PyTree]:
    if train:
        mean = jnp.mean(x, axis=(0, 1, 2))
        var = jnp.var(x, axis=(0, 1, 2))
        new_stats = {"mean": momentum * stats["mean"] + (1 - momentum) * mean,
                     "var": momentum * stats["var"] + (1 - momentum) * var}
    else:
        mean, var = stats["mean"], stats["var"]
        new_stats = stats
    y = (x - mean) * jax.lax.rsqrt(var + eps)
    y = y * params["scale"] + params["bias"]
    return y, new_stats


def init_cnn(key: Array[Any], config: CNNConfig, in_channels: int = 3) -> tuple[PyTree, PyTree]:
    params: dict[str, Any] = {}
    stats: dict[str, Any] = {}
    keys = jax.random.split(key, len(config.features) + 1)
    channels = in_channels
    for i, (k, f) in enumerate(zip(keys, config.features)):
        fan_in = 3 * 3 * channels
        params[f"conv{i}"] = jax.random.normal(k, (3, 3, channels, f)) * jnp.sqrt(2.0 / fan_in)
        params[f"bn{i}"] = {"scale": jnp.ones((f,)), "bias": jnp.zeros((f,))}
        stats[f"bn{i}"] = {"mean": jnp.zeros((f,)), "var": jnp.ones((f,))}
        channels = f
    params["head"] = {"w": jax.random.normal(keys[-1], (channels, config.num_classes)) * 0.01,
                      "b": jnp.zeros((config.num_classes,))}
    return params, stats


def cnn_apply(params: PyTree, stats: PyTree, x: Array[float32], config: CNNConfig,
              train: bool) -> tuple[Array[float32], PyTree]:
    new_stats = {}
    for i in range(len(config.features)):
        x = conv(x, params[f"conv{i}"])
        x, new_stats[f"bn{i}"] = batch_norm(x, params[f"bn{i}"], stats[f"bn{i}"], train)
        x = jax.nn.relu(x)
        x = avg_pool(x)
    x = x.mean(axis=(1, 2))
    logits = x @ params["head"]["w"] + params["head"]["b"]
    return logits, new_stats


def patch_embed(images: Array[bfloat16], kernel: Array[float32], patch: int) -> Array[bfloat16]:
    n, h, w, c = images.shape
    patches = images.reshape(n, h // patch, patch, w // patch, patch, c)
    patches = patches.transpose(0, 1, 3, 2, 4, 5).reshape(n, -1, patch * patch * c)
    tokens = jnp.einsum("npd,de->npe", patches, kernel.astype(images.dtype))
    cls = jnp.zeros((n, 1, tokens.shape[-1]), dtype=tokens.dtype)
    return jnp.concatenate([cls, tokens], axis=1)


def gelu_tanh(x: Array[bfloat16]) -> Array[bfloat16]:
    cdf = 0.5 * (1.0 + jnp.tanh(jnp.sqrt(2 / jnp.pi) * (x + 0.044715 * jnp.power(x, 3))))
    return x * cdf


def main() -> dict[str, Any]:
    config = CNNConfig()
    key = jax.random.PRNGKey(8)
    init_key, x_key, p_key = jax.random.split(key, 3)
    params, stats = init_cnn(init_key, config)
    images = jax.random.uniform(x_key, (2, 8, 8, 3), dtype=config.dtype)
    logits, new_stats = cnn_apply(params, stats, images, config, train=True)
    eval_logits, _ = cnn_apply(params, new_stats, images, config, train=False)
    pooled = max_pool(images)
    probs = jax.nn.softmax(eval_logits)
    predicted = jnp.argmax(probs, axis=-1)
    kernel = jax.random.normal(p_key, (4 * 3, 6))
    tokens = patch_embed(images.astype(jnp.bfloat16), kernel, 2)
    activated = gelu_tanh(tokens)
    token_norm = jnp.linalg.norm(activated.astype(jnp.float32), axis=-1)
    return {"logits": logits, "pooled": pooled, "predicted": predicted, "tokens": tokens,
            "act": activated, "norm": token_norm}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
