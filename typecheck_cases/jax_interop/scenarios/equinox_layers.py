"""Equinox's layers with the stubs of `jaxtypes jax-stubs`: a layer's
parameters have its ``dtype`` (JAX's default float when left out: float32,
as the stubs assume x64 off), and it returns what JAX's promotion of its
input and its parameters gives (a convolution needs them in one dtype, a
normalization keeps its input's, an embedding gives its table's).

A line marked E (in a trailing comment) must get an error in every checker;
every other line must get none (a failed ``assert_type`` is an error).
Checked by tests/test_jax_stubs.py with the generated stubs, and run by
tests/test_layer_stubs.py with JAX and equinox, where each ``assert_type``
checks the dtype of the value (the answers are equinox's).
"""

from __future__ import annotations

from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
from typing_extensions import assert_type

from jaxtypes import bfloat16, complex64, float16, float32, int32
from jaxtypes.typing import NoDtype


# -- layers built where they are used, as Equinox's examples build them in
# __init__: literal and default dtypes are exact, a dtype known only at run
# time is Array[Any]
def layers(
    key: jax.Array,
    x: jax.Array[float32],
    h: jax.Array[bfloat16],
    seq: jax.Array[float32],
    image: jax.Array[bfloat16],
    token: jax.Array[int32],
    dtype: Any,
) -> jax.Array[float32]:
    k1, k2 = jax.random.split(key)
    linear = eqx.nn.Linear(4, 3, key=k1)
    assert_type(linear(x), jax.Array[float32])
    assert_type(linear(h), jax.Array[float32])
    assert_type(eqx.nn.Linear(4, 3, dtype=jnp.bfloat16, key=k1)(h), jax.Array[bfloat16])
    assert_type(eqx.nn.Linear(4, 3, dtype=jnp.bfloat16, key=k1)(x), jax.Array[float32])
    assert_type(eqx.nn.Linear(4, 3, dtype=jnp.float16, key=k1)(h), jax.Array[float32])
    assert_type(eqx.nn.Linear(4, 3, dtype=dtype, key=k1)(x), jax.Array[Any])
    assert_type(eqx.nn.Linear(4, 3, key=k1)(x.astype(jnp.complex64)), jax.Array[complex64])
    assert_type(eqx.nn.MLP(4, 3, 8, 2, key=k2)(x), jax.Array[float32])
    assert_type(eqx.nn.MLP(4, 3, 8, 2, dtype=jnp.bfloat16, key=k2)(h), jax.Array[bfloat16])
    assert_type(eqx.nn.Conv1d(4, 3, 2, key=k1)(seq), jax.Array[float32])
    assert_type(eqx.nn.Conv2d(4, 3, 2, dtype=jnp.bfloat16, key=k1)(image), jax.Array[bfloat16])
    assert_type(eqx.nn.ConvTranspose1d(4, 3, 2, key=k1)(seq), jax.Array[float32])
    assert_type(eqx.nn.Embedding(10, 4, key=k1)(token), jax.Array[float32])
    assert_type(eqx.nn.Embedding(10, 4, dtype=jnp.bfloat16, key=k1)(token), jax.Array[bfloat16])
    assert_type(eqx.nn.LayerNorm(4)(x), jax.Array[float32])
    assert_type(eqx.nn.LayerNorm(4)(h), jax.Array[bfloat16])
    assert_type(eqx.nn.RMSNorm(4, dtype=jnp.bfloat16)(x), jax.Array[float32])
    assert_type(eqx.nn.GroupNorm(2, 4)(h), jax.Array[bfloat16])
    assert_type(eqx.nn.Dropout(0.5)(h, key=k2), jax.Array[bfloat16])
    # max pooling keeps the input's dtype
    assert_type(eqx.nn.MaxPool2d(2, 2)(image), jax.Array[bfloat16])
    assert_type(eqx.nn.MaxPool1d(2)(seq), jax.Array[float32])
    # average pooling keeps a float's dtype (an integer's mean is a float)
    assert_type(eqx.nn.AvgPool2d(2, 2)(image), jax.Array[bfloat16])
    assert_type(eqx.nn.AvgPool1d(2)(seq), jax.Array[float32])
    # an integer input is returned as it is in inference mode, else as a float
    assert_type(eqx.nn.Dropout(0.5, inference=True)(token), jax.Array[Any])
    # attention: the query, key and value each go through the parameters, so
    # an answer holds where each alone gives it (mixed, here: Array[Any])
    attention = eqx.nn.MultiheadAttention(1, 5, key=k1)
    assert_type(attention(seq, seq, seq), jax.Array[float32])
    low = seq.astype(jnp.bfloat16)
    half = eqx.nn.MultiheadAttention(1, 5, dtype=jnp.bfloat16, key=k1)
    assert_type(half(low, low, low), jax.Array[bfloat16])
    assert_type(half(seq, seq, seq), jax.Array[float32])
    assert_type(half(low, seq, seq), jax.Array[Any])
    # a positional dtype and float64 (x64 decides) are Array[Any]
    assert_type(eqx.nn.Linear(4, 3, True, jnp.bfloat16, key=k1)(h), jax.Array[Any])
    assert_type(eqx.nn.Linear(4, 3, dtype=jnp.float64, key=k1)(x), jax.Array[Any])
    # a bfloat16 model whose default layer returns float32
    wrong: jax.Array[bfloat16] = linear(h)  # E: assignment
    del wrong
    return linear(x)


