"""Modules written as Flax's and Equinox's examples and public model code
write them, some generic in their dtype: a Linen layer with ``dtype`` and
``param_dtype`` fields whose parameters come from ``self.param(...,
nn.initializers.lecun_normal(), ...)``, an NNX layer holding ``nnx.Param``s
built from initializers, a dtype-generic RMSNorm, and Equinox modules with
array fields.

Correct code (``demo()`` runs it under JAX): the stubs must add no error to
it in any checker (tests/test_user_contexts.py)."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import equinox as eqx
import flax.linen as nn
import jax
import jax.numpy as jnp
from flax import nnx
from flax.typing import Dtype

from jaxtypes import bfloat16, float32

D = TypeVar("D")


class Dense(nn.Module):
    """A dense layer as flax.linen.Dense writes it: parameters in
    ``param_dtype``, computed in ``dtype`` (the input's when None)."""

    features: int
    dtype: Dtype | None = None
    param_dtype: Dtype = jnp.float32
    kernel_init: nn.initializers.Initializer = nn.initializers.lecun_normal()

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        kernel = self.param("kernel", self.kernel_init, (x.shape[-1], self.features), self.param_dtype)
        bias = self.param("bias", nn.initializers.zeros, (self.features,), self.param_dtype)
        dtype = x.dtype if self.dtype is None else self.dtype
        return jnp.dot(x.astype(dtype), kernel.astype(dtype)) + bias.astype(dtype)


class Mlp(nn.Module):
    hidden: int
    param_dtype: Dtype = jnp.float32

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        w1 = self.param("w1", nn.initializers.lecun_normal(), (x.shape[-1], self.hidden), self.param_dtype)
        w2 = self.param("w2", nn.initializers.xavier_uniform(), (self.hidden, x.shape[-1]), self.param_dtype)
        return nn.gelu(x @ w1) @ w2


class NnxLinear(nnx.Module):
    """An NNX linear layer whose parameters are made by initializers."""

    def __init__(self, din: int, dout: int, *, param_dtype: Dtype = jnp.float32, rngs: nnx.Rngs) -> None:
        kernel_init = nnx.initializers.lecun_normal()
        self.kernel = nnx.Param(kernel_init(rngs.params(), (din, dout), param_dtype))
        self.bias = nnx.Param(nnx.initializers.zeros(rngs.params(), (dout,), param_dtype))

    def __call__(self, x: jax.Array) -> jax.Array:
        return x @ self.kernel[...] + self.bias[...]


class RMSNorm(nnx.Module, Generic[D]):
    """RMSNorm generic in its dtype: statistics in float32, the result in
    the input's and scale's dtype."""

    def __init__(self, scale: jax.Array[D], epsilon: float = 1e-6) -> None:
        self.scale = nnx.Param(scale)
        self.epsilon = epsilon

    def __call__(self, x: jax.Array[D]) -> jax.Array[D]:
        x32 = x.astype(jnp.float32)
        normed = x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, axis=-1, keepdims=True) + self.epsilon)
        return normed.astype(x.dtype) * self.scale[...]


class EqxLinear(eqx.Module):
    weight: jax.Array
    bias: jax.Array

    def __init__(self, din: int, dout: int, key: jax.Array, dtype: Any = jnp.float32) -> None:
        wkey, _ = jax.random.split(key)
        self.weight = jax.nn.initializers.lecun_normal()(wkey, (dout, din), dtype)
        self.bias = jnp.zeros((dout,), dtype)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.weight @ x + self.bias


class EqxScale(eqx.Module, Generic[D]):
    """An Equinox module generic in the dtype of its array field."""

    weight: jax.Array[D]

    def __call__(self, x: jax.Array[D]) -> jax.Array[D]:
        return x * self.weight


def rms_norm_bfloat16(x: jax.Array[bfloat16]) -> jax.Array[bfloat16]:
    norm = RMSNorm(jnp.ones(x.shape[-1], jnp.bfloat16))
    return norm(x)


def scaled(x: jax.Array[float32]) -> jax.Array[float32]:
    scale: EqxScale[float32] = EqxScale(jnp.full(x.shape[-1], 2.0, jnp.float32))
    return scale(x)


def demo() -> None:
    key = jax.random.PRNGKey(0)
    x = jnp.ones((2, 3), jnp.bfloat16)
    dense = Dense(4, param_dtype=jnp.bfloat16)
    variables = dense.init(key, x)
    assert all(leaf.dtype == jnp.bfloat16 for leaf in jax.tree.leaves(variables))
    out = dense.apply(variables, x)
    assert isinstance(out, jax.Array) and out.dtype == jnp.bfloat16
    mlp = Mlp(8)
    mlp_vars = mlp.init(key, x.astype(jnp.float32))
    hidden = mlp.apply(mlp_vars, x.astype(jnp.float32))
    assert isinstance(hidden, jax.Array) and hidden.dtype == jnp.float32

    linear = NnxLinear(3, 4, param_dtype=jnp.bfloat16, rngs=nnx.Rngs(0))
    assert linear.kernel[...].dtype == jnp.bfloat16
    assert linear(x).dtype == jnp.bfloat16
    assert rms_norm_bfloat16(x).dtype == jnp.bfloat16

    eqx_linear = EqxLinear(3, 4, key)
    assert eqx_linear(jnp.ones(3, jnp.float32)).dtype == jnp.float32
    assert scaled(jnp.ones((2, 3), jnp.float32)).dtype == jnp.float32


if __name__ == "__main__":
    demo()
