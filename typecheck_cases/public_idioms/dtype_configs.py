"""Dtype-generic code as public JAX projects write it, annotated with
``jaxtypes.typing.DType``: optimizer configs holding dtypes (Optax's
``mu_dtype``), a cast helper, layers and norms whose ``dtype`` and
``param_dtype`` are fields, an initializer with a dtype default.

Correct code (``demo()`` runs it under JAX): the stubs must add no error to
it in any checker (tests/test_user_contexts.py)."""

from __future__ import annotations

import dataclasses
from typing import Any, Generic, NamedTuple, TypeVar

import flax.linen as nn
import jax
import jax.numpy as jnp

from jaxtypes import bfloat16, float32
from jaxtypes.typing import DType, DtypeMarker

D = TypeVar("D", bound=DtypeMarker)


# An optimizer's config: the dtype its first moment is kept in (Optax's
# adam(mu_dtype=...)), and the one its parameters are in.
@dataclasses.dataclass(frozen=True)
class AdamConfig:
    learning_rate: float = 1e-3
    b1: float = 0.9
    mu_dtype: DType[bfloat16] = jnp.bfloat16
    param_dtype: DType[float32] = jnp.float32


class AdamState(NamedTuple):
    step: jax.Array
    mu: jax.Array[bfloat16]


def adam_init(cfg: AdamConfig, params: jax.Array[float32]) -> AdamState:
    mu = jnp.zeros_like(params, dtype=cfg.mu_dtype)
    return AdamState(jnp.zeros([], jnp.int32), mu)


def adam_update(cfg: AdamConfig, grads: jax.Array[float32], state: AdamState) -> AdamState:
    mu = cfg.b1 * state.mu.astype(cfg.param_dtype) + (1 - cfg.b1) * grads
    return AdamState(state.step + 1, mu.astype(cfg.mu_dtype))


def cast(x: jax.Array, dtype: DType[D]) -> jax.Array[D]:
    return x.astype(dtype)


# An initializer with a dtype default, as jax.nn.initializers write theirs.
def normal_init(key: jax.Array, shape: tuple[int, ...], dtype: DType[Any] = jnp.float32) -> jax.Array:
    return jax.random.normal(key, shape, dtype) * 0.02


# An RMS norm generic in its dtype: computed in float32, given back in the
# input's dtype.
def rms_norm(x: jax.Array[D], eps: float = 1e-6) -> jax.Array[D]:
    x32 = x.astype(jnp.float32)
    var = jnp.mean(x32 * x32, axis=-1, keepdims=True)
    return (x32 * jax.lax.rsqrt(var + eps) * 2.0).astype(x.dtype)


@dataclasses.dataclass
class Norm(Generic[D]):
    scale: jax.Array
    dtype: DType[D]

    def __call__(self, x: jax.Array) -> jax.Array[D]:
        y = x.astype(jnp.float32)
        y = y * jax.lax.rsqrt(jnp.mean(y**2, axis=-1, keepdims=True) + 1e-6)
        return (y * self.scale).astype(self.dtype)


class MLP(nn.Module):
    features: int
    dtype: DType[Any] = jnp.float32
    param_dtype: DType[Any] = jnp.float32

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        x = nn.Dense(self.features, dtype=self.dtype, param_dtype=self.param_dtype)(x)
        return nn.gelu(x)


def demo() -> None:
    key = jax.random.key(0)
    cfg = AdamConfig()
    params = jnp.ones(4, jnp.float32)
    state = adam_init(cfg, params)
    assert state.mu.dtype == jnp.bfloat16
    state = adam_update(cfg, params, state)
    assert state.mu.dtype == jnp.bfloat16 and int(state.step) == 1
    assert cast(params, jnp.bfloat16).dtype == jnp.bfloat16
    assert cast(params, state.mu.dtype).dtype == jnp.bfloat16
    assert normal_init(key, (2,)).dtype == jnp.float32
    assert normal_init(key, (2,), jnp.bfloat16).dtype == jnp.bfloat16
    assert normal_init(key, (2,), params.dtype).dtype == jnp.float32
    assert rms_norm(params.astype(jnp.bfloat16)).dtype == jnp.bfloat16
    norm = Norm(jnp.ones(4), jnp.bfloat16)
    assert norm(params).dtype == jnp.bfloat16
    mlp = MLP(3, dtype=jnp.bfloat16)
    variables = mlp.init(key, params)
    y = mlp.apply(variables, params)
    assert isinstance(y, jax.Array) and y.dtype == jnp.bfloat16


if __name__ == "__main__":
    demo()
