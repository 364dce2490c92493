"""Flax's dtype helpers, its attention masks, ``nnx.value_and_grad`` and
``x.argsort()`` with the stubs of `jaxtypes jax-stubs`: what public Flax
code calls between its layers and in its training steps.

``promote_dtype`` casts its arguments to the ``dtype`` given, else to their
common dtype made inexact (an integer or bool one becomes float32); Linen's
returns a list, NNX's a tuple.  ``onehot`` is float32, and ``argsort`` JAX's
default integer (int32 with x64 off, as the stubs assume).  Where the
dtype is not known statically (a dtype typed Any, arrays of two dtypes with
no dtype given, an argument that may be None) the elements are ``Any``.
``zeros_init()`` and ``ones_init()`` make JAX's ``zeros`` and ``ones``;
``make_causal_mask`` and ``make_attention_mask`` (Linen's and NNX's) are
of the ``dtype`` given, float32 by default; ``nnx.value_and_grad(f)`` gives
``f``'s value beside the gradient.

A line marked E (in a trailing comment) must get an error in every checker;
every other line must get none (a failed ``assert_type`` is an error).
Checked by tests/test_jax_stubs.py with the generated stubs, and run by
tests/test_flax_helpers.py with JAX and flax, x64 off and (but argsort's,
int32 with x64 off, and the initializers', float32) on, where each ``assert_type`` checks the value's type and dtypes (the
answers are flax's).
"""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx
from flax.linen.dtypes import promote_dtype
from flax.nnx.nn import dtypes as nnx_dtypes
from flax.training.common_utils import onehot
from typing_extensions import assert_type

from jaxtypes import bfloat16, bool_, float16, float32, int8, int32


# -- Linen's promote_dtype, as Flax's own layers and public models call it
def linen_promote(
    x: jax.Array[bfloat16],
    w: jax.Array[float32],
    i: jax.Array[int32],
    j: jax.Array[int8],
    bias: jax.Array[float32] | None,
    dtype: Any,
) -> jax.Array[bfloat16]:
    q, k = promote_dtype(x, w, dtype=jnp.bfloat16)
    assert_type(q, jax.Array[bfloat16])
    assert_type(k, jax.Array[bfloat16])
    assert_type(promote_dtype(x, w, dtype=jnp.float16), list[jax.Array[float16]])
    assert_type(promote_dtype(w, dtype=x.dtype), list[jax.Array[bfloat16]])
    assert_type(promote_dtype(x, np.ones(2, np.float32), 1.0, dtype=jnp.float32), list[jax.Array[float32]])
    assert_type(promote_dtype(x, j, dtype=jnp.int8, inexact=False), list[jax.Array[int8]])
    # dtype=None: one inexact dtype is kept; integers become float32, x64 or not
    assert_type(promote_dtype(x, x), list[jax.Array[bfloat16]])
    assert_type(promote_dtype(w, w, w, w), list[jax.Array[float32]])
    assert_type(promote_dtype(i, j), list[jax.Array[float32]])
    assert_type(promote_dtype(i, i, inexact=False), list[jax.Array[int32]])
    # not known statically: elements of unknown type, as Flax declares them
    assert_type(promote_dtype(x, w), list[Any])
    assert_type(promote_dtype(x, w, dtype=dtype), list[Any])
    assert_type(promote_dtype(x, bias, dtype=jnp.float32), list[Any])
    assert_type(promote_dtype(x, w, dtype=jnp.float64), list[Any])
    narrow: jax.Array[bfloat16] = promote_dtype(w, dtype=jnp.bfloat16)[0]
    wide: jax.Array[float32] = promote_dtype(w, dtype=jnp.bfloat16)[0]  # E: assignment
    return narrow + q


# -- NNX's promote_dtype: a tuple in, a tuple of the same length out
def nnx_promote(x: jax.Array[bfloat16], w: jax.Array[float32], i: jax.Array[int32], bias: jax.Array | None) -> None:
    inputs, kernel = nnx_dtypes.promote_dtype((x, w), dtype=jnp.float32)
    assert_type(inputs, jax.Array[float32])
    assert_type(kernel, jax.Array[float32])
    assert_type(
        nnx_dtypes.promote_dtype((x, w, i), dtype=jnp.bfloat16),
        tuple[jax.Array[bfloat16], jax.Array[bfloat16], jax.Array[bfloat16]],
    )
    assert_type(nnx_dtypes.promote_dtype((x, x)), tuple[jax.Array[bfloat16], jax.Array[bfloat16]])
    assert_type(nnx_dtypes.promote_dtype((i,)), tuple[jax.Array[float32]])
    # Flax declares the arguments' own types (Array[bfloat16], Array[float32]) here
    assert_type(nnx_dtypes.promote_dtype((x, w)), tuple[Any, ...])
    assert_type(nnx_dtypes.promote_dtype((x, w, bias), dtype=jnp.float32), tuple[Any, ...])


