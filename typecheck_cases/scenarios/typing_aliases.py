"""jaxtypes.typing's aliases as the checkers read them: what each one admits
(JAX's typing roadmap) and what it refuses."""

from typing import Any

import numpy as np

from jaxtypes import Array, float32, int8
from jaxtypes.typing import ArrayLike, DType, DTypeLike, Shape, ShapeLike, StaticScalar


def shapes(n: np.int64) -> None:
    a: ShapeLike = 3
    b: ShapeLike = n
    c: ShapeLike = (2, 3)
    d: ShapeLike = [2, n]
    e: ShapeLike = ()
    f: ShapeLike = 2.5  # E: assignment
    g: Shape = (2, 3)
    h: Shape = [2, 3]  # E: assignment


def dtypes(x: Array[float32]) -> None:
    a: DTypeLike = "float32"
    b: DTypeLike = np.float32
    c: DTypeLike = np.dtype("int8")
    d: DTypeLike = np.ones(2)
    e: DTypeLike = 3  # E: assignment
    f: DType[float32] = x.dtype
    # deviation (mypy-plugin): the plugin's DType[Any] takes any string
    g: DType[Any] = "int8"  # E: assignment
    h: DType[float32] = float32
    i: DType[int8] = float32  # E: assignment


def array_likes(x: Array[float32]) -> None:
    a: ArrayLike = x
    b: ArrayLike = np.ones(2)
    c: ArrayLike = np.float32(1)
    d: ArrayLike = 1.5
    e: ArrayLike = True
    f: ArrayLike = "1.5"  # E: assignment
    g: ArrayLike = [1, 2]  # E: assignment
    s: StaticScalar = 1j
    t: StaticScalar = np.int8(1)
    u: StaticScalar = x  # E: assignment