# -- jax.vmap over a batch, as Equinox's examples call their layers
def batched(key: jax.Array, xs: jax.Array[float32], hs: jax.Array[bfloat16]) -> jax.Array[float32]:
    linear = eqx.nn.Linear(4, 3, key=key)
    norm = eqx.nn.LayerNorm(4)
    assert_type(jax.vmap(linear)(hs), jax.Array[float32])
    assert_type(jax.vmap(norm)(hs), jax.Array[bfloat16])
    return jax.vmap(linear)(xs)


# -- a normalization with a state gives what Equinox declares
def with_state(x: jax.Array[float32], state: eqx.nn.State) -> eqx.nn.State:
    norm = eqx.nn.LayerNorm(4)
    out, state = norm(x, state)
    del out
    return state


# -- layers held in a module's fields, declared with their parameters' dtype
# (what `jaxtypes annotate` writes): a layer made without dtype (JAX's default
# float) is one of float32 parameters
class Block(eqx.Module):
    linear: eqx.nn.Linear[NoDtype, float32]
    norm: eqx.nn.LayerNorm[NoDtype, float32]
    layers: list[eqx.nn.Linear[NoDtype, float32]]
    half: eqx.nn.Linear[NoDtype, bfloat16]

    def __init__(self, key: jax.Array) -> None:
        self.linear = eqx.nn.Linear(4, 4, key=key)
        self.norm = eqx.nn.LayerNorm(4)
        self.layers = [eqx.nn.Linear(4, 4, key=key), eqx.nn.Linear(4, 4, dtype=jnp.float32, key=key)]
        self.half = eqx.nn.Linear(4, 4, dtype=jnp.bfloat16, key=key)

    def __call__(self, x: jax.Array[float32], h: jax.Array[bfloat16]) -> jax.Array[float32]:
        assert_type(self.linear(x), jax.Array[float32])
        assert_type(self.norm(h), jax.Array[bfloat16])
        assert_type(self.layers[-1](x), jax.Array[float32])
        assert_type(self.half(h), jax.Array[bfloat16])
        return self.norm(self.linear(x))


def fields(key: jax.Array, x: jax.Array[float32], h: jax.Array[bfloat16]) -> jax.Array[float32]:
    wrong: eqx.nn.Linear[NoDtype, float32] = eqx.nn.Linear(4, 4, dtype=jnp.bfloat16, key=key)  # E: assignment
    del wrong
    return Block(key)(x, h)