# -- common_utils.onehot ends with .astype(jnp.float32), whatever its inputs
def onehot_values(labels: jax.Array[int32]) -> None:
    assert_type(onehot(labels, 10), jax.Array[float32])
    assert_type(onehot(labels.astype(jnp.int8), 4, on_value=2, off_value=0), jax.Array[float32])


# -- argsort's indices: JAX's default integer, whatever the array's dtype
def argsort_indices(x: jax.Array[bfloat16], unknown: jax.Array) -> None:
    assert_type(x.argsort(), jax.Array[int32])
    assert_type(unknown.argsort(axis=-1, descending=True), jax.Array[int32])


# -- zeros_init()/ones_init() are JAX's zeros and ones: float32 (x64 off), or the dtype given
def constant_initializers(key: jax.Array) -> None:
    assert_type(nn.initializers.zeros_init()(key, (2, 3)), jax.Array[float32])
    assert_type(nn.initializers.ones_init()(key, (2,), jnp.float16), jax.Array[float16])
    assert_type(nnx.initializers.zeros_init()(key, (2,), dtype=jnp.bfloat16), jax.Array[bfloat16])


# -- attention masks end with .astype(dtype): float32 unless a dtype is given
def attention_masks(tokens: jax.Array[int32], dtype: Any) -> None:
    assert_type(nn.make_causal_mask(tokens), jax.Array[float32])
    assert_type(nn.make_causal_mask(tokens, dtype=jnp.bool_), jax.Array[bool_])
    assert_type(nn.make_attention_mask(tokens > 0, tokens > 0, dtype=jnp.bfloat16), jax.Array[bfloat16])
    assert_type(nnx.make_causal_mask(tokens, extra_batch_dims=1, dtype=tokens.dtype), jax.Array[int32])
    assert_type(nnx.make_attention_mask(tokens, tokens, jnp.greater_equal), jax.Array[float32])
    # not known statically: a dtype typed Any, one x64 changes, a positional one
    assert_type(nn.make_causal_mask(tokens, dtype=dtype), jax.Array[Any])
    assert_type(nn.make_causal_mask(tokens, dtype=jnp.float64), jax.Array[Any])
    assert_type(nn.make_causal_mask(tokens, 0, jnp.bfloat16), jax.Array[Any])
    half: jax.Array[bfloat16] = nn.make_causal_mask(tokens)  # E: assignment


# -- nnx.value_and_grad: f's value (and aux), beside the gradient
class Regressor(nnx.Module):
    def __init__(self, rngs: nnx.Rngs) -> None:
        self.linear = nnx.Linear(3, 2, rngs=rngs)

    def __call__(self, x: jax.Array[float32]) -> jax.Array[float32]:
        return self.linear(x)


def nnx_value_and_grad(x: jax.Array[float32]) -> jax.Array[float32]:
    def loss_fn(model: Regressor, x: jax.Array[float32]) -> jax.Array[float32]:
        return jnp.mean(model(x))

    def with_aux(model: Regressor, x: jax.Array[float32]) -> tuple[jax.Array[float32], jax.Array[bfloat16]]:
        y = model(x)
        return jnp.mean(y), y.astype(jnp.bfloat16)

    def of_a_layer(layer: nnx.Linear, x: jax.Array[float32]) -> jax.Array[float32]:
        return jnp.mean(layer(x))

    model = Regressor(nnx.Rngs(0))
    loss, grads = nnx.value_and_grad(loss_fn)(model, x)
    assert_type(loss, jax.Array[float32])
    (value, aux), _ = nnx.value_and_grad(with_aux, has_aux=True)(model, x)
    assert_type(value, jax.Array[float32])
    assert_type(aux, jax.Array[bfloat16])
    by_params, _ = nnx.value_and_grad(loss_fn, argnums=nnx.DiffState(0, nnx.Param))(model, x)
    assert_type(by_params, jax.Array[float32])
    assert_type(nnx.value_and_grad(of_a_layer)(model.linear, x)[0], jax.Array[float32])
    halved: jax.Array[bfloat16] = nnx.value_and_grad(loss_fn)(model, x)[0]  # E: assignment
    return loss
