"""Dtype values as annotations: ``jaxtypes.typing.DType[D]`` (issue 49).

A line marked E (in a trailing comment) must get an error in every checker;
every other line must get none (a failed ``assert_type`` is an error).
Checked by tests/test_jax_stubs.py, with the generated stubs only.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Generic, NamedTuple, TypeVar, Union

import jax
import jax.numpy as jnp
import numpy as np
from typing_extensions import assert_type

from jaxtypes import bfloat16, bool_, float32, int8, int32
from jaxtypes.typing import DType, DtypeMarker, DTypeLike, floating, inexact, integer

D = TypeVar("D", bound=DtypeMarker)


# -- JAX's scalar types and x.dtype are DType values of their dtype
def values(x: jax.Array[float32]) -> None:
    a: DType[bfloat16] = jnp.bfloat16
    b: DType[float32] = x.dtype
    c: DType[Any] = jnp.int8
    d: DType[Any] = x.dtype
    e: DType[bfloat16] = jnp.float32  # E: assignment
    f: DType[bfloat16] = x.dtype  # E: assignment
    # strings and numpy dtype objects carry no dtype a checker can read
    g: DTypeLike = "bfloat16"
    h: jnp.dtype = x.dtype
    # but the mypy plugin's: a dtype's names, and for DType[Any] any string or numpy dtype
    i: DType[bfloat16] = "bfloat16"
    j: DType[Any] = "float32"
    k: DType[Any] = np.dtype("bfloat16")
    m: DType[float32] = "bfloat16"  # E: assignment
    assert_type(x.astype(i), jax.Array[bfloat16])
    del a, b, c, d, e, f, g, h, i, j, k, m


# -- read back by astype and dtype=
def read_back(x: jax.Array[float32], key: jax.Array, dtype: DType[bfloat16]) -> None:
    assert_type(x.astype(dtype), jax.Array[bfloat16])
    assert_type(jnp.zeros(3, dtype=dtype), jax.Array[bfloat16])
    assert_type(jnp.ones((2, 2), dtype), jax.Array[bfloat16])
    assert_type(jnp.sum(x, dtype=dtype), jax.Array[bfloat16])
    assert_type(jax.random.normal(key, (3,), dtype=dtype), jax.Array[bfloat16])
    assert_type(jnp.asarray(x, dtype=dtype), jax.Array[bfloat16])


# -- read back by preferred_element_type= as by dtype=: JAX gives that dtype
# for two arrays of one narrower dtype of its kind
def preferred(a: jax.Array[bfloat16], b: jax.Array[int8], wide: jax.Array[float32], dtype: DType[float32]) -> None:
    assert_type(jnp.dot(a, a, preferred_element_type=dtype), jax.Array[float32])
    assert_type(jnp.matmul(a, a, preferred_element_type=dtype), jax.Array[float32])
    assert_type(jnp.einsum("ij,jk->ik", a, a, preferred_element_type=dtype), jax.Array[float32])
    dims = (((1,), (0,)), ((), ()))
    assert_type(jax.lax.dot_general(a, a, dims, preferred_element_type=dtype), jax.Array[float32])
    assert_type(jnp.dot(a, a, preferred_element_type=wide.dtype), jax.Array[float32])
    assert_type(jnp.dot(b, b, preferred_element_type=jnp.int32), jax.Array[int32])
    accumulated: jax.Array[bfloat16] = jnp.dot(a, a, preferred_element_type=dtype)  # E: assignment


# -- a TypeVar solved from a dtype value
def cast(x: jax.Array, dtype: DType[D]) -> jax.Array[D]:
    return x.astype(dtype)


def zeros_like_dtype(shape: tuple[int, ...], dtype: DType[D]) -> jax.Array[D]:
    return jnp.zeros(shape, dtype)


def generic_calls(x: jax.Array[float32], y: jax.Array[int8]) -> None:
    assert_type(cast(x, jnp.bfloat16), jax.Array[bfloat16])
    assert_type(cast(y, x.dtype), jax.Array[float32])
    assert_type(cast(x, y.dtype), jax.Array[int8])
    assert_type(zeros_like_dtype((3,), jnp.bfloat16), jax.Array[bfloat16])
    cast(x, 1.0)  # E: argument
    Layer(jnp.bfloat16).with_dtype("float32")  # E: argument


# -- numpy's dtype objects and a dtype's names, where JAX reads them: the
# mypy plugin types np.dtype("bfloat16") as x.dtype of bfloat16 (numpy's
# stubs know no bfloat16) and solves a DType[D] from a name; the other
# set-ups cannot say which string or numpy dtype is D's
def named_dtypes(x: jax.Array[float32], y: jax.Array[int8]) -> None:
    a: DType[bfloat16] = jnp.dtype(jnp.bfloat16)
    b: DType[bfloat16] = np.dtype("bfloat16")
    wrong: DType[float32] = np.dtype("bfloat16")  # E: assignment
    del a, b, wrong
    assert_type(x.astype(np.dtype("bfloat16")), jax.Array[bfloat16])
    assert_type(jnp.zeros(3, jnp.dtype(jnp.bfloat16)), jax.Array[bfloat16])
    assert_type(cast(x, "bfloat16"), jax.Array[bfloat16])
    assert_type(cast(y, np.dtype(np.float32)), jax.Array[float32])
    assert_type(Layer("bfloat16")(x), jax.Array[bfloat16])
    assert_type(Layer(jnp.bfloat16).with_dtype("bfloat16")(y), jax.Array[bfloat16])


# -- a parameter with a dtype default, annotated: pyright and basedpyright
# infer an unannotated one from its default (``dtype=jnp.float32`` is then
# ``type[float32]`` only), so annotating it is what lets other dtypes in
def init(key: jax.Array, shape: tuple[int, ...], dtype: DType[Any] = jnp.float32) -> jax.Array:
    return jax.random.normal(key, shape, dtype)


def initializers(key: jax.Array, x: jax.Array[bfloat16]) -> None:
    init(key, (3,))
    init(key, (3,), jnp.bfloat16)
    init(key, (3,), x.dtype)


# -- configs: dataclass fields and NamedTuples holding dtypes
@dataclasses.dataclass(frozen=True)
class OptimizerConfig:
    learning_rate: float = 1e-3
    mu_dtype: DType[bfloat16] = jnp.bfloat16
    param_dtype: DType[float32] = jnp.float32


class Precision(NamedTuple):
    compute: DType[bfloat16]
    accumulate: DType[float32]


@dataclasses.dataclass
class Layer(Generic[D]):
    dtype: DType[D]

    def __call__(self, x: jax.Array) -> jax.Array[D]:
        return x.astype(self.dtype)

    def with_dtype(self, dtype: DType[D]) -> Layer[D]:
        return Layer(dtype)


def configs(x: jax.Array[float32]) -> None:
    config = OptimizerConfig()
    assert_type(x.astype(config.mu_dtype), jax.Array[bfloat16])
    assert_type(jnp.zeros_like(x, dtype=config.param_dtype), jax.Array[float32])
    precision = Precision(jnp.bfloat16, jnp.float32)
    assert_type(jnp.ones(3, precision.compute), jax.Array[bfloat16])
    assert_type(Layer(jnp.bfloat16)(x), jax.Array[bfloat16])
    assert_type(Layer(x.dtype)(x), jax.Array[float32])
    OptimizerConfig(mu_dtype=jnp.float32)  # E: argument


# -- arithmetic on an Array[F], F bound to a category: the plugin answers
# Array[F] where JAX's rule keeps every dtype of the category (its exact
# answers are checked against JAX by tests/test_bound_dtypes.py); the stubs
# alone answer the operators so too (generic_operators), and give the
# functions Array[Any], never an error
F = TypeVar("F", bound=floating)
Narrow = TypeVar("Narrow", bound=Union[int8, int32])


def rms_norm(x: jax.Array[F], eps: float = 1e-6) -> jax.Array[F]:
    scale = jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps)
    return x * scale


def generic_arithmetic(x: jax.Array[F], y: jax.Array[float32]) -> None:
    doubled: jax.Array[F] = x * 2.0
    squared: jax.Array[F] = x**2
    rooted: jax.Array[F] = jnp.sqrt(x)
    averaged: jax.Array[F] = jnp.mean(x)
    squashed: jax.Array[F] = jnp.tanh(x)
    same: jax.Array[F] = x.astype(x.dtype)
    mixed: jax.Array = x * y  # (JAX refuses float8 * float32: no single answer)
    del doubled, squared, rooted, averaged, squashed, same, mixed
    assert_type(rms_norm(jnp.ones(3, jnp.bfloat16)), jax.Array[bfloat16])


def standardized(x: jax.Array[F]) -> jax.Array[F]:
    return (x - x.mean()) / 2.0 * x


def generic_operators(x: jax.Array[F], i: jax.Array[Narrow], y: jax.Array[float32]) -> None:
    assert_type(x * 2.0, jax.Array[F])
    assert_type(2.0 * x, jax.Array[F])
    assert_type(x**2, jax.Array[F])
    assert_type(1.0 - x, jax.Array[F])
    assert_type(x / jnp.asarray(2.0), jax.Array[F])
    assert_type(i * 2, jax.Array[Narrow])
    # every integer of the bound divides to float32
    assert_type(i / i, jax.Array[float32])
    # JAX refuses float8 * float32: no one answer, and no error
    assert_type(y * x, jax.Array[Any])
    assert_type(standardized(jnp.ones(3, jnp.bfloat16)), jax.Array[bfloat16])


# -- reductions of an Array[F]: where JAX's rule gives each dtype of the bound
# back (sum, mean, max of any float; a 64-bit one is its 32-bit one with x64
# off, and no array has its dtype then), Array[F] in every set-up (the dtypes
# per method are checked against JAX by tests/test_bound_dtypes.py)
C = TypeVar("C", bound=inexact)
I = TypeVar("I", bound=integer)


def total(x: jax.Array[F]) -> jax.Array[F]:
    return x.sum()


def centred(x: jax.Array[F]) -> jax.Array[F]:
    return x - x.mean(axis=-1, keepdims=True)


def reductions(x: jax.Array[F], z: jax.Array[C], i: jax.Array[I], n: jax.Array[Narrow]) -> None:
    assert_type(x.sum(), jax.Array[F])
    assert_type(x.prod(), jax.Array[F])
    assert_type(x.mean(), jax.Array[F])
    assert_type(x.var(), jax.Array[F])
    assert_type(x.std(axis=0), jax.Array[F])
    assert_type(x.max(), jax.Array[F])
    assert_type(x.min(axis=-1), jax.Array[F])
    assert_type(x.round(), jax.Array[F])
    assert_type(z.sum(), jax.Array[C])
    assert_type(z.mean(), jax.Array[C])
    assert_type(z.max(), jax.Array[C])
    assert_type(i.max(), jax.Array[I])
    # int8 sums to int32 (promote_integers): the TypeVar is not kept
    summed: jax.Array[int32] = n.sum()
    # a dtype= argument is the result's dtype
    assert_type(x.sum(dtype=jnp.float32), jax.Array[float32])
    del summed


# -- functions of one array of an Array[F]: F where the function gives each
# dtype of the bound back (checked against JAX per dtype by
# tests/test_bound_dtypes.py); a function of one result dtype gives it, also
# for an array of unknown dtype
def softmax_cross_entropy(logits: jax.Array[F], labels: jax.Array[int32]) -> jax.Array[F]:
    shifted = logits - jnp.max(logits, axis=-1, keepdims=True)
    log_probs = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=-1, keepdims=True))
    return -jnp.take_along_axis(log_probs, labels[..., None], axis=-1)[..., 0]


def generic_functions(x: jax.Array[F], z: jax.Array[C], n: jax.Array[Narrow], a: jax.Array) -> None:
    assert_type(jnp.mean(x), jax.Array[F])
    assert_type(jnp.sqrt(x), jax.Array[F])
    assert_type(jax.nn.gelu(x), jax.Array[F])
    assert_type(jax.nn.softmax(x, axis=-1), jax.Array[F])
    assert_type(jnp.exp(z), jax.Array[C])
    assert_type(jnp.max(n, axis=0), jax.Array[Narrow])
    assert_type(jnp.argmax(x, axis=-1), jax.Array[int32])
    assert_type(jnp.argmax(a, axis=-1), jax.Array[int32])
    assert_type(jnp.isfinite(a), jax.Array[bool_])
    assert_type(softmax_cross_entropy(jnp.ones((2, 3), jnp.bfloat16), jnp.zeros(2, jnp.int32)), jax.Array[bfloat16])
