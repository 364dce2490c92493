"""Model and training configuration, as public JAX projects keep it: frozen
dataclasses whose dtype fields hold ``jnp.dtype`` values, one preset per
precision (float32 for tests and small runs, bfloat16 activations with
float32 parameters for accelerators)."""

import dataclasses
from typing import Any

import jax.numpy as jnp


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    vocab_size: int = 64
    d_model: int = 32
    num_heads: int = 4
    num_layers: int = 2
    mlp_dim: int = 64
    max_len: int = 16
    dropout_rate: float = 0.0
    dtype: jnp.dtype = jnp.float32
    param_dtype: jnp.dtype = jnp.float32

    @property
    def head_dim(self) -> int:
        return self.d_model // self.num_heads


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    learning_rate: float = 3e-3
    warmup_steps: int = 10
    total_steps: int = 100
    weight_decay: float = 1e-4
    max_grad_norm: float = 1.0
    label_smoothing: float = 0.1
    batch_size: int = 4
    seq_len: int = 8
    optimizer: str = "adamw"
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)


def float32_config() -> ModelConfig:
    return ModelConfig()


def bfloat16_config() -> ModelConfig:
    return ModelConfig(dtype=jnp.bfloat16, param_dtype=jnp.float32)
