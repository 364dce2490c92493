"""A small decoder-only transformer in Flax Linen, the way the Flax examples
and Gemma-style code write one: modules hold a config, call ``nn.Dense`` and
``nn.Embed`` with the config's dtypes, and return bare arrays."""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp

import ops
from config import ModelConfig, bfloat16_config, float32_config


class RMSNorm(nn.Module):
    dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        scale = self.param("scale", nn.initializers.zeros_init(), (x.shape[-1],), jnp.float32)
        return ops.rms_norm(x, scale)


class MlpBlock(nn.Module):
    config: ModelConfig

    @nn.compact
    def __call__(self, x: jax.Array, deterministic: bool = True) -> jax.Array:
        cfg = self.config
        hidden = nn.Dense(cfg.mlp_dim, dtype=cfg.dtype, param_dtype=cfg.param_dtype, name="wi")(x)
        gate = nn.Dense(cfg.mlp_dim, dtype=cfg.dtype, param_dtype=cfg.param_dtype, name="wg")(x)
        hidden = ops.swiglu(hidden, gate)
        hidden = nn.Dropout(rate=cfg.dropout_rate)(hidden, deterministic=deterministic)
        out = nn.Dense(cfg.d_model, dtype=cfg.dtype, param_dtype=cfg.param_dtype, name="wo")(hidden)
        return out


class SelfAttention(nn.Module):
    config: ModelConfig

    @nn.compact
    def __call__(self, x: jax.Array, mask: jax.Array) -> jax.Array:
        cfg = self.config
        dense = lambda name: nn.DenseGeneral(  # noqa: E731
            (cfg.num_heads, cfg.head_dim), dtype=cfg.dtype, param_dtype=cfg.param_dtype, name=name
        )
        q = dense("query")(x)
        k = dense("key")(x)
        v = dense("value")(x)
        sin, cos = ops.rotary_frequencies(cfg.head_dim, x.shape[1])
        q = ops.apply_rotary(q, sin, cos)
        k = ops.apply_rotary(k, sin, cos)
        attn_weights = nn.dot_product_attention_weights(q, k, mask=mask, dtype=cfg.dtype)
        attended = jnp.einsum("bhqk,bkhd->bqhd", attn_weights, v)
        out = nn.DenseGeneral(cfg.d_model, axis=(-2, -1), dtype=cfg.dtype, param_dtype=cfg.param_dtype, name="out")(
            attended
        )
        return out


class DecoderBlock(nn.Module):
    config: ModelConfig

    @nn.compact
    def __call__(self, x: jax.Array, mask: jax.Array, deterministic: bool = True) -> jax.Array:
        cfg = self.config
        h = RMSNorm(dtype=cfg.dtype)(x)
        h = SelfAttention(cfg)(h, mask)
        x = x + h
        h = RMSNorm(dtype=cfg.dtype)(x)
        h = MlpBlock(cfg)(h, deterministic)
        return x + h


class Transformer(nn.Module):
    config: ModelConfig

    @nn.compact
    def __call__(self, tokens: jax.Array, deterministic: bool = True) -> jax.Array:
        cfg = self.config
        embed = nn.Embed(cfg.vocab_size, cfg.d_model, dtype=cfg.dtype, param_dtype=cfg.param_dtype, name="embed")
        x = embed(tokens)
        x = x * jnp.sqrt(cfg.d_model).astype(cfg.dtype)
        mask = nn.make_causal_mask(tokens)
        for i in range(cfg.num_layers):
            x = DecoderBlock(cfg, name=f"layer_{i}")(x, mask, deterministic)
        x = RMSNorm(dtype=cfg.dtype)(x)
        logits = embed.attend(x)
        return logits.astype(jnp.float32)


class Classifier(nn.Module):
    """A pooled classification head over the transformer's features."""

    num_classes: int
    config: ModelConfig

    @nn.compact
    def __call__(self, tokens: jax.Array) -> jax.Array:
        cfg = self.config
        x = nn.Embed(cfg.vocab_size, cfg.d_model, dtype=cfg.dtype, param_dtype=cfg.param_dtype)(tokens)
        x = nn.LayerNorm(dtype=cfg.dtype, param_dtype=cfg.param_dtype)(x)
        pooled = jnp.mean(x, axis=1)
        logits = nn.Dense(self.num_classes, dtype=jnp.float32, param_dtype=cfg.param_dtype)(pooled)
        return logits


def init_model(key: jax.Array, cfg: ModelConfig) -> tuple[Transformer, Any]:
    model = Transformer(cfg)
    tokens = jnp.zeros((1, cfg.max_len), jnp.int32)
    variables = model.init(key, tokens)
    return model, variables["params"]


def main() -> jax.Array:
    key = jax.random.PRNGKey(0)
    tokens = jax.random.randint(key, (2, 8), 0, 64)
    total = jnp.zeros((), jnp.float32)
    for cfg in (float32_config(), bfloat16_config()):
        model, params = init_model(key, cfg)
        logits = model.apply({"params": params}, tokens)
        loss = ops.cross_entropy_loss(logits, tokens).mean()
        total = total + loss
    head = Classifier(num_classes=3, config=float32_config())
    head_vars = head.init(key, tokens)
    class_logits = head.apply(head_vars, tokens)
    total = total + class_logits.sum()
    return total
