"""The runtime side of jaxtypes.typing: Array, the markers, the aliases."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import typing

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import jaxtypes
from jaxtypes import lattice, markers
from jaxtypes.typing import (
    Array,
    ArrayLike,
    DType,
    DTypeLike,
    DtypeMarker,
    DtypeValue,
    Shape,
    ShapeLike,
    StaticScalar,
    SupportsDType,
)


def test_array_subscripts_at_runtime() -> None:
    alias = Array[jaxtypes.float32]
    assert alias.__origin__ is Array
    assert alias.__args__ == (np.float32,)
    assert jaxtypes.Array is Array


def test_dtype_value_is_numpys_dtype_at_run_time() -> None:
    """The checkers' DtypeValue[float32] (what x.dtype is to them) is what x.dtype is
    when the code runs: numpy's dtype, subscriptable in an evaluated annotation."""
    x = jnp.ones(3, jnp.bfloat16)
    assert DtypeValue is np.dtype and isinstance(x.dtype, DtypeValue)
    assert typing.get_origin(DtypeValue[jaxtypes.bfloat16]) is np.dtype

    def cast(y: Array, dtype: DtypeValue[jaxtypes.float32]) -> Array[jaxtypes.float32]:
        return y.astype(dtype)

    assert typing.get_type_hints(cast)["dtype"] == DtypeValue[jaxtypes.float32]
    assert cast(x, jnp.ones(1, jnp.float32).dtype).dtype == jnp.float32


D = typing.TypeVar("D", bound=DtypeMarker)


def cast(y: Array, dtype: DType[D]) -> Array[D]:
    return y.astype(dtype)


@dataclasses.dataclass(frozen=True)
class OptimizerConfig:
    mu_dtype: DType[jaxtypes.bfloat16] = jnp.bfloat16
    param_dtype: DType[typing.Any] = jnp.float32


def test_dtype_annotations_evaluate_at_run_time() -> None:
    """DType[D] is numpy's dtype subscripted: annotations holding it evaluate
    (get_type_hints, dataclasses), and JAX's scalar types, x.dtype and
    jaxtypes' markers are what JAX takes as that dtype."""
    assert typing.get_origin(DType[jaxtypes.float32]) is np.dtype
    assert typing.get_args(DType[jaxtypes.bfloat16]) == (ml_dtypes.bfloat16,)
    assert typing.get_type_hints(cast) == {"y": Array, "dtype": np.dtype[D], "return": Array[D]}
    hints = typing.get_type_hints(OptimizerConfig)
    assert hints == {"mu_dtype": np.dtype[ml_dtypes.bfloat16], "param_dtype": np.dtype[typing.Any]}
    x = jnp.ones(3, jnp.float32)
    config = OptimizerConfig()
    for dtype, expected in [
        (config.mu_dtype, jnp.bfloat16),
        (jaxtypes.bfloat16, jnp.bfloat16),
        (x.dtype, jnp.float32),
        (jnp.dtype(jnp.int8), jnp.int8),
    ]:
        assert cast(x, dtype).dtype == expected
        assert jnp.zeros(2, dtype).dtype == expected
    # every concrete marker is within DtypeMarker's run-time bound; the weak ones are not
    assert all(issubclass(getattr(jaxtypes, name), DtypeMarker) for name in DTYPE_OF_MARKER)
    assert not issubclass(jaxtypes.weak_float, DtypeMarker)


def test_isinstance_jax_arrays_and_tracers() -> None:
    assert isinstance(jnp.ones(3), Array)
    assert isinstance(jnp.asarray(1.0), Array)
    seen: list[bool] = []

    def probe(x):
        seen.append(isinstance(x, Array))
        return x

    jax.jit(probe)(jnp.ones(2))
    jax.vmap(probe)(jnp.ones(2))
    jax.grad(lambda x: probe(x).sum())(jnp.ones(2))
    assert seen == [True, True, True]


def test_isinstance_false_for_numpy_and_scalars() -> None:
    assert not isinstance(np.ones(3), Array)
    assert not isinstance(np.float32(1), Array)
    assert not isinstance(1.0, Array)
    assert not isinstance([1, 2], Array)


def test_register() -> None:
    class MyArray:
        pass

    assert not isinstance(MyArray(), Array)
    Array.register(MyArray)
    assert isinstance(MyArray(), Array)
    assert issubclass(MyArray, Array)


