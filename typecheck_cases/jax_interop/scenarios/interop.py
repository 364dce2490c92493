"""jax.Array and jaxtypes.Array with the stubs of `jaxtypes jax-stubs`.

A line marked E (in a trailing comment) must get an error in every checker;
every other line must get none (a failed ``assert_type`` is an error).
Checked by tests/test_jax_stubs.py, with the generated stubs only.
"""

from __future__ import annotations

from typing import Any, TypeVar

import jax
import jax.image
import jax.numpy as jnp
import numpy as np
from jax import lax
from typing_extensions import assert_type

import jaxtypes
from jaxtypes import bfloat16, bool_, complex64, float16, float32, int8, int32, uint8, weak_float, weak_int
from jaxtypes.typing import DtypeMarker, DtypeValue


# -- JAX's functions keep their signatures; those with a dtype rule give the
# dtype JAX computes, the others Array[Any]
def jax_functions(key: jax.Array, a: jax.Array) -> None:
    x = jnp.ones(3, jnp.float32)
    assert_type(x, jax.Array[float32])
    assert_type(jnp.zeros((2, 2)), jax.Array[float32])
    assert_type(jnp.sin(x), jax.Array[float32])
    assert_type(jnp.sin(a), jax.Array)
    assert_type(jnp.sin(a), jax.Array[Any])
    assert_type(jnp.dot(x, x), jax.Array[float32])
    assert_type(jnp.dot(x, a), jax.Array[Any])
    assert_type(jax.nn.relu(x), jax.Array[float32])
    assert_type(jax.random.normal(key, (3,)), jax.Array[float32])
    assert_type(lax.add(x, x), jax.Array[float32])
    assert_type(lax.cond(True, lambda: x, lambda: x), jax.Array[float32])
    # a weakly typed array promotes as its Python scalar does
    b = jnp.ones(3, jnp.bfloat16)
    assert_type(jnp.maximum(b, jnp.asarray(0.5)), jax.Array[bfloat16])
    assert_type(jnp.where(b > 0, jnp.full((3,), 1.0), b), jax.Array[bfloat16])
    # values and their int32 indices
    values, indices = lax.top_k(b, 2)
    assert_type(values, jax.Array[bfloat16])
    assert_type(indices, jax.Array[int32])
    assert_type(lax.top_k(jnp.full((3,), 1.0), 2), tuple[jax.Array[weak_float], jax.Array[weak_int]])
    # a window reduction of one array keeps its dtype (a weakly typed one's
    # depends on the init value and the computation: JAX's own Any)
    assert_type(lax.reduce_window(b, 0.0, lax.add, (2,), (1,), "VALID"), jax.Array[bfloat16])
    assert_type(lax.reduce_window(b, -jnp.inf, lax.max, (2,), (1,), "VALID"), jax.Array[bfloat16])
    assert_type(lax.reduce_window(jnp.full((3,), 1.0), 0.0, lax.add, (2,), (1,), "VALID"), Any)
    jnp.ones(3, jnp.float32, 7)  # E: no-overload
    jnp.sin("a")  # E: no-overload


# -- two Python scalars give a weakly typed array (JAX's "Type promotion
# semantics": Python scalars are weakly typed), which then takes the other
# array's dtype; JAX 0.10's answers
def two_python_scalars(t: float, n: int, m: jax.Array[bool_], b: jax.Array[bfloat16]) -> None:
    assert_type(jnp.maximum(t, 1e-6), jax.Array[weak_float])
    assert_type(b / jnp.maximum(t, 1e-6), jax.Array[bfloat16])
    assert_type(jnp.where(m, 0.0, -1e9), jax.Array[weak_float])
    assert_type(jnp.where(m, 1, 0), jax.Array[weak_int])
    assert_type(jnp.minimum(n, 2), jax.Array[weak_int])
    assert_type(jnp.maximum(True, 2), jax.Array[weak_int])
    assert_type(jnp.maximum(n, 2.5), jax.Array[weak_float])
    assert_type(jnp.arctan2(1, 2), jax.Array[weak_float])
    # (JAX computes jnp.power(2, 3) from the values, a weakly typed int32
    # where two traced ints give a strong one: left unknown)
    assert_type(jnp.power(2, 3), jax.Array)
    assert_type(jnp.equal(1.0, 2), jax.Array[bool_])


