# mypy: disable-error-code="import-untyped"
# (Optax ships no py.typed marker: without the stubs mypy reads it as untyped.)
"""Optax's losses and ``optax.global_norm`` with the stubs of `jaxtypes
jax-stubs`: their result is the dtype of the logits, predictions or
gradients (https://github.com/google-deepmind/optax/issues/1020: a bfloat16
loss).  Arrays of two dtypes, which JAX promotes, and arrays of unknown
dtype keep Optax's own ``jax.Array``.

A line marked E (in a trailing comment) must get an error in every checker;
every other line must get none (a failed ``assert_type`` is an error).
Checked by tests/test_jax_stubs.py with the generated stubs, and run by
tests/test_optax_stubs.py with JAX and Optax, x64 off and on, where each
``assert_type`` checks the value's dtype (the answers are Optax's).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax
from typing_extensions import assert_type

from jaxtypes import bfloat16, float16, float32, int32, uint8


def integer_labels(
    logits: jax.Array[bfloat16], wide: jax.Array[float32], labels: jax.Array[int32], small: jax.Array[uint8]
) -> None:
    assert_type(optax.softmax_cross_entropy_with_integer_labels(logits, labels), jax.Array[bfloat16])
    assert_type(optax.losses.softmax_cross_entropy_with_integer_labels(wide, small, axis=-1), jax.Array[float32])
    # the fix of optax#1020: the logits cast to float32
    fixed: jax.Array[float32] = optax.softmax_cross_entropy_with_integer_labels(logits.astype(jnp.float32), labels)
    lost: jax.Array[float32] = optax.softmax_cross_entropy_with_integer_labels(logits, labels)  # E: assignment
    assert fixed.size and lost.size


def classification(x: jax.Array[bfloat16], h: jax.Array[float16], w: jax.Array[float32]) -> None:
    assert_type(optax.softmax_cross_entropy(x, x), jax.Array[bfloat16])
    assert_type(optax.safe_softmax_cross_entropy(h, h), jax.Array[float16])
    assert_type(optax.sigmoid_binary_cross_entropy(w, w), jax.Array[float32])
    assert_type(optax.losses.softmax_cross_entropy(w.astype(jnp.bfloat16), x), jax.Array[bfloat16])
    # both arrays cast: one dtype, in every set-up (mypy too)
    assert_type(optax.softmax_cross_entropy(x.astype(jnp.float32), h.astype(jnp.float32)), jax.Array[float32])
    assert_type(optax.l2_loss(x.astype(jnp.float32), h.astype(jnp.float32)), jax.Array[float32])
    # two dtypes, promoted by JAX (to float32): Optax's own jax.Array
    promoted: jax.Array[float32] = optax.softmax_cross_entropy(x, w)
    wrong: jax.Array[float32] = optax.sigmoid_binary_cross_entropy(x, x)  # E: assignment
    assert promoted.size and wrong.size


def regression(x: jax.Array[bfloat16], h: jax.Array[float16], w: jax.Array[float32]) -> None:
    assert_type(optax.l2_loss(x), jax.Array[bfloat16])
    assert_type(optax.l2_loss(h, h), jax.Array[float16])
    assert_type(optax.squared_error(w, targets=w), jax.Array[float32])
    assert_type(optax.losses.squared_error(x, None), jax.Array[bfloat16])
    assert_type(optax.huber_loss(x, x, delta=2.0), jax.Array[bfloat16])
    assert_type(optax.log_cosh(h), jax.Array[float16])
    assert_type(optax.cosine_similarity(x, x, epsilon=1e-6), jax.Array[bfloat16])
    assert_type(optax.losses.cosine_distance(w, w), jax.Array[float32])
    promoted: jax.Array[float32] = optax.l2_loss(x, w)
    wrong: jax.Array[float32] = optax.huber_loss(h)  # E: assignment
    assert promoted.size and wrong.size


def norms(
    grads: dict[str, jax.Array[bfloat16]], layers: list[jax.Array[float16]], w: jax.Array[float32], x: jax.Array[bfloat16]
) -> None:
    assert_type(optax.global_norm(grads), jax.Array[bfloat16])
    assert_type(optax.global_norm(layers), jax.Array[float16])
    assert_type(optax.global_norm((w, w)), jax.Array[float32])
    assert_type(optax.global_norm(w), jax.Array[float32])
    assert_type(optax.global_norm(x.astype(jnp.float32)), jax.Array[float32])
    # leaves of two dtypes: their squares' sum is promoted (float32)
    promoted: jax.Array[float32] = optax.global_norm({"x": x, "w": w})
    # MaxText's bfloat16 norm (https://github.com/AI-Hypercomputer/maxtext/pull/5143)
    overflowing: jax.Array[float32] = optax.global_norm(grads)  # E: assignment
    assert promoted.size and overflowing.size


def optimizer_step(params: dict[str, jax.Array[float32]], grads: dict[str, jax.Array[float32]]) -> None:
    # the rest of optax as Optax declares it
    optimizer: optax.GradientTransformation = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(1e-3))
    state: optax.OptState = optimizer.init(params)
    updates, state = jax.jit(optimizer.update)(grads, state, params)
    stepped = optax.apply_updates(params, updates)
    assert state is not None and stepped is not None