def test_no_jax_import() -> None:
    code = (
        "import sys, numpy as np, jaxtypes\n"
        "from jaxtypes.typing import Array\n"
        "assert not isinstance(np.ones(2), Array)\n"
        "assert 'jax' not in sys.modules, 'jaxtypes imported jax'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# Every concrete marker is exactly its dtype, written out by name.
DTYPE_OF_MARKER = {
    "bool_": np.dtype("bool"),
    "uint8": np.dtype("uint8"),
    "uint16": np.dtype("uint16"),
    "uint32": np.dtype("uint32"),
    "uint64": np.dtype("uint64"),
    "int8": np.dtype("int8"),
    "int16": np.dtype("int16"),
    "int32": np.dtype("int32"),
    "int64": np.dtype("int64"),
    "float16": np.dtype("float16"),
    "float32": np.dtype("float32"),
    "float64": np.dtype("float64"),
    "complex64": np.dtype("complex64"),
    "complex128": np.dtype("complex128"),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "uint1": np.dtype(ml_dtypes.uint1),
    "uint2": np.dtype(ml_dtypes.uint2),
    "uint4": np.dtype(ml_dtypes.uint4),
    "int1": np.dtype(ml_dtypes.int1),
    "int2": np.dtype(ml_dtypes.int2),
    "int4": np.dtype(ml_dtypes.int4),
    "float4_e2m1fn": np.dtype(ml_dtypes.float4_e2m1fn),
    "float6_e2m3fn": np.dtype(ml_dtypes.float6_e2m3fn),
    "float6_e3m2fn": np.dtype(ml_dtypes.float6_e3m2fn),
    "float8_e3m4": np.dtype(ml_dtypes.float8_e3m4),
    "float8_e4m3": np.dtype(ml_dtypes.float8_e4m3),
    "float8_e8m0fnu": np.dtype(ml_dtypes.float8_e8m0fnu),
    "float8_e4m3b11fnuz": np.dtype(ml_dtypes.float8_e4m3b11fnuz),
    "float8_e4m3fn": np.dtype(ml_dtypes.float8_e4m3fn),
    "float8_e4m3fnuz": np.dtype(ml_dtypes.float8_e4m3fnuz),
    "float8_e5m2": np.dtype(ml_dtypes.float8_e5m2),
    "float8_e5m2fnuz": np.dtype(ml_dtypes.float8_e5m2fnuz),
}


# JAX 0.10.2 on the CPU cannot hold these (XLA rejects the type); a change
# in JAX shows up as a failure here.
NOT_ON_XLA_CPU = {"float6_e2m3fn", "float6_e3m2fn", "uint1"}


@pytest.mark.parametrize("name", sorted(DTYPE_OF_MARKER))
def test_marker_is_a_dtype(name: str) -> None:
    marker = getattr(jaxtypes, name)
    expected = DTYPE_OF_MARKER[name]
    assert np.dtype(marker) == expected
    assert np.zeros(2).astype(marker).dtype == expected
    if name in NOT_ON_XLA_CPU:
        with pytest.raises(Exception, match="PrimitiveType|ui1"):
            jnp.zeros(2).astype(marker).block_until_ready()
        return
    with jax.enable_x64(True):
        assert jnp.zeros(2).astype(marker).dtype == expected


def test_every_lattice_node_has_a_marker() -> None:
    assert set(markers.MARKER_OF_NODE) == set(lattice.NODES)
    assert len(DTYPE_OF_MARKER) + 3 == len(lattice.NODES)


@pytest.mark.parametrize("name", ["weak_int", "weak_float", "weak_complex"])
def test_weak_markers_are_not_dtypes(name: str) -> None:
    marker = getattr(jaxtypes, name)
    with pytest.raises(TypeError, match="type marker"):
        marker()
    assert Array[marker].__args__ == (marker,)


def test_aliases() -> None:
    assert DType is np.dtype
    assert Shape == tuple[int, ...]
    # The unions hold what the roadmap says they hold, written out (what
    # the checkers make of them: typecheck_cases/scenarios/typing_aliases.py).
    assert typing.get_args(ArrayLike) == (Array, np.ndarray, np.bool_, np.number, bool, int, float, complex)
    assert typing.get_args(DTypeLike) == (str, type, np.dtype, SupportsDType)
    assert typing.get_args(StaticScalar) == (np.bool_, np.number, bool, int, float, complex)
    assert typing.get_args(ShapeLike) == (typing.SupportsIndex, typing.Sequence[typing.SupportsIndex])