# -- linear algebra's NamedTuples of results: each result its own dtype, by
# name and unpacked (eigenvalues and singular values real, the vectors and
# factors the input made inexact); JAX 0.10's answers
def named_results(f: jax.Array[float32], c: jax.Array[complex64], i: jax.Array[int8], a: jax.Array) -> None:
    w, v = jnp.linalg.eigh(c)
    assert_type(w, jax.Array[float32])
    assert_type(v, jax.Array[complex64])
    assert_type(jnp.linalg.eigh(i).eigenvalues, jax.Array[float32])
    u, s, vh = jnp.linalg.svd(c, full_matrices=False)
    assert_type(u, jax.Array[complex64])
    assert_type(s, jax.Array[float32])
    assert_type(vh, jax.Array[complex64])
    assert_type(jnp.linalg.svd(f).S, jax.Array[float32])
    q, r = jnp.linalg.qr(i)
    assert_type(q, jax.Array[float32])
    assert_type(r, jax.Array[float32])
    sign, logdet = jnp.linalg.slogdet(c)
    assert_type(sign, jax.Array[complex64])
    assert_type(logdet, jax.Array[float32])
    assert_type(jnp.linalg.slogdet(f).logabsdet, jax.Array[float32])
    # a flag the typed call does not take keeps JAX's own signature (the mypy
    # plugin also types qr(f, mode="r"), R's float32)
    assert_type(jnp.linalg.svd(f, compute_uv=False), jax.Array)
    # an array of unknown dtype: no error, no dtype
    unknown_values, unknown_vectors = jnp.linalg.eigh(a)
    jnp.linalg.eigh("a")  # E: no-overload


# -- a parameter whose default the dtype rule was measured with (elu's alpha,
# isclose's rtol) is typed when omitted; passed, the call keeps JAX's Array.
# One that JAX declares an Array (dynamic_update_slice's operand, outer's b)
# takes no Python scalar.  (Each typed answer is JAX 0.10's.)
def defaulted_and_array_parameters(b: jax.Array[bfloat16], i: jax.Array[int8], a: jax.Array) -> None:
    assert_type(jax.nn.elu(b), jax.Array[bfloat16])
    assert_type(jax.nn.elu(i), jax.Array[weak_float])  # (weakly typed, as JAX has it)
    assert_type(jax.nn.elu(b, 0.5), jax.Array[Any])
    assert_type(jax.nn.elu(b, alpha=0.5), jax.Array[Any])
    assert_type(jnp.isclose(b, b), jax.Array[bool_])
    assert_type(jnp.nan_to_num(b), jax.Array[bfloat16])
    assert_type(jnp.nan_to_num(b, True, 0.0), jax.Array[Any])
    # polyint's k, its constants of integration, promotes with p (JAX:
    # complex64 here): no count, unlike top_k's k, so a call passing one is unknown
    assert_type(jnp.polyint(b), jax.Array[bfloat16])
    assert_type(jnp.polyint(b, k=jnp.asarray([1j])), jax.Array[Any])
    assert_type(jnp.roll(i, 1), jax.Array[int8])
    assert_type(jnp.full_like(i, 0.5), jax.Array[int8])
    assert_type(jnp.outer(b, b), jax.Array[bfloat16])
    assert_type(jnp.outer(b, a), jax.Array[Any])
    assert_type(lax.dynamic_update_slice(b, b[:1], (0,)), jax.Array[bfloat16])
    assert_type(lax.dynamic_update_slice(b, a, (0,)), jax.Array[Any])
    lax.dynamic_update_slice(1.0, b, (0,))  # E: no-overload
    # clip's bounds promote with its input, a float's as a weak float
    assert_type(jnp.clip(i, 0, 1), jax.Array[int8])
    assert_type(jnp.clip(i, 0.0, 1.0), jax.Array[weak_float])
    assert_type(jnp.clip(i, max=2.5), jax.Array[weak_float])
    assert_type(jnp.clip(b, -1, 1.0), jax.Array[bfloat16])
    # (without bounds clip keeps a bool, which a bound of 0 would make an int)
    assert_type(jnp.clip(i > 0), jax.Array[Any])
    assert_type(jnp.clip(True), jax.Array[Any])


