"""NumPy operands as JAX takes them: a NumPy scalar is strongly typed, like a
0-d array of its dtype (canonicalized: with x64 off numpy.float64 is
float32), a NumPy array like an array of its dtype; the result is a JAX array.
A NumPy array on the left, or a NumPy scalar on the left of a comparison, is
numpy's own operator to the checkers (deviations.toml)."""

from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt
from typing_extensions import assert_type

from jaxtypes import Array, bfloat16, bool_, complex64, float32, int4, int8, int32
from jaxtypes.typing import ArrayLike


def scalars(x: Array[float32], i: Array[int8], b: Array[bfloat16], f64: np.float64) -> None:
    assert_type(x * np.float32(2), Array[float32])
    assert_type(np.float32(2) * x, Array[float32])
    assert_type(np.bool_(True) * i, Array[int8])
    assert_type(i + np.int32(2), Array[int32])
    assert_type(np.int32(2) + i, Array[int32])
    assert_type(b + np.float64(1), Array[float32])
    assert_type(b + f64, Array[float32])
    assert_type(f64 - b, Array[float32])
    assert_type(b + 1.0, Array[bfloat16])
    assert_type(i ** np.int32(2), Array[int8])
    assert_type(np.int8(3) & i, Array[int8])
    assert_type(np.complex64(1) * x, Array[complex64])
    assert_type(x < np.float32(1), Array[bool_])
    assert_type(x == np.float32(1), Array[bool_])


def rejected(q: Array[int4], i: Array[int8]) -> None:
    q + np.float32(1)  # E: promotion
    # deviation (mypy-plugin): mypy reports the NumPy scalar's own operator first
    np.float32(1) + q  # E: promotion
    i @ np.int8(2)  # E: unsupported


def arrays(x: Array[float32], i: Array[int8], nd: npt.NDArray[np.float32],
           nd64: npt.NDArray[np.float64]) -> None:
    assert_type(x + nd, Array[float32])
    assert_type(i * nd, Array[float32])
    assert_type(i + nd64, Array[float32])
    assert_type(i @ nd, Array[float32])
    # deviation (mypy, mypy-plugin, pyright, basedpyright, pyrefly, ty): numpy's ndarray.__add__ takes an Array (an array-like)
    assert_type(nd + x, Array[float32])
    # deviation (mypy, mypy-plugin, pyright, basedpyright, pyrefly, ty): a NumPy scalar's __lt__ takes an Array (an array-like)
    assert_type(np.float32(1) < x, Array[bool_])


def unknown(x: Array[float32], nd: npt.NDArray[Any], fl: np.floating[Any],
            num: np.number[Any]) -> None:
    assert_type(x + nd, Array[Any])
    assert_type(x + fl, Array[Any])
    assert_type(fl * x, Array[Any])
    assert_type(x + num, Array[Any])


def array_like(x: Array[float32], a: ArrayLike) -> None:
    # Each member's answer: Array and ndarray of unknown dtype, np.bool_,
    # np.number of unknown precision, bool, int, float, complex.
    # deviation (mypy-plugin): the plugin answers Array[Any] for an operand with a member of unknown dtype
    assert_type(x + a, Array[Any] | Array[float32] | Array[complex64])


def inline(x: Array[float32], i: Array[int8]) -> None:
    # A generic NumPy call written as the operand.
    assert_type(x + np.ones(2, np.float32), Array[float32])
    assert_type(i * np.zeros(3, dtype=np.float64), Array[float32])


def ml_dtypes_scalar(x: Array[float32]) -> None:
    # JAX gives float32; ml_dtypes types its scalar types as type[np.generic].
    # deviation (pyright, basedpyright, pyrefly, ty): ml_dtypes' scalar types are type[np.generic], of no known dtype
    x + ml_dtypes.bfloat16(1.0)
