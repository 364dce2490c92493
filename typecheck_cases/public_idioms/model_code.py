"""Idioms of public JAX model code, written as Flax, Gemma, Optax and Equinox
examples write them: dtype defaults and config fields, clipping with array-like
bounds, reflected operators in user classes, padding with computed widths,
dtype annotations and dataclass configs.

Correct code (``demo()`` runs it under JAX): the stubs must add no error to
it in any checker (tests/test_user_contexts.py)."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike, DTypeLike


# Config dataclasses with dtype fields and defaults (Flax's examples, Gemma).
@dataclasses.dataclass(frozen=True)
class TransformerConfig:
    vocab_size: int = 64
    emb_dim: int = 8
    dtype: jnp.dtype = jnp.float32
    param_dtype: jnp.dtype = jnp.bfloat16
    logits_dtype: Any = jnp.float32
    compute_dtype: DTypeLike = jnp.bfloat16
    numpy_dtype: np.dtype = jnp.float32
    attention_dtype: jnp.dtype | None = None
    # (sic: a call in a type expression, as one public config writes it)
    cache_dtype: str | type(jnp.float64) = jnp.float32


class TrainState(NamedTuple):
    step: jax.Array
    params: dict[str, jax.Array]


DEFAULT_DTYPE: jnp.dtype = jnp.float32
SUPPORTED_DTYPES: tuple[jnp.dtype, ...] = (jnp.float32, jnp.bfloat16, jnp.float16, jnp.int8)
DTYPE_BY_NAME: dict[str, jnp.dtype] = {"f32": jnp.float32, "bf16": jnp.bfloat16}


# An alias of the dtype types, as RecurrentGemma's array-typing module writes
# it (sic: a call in a type expression), then parameters' defaults of it.
DtypeLikeAlias = str | type(jnp.float64)


def init_weights(
    key: jax.Array,
    shape: tuple[int, ...],
    param_dtype: DtypeLikeAlias = jnp.float32,
    dtype: DtypeLikeAlias = jnp.bfloat16,
) -> jax.Array:
    return jax.random.normal(key, shape, dtype=param_dtype).astype(dtype)


def init_embedding(key: jax.Array, cfg: TransformerConfig, dtype: jnp.dtype = jnp.float32) -> jax.Array:
    table = jax.random.normal(key, (cfg.vocab_size, cfg.emb_dim), dtype=dtype)
    return table.astype(cfg.param_dtype)


def zeros_init(shape: tuple[int, ...], dtype: np.dtype = jnp.float32) -> jax.Array:
    return jnp.zeros(shape, dtype)


def ones_init(shape: tuple[int, ...], dtype: DTypeLike = jnp.float32) -> jax.Array:
    return jnp.ones(shape, dtype=dtype)


def cast_to(x: jax.Array, dtype: jnp.dtype) -> jax.Array:
    return x.astype(dtype)


def cast_default(x: jax.Array, dtype: jnp.dtype = jnp.bfloat16) -> jax.Array:
    return jnp.asarray(x, dtype=dtype)


def embed(cfg: TransformerConfig, table: jax.Array, tokens: jax.Array) -> jax.Array:
    x = jnp.take(table, tokens, axis=0).astype(cfg.dtype)
    return x * jnp.sqrt(cfg.emb_dim).astype(cfg.dtype)


# Clipping with array-like bounds (Optax's clip, gradient clipping).
def clip_by_value(g: jax.Array, lo: ArrayLike, hi: ArrayLike) -> jax.Array:
    g32 = g.astype(jnp.float32)
    a = g32.clip(lo)
    b = g32.clip(lo, hi)
    c = g32.clip(np.float32(-1.0), np.float32(1.0))
    d = g32.clip(min=lo, max=hi)
    e = jnp.clip(g32, lo, hi)
    f = g32.clip(-1, 1) + g32.clip(max=0.5)
    return a + b + c + d + e + f


# Reflected operators of a user class (Equinox-style wrappers, schedules).
class Scale:
    def __init__(self, value: jax.Array) -> None:
        self.value = value

    def __rsub__(self, x: jax.Array) -> jax.Array:
        return x - self.value

    def __rmul__(self, x: jax.Array) -> jax.Array:
        return x * self.value

    def __radd__(self, x: jax.Array) -> jax.Array:
        return x + self.value

    def __rtruediv__(self, x: jax.Array) -> jax.Array:
        return x / self.value

    def __rmatmul__(self, x: jax.Array) -> jax.Array:
        return x @ self.value

    def __rpow__(self, x: jax.Array) -> jax.Array:
        return x**self.value


# Padding with widths computed at trace time (signal processing, convolutions).
def pad_to_even(signal: jax.Array, n: int) -> jax.Array:
    return jnp.pad(signal, ((0, n % 2),))


def pad_computed(signal: jax.Array, n: int) -> jax.Array:
    return jnp.pad(signal, [[0, jnp.mod(n, 2)]])


def pad_reflect(signal: jax.Array, width: int) -> jax.Array:
    return jnp.pad(signal, [(width, width)], mode="reflect")


# Dtypes taken from other arrays and compared.
def masked_logits(logits: jax.Array, mask: jax.Array) -> jax.Array:
    big_neg = jnp.finfo(logits.dtype).min
    return jnp.where(mask, logits, big_neg)


def dtype_of(x: jax.Array) -> jnp.dtype:
    return x.dtype


def is_low_precision(x: jax.Array) -> bool:
    return x.dtype in (jnp.bfloat16, jnp.float16) or x.dtype == jnp.dtype("float16")


def promote_pair(a: jax.Array, b: jax.Array) -> jax.Array:
    dtype = jnp.promote_types(a.dtype, b.dtype)
    return a.astype(dtype) + b.astype(dtype)


def to_param_dtype(params: dict[str, jax.Array], dtype: jnp.dtype = jnp.bfloat16) -> dict[str, jax.Array]:
    return jax.tree_util.tree_map(lambda p: p.astype(dtype), params)


@functools.partial(jax.jit, static_argnames=("dtype",))
def rms_norm(x: jax.Array, scale: jax.Array, dtype: jnp.dtype = jnp.float32) -> jax.Array:
    x32 = x.astype(jnp.float32)
    var = jnp.mean(jnp.square(x32), axis=-1, keepdims=True)
    return (x32 * jax.lax.rsqrt(var + 1e-6) * (1 + scale)).astype(dtype)


def sgd_step(state: TrainState, grads: dict[str, jax.Array], lr: float = 0.1) -> TrainState:
    params = jax.tree.map(lambda p, g: p - lr * g, state.params, grads)
    return TrainState(step=state.step + 1, params=params)


def update_row(x: jax.Array, i: int, row: jax.Array) -> jax.Array:
    return x.at[i].set(row).at[0].add(1.0)


def demo() -> None:
    key = jax.random.key(0)
    cfg = TransformerConfig()
    table = init_embedding(key, cfg)
    assert table.dtype == jnp.bfloat16
    tokens = jnp.array([1, 2, 3])
    x = embed(cfg, table, tokens)
    assert x.dtype == jnp.float32
    assert zeros_init((2,)).dtype == jnp.float32
    assert ones_init((2,), jnp.int8).dtype == jnp.int8
    assert cast_to(x, jnp.dtype("bfloat16")).dtype == jnp.bfloat16
    assert cast_default(x).dtype == jnp.bfloat16
    assert clip_by_value(x, -0.5, np.float32(0.5)).dtype == jnp.float32
    s = Scale(jnp.ones(cfg.emb_dim, jnp.float32))
    for y in (x - s, x * s, x + s, x / s, x ** s):
        assert y.dtype == jnp.float32
    assert (jnp.ones((2, 3)) @ Scale(jnp.ones((3, 3)))).shape == (2, 3)
    assert pad_to_even(jnp.ones(3), 3).shape == (4,)
    assert pad_reflect(jnp.ones(3), 1).shape == (5,)
    assert pad_computed(jnp.ones(3), 3).shape == (4,)
    assert masked_logits(x, x > 0).dtype == jnp.float32
    assert dtype_of(x) == DEFAULT_DTYPE and not is_low_precision(x)
    assert promote_pair(x.astype(jnp.bfloat16), x.astype(jnp.float16)).dtype == jnp.float32
    assert to_param_dtype({"w": x})["w"].dtype == jnp.bfloat16
    assert rms_norm(x, jnp.zeros(cfg.emb_dim), jnp.bfloat16).dtype == jnp.bfloat16
    state = sgd_step(TrainState(jnp.array(0), {"w": x}), {"w": x})
    assert state.params["w"].dtype == jnp.float32
    assert update_row(jnp.zeros((2, 2)), 1, jnp.ones(2)).dtype == jnp.float32
    assert SUPPORTED_DTYPES[1] == DTYPE_BY_NAME["bf16"]
    assert init_weights(key, (2,), jnp.bfloat16, jnp.float16).dtype == jnp.float16
    assert init_weights(key, (2,), param_dtype=jnp.float32).dtype == jnp.bfloat16