# -- a random draw takes Python-scalar parameters in its dtype=; arrays for
# the ones JAX converts to it (uniform's bounds, choice's p), but an array loc
# or scale promotes double_sided_maxwell and weibull_min (JAX: float32 here),
# so those calls keep JAX's Array
def random_draw_parameters(key: jax.Array, f: jax.Array[float32], b: jax.Array[bfloat16]) -> None:
    assert_type(jax.random.double_sided_maxwell(key, 0.0, 1, dtype=jnp.bfloat16), jax.Array[bfloat16])
    assert_type(jax.random.double_sided_maxwell(key, f, f, dtype=jnp.bfloat16), jax.Array[Any])
    assert_type(jax.random.weibull_min(key, f, 1.0, dtype=jnp.bfloat16), jax.Array[Any])
    assert_type(jax.random.uniform(key, (2,), jnp.bfloat16, f, f), jax.Array[bfloat16])
    assert_type(jax.random.randint(key, (2,), 0.5, 3, jnp.int8), jax.Array[int8])
    assert_type(jax.random.choice(key, b, (2,), p=f), jax.Array[bfloat16])


# -- lax's functions that require one dtype of their two arrays raise
# TypeError for two of different dtypes ("lax.add requires arguments to have
# the same dtypes"); a weakly typed array counts as the dtype it has with x64
# off (float32 for a Python float's), and NumPy and Python values are
# converted; JAX 0.10's answers
def lax_equal_dtypes(p: jax.Array[bool_], x: jax.Array[float32], h: jax.Array[float16], i: jax.Array[int32],
                     b: jax.Array[bfloat16], a: jax.Array) -> None:
    lax.add(x, i)  # E: equal-dtypes
    lax.select(p, i, x)  # E: equal-dtypes
    lax.dynamic_update_slice(h, x, (0,))  # E: equal-dtypes
    lax.add(b, jnp.asarray(1.0))  # E: equal-dtypes
    lax.select_n(i, x, x, b)  # E: equal-dtypes
    lax.select_n(i, b, jnp.full((3,), 1.0))  # E: equal-dtypes
    assert_type(lax.add(x, jnp.asarray(1.0)), jax.Array[float32])
    assert_type(lax.select(p, jnp.full((3,), 1.0), x), jax.Array[float32])
    assert_type(lax.sub(i, jnp.asarray(2)), jax.Array[int32])
    assert_type(lax.dynamic_update_slice(x, jnp.full((1,), 1.0), (0,)), jax.Array[float32])
    assert_type(lax.select_n(i, x, jnp.full((3,), 1.0)), jax.Array[float32])
    assert_type(lax.add(x, a), jax.Array[Any])
    lax.select_n(i, x, np.ones(3), x)
    lax.add(x, np.float64(1.0))
    lax.add(x, np.ones(3))
    lax.add(x, 2.0)
    lax.max(x, 0.0)


DT = TypeVar("DT")  # (as `jaxtypes annotate` writes a dtype variable)
DM = TypeVar("DM", bound=DtypeMarker)


# -- two arrays of one dtype variable have one dtype, whichever it is
def lax_dtype_variables(p: jax.Array[bool_], x: jax.Array[DT], y: jax.Array[DT], m: jax.Array[DM]) -> jax.Array[DT]:
    lax.dynamic_update_slice(m, lax.mul(m, m), (0,))
    lax.select_n(p, m, m)
    return lax.select(p, x, lax.add(x, y))


