"""Pytrees and JAX's transforms with the stubs of `jaxtypes jax-stubs`:
``jax.tree.map`` (and ``jax.tree_util.tree_map``) of a function whose result
type is declared, over a dict, a list or a tuple of arrays (one tree or two),
keeps the container and gives each leaf the function's result; any other
tree (nested, a NamedTuple, a dataclass) keeps JAX's declaration (``Any``),
as no checker can map each field type of a class through a function (the
mypy plugin gives a NamedTuple or dataclass whose every leaf the function
gives back in its own type that type).
``jax.tree.reduce`` with an ``initializer`` gives the function's result or
the initializer.  ``jax.jit`` keeps the wrapped function's declared types.
``lax.cond``/``lax.switch`` branches and ``lax.fori_loop``/``lax.scan``/
``lax.while_loop`` carries must keep one dtype (JAX raises a TypeError when it
traces the call); ``x.at[i].set(v)``/``.add(v)`` of a complex value into a real
array, or of a floating value into an integer one, loses part of the value
(JAX casts it with a FutureWarning).

A line marked E (in a trailing comment) must get an error in every checker;
every other line must get none (a failed ``assert_type`` is an error).
Checked by tests/test_jax_stubs.py with the generated stubs, and run under
JAX by tests/test_pytrees_and_control_flow.py, where each ``assert_type`` checks
the dtype of the value and each marked line shows what JAX does.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeVar

import jax
import jax.numpy as jnp
from jax import lax
from typing_extensions import assert_type

from jaxtypes import bfloat16, complex64, float32, int32

D = TypeVar("D")

def decay(p: jax.Array[float32]) -> jax.Array[float32]:
    return p * 0.9


def to_bf16(p: jax.Array[float32]) -> jax.Array[bfloat16]:
    return p.astype(jnp.bfloat16)


def sgd(p: jax.Array[float32], g: jax.Array[bfloat16]) -> jax.Array[float32]:
    return p - 0.1 * g


def add(total: jax.Array[float32], p: jax.Array[float32]) -> jax.Array[float32]:
    return total + jnp.sum(p)


class AdamState(NamedTuple):
    step: jax.Array[int32]
    mu: dict[str, jax.Array[float32]]


class Moments(NamedTuple):
    mu: dict[str, jax.Array[float32]]
    nu: dict[str, jax.Array[float32]]


def doubled(x: jax.Array[D]) -> jax.Array[D]:
    return x * 2


# -- tree maps over parameter dicts, lists and tuples keep the container
def tree_maps(params: dict[str, jax.Array[float32]], grads: dict[str, jax.Array[bfloat16]]) -> None:
    w, b = params["w"], params["b"]
    assert_type(jax.tree.map(decay, params), dict[str, jax.Array[float32]])
    assert_type(jax.tree.map(to_bf16, params), dict[str, jax.Array[bfloat16]])
    assert_type(jax.tree_util.tree_map(to_bf16, params), dict[str, jax.Array[bfloat16]])
    assert_type(jax.tree.map(sgd, params, grads), dict[str, jax.Array[float32]])
    assert_type(jax.tree.map(to_bf16, [w, b]), list[jax.Array[bfloat16]])
    assert_type(jax.tree.map(to_bf16, (w, b)), tuple[jax.Array[bfloat16], jax.Array[bfloat16]])
    assert_type(jax.tree.map(sgd, (w,), (grads["w"],)), tuple[jax.Array[float32]])
    # a lambda: its result where the checker infers the lambda from the tree
    # (ty; pyright and pyrefly: Array[Any] or JAX's Any; mypy: JAX's Any)
    scaled = jax.tree.map(lambda p: p * 0.9, params)
    assert scaled["w"].dtype == jnp.float32
    # optimizer-state-like NamedTuples keep their field types
    state = AdamState(jnp.zeros((), jnp.int32), params)
    assert_type(state.step, jax.Array[int32])
    assert_type(jax.tree.map(decay, state.mu), dict[str, jax.Array[float32]])
    # trees the checkers cannot map (a NamedTuple, a nested dict): JAX's Any
    assert_type(jax.tree.map(decay, state), Any)
    assert_type(jax.tree.map(decay, {"layer": params}), Any)
    # with the plugin, a NamedTuple (or dataclass) whose every leaf the
    # function gives back in its own type stays itself
    moments = Moments(params, params)
    assert_type(jax.tree.map(decay, moments), Moments)
    assert_type(jax.tree.map(doubled, state), AdamState)
    decayed = jax.tree.map(decay, params)
    halves: dict[str, jax.Array[bfloat16]] = decayed  # E: assignment


# -- reductions with an initializer: the function's result, or the initializer
def tree_reductions(params: dict[str, jax.Array[float32]]) -> None:
    total = jax.tree.reduce(lambda acc, x: acc + jnp.sum(x), params, initializer=0)
    assert jnp.asarray(total).dtype == jnp.float32
    assert_type(jax.tree.reduce(add, params, jnp.zeros((), jnp.float32)), jax.Array[float32])
    assert_type(jax.tree.reduce(add, params, initializer=jnp.zeros((), jnp.float32)), jax.Array[float32])


# -- jax.jit keeps the wrapped function's declared parameters and result
def jitted(params: dict[str, jax.Array[float32]], grads: dict[str, jax.Array[bfloat16]]) -> None:
    def update(p: dict[str, jax.Array[float32]], g: dict[str, jax.Array[bfloat16]]) -> AdamState:
        return AdamState(jnp.zeros((), jnp.int32), jax.tree.map(sgd, p, g))

    state = jax.jit(update)(params, grads)
    assert_type(state, AdamState)
    assert_type(state.mu, dict[str, jax.Array[float32]])
    assert_type(jax.jit(to_bf16)(params["w"]), jax.Array[bfloat16])
    kept: jax.Array[float32] = jax.jit(to_bf16)(params["w"])  # E: assignment

    # a function whose parameters hold Any (a bare jax.Array) keeps its types
    # too: mypy answered Any where JAX's own declaration also matched
    @jax.jit
    def step(p: dict[str, jax.Array], x: jax.Array[float32]) -> jax.Array[bfloat16]:
        return (x * 2).astype(jnp.bfloat16)

    assert_type(step(params, params["w"]), jax.Array[bfloat16])
    assert_type(jax.checkpoint(step)(params, params["w"]), jax.Array[bfloat16])

    # and so does grad/value_and_grad of one
    def loss(p: dict[str, jax.Array], x: jax.Array[float32]) -> jax.Array[float32]:
        return jnp.sum(p["w"] * x)

    loss_value, _ = jax.value_and_grad(loss)(params, params["w"])
    assert_type(loss_value, jax.Array[float32])


def count_as_float(i: int, x: jax.Array[int32]) -> jax.Array[float32]:
    return x.astype(jnp.float32)


def count_up(i: int, x: jax.Array[int32]) -> jax.Array[int32]:
    return x + 1


def scale_as_float(x: jax.Array[int32]) -> jax.Array[float32]:
    return x.astype(jnp.float32) * 1.5


def below_three(x: jax.Array[int32]) -> jax.Array:
    return jnp.all(x < 3)


def running_mean(c: jax.Array[int32], x: jax.Array[float32]) -> tuple[jax.Array[float32], jax.Array[float32]]:
    return c + x, x


# -- branches and carries of one dtype; JAX raises a TypeError at trace time
# for each marked line.  The stubs give both branches, or the carry and the
# body's result, one TypeVar: pyright, basedpyright, pyrefly and ty solve it
# to the union of the two dtypes and mypy to their join or JAX's own
# declaration, so only the mypy plugin reports cond, switch and fori_loop;
# scan's and while_loop's declarations (JAX's own) make a body of declared
# types an argument error in every checker.
def control_flow(f: jax.Array[float32], i: jax.Array[int32], key: jax.Array) -> None:
    assert_type(lax.cond(True, lambda: f, lambda: f * 2), jax.Array[float32])
    assert_type(lax.fori_loop(0, 3, count_up, i), jax.Array[int32])
    # (only the plugin reports it; the others: one TypeVar for both branches)
    lax.cond(True, lambda: f, lambda: i)  # E: unsupported
    # (only the plugin reports it; the others: one TypeVar for both branches)
    lax.switch(0, (lambda: f, lambda: i))  # E: unsupported
    # (only the plugin reports it; the others: one TypeVar for the carry)
    lax.fori_loop(0, 3, count_as_float, i)  # E: unsupported
    lax.scan(running_mean, i, f)  # E: argument
    lax.while_loop(below_three, scale_as_float, i)  # E: argument


# -- index updates of a value JAX casts lossily into the array's dtype (with a
# FutureWarning, "scatter inputs have incompatible types").  Only the plugin
# reports them: the stubs declare the value of set/add as JAX does, Any.
def index_updates(f: jax.Array[float32], i: jax.Array[int32], c: jax.Array[complex64]) -> None:
    assert_type(f.at[0].set(i[0]), jax.Array[float32])
    assert_type(i.at[0].add(2), jax.Array[int32])
    assert_type(c.at[0].set(f[0]), jax.Array[complex64])
    # (only the plugin reports it; the others: set's value is Any)
    f.at[0].set(c[0])  # E: unsupported
    # (only the plugin reports it; the others: set's value is Any)
    i.at[0].set(1.5)  # E: unsupported
    # (only the plugin reports it; the others: add's value is Any)
    i.at[1].add(f[0])  # E: unsupported
