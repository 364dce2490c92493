"""The rest of jax.Array's members on jaxtypes.Array, without the JAX stubs:
the ones that keep the dtype keep it, the others are there (completion,
attribute checks), and a misspelt member is still an error."""

from collections.abc import Iterator, Sequence
from typing import Any

from typing_extensions import assert_type

from jaxtypes import Array, bfloat16, float32, int8, int32


def same_dtype(x: Array[bfloat16], i: Array[int8]) -> None:
    assert_type(x.mT, Array[bfloat16])
    assert_type(x.squeeze(), Array[bfloat16])
    assert_type(x.ravel(), Array[bfloat16])
    assert_type(x.flatten(), Array[bfloat16])
    assert_type(x.swapaxes(0, 1), Array[bfloat16])
    assert_type(x.sort(axis=-1), Array[bfloat16])
    assert_type(x.take(i), Array[bfloat16])
    assert_type(x.repeat(2, axis=0), Array[bfloat16])
    assert_type(x.copy(), Array[bfloat16])
    assert_type(x.conjugate(), Array[bfloat16])
    assert_type(x.block_until_ready(), Array[bfloat16])
    assert_type(x.at[0].set(1.0), Array[bfloat16])
    assert_type(x.at[0, 1].add(x[0, 0]), Array[bfloat16])
    assert_type(i.at[:2].get(), Array[int8])
    assert_type(reversed(x), Iterator[Array[bfloat16]])
    # var and std: the dtype made inexact, a complex one's real component
    assert_type(x.var(), Array[bfloat16])
    assert_type(i.std(axis=0), Array[float32])


def other_dtypes(x: Array[bfloat16]) -> None:
    # argsort: JAX's default integer, whatever the array's dtype (int32, x64 off)
    assert_type(x.argsort(), Array[int32])
    assert_type(x.nonzero(), tuple[Array[Any], ...])
    assert_type(x.cumsum(), Array[Any])
    assert_type(x.dot(x), Array[Any])
    assert_type(x.at[0].divide(2), Array[Any])


def not_dtypes(x: Array[bfloat16]) -> None:
    assert_type(x.itemsize, int)
    assert_type(x.nbytes, int)
    assert_type(x.weak_type, bool)
    assert_type(x.is_fully_replicated, bool)
    assert_type(x.addressable_shards, Sequence[Any])
    assert_type(x.tobytes(), bytes)


def typos(x: Array[bfloat16]) -> None:
    x.sqeeze()  # E: attribute
    x.at[0].sett(1.0)  # E: attribute
    x[0] = 1.0  # E: index-assignment