# -- the two names are one class
def image_resize(img: jax.Array[uint8], f: jax.Array[float32], method: str) -> None:
    """jax.image.resize by its method (JAX's answers: tools/data): "nearest"
    keeps the image's dtype, an interpolating method makes a uint8 image
    float32; a method no checker can read (a str variable) is unknown."""
    assert_type(jax.image.resize(img, (2, 2), "nearest"), jax.Array[uint8])
    assert_type(jax.image.resize(img, (2, 2), method="bilinear"), jax.Array[float32])
    assert_type(jax.image.resize(f, (2, 2), jax.image.ResizeMethod.LANCZOS3), jax.Array[float32])
    assert_type(jax.image.resize(img, (2, 2), method), jax.Array[Any])
    smooth: jax.Array[uint8] = jax.image.resize(img, (2, 2), "linear")  # E: assignment


def same_class(a: jax.Array[float32], b: jaxtypes.Array[float32]) -> None:
    assert_type(a, jaxtypes.Array[float32])
    assert_type(b, jax.Array[float32])


# -- jax.Array is accepted where jaxtypes.Array[float32] is expected ...
def wants_f32(x: jaxtypes.Array[float32]) -> jaxtypes.Array[float32]:
    return x


def returns_plain() -> jax.Array:
    return jnp.ones(3)


def plain_into_typed(p: jax.Array) -> jaxtypes.Array[float32]:
    wants_f32(p)
    wants_f32(jnp.ones(3, jnp.float32))
    wants_f32(returns_plain())
    y: jaxtypes.Array[float32] = jnp.zeros(2)
    return p


# -- ... and jaxtypes.Array[float32] by JAX's functions taking Array / ArrayLike
def wants_jax(x: jax.Array) -> jax.Array:
    return x


def typed_into_jax(a: jaxtypes.Array[float32], i: jaxtypes.Array[int8]) -> jax.Array:
    wants_jax(a)
    jnp.sin(a)
    jnp.dot(a, a)
    jnp.where(a > 0, a, 0.0)
    jnp.concatenate([a, a])
    jax.nn.softmax(a)
    lax.add(a, a)
    jnp.take(a, i)
    jax.device_put(a)
    jax.jit(jnp.sin)(a)
    jax.vmap(jnp.sin)(a)
    jax.grad(lambda v: jnp.sum(v))(a)
    z: jax.Array = a
    return a


