"""Flax's layers with the stubs of `jaxtypes jax-stubs`: a layer returns its
``dtype`` when given, else its input promoted with its ``param_dtype``
(float32 by default), made inexact (FLIP 1777).

A line marked E (in a trailing comment) must get an error in every checker;
every other line must get none (a failed ``assert_type`` is an error).
Checked by tests/test_jax_stubs.py with the generated stubs, and run by
tests/test_layer_stubs.py with JAX and flax, where each ``assert_type``
checks the dtype of the value (the answers are flax's).
"""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
from flax import nnx
from typing_extensions import assert_type

from jaxtypes import bfloat16, complex64, float16, float32, int32


# -- Linen, inline in @nn.compact: literal and default dtypes are exact, a
# dtype known only at run time (a field typed Any or jnp.dtype) is Array[Any]
class Block(nn.Module):
    features: int = 4
    dtype: Any = jnp.bfloat16
    param_dtype: jnp.dtype = jnp.dtype(jnp.float32)

    @nn.compact
    def __call__(self, x: jax.Array[bfloat16], tokens: jax.Array[int32]) -> jax.Array[float32]:
        assert_type(nn.Dense(self.features)(x), jax.Array[float32])
        assert_type(nn.Dense(self.features, dtype=jnp.bfloat16)(x), jax.Array[bfloat16])
        assert_type(nn.Dense(self.features, param_dtype=jnp.bfloat16)(x), jax.Array[bfloat16])
        assert_type(nn.Dense(self.features, param_dtype=jnp.float16)(x), jax.Array[float32])
        assert_type(nn.Dense(self.features, dtype=self.dtype)(x), jax.Array[Any])
        assert_type(nn.Dense(self.features, param_dtype=self.param_dtype)(x), jax.Array[Any])
        # dtype= decides whatever the parameters' dtype (a config's jnp.dtype field, a name)
        assert_type(nn.Dense(self.features, dtype=jnp.float32, param_dtype=self.param_dtype)(x), jax.Array[float32])
        assert_type(nn.LayerNorm(dtype=jnp.bfloat16, param_dtype="float32")(x), jax.Array[bfloat16])
        assert_type(nn.Dense(self.features, use_bias=False, dtype=None)(tokens), jax.Array[float32])
        assert_type(nn.DenseGeneral((2, 2))(x), jax.Array[float32])
        assert_type(nn.Einsum((4, 3), "bi,ij->bj", dtype=jnp.float16)(x), jax.Array[float16])
        assert_type(nn.Conv(self.features, (3,))(x), jax.Array[float32])
        assert_type(nn.ConvTranspose(self.features, (3,), param_dtype=jnp.bfloat16)(x), jax.Array[bfloat16])
        assert_type(nn.LayerNorm()(x), jax.Array[float32])
        assert_type(nn.RMSNorm(param_dtype=jnp.bfloat16)(x), jax.Array[bfloat16])
        assert_type(nn.GroupNorm(num_groups=2, dtype=jnp.bfloat16)(x), jax.Array[bfloat16])
        assert_type(nn.Embed(10, 4)(tokens), jax.Array[float32])
        assert_type(nn.Embed(10, 4, param_dtype=jnp.bfloat16)(tokens), jax.Array[bfloat16])
        assert_type(nn.Embed(10, 4).attend(x), jax.Array[float32])
        assert_type(nn.Dropout(0.5)(x, deterministic=True), jax.Array[bfloat16])
        # pooling keeps a float input's dtype (an integer one's average is the default float)
        assert_type(nn.avg_pool(x, (2,), strides=(2,)), jax.Array[bfloat16])
        assert_type(nn.max_pool(tokens[:, None], (2,), strides=(2,)), jax.Array[int32])
        assert_type(nn.avg_pool(tokens[:, None], (2,)), jax.Array[Any])
        assert_type(nn.avg_pool(x, (2,), count_include_pad=False), jax.Array[Any])
        # attention: typed where the query, keys and values each alone give one dtype
        assert_type(nn.MultiHeadDotProductAttention(num_heads=1)(x), jax.Array[float32])
        assert_type(nn.MultiHeadDotProductAttention(num_heads=1, dtype=jnp.bfloat16)(x), jax.Array[bfloat16])
        assert_type(nn.MultiHeadDotProductAttention(num_heads=1)(x, x), jax.Array[float32])
        wide = x.astype(jnp.float32)
        assert_type(nn.MultiHeadDotProductAttention(num_heads=1)(x, wide, wide), jax.Array[float32])
        half = nn.MultiHeadDotProductAttention(num_heads=1, param_dtype=jnp.bfloat16)
        assert_type(half(x, wide), jax.Array[Any])
        # a positional dtype, float64 (x64 decides) and complex inputs
        assert_type(nn.Dense(self.features, True, jnp.bfloat16)(x), jax.Array[Any])
        assert_type(nn.Dense(self.features, dtype=jnp.float64)(x), jax.Array[Any])
        assert_type(nn.Dense(self.features)(x.astype(jnp.complex64)), jax.Array[complex64])
        # a bfloat16 model whose default layer returns float32
        y: jax.Array[bfloat16] = nn.Dense(self.features)(x)  # E: assignment
        return nn.Dense(self.features)(y)


