"""Feed-forward blocks and a decoder stack, as Gemma's and Flax's WMT/LM1B
examples write them (see norms.py for the corpus as a whole)."""

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
from jaxtypes import Array, bfloat16, float32, int32

Dtype = Any
PyTree = Any


@dataclasses.dataclass(frozen=True)
class TransformerConfig:
    vocab_size: int = 32
    emb_dim: int = 16
    mlp_dim: int = 32
    num_layers: int = 2
    dropout_rate: float = 0.1
    dtype: Dtype = jnp.bfloat16
    param_dtype: Dtype = jnp.float32
    deterministic: bool = False


def lecun_normal(key: Array[Any], shape: tuple[int, ...], dtype: Dtype = jnp.float32) -> Array[Any]:
    fan_in = shape[-2] if len(shape) > 1 else shape[-1]
    stddev = jnp.sqrt(1.0 / fan_in)
    return jax.random.truncated_normal(key, -2.0, 2.0, shape, dtype) * stddev


def init_dense(key: Array[Any], features_in: int, features_out: int, param_dtype: Dtype) -> dict[str, Array[Any]]:
    return {"kernel": lecun_normal(key, (features_in, features_out), param_dtype),
            "bias": jnp.zeros((features_out,), param_dtype)}


def dense(params: dict[str, Array[Any]], x: Array[bfloat16], dtype: Dtype) -> Array[Any]:
    kernel = jnp.asarray(params["kernel"], dtype)
    bias = jnp.asarray(params["bias"], dtype)
    y = jax.lax.dot_general(x, kernel, (((x.ndim - 1,), (0,)), ((), ())))
    return y + bias


def gated_feed_forward(x: Array[bfloat16], gating: Array[float32], linear: Array[float32]) -> Array[bfloat16]:
    ff_gate = jnp.dot(x, gating[0].astype(x.dtype))
    gate_value = jax.nn.gelu(ff_gate)
    ff1 = jnp.dot(x, gating[1].astype(x.dtype))
    activations = gate_value * ff1
    outputs = jnp.dot(activations, linear.astype(x.dtype))
    return outputs


def mlp_block(params: PyTree, x: Array[bfloat16], config: TransformerConfig, rng: Array[Any]) -> Array[Any]:
    h = dense(params["wi"], x, config.dtype)
    h = jax.nn.relu(h)
    if not config.deterministic:
        keep = 1.0 - config.dropout_rate
        mask = jax.random.bernoulli(rng, keep, h.shape)
        h = jax.lax.select(mask, h / keep, jnp.zeros_like(h))
    out = dense(params["wo"], h, config.dtype)
    return out


def dropout(rng: Array[Any], x: Array[float32], rate: float, deterministic: bool) -> Array[float32]:
    if deterministic or rate == 0.0:
        return x
    keep_prob = 1.0 - rate
    keep = jax.random.bernoulli(rng, p=keep_prob, shape=x.shape)
    return jnp.where(keep, x / keep_prob, 0)


def layer_norm(params: dict[str, Array[Any]], x: Array[Any], eps: float = 1e-6) -> Array[Any]:
    x32 = x.astype(jnp.float32)
    mean = x32.mean(-1, keepdims=True)
    var = jnp.var(x32, axis=-1, keepdims=True)
    y = (x32 - mean) * jax.lax.rsqrt(var + eps)
    return (y * params["scale"] + params["bias"]).astype(x.dtype)


def init_block(key: Array[Any], config: TransformerConfig) -> PyTree:
    k1, k2 = jax.random.split(key)
    return {
        "ln": {"scale": jnp.ones((config.emb_dim,), config.param_dtype),
               "bias": jnp.zeros((config.emb_dim,), config.param_dtype)},
        "mlp": {"wi": init_dense(k1, config.emb_dim, config.mlp_dim, config.param_dtype),
                "wo": init_dense(k2, config.mlp_dim, config.emb_dim, config.param_dtype)},
    }


def block(params: PyTree, x: Array[bfloat16], config: TransformerConfig, rng: Array[Any]) -> Array[Any]:
    residual = x
    y = layer_norm(params["ln"], x)
    y = mlp_block(params["mlp"], y, config, rng)
    y = y + residual
    return y


def init_model(key: Array[Any], config: TransformerConfig) -> PyTree:
    keys = jax.random.split(key, config.num_layers + 1)
    embedding = jax.random.normal(keys[0], (config.vocab_size, config.emb_dim), config.param_dtype)
    layers = [init_block(k, config) for k in keys[1:]]
    return {"embedding": embedding, "layers": layers}


@functools.partial(jax.jit, static_argnums=(2,))
def forward(params: PyTree, tokens: Array[int32], config: TransformerConfig, rng: Array[Any]) -> Array[Any]:
    x = jnp.take(params["embedding"], tokens, axis=0)
    x = x.astype(config.dtype)
    rngs = jax.random.split(rng, config.num_layers)
    for layer, layer_rng in zip(params["layers"], rngs):
        x = block(layer, x, config, layer_rng)
    logits = x @ params["embedding"].T.astype(config.dtype)
    logits = logits.astype(jnp.float32)
    return logits


def scan_layers(params: PyTree, x: Array[bfloat16], config: TransformerConfig) -> Array[Any]:
    stacked = jax.tree.map(lambda *xs: jnp.stack(xs), *params["layers"])

    def body(carry: Array[Any], layer: PyTree) -> tuple[Array[Any], None]:
        out = block(layer, carry, config, jax.random.PRNGKey(0))
        return out.astype(carry.dtype), None

    y, _ = jax.lax.scan(body, x, stacked)
    return y


def main() -> dict[str, Any]:
    config = TransformerConfig()
    key = jax.random.PRNGKey(2)
    init_key, dropout_key, tok_key = jax.random.split(key, 3)
    params = init_model(init_key, config)
    tokens = jax.random.randint(tok_key, (2, 6), 0, config.vocab_size)
    logits = forward(params, tokens, config, dropout_key)
    x = jnp.ones((2, 6, config.emb_dim), jnp.bfloat16)
    scanned = scan_layers(params, x, dataclasses.replace(config, deterministic=True))
    gating = jnp.ones((2, config.emb_dim, config.mlp_dim), jnp.float32)
    linear = jnp.ones((config.mlp_dim, config.emb_dim), jnp.float32)
    ff = gated_feed_forward(x, gating, linear)
    dropped = dropout(dropout_key, ff.astype(jnp.float32), 0.1, deterministic=False)
    log_probs = jax.nn.log_softmax(logits)
    predictions = jnp.argmax(logits, axis=-1)
    accuracy = jnp.mean(predictions == tokens)
    return {"logits": logits, "scanned": scanned, "ff": ff, "dropped": dropped,
            "log_probs": log_probs, "accuracy": accuracy}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