# -- operators promote as jaxtypes.Array does
def promotion(f: jax.Array[float32], i: jax.Array[int8], u: jax.Array[uint8],
              bf: jax.Array[bfloat16], h: jax.Array[float16], b: jax.Array[bool_]) -> None:
    assert_type(f + 1, jax.Array[float32])
    assert_type(1 + f, jax.Array[float32])
    assert_type(f * 2.0, jax.Array[float32])
    assert_type(f + i, jax.Array[float32])
    assert_type(i + 1, jax.Array[int8])
    assert_type(i + u, jax.Array[jaxtypes.int16])
    assert_type(i * 1.5, jax.Array[weak_float])
    assert_type(bf + h, jax.Array[float32])
    assert_type(bf + i, jax.Array[bfloat16])
    assert_type(b + b, jax.Array[bool_])
    assert_type(b + 1, jax.Array[weak_int])
    assert_type(f @ f, jax.Array[float32])
    assert_type(f / 2, jax.Array[float32])
    assert_type(i / i, jax.Array[float32])
    assert_type(i // 2, jax.Array[int8])
    assert_type(f > 0, jax.Array[bool_])
    assert_type(-i, jax.Array[int8])
    assert_type(abs(f), jax.Array[float32])
    assert_type(i & u, jax.Array[jaxtypes.int16])
    f & f  # E: unsupported
    ~f  # E: unsupported
    x: jax.Array[int8] = f + 1  # E: assignment


# -- the methods that depend on the dtype, and the members JAX declares
def methods(f: jax.Array[float32], i: jax.Array[int8], u: jax.Array[uint8]) -> None:
    assert_type(i.sum(), jax.Array[int32])
    assert_type(i.mean(), jax.Array[float32])
    assert_type(f.max(), jax.Array[float32])
    assert_type(f.argmax(), jax.Array[int32])
    assert_type(f.all(), jax.Array[bool_])
    assert_type(f.astype(int8), jax.Array[int8])
    assert_type(f.astype(jnp.int8), jax.Array[int8])
    assert_type(f.item(), float)
    assert_type(f.T, jax.Array[float32])
    assert_type(f.reshape(3, -1), jax.Array[float32])
    assert_type(f[0], jax.Array[float32])
    assert_type(f.at[0].set(1.0), jax.Array[float32])
    assert_type(u.at[1:].add(2), jax.Array[uint8])
    assert_type(f.at[0].get(), jax.Array[float32])
    assert_type(f.block_until_ready(), jax.Array[float32])
    assert_type(f.copy(), jax.Array[float32])
    assert_type(f.flatten(), jax.Array[float32])
    assert_type(f.squeeze(), jax.Array[float32])
    assert_type(f.cumsum(), jax.Array[Any])
    assert_type(f.std(), jax.Array[float32])
    assert_type(f.dtype, DtypeValue[float32])
    assert_type(f.shape, tuple[int, ...])
    assert_type(f.weak_type, bool)
    assert_type(f.is_fully_addressable, bool)
    assert_type(f.tolist(), list[Any])
    f.sharding
    f.device
    f.devices()
    f.addressable_shards
    f.on_device_size_in_bytes()
    f.delete()
    f.not_a_member  # E: attribute


# -- Array[Any] (bare jax.Array) stays unknown, never a concrete dtype
def unknown(d: jax.Array, f: jax.Array[float32], i: jax.Array[int8]) -> None:
    a: jax.Array[int8] = d + f
    b: jax.Array[bool_] = f + d
    c: jax.Array[bfloat16] = d * 2
    e: jax.Array[int8] = d.sum()
    g: jax.Array[uint8] = d.at[0].set(1)
    h: jax.Array[float16] = -d
    k: jax.Array[int8] = i + d
    assert_type(d.at[0].set(1), jax.Array[Any])
    assert_type(d.T, jax.Array[Any])
    # a comparison is bool whatever the dtypes
    assert_type(d == 0, jax.Array[bool_])
    assert_type(d < f, jax.Array[bool_])
    assert_type(f >= d, jax.Array[bool_])
    assert_type(i != d, jax.Array[bool_])
    assert_type(~(d > 0.5), jax.Array[bool_])


# -- protocols: builtins that need __add__ / __lt__ accept arrays
def protocols(xs: list[jax.Array], fs: list[jax.Array[float32]]) -> None:
    sum(xs)
    sum(fs)
    sum(xs, jnp.zeros(()))
    max(xs[0], xs[1])
    sorted(fs)


# -- numpy's spellings of a dtype in astype: the marker's dtype
def numpy_dtypes(x: jax.Array[float32], b: jax.Array, d: np.dtype[Any],
                 d16: np.dtype[np.float16]) -> None:
    assert_type(x.astype(np.int8), jax.Array[int8])
    assert_type(x.astype(d16), jax.Array[float16])
    assert_type(x.astype(np.bool_), jax.Array[bool_])
    assert_type(b.astype(np.float32), jax.Array[float32])
    assert_type(x.astype(d), jax.Array[Any])


# -- JAX's scalar types as dtypes
def jax_dtypes(x: jax.Array[float32], b: jax.Array, n: int) -> None:
    assert_type(x.astype(jnp.int8), jax.Array[int8])
    assert_type(jnp.zeros((2, 2), jnp.bfloat16), jax.Array[bfloat16])
    assert_type(jnp.asarray(b, dtype=jnp.float16), jax.Array[float16])
    assert_type(jnp.arange(n), jax.Array[int32])
    assert_type(jnp.float32(1.0), jax.Array[float32])
    jnp.finfo(jnp.float32).eps
    jnp.dtype(jnp.float32)


# -- JAX's spelling: its scalar types are the markers (``jax.Array[jnp.float32]``
# is ``jax.Array[jaxtypes.float32]``), and still dtypes where JAX takes one
def _norm(x: jax.Array[jnp.bfloat16], scale: jax.Array[jnp.float32]) -> jax.Array[jnp.float32]:
    return x * scale


def jax_spelling(x: jax.Array[jnp.bfloat16], f: jax.Array[float32], i: jax.Array[jnp.int8], a: jax.Array) -> None:
    assert_type(x, jax.Array[bfloat16])
    assert_type(_norm(x, f), jax.Array[jnp.float32])
    assert_type(_norm(x, f), jax.Array[float32])
    assert_type(x + i, jax.Array[jnp.bfloat16])
    assert_type(jnp.zeros(3, jnp.float64), jax.Array[jnp.float32])  # (x64 off)
    assert_type(jnp.float64(1.0), jax.Array[float32])
    assert_type(f.astype(jnp.float64), jax.Array[float32])
    assert_type(f.astype(jaxtypes.float64), jax.Array[float32])
    assert_type(f.sum(dtype=jnp.bfloat16), jax.Array[bfloat16])
    _norm(f, f)  # E: argument
    wanted: jax.Array[jnp.int8] = x  # E: assignment
    dtype: jnp.dtype = jnp.float32
    as_numpy: np.dtype[Any] = jnp.bfloat16
    dtypes: tuple[jnp.dtype, ...] = (jnp.float32, jnp.int8, x.dtype, a.dtype)
    jnp.zeros(3, dtype=dtype)
    jnp.float32.dtype
    jnp.float32 == f.dtype


# -- a preferred dtype of unknown dtype (``x.dtype`` of a bare jax.Array) gives
# no dtype: JAX answers the arrays' own for bfloat16 arrays, for example
def preferred_dtype_of_unknown_dtype(out: jax.Array, w: jax.Array, b: jax.Array[bfloat16]) -> None:
    assert_type(jnp.einsum("blkd,blk->bld", out, w, preferred_element_type=out.dtype), jax.Array[Any])
    assert_type(jnp.einsum("ij,jk->ik", b, b, preferred_element_type=out.dtype), jax.Array[Any])
    assert_type(jnp.matmul(b, b, preferred_element_type=out.dtype), jax.Array[Any])
    assert_type(lax.dot_general(b, b, (((1,), (0,)), ((), ())), preferred_element_type=out.dtype), jax.Array[Any])
    assert_type(jnp.einsum("ij,jk->ik", b, b, preferred_element_type=jnp.float32), jax.Array[float32])


# -- the dtype flows through JAX's functions and transforms
def _dense(x: jax.Array[bfloat16], w: jax.Array[bfloat16]) -> jax.Array[float32]:
    return jnp.dot(x, w, preferred_element_type=jnp.float32)


def _loss(p: jax.Array[float32], x: jax.Array[float32]) -> jax.Array[float32]:
    return jnp.mean(jax.nn.softmax(p * x))


def functions_and_transforms(x: jax.Array[bfloat16], w: jax.Array[bfloat16], p: jax.Array[float32],
                             i: jax.Array[int8], m: jax.Array[bool_]) -> None:
    assert_type(jnp.sqrt(i), jax.Array[float32])
    assert_type(jnp.sum(i), jax.Array[int32])
    assert_type(jnp.where(m, p, 0.0), jax.Array[float32])
    assert_type(jnp.concatenate([x, w]), jax.Array[bfloat16])
    assert_type(jnp.einsum("ij,jk->ik", x, w), jax.Array[bfloat16])
    assert_type(jax.random.normal(jax.random.PRNGKey(0), (3,)), jax.Array[float32])
    assert_type(jax.jit(_dense)(x, w), jax.Array[float32])
    assert_type(jax.grad(_loss)(p, p), jax.Array[float32])
    assert_type(jax.value_and_grad(_loss)(p, p), tuple[jax.Array[float32], jax.Array[float32]])
    assert_type(jax.checkpoint(_dense)(x, w), jax.Array[float32])
    jax.jit(_dense)(x)  # E: missing-argument
    jnp.maximum(x, p)  # (two dtypes: jax.Array, no error)


def dtypes_taken_from_other_arrays(x: jax.Array[bfloat16], f: jax.Array[float32], i: jax.Array[int8],
                                   w: jax.Array[weak_float], u: jax.Array, d: jnp.dtype) -> None:
    assert_type(x.astype(f.dtype), jax.Array[float32])
    assert_type(f.astype(x.dtype), jax.Array[bfloat16])
    assert_type(i.sum(dtype=f.dtype), jax.Array[float32])
    assert_type(x.mean(dtype=f.dtype), jax.Array[float32])
    assert_type(x.astype(w.dtype), jax.Array[Any])  # float32 or float64, as x64 decides
    assert_type(x.astype(u.dtype), jax.Array[Any])
    assert_type(x.astype(d), jax.Array[Any])
    assert_type(w.dtype, DtypeValue[weak_float])
    kept: jnp.dtype = f.dtype  # still numpy's dtype to the checkers
    same: bool = f.dtype == jnp.float32
    narrow: jax.Array[bfloat16] = i.astype(f.dtype)  # E: assignment
    # JAX's functions read it too (JAX 0.10.2 gives each of these dtypes).
    assert_type(jnp.zeros(3, f.dtype), jax.Array[float32])
    assert_type(jnp.zeros((2, 2), dtype=x.dtype), jax.Array[bfloat16])
    assert_type(jnp.asarray(1.0, f.dtype), jax.Array[float32])
    assert_type(jax.random.normal(jax.random.PRNGKey(0), (3,), x.dtype), jax.Array[bfloat16])
    assert_type(jnp.astype(i, x.dtype), jax.Array[bfloat16])
    assert_type(jnp.zeros(3, w.dtype), jax.Array[Any])  # float32 or float64, as x64 decides
    made: jax.Array[bfloat16] = jnp.zeros(3, f.dtype)  # E: assignment


# jnp.finfo of a dtype: its values are NumPy scalars of that dtype (float32 for
# complex64), which JAX promotes as strongly typed, so a masked fill keeps the
# array's dtype (JAX 0.10.2 gives each of these).
def finfo_values(x: jax.Array[bfloat16], f: jax.Array[float32], c: jax.Array[complex64], i: jax.Array[int8],
                 m: jax.Array[bool_], u: jax.Array, w: jax.Array[weak_float]) -> None:
    assert_type(jnp.finfo(x.dtype).min, jax.Array[bfloat16])
    assert_type(jnp.where(m, x, jnp.finfo(x.dtype).min), jax.Array[bfloat16])
    assert_type(jnp.finfo(jnp.float16).max, jax.Array[float16])
    assert_type(jnp.finfo(c.dtype).eps, jax.Array[float32])
    assert_type(jnp.finfo(jnp.float64).tiny, jax.Array[Any])  # float32 or float64, as x64 decides
    assert_type(x + jnp.finfo(f.dtype).eps, jax.Array[float32])  # strong float32, not a Python float
    assert_type(jnp.finfo(jnp.float32).bits, int)
    assert_type(jnp.finfo(u.dtype).min, jax.Array[Any])
    assert_type(jnp.finfo(w.dtype).min, jax.Array[Any])  # float32 or float64, as x64 decides
    assert_type(jnp.where(m, i, jnp.iinfo(jnp.int8).max), jax.Array[int8])  # a Python int
    info: np.finfo[Any] = jnp.finfo(x.dtype)
    lowest: float = float(jnp.finfo(x.dtype).min)
    fill: jax.Array[float32] = jnp.where(m, x, jnp.finfo(x.dtype).min)  # E: assignment
