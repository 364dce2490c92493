"""A second reach corpus: model code in the style of public JAX projects.

Where ``benchmarks/reach_corpus/`` is dense mixed-dtype arithmetic written for
jaxtypes, these files imitate how Flax's examples, Gemma and RecurrentGemma,
Optax and Equinox's examples are written, in plain JAX (none of those
libraries is imported): dataclass configs holding ``dtype``/``param_dtype``
fields, layers as classes holding dicts of parameters, norms computed in
float32 and cast back with ``.astype(x.dtype)``, masks from
``jnp.finfo(...).min``, pytrees updated with ``jax.tree.map``, batches made
with ``jnp.asarray(np_batch, dtype=...)``.  Array parameters are annotated
with concrete dtypes (``jaxtypes.Array[bfloat16]``) so that ``reach.py`` can
run each file's ``main()`` under JAX for the truth.

This file: configs, RMSNorm, LayerNorm and a Gemma-style embedder.
"""

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jaxtypes import Array, bfloat16, float32, int32

Dtype = Any  # as Flax spells it


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    vocab_size: int = 64
    width: int = 16
    num_heads: int = 2
    head_dim: int = 8
    mlp_dim: int = 32
    num_layers: int = 2
    dtype: jnp.dtype = jnp.bfloat16
    param_dtype: Dtype = jnp.float32
    epsilon: float = 1e-6


class RMSNorm:
    """Gemma's RMSNorm: scale stored as an offset from one."""

    def __init__(self, width: int, param_dtype: Dtype = jnp.float32) -> None:
        self.params = {"scale": jnp.zeros((width,), dtype=param_dtype)}

    def __call__(self, x: Array[bfloat16], eps: float = 1e-6) -> Array[bfloat16]:
        var = jnp.mean(jnp.square(x.astype(jnp.float32)), axis=-1, keepdims=True)
        normed = x * jax.lax.rsqrt(var + eps)
        scale = jnp.expand_dims(self.params["scale"], axis=range(len(x.shape) - 1))
        normed = normed * (1 + scale)
        return normed.astype(x.dtype)


def rms_norm(x: Array[bfloat16], scale: Array[float32], eps: float = 1e-6) -> Array[bfloat16]:
    dtype = x.dtype
    x = x.astype(jnp.float32)
    ms = jnp.mean(x * x, axis=-1, keepdims=True)
    y = x * jax.lax.rsqrt(ms + eps)
    y = y * (1.0 + scale)
    return y.astype(dtype)


def layer_norm(x: Array[bfloat16], scale: Array[float32], bias: Array[float32],
               epsilon: float = 1e-5) -> Array[bfloat16]:
    # Flax computes the statistics in float32 whatever the input.
    x32 = jnp.asarray(x, jnp.float32)
    mean = jnp.mean(x32, axis=-1, keepdims=True)
    mean2 = jnp.mean(jax.lax.square(x32), axis=-1, keepdims=True)
    var = jnp.maximum(0.0, mean2 - jax.lax.square(mean))
    y = (x32 - mean) * jax.lax.rsqrt(var + epsilon)
    y = y * scale + bias
    out = jnp.asarray(y, x.dtype)
    return out


def group_norm(x: Array[float32], num_groups: int, eps: float = 1e-5) -> Array[float32]:
    *batch, channels = x.shape
    grouped = x.reshape(*batch, num_groups, channels // num_groups)
    mean = grouped.mean(axis=-1, keepdims=True)
    var = grouped.var(axis=-1, keepdims=True)
    normed = (grouped - mean) / jnp.sqrt(var + eps)
    return normed.reshape(x.shape)


class Embedder:
    """Gemma's embedder: encode scales by sqrt(width), decode is the tied matmul."""

    def __init__(self, key: Array[Any], config: ModelConfig) -> None:
        self.config = config
        table = jax.random.normal(key, (config.vocab_size, config.width), dtype=config.param_dtype)
        self.params = {"input_embedding": table * 0.02}

    def encode(self, tokens: Array[int32]) -> Array[Any]:
        x = self.params["input_embedding"][(tokens,)]
        x = x * jnp.sqrt(self.config.width).astype(x.dtype)
        return x.astype(self.config.dtype)

    def decode(self, x: Array[bfloat16]) -> Array[Any]:
        table = self.params["input_embedding"].astype(x.dtype)
        logits = jnp.dot(x, table.T)
        return logits


def sinusoidal_positions(length: int, width: int, max_scale: float = 10_000.0) -> Array[float32]:
    positions = jnp.arange(length, dtype=jnp.float32)[:, None]
    num_timescales = width // 2
    log_increment = np.log(max_scale) / max(num_timescales - 1, 1)
    inv_timescales = jnp.exp(jnp.arange(num_timescales, dtype=jnp.float32) * -log_increment)
    scaled_time = positions * inv_timescales[None, :]
    signal = jnp.concatenate([jnp.sin(scaled_time), jnp.cos(scaled_time)], axis=1)
    return signal


def main() -> dict[str, Any]:
    config = ModelConfig()
    key = jax.random.PRNGKey(0)
    key, embed_key, x_key = jax.random.split(key, 3)
    embedder = Embedder(embed_key, config)
    tokens = jax.random.randint(x_key, (2, 8), 0, config.vocab_size, dtype=jnp.int32)
    x = embedder.encode(tokens)
    norm = RMSNorm(config.width)
    h = norm(x.astype(jnp.bfloat16))
    h2 = rms_norm(h, jnp.zeros((config.width,), jnp.float32))
    ln = layer_norm(h2, jnp.ones((config.width,), jnp.float32), jnp.zeros((config.width,), jnp.float32))
    gn = group_norm(ln.astype(jnp.float32), num_groups=4)
    pos = sinusoidal_positions(8, config.width)
    summed = gn + pos[None]
    logits = embedder.decode(summed.astype(config.dtype))
    probs = jax.nn.softmax(logits.astype(jnp.float32), axis=-1)
    return {"x": x, "h": h, "ln": ln, "gn": gn, "logits": logits, "probs": probs}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
