"""Dtype-generic modules, Flax's variables and JAX's initializers with the
stubs of `jaxtypes jax-stubs`.

An initializer is typed by the ``dtype`` it was built with, else float32
(x64 off, as everywhere in the stubs), and a call's ``dtype`` overrides it,
as JAX's initializers do.  A plain class, an NNX module and an Equinox module
generic in their dtype keep it.  ``nnx.Param``'s (and ``nnx.BatchStat``'s...)
``get_value()`` and ``[...]`` give the declared array type in every set-up
(the stub of ``flax.nnx`` keeps the array's dtype in Flax's ``[...]``); Linen's
``self.param``/``self.variable`` are typed by the mypy plugin only
(deviations written at each line).

A line marked E (in a trailing comment) must get an error in every checker;
every other line must get none (a failed ``assert_type`` is an error).
Checked by tests/test_jax_stubs.py with the generated stubs, and run by
tests/test_layer_stubs.py with JAX, flax and equinox, where each
``assert_type`` checks the dtype of the value (the answers are JAX's).
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import equinox as eqx
import flax.linen as nn
import jax
import jax.numpy as jnp
from flax import nnx
from typing_extensions import assert_type

from jaxtypes import bfloat16, complex64, float16, float32, int8

D = TypeVar("D")


# -- initializers: the builder's dtype, else float32; a call's dtype wins
def initializers(key: jax.Array, x: jax.Array[bfloat16], unknown: Any) -> None:
    init = jax.nn.initializers.lecun_normal()
    assert_type(init(key, (3, 4)), jax.Array[float32])
    assert_type(init(key, (3, 4), jnp.bfloat16), jax.Array[bfloat16])
    assert_type(init(key, (3, 4), dtype=x.dtype), jax.Array[bfloat16])
    assert_type(init(key, (3, 4), unknown), jax.Array[Any])
    assert_type(init(key, (3, 4), jnp.float64), jax.Array[Any])  # (float32 with x64 off)
    assert_type(jax.nn.initializers.normal(0.02, dtype=jnp.bfloat16)(key, (3,)), jax.Array[bfloat16])
    assert_type(jax.nn.initializers.normal(0.02, dtype=jnp.bfloat16)(key, (3,), jnp.float16), jax.Array[float16])
    assert_type(nn.initializers.xavier_uniform()(key, (3, 3)), jax.Array[float32])
    assert_type(nn.initializers.truncated_normal(0.02)(key, (3,), jnp.float16), jax.Array[float16])
    assert_type(nnx.initializers.he_normal(dtype=jnp.float16)(key, (3, 3)), jax.Array[float16])
    assert_type(nnx.initializers.orthogonal()(key, (3, 3), jnp.complex64), jax.Array[complex64])
    scaling = jax.nn.initializers.variance_scaling(2.0, "fan_in", "truncated_normal", dtype=jnp.bfloat16)
    assert_type(scaling(key, (3, 3)), jax.Array[bfloat16])
    assert_type(jax.nn.initializers.constant(-7, jnp.int8)(key, (3,)), jax.Array[int8])
    assert_type(nn.initializers.zeros(key, (3,)), jax.Array[float32])
    assert_type(nnx.initializers.ones(key, (3,), jnp.int8), jax.Array[int8])
    declared: jax.nn.initializers.Initializer = jax.nn.initializers.glorot_normal()
    assert_type(declared(key, (3, 3), jnp.bfloat16), jax.Array[bfloat16])
    kernel: jax.Array[bfloat16] = nn.initializers.lecun_normal()(key, (3, 3), jnp.bfloat16)
    wrong: jax.Array[bfloat16] = nn.initializers.lecun_normal()(key, (3, 3))  # E: assignment
    # NNX parameters made by an initializer hold its array
    param = nnx.Param(jax.nn.initializers.normal()(key, (4,), jnp.bfloat16))
    assert_type(param.get_value(), jax.Array[bfloat16])
    assert_type(x * param.get_value(), jax.Array[bfloat16])
    assert_type(kernel, jax.Array[bfloat16])


# -- a plain class generic in its dtype
class Scale(Generic[D]):
    def __init__(self, value: jax.Array[D]) -> None:
        self.value = value

    def __call__(self, x: jax.Array[D]) -> jax.Array[D]:
        return x * self.value


# -- an NNX module generic in its dtype, holding an nnx.Param of it
class RMSNorm(nnx.Module, Generic[D]):
    def __init__(self, scale: jax.Array[D]) -> None:
        self.scale = nnx.Param(scale)

    def __call__(self, x: jax.Array[D]) -> jax.Array[D]:
        return x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6) * self.scale.get_value()


# -- an Equinox module generic in its dtype: its fields as declared
class Bias(eqx.Module, Generic[D]):
    weight: jax.Array[D]

    def __call__(self, x: jax.Array[D]) -> jax.Array[D]:
        return x + self.weight


def generic_classes(x: jax.Array[bfloat16], wide: jax.Array[float32], param: nnx.Param[jax.Array[float32]]) -> None:
    assert_type(Scale(jnp.ones(4, jnp.bfloat16))(x), jax.Array[bfloat16])
    Scale(jnp.ones(4, jnp.bfloat16))(wide)  # E: argument
    norm = RMSNorm(jnp.ones(4, jnp.bfloat16))
    assert_type(norm.scale.get_value(), jax.Array[bfloat16])
    assert_type(norm(x), jax.Array[bfloat16])
    bias: Bias[float32] = Bias(jnp.zeros(4, jnp.float32))
    assert_type(bias.weight, jax.Array[float32])
    assert_type(bias(wide), jax.Array[float32])
    # not in pyrefly and ty: they do not solve a generic Equinox module's parameter from its fields' __init__
    assert_type(Bias(jnp.zeros(4, jnp.float32)).weight, jax.Array[float32])
    assert_type(param.get_value(), jax.Array[float32])
    assert_type(param[...], jax.Array[float32])
    assert_type(norm.scale[...], jax.Array[bfloat16])
    stats = nnx.BatchStat(jnp.zeros(4, jnp.int8))
    assert_type(stats[...], jax.Array[int8])


# -- what Flax's own code makes stays assignable to nnx.Variable and nnx.Param
def flax_made_variables() -> None:
    rngs = nnx.Rngs(0)
    key: nnx.Variable[Any] = rngs.params.key
    kernel: nnx.Param[jax.Array] = nnx.Linear(2, 3, rngs=rngs).kernel
    del key, kernel


# -- Linen: self.param and self.variable give what the initializer returns
class Dense(nn.Module):
    features: int = 4
    param_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, x: jax.Array[bfloat16]) -> jax.Array:
        weights = self.param("kernel", nn.initializers.lecun_normal(), (x.shape[-1], self.features), jnp.bfloat16)
        # plugin only (the others: Array[Any]): Flax declares init_fn Callable[..., T], blind to its arguments; the plugin checks the call Flax makes
        assert_type(weights, jax.Array[bfloat16])
        bias = self.param("bias", nn.initializers.zeros, (self.features,))
        # plugin only (the others: Array[Any]): the same
        assert_type(bias, jax.Array[float32])
        count = self.variable("stats", "count", jnp.zeros, (), jnp.int8)
        # plugin only (the others: Array[Any]): the same
        assert_type(count.value, jax.Array[int8])
        scale = self.param("scale", nn.initializers.ones, (self.features,), self.param_dtype)
        # not in ty: ty solves Callable[..., T] from every overload of the initializer, Array[Any] | Array[float32]
        assert_type(scale, jax.Array[Any])
        return x @ weights + bias * scale