# -- Linen, built in setup
class WithSetup(nn.Module):
    def setup(self) -> None:
        self.proj = nn.Dense(4, dtype=jnp.bfloat16)
        self.norm = nn.LayerNorm()

    def __call__(self, x: jax.Array[float32]) -> jax.Array[float32]:
        h = self.proj(x)
        assert_type(h, jax.Array[bfloat16])
        return assert_type(self.norm(h), jax.Array[float32])


# -- Linen's lifted transforms return the module class they are given
VmapDense = nn.vmap(nn.Dense, variable_axes={"params": 0}, split_rngs={"params": True}, in_axes=0)


class Ensemble(nn.Module):
    @nn.compact
    def __call__(self, x: jax.Array[bfloat16]) -> jax.Array[float32]:
        return assert_type(VmapDense(4)(x), jax.Array[float32])


# -- NNX: layers as attributes
class NnxBlock(nnx.Module):
    def __init__(self, rngs: nnx.Rngs) -> None:
        self.linear = nnx.Linear(4, 8, rngs=rngs)
        self.half = nnx.Linear(8, 8, dtype=jnp.bfloat16, rngs=rngs)
        self.norm = nnx.LayerNorm(8, param_dtype=jnp.bfloat16, rngs=rngs)
        self.configured = nnx.Linear(8, 8, dtype=jnp.bfloat16, param_dtype=jnp.dtype("float32"), rngs=rngs)
        self.batch_norm = nnx.BatchNorm(8, use_running_average=True, rngs=rngs)
        self.embed = nnx.Embed(10, 8, rngs=rngs)
        self.dropout = nnx.Dropout(0.5, deterministic=True, rngs=rngs)
        self.attention = nnx.MultiHeadAttention(num_heads=1, in_features=8, decode=False, rngs=rngs)

    def __call__(self, x: jax.Array[bfloat16], tokens: jax.Array[int32]) -> jax.Array[bfloat16]:
        wide = assert_type(self.linear(x), jax.Array[float32])
        assert_type(jax.vmap(self.linear)(x), jax.Array[float32])  # jax.vmap keeps the layer's call
        h = assert_type(self.half(wide), jax.Array[bfloat16])
        assert_type(self.norm(h), jax.Array[bfloat16])
        assert_type(self.configured(wide), jax.Array[bfloat16])
        assert_type(self.batch_norm(h), jax.Array[float32])
        assert_type(self.embed(tokens), jax.Array[float32])
        assert_type(self.embed.attend(h), jax.Array[float32])
        assert_type(self.attention(h), jax.Array[float32])
        assert_type(nnx.min_pool(h, (2,), strides=(2,)), jax.Array[bfloat16])
        return assert_type(self.dropout(h), jax.Array[bfloat16])
