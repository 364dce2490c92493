"""The runtime API on every kind of input, with JAX's answers written out.

Every expected answer below comes from the facts page and was checked against
JAX 0.10.2 (``jax._src.dtypes.result_type`` / ``jax.numpy.promote_types`` /
``jax.dtypes.canonicalize_dtype`` / ``jax._src.dtypes.dtype`` /
``is_weakly_typed``) before being written here; the tests do not import JAX.

Expected results are ``(dtype name, weak flag)`` for x64 off and x64 on.
"""

from __future__ import annotations

import enum
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import jaxtypes
from jaxtypes import TypePromotionError, enable_x64, numpy_dtype_promotion

REPO = Path(__file__).resolve().parents[1]


class HasDtype:
    """Any object with a ``.dtype`` (and, optionally, a ``weak_type`` attribute)."""

    def __init__(self, dt, weak_type=None):
        self.dtype = np.dtype(getattr(ml_dtypes, dt, dt))
        if weak_type is not None:
            self.weak_type = weak_type

    def __repr__(self):
        return f"HasDtype({self.dtype}, weak_type={getattr(self, 'weak_type', None)})"


class _Aval:
    def __init__(self, weak_type):
        self.weak_type = weak_type


class TracerLike:
    """JAX's own weakness check reads ``x.aval.weak_type`` (tracers, arrays)."""

    def __init__(self, dt, weak_type):
        self.dtype = np.dtype(dt)
        self.aval = _Aval(weak_type)

    def __repr__(self):
        return f"TracerLike({self.dtype}, {self.aval.weak_type})"


class MyInt(int):
    pass


class Color(enum.IntEnum):
    RED = 1


def arr(dt, value=1):
    return np.array([value], dtype=getattr(ml_dtypes, dt, dt))


# --------------------------------------------------------------------------
# result_type cases: (id, args, (x32 name, weak), (x64 name, weak))
RESULT_TYPE_CASES = [
    # numpy dtypes and names (canonicalized: 64-bit -> 32-bit with x64 off)
    ("dtype-float32", (np.dtype("float32"),), ("float32", False), ("float32", False)),
    ("name-float32", ("float32",), ("float32", False), ("float32", False)),
    ("name-int64", ("int64",), ("int32", False), ("int64", False)),
    ("name-float64", ("float64",), ("float32", False), ("float64", False)),
    ("name-complex128", ("complex128",), ("complex64", False), ("complex128", False)),
    ("name-uint64", ("uint64",), ("uint32", False), ("uint64", False)),
    ("name-bfloat16", ("bfloat16",), ("bfloat16", False), ("bfloat16", False)),
    ("numpy-code-f8", ("f8",), ("float32", False), ("float64", False)),
    ("dtype-int64-with-int-type", (np.dtype("int64"), int), ("int32", False), ("int64", False)),
    # numpy and ml_dtypes scalar types
    ("np.float32", (np.float32,), ("float32", False), ("float32", False)),
    ("np.int64", (np.int64,), ("int32", False), ("int64", False)),
    ("np.float64", (np.float64,), ("float32", False), ("float64", False)),
    ("ml_dtypes.bfloat16", (ml_dtypes.bfloat16,), ("bfloat16", False), ("bfloat16", False)),
    ("ml_dtypes.float8_e4m3fn", (ml_dtypes.float8_e4m3fn,), ("float8_e4m3fn", False), ("float8_e4m3fn", False)),
    ("ml_dtypes.int4", (ml_dtypes.int4,), ("int4", False), ("int4", False)),
    ("np.float16-with-float-type", (np.float16, float), ("float16", False), ("float16", False)),
    ("np.int8-with-int-type", (np.int8, int), ("int8", False), ("int8", False)),
    ("np.bool_-with-bool", (np.bool_, bool), ("bool", False), ("bool", False)),
    # Python scalar values (weak; True is not)
    ("int-value", (1,), ("int32", True), ("int64", True)),
    ("float-value", (1.0,), ("float32", True), ("float64", True)),
    ("complex-value", (1j,), ("complex64", True), ("complex128", True)),
    ("bool-value", (True,), ("bool", False), ("bool", False)),
    ("huge-int-value", (2**70,), ("int32", True), ("int64", True)),
    ("int-subclass-value-is-strong", (MyInt(3),), ("int32", False), ("int64", False)),
    ("int-enum-value-is-strong", (Color.RED,), ("int32", False), ("int64", False)),
    # the types int/float/complex (weak) and bool
    ("int-type", (int,), ("int32", True), ("int64", True)),
    ("float-type", (float,), ("float32", True), ("float64", True)),
    ("complex-type", (complex,), ("complex64", True), ("complex128", True)),
    ("bool-type", (bool,), ("bool", False), ("bool", False)),
    # None: the default float, strong
    ("None", (None,), ("float32", False), ("float64", False)),
    ("None-None", (None, None), ("float32", False), ("float64", False)),
    ("None-int8", (None, "int8"), ("float32", False), ("float64", False)),
    ("None-weak-int", (None, 1), ("float32", False), ("float64", False)),
    ("float16-None", ("float16", None), ("float32", False), ("float64", False)),
    # numpy arrays and numpy scalars (strong, canonicalized)
    ("array-int64", (arr("int64"),), ("int32", False), ("int64", False)),
    ("array-float64", (arr("float64"),), ("float32", False), ("float64", False)),
    ("array-bfloat16-0d", (np.array(1, dtype=ml_dtypes.bfloat16),), ("bfloat16", False), ("bfloat16", False)),
    ("array-bool", (np.array([True]),), ("bool", False), ("bool", False)),
    ("array-0d-float64-with-int", (np.array(5.0), 1), ("float32", False), ("float64", False)),
    ("np.float64-scalar", (np.float64(1),), ("float32", False), ("float64", False)),
    ("np.int8-scalar", (np.int8(1),), ("int8", False), ("int8", False)),
    ("np.True_", (np.True_,), ("bool", False), ("bool", False)),
    ("array-int64-with-array-float16", (arr("int64"), arr("float16")), ("float16", False), ("float16", False)),
    ("array-int4-with-int", (arr("int4"), 1), ("int4", False), ("int4", False)),
    (
        "array-float8-twice",
        (arr("float8_e4m3fn"), arr("float8_e4m3fn")),
        ("float8_e4m3fn", False),
        ("float8_e4m3fn", False),
    ),
    # any object with .dtype; a true weak_type makes it weak
    ("has-dtype-int16", (HasDtype("int16"),), ("int16", False), ("int16", False)),
    ("has-dtype-float64", (HasDtype("float64"),), ("float32", False), ("float64", False)),
    ("has-dtype-int16-weak_type-False", (HasDtype("int16", False),), ("int16", False), ("int16", False)),
    ("weak-int16", (HasDtype("int16", True),), ("int32", True), ("int64", True)),
    ("weak-float64", (HasDtype("float64", True),), ("float32", True), ("float64", True)),
    ("weak-bfloat16", (HasDtype("bfloat16", True),), ("float32", True), ("float64", True)),
    ("weak-float8", (HasDtype("float8_e4m3fn", True),), ("float32", True), ("float64", True)),
    ("weak-bool-is-strong", (HasDtype("bool", True),), ("bool", False), ("bool", False)),
    ("tracer-like-weak-int16", (TracerLike("int16", True),), ("int32", True), ("int64", True)),
    ("tracer-like-strong-int16", (TracerLike("int16", False),), ("int16", False), ("int16", False)),
    ("weak-int16-weak-int8", (HasDtype("int16", True), HasDtype("int8", True)), ("int32", True), ("int64", True)),
    ("weak-int16-weak-float", (HasDtype("int16", True), 1.0), ("float32", True), ("float64", True)),
    (
        "weak-float16-weak-bfloat16",
        (HasDtype("float16", True), HasDtype("bfloat16", True)),
        ("float32", True),
        ("float64", True),
    ),
    ("weak-int8-np.int8", (HasDtype("int8", True), np.int8), ("int8", False), ("int8", False)),
    (
        "weak-bfloat16-float16-scalar",
        (HasDtype("bfloat16", True), np.float16(1)),
        ("float16", False),
        ("float16", False),
    ),
    ("weak-float8-weak-int", (HasDtype("float8_e4m3fn", True), 1), ("float32", True), ("float64", True)),
    # mixtures
    ("int8-scalar-int", (np.int8(1), 1), ("int8", False), ("int8", False)),
    ("int8-scalar-float", (np.int8(1), 1.0), ("float32", True), ("float64", True)),
    ("int8-scalar-complex", (np.int8(1), 1j), ("complex64", True), ("complex128", True)),
    ("float16-scalar-int", (np.float16(1), 1), ("float16", False), ("float16", False)),
    ("float16-scalar-float", (np.float16(1), 1.0), ("float16", False), ("float16", False)),
    ("float16-scalar-complex", (np.float16(1), 1j), ("complex64", False), ("complex64", False)),
    ("int16-int-type", (np.dtype("int16"), int), ("int16", False), ("int16", False)),
    ("uint8-float-type", (np.dtype("uint8"), float), ("float32", True), ("float64", True)),
    ("bfloat16-complex-type", ("bfloat16", complex), ("complex64", False), ("complex64", False)),
    ("complex-type-np.float16", (complex, np.float16), ("complex64", False), ("complex64", False)),
    ("float-type-bfloat16", (float, "bfloat16"), ("bfloat16", False), ("bfloat16", False)),
    ("float-type-float8", (float, "float8_e5m2"), ("float8_e5m2", False), ("float8_e5m2", False)),
    ("float-value-float4", (1.0, "float4_e2m1fn"), ("float4_e2m1fn", False), ("float4_e2m1fn", False)),
    ("int-float", (1, 1.0), ("float32", True), ("float64", True)),
    ("int-complex", (1, 1j), ("complex64", True), ("complex128", True)),
    ("True-int", (True, 1), ("int32", True), ("int64", True)),
    ("True-float", (True, 1.0), ("float32", True), ("float64", True)),
    ("True-False", (True, False), ("bool", False), ("bool", False)),
    ("int-type-float-type", (int, float), ("float32", True), ("float64", True)),
    ("int-type-int-type", (int, int), ("int32", True), ("int64", True)),
    ("np.bool_-int-type", (np.bool_, int), ("int32", True), ("int64", True)),
    ("np.True_-int", (np.True_, 1), ("int32", True), ("int64", True)),
    ("three-ints", (1, 2, 3), ("int32", True), ("int64", True)),
    ("float-float16-int8", (1.0, np.float16(1), np.int8(1)), ("float16", False), ("float16", False)),
    ("int-type-float-int8", (int, 1.0, np.int8(1)), ("float32", True), ("float64", True)),
    ("uint8-float-complex", ("uint8", 1.0, 1j), ("complex64", True), ("complex128", True)),
    ("float16-bfloat16-float", ("float16", "bfloat16", 1.0), ("float32", False), ("float32", False)),
    ("int-subclass-with-int8", (MyInt(3), np.int8(1)), ("int32", False), ("int64", False)),
    # uint64 with a signed int: weak float with x64; canonicalized to uint32 -> int32 without
    ("np.uint64-np.int8", (np.uint64, np.int8), ("int32", False), ("float64", True)),
    ("np.uint64-np.int64", (np.uint64, np.int64), ("int32", False), ("float64", True)),
    ("uint64-int8-scalars", (np.uint64(1), np.int8(1)), ("int32", False), ("float64", True)),
    ("uint32-int8", ("uint32", "int8"), ("int32", False), ("int64", False)),
    ("np.uint32-np.int64", (np.uint32, np.int64), ("int32", False), ("int64", False)),
    ("int8-uint8-int8", ("int8", "uint8", "int8"), ("int16", False), ("int16", False)),
    ("int8-float8", ("int8", "float8_e4m3fn"), ("float8_e4m3fn", False), ("float8_e4m3fn", False)),
    ("float8-float", ("float8_e4m3fn", 1.0), ("float8_e4m3fn", False), ("float8_e4m3fn", False)),
    ("int4-int", ("int4", 1), ("int4", False), ("int4", False)),
    ("int4-True", ("int4", True), ("int4", False), ("int4", False)),
    ("int4-int4", ("int4", "int4"), ("int4", False), ("int4", False)),
    ("bfloat16-float16", ("bfloat16", "float16"), ("float32", False), ("float32", False)),
    ("bfloat16-complex", ("bfloat16", 1j), ("complex64", False), ("complex64", False)),
    (
        "float8-float8-float",
        ("float8_e4m3fn", "float8_e4m3fn", 1.0),
        ("float8_e4m3fn", False),
        ("float8_e4m3fn", False),
    ),
    ("int8-int8-scalar-int", ("int8", np.int8(1), 1), ("int8", False), ("int8", False)),
]

# Strict mode: weak-to-strong only.
STRICT_RESULT_TYPE_CASES = [
    ("float32-scalar-int", (np.float32(1), 1), ("float32", False), ("float32", False)),
    ("int8-scalar-int", ("int8", np.int8(1), 1), ("int8", False), ("int8", False)),
    ("int-float", (1, 1.0), ("float32", True), ("float64", True)),
    ("int-type-float-type", (int, float), ("float32", True), ("float64", True)),
    ("float8-twice-float", ("float8_e4m3fn", "float8_e4m3fn", 1.0), ("float8_e4m3fn", False), ("float8_e4m3fn", False)),
    ("int4-int4", ("int4", "int4"), ("int4", False), ("int4", False)),
    ("single-int64", ("int64",), ("int32", False), ("int64", False)),
]


def _ids(cases):
    return [c[0] for c in cases]


def _check_result(args, expected):
    dt, weak = jaxtypes.result_type(*args, return_weak_type_flag=True)
    assert isinstance(dt, np.dtype)
    assert type(weak) is bool
    assert (dt.name, weak) == expected
    plain = jaxtypes.result_type(*args)
    assert isinstance(plain, np.dtype) and plain == dt


@pytest.mark.parametrize(("case", "args", "x32", "x64"), RESULT_TYPE_CASES, ids=_ids(RESULT_TYPE_CASES))
def test_result_type(case, args, x32, x64):
    # Twice each: the second call exercises the per-configuration cache.
    for _ in range(2):
        with enable_x64(False):
            _check_result(args, x32)
        with enable_x64(True):
            _check_result(args, x64)


@pytest.mark.parametrize(("case", "args", "x32", "x64"), STRICT_RESULT_TYPE_CASES, ids=_ids(STRICT_RESULT_TYPE_CASES))
def test_result_type_strict(case, args, x32, x64):
    with numpy_dtype_promotion("strict"):
        with enable_x64(False):
            _check_result(args, x32)
        with enable_x64(True):
            _check_result(args, x64)


# --------------------------------------------------------------------------
# promote_types: (id, a, b, x32 result, x64 result).  Not canonicalized; weak
# results are the dtypes of int/float/complex.
PROMOTE_CASES = [
    ("bool-int", bool, int, "int64", "int64"),
    ("int-float", int, float, "float64", "float64"),
    ("uint64-int64", "uint64", "int64", "float64", "float64"),
    ("None-int8", None, "int8", "float64", "float64"),
    ("None-None", None, None, "float64", "float64"),
    ("int-int", int, int, "int64", "int64"),
    ("float-complex", float, complex, "complex128", "complex128"),
    ("complex-bfloat16", complex, "bfloat16", "complex64", "complex64"),
    ("float32-int32", "float32", "int32", "float32", "float32"),
    ("float4-int8", "float4_e2m1fn", "int8", "float4_e2m1fn", "float4_e2m1fn"),
    ("int4-int", "int4", int, "int4", "int4"),
    ("int4-bool", "int4", bool, "int4", "int4"),
    ("np.float32-np.int8", np.float32, np.int8, "float32", "float32"),
    ("bfloat16-float16-types", ml_dtypes.bfloat16, np.float16, "float32", "float32"),
    ("dtype-and-name", np.dtype("int8"), "int16", "int16", "int16"),
    ("codes-i1-u1", "i1", "u1", "int16", "int16"),
    ("codes-f8-c8", "f8", "c8", "complex128", "complex128"),
    ("float-float16", float, "float16", "float16", "float16"),
    ("int64-int8-not-canonicalized", "int64", "int8", "int64", "int64"),
    ("float64-float32-not-canonicalized", "float64", "float32", "float64", "float64"),
    ("np.int64-int", np.int64, int, "int64", "int64"),
    ("uint32-int32", "uint32", "int32", "int32", "int64"),
    ("np.bool_-int", np.bool_, int, "int64", "int64"),
    ("bool-bool", "bool", "bool", "bool", "bool"),
    ("py-bool-py-bool", bool, bool, "bool", "bool"),
]


@pytest.mark.parametrize(("case", "a", "b", "x32", "x64"), PROMOTE_CASES, ids=[c[0] for c in PROMOTE_CASES])
def test_promote_types(case, a, b, x32, x64):
    for _ in range(2):
        with enable_x64(False):
            got = jaxtypes.promote_types(a, b)
            assert isinstance(got, np.dtype) and got.name == x32
            assert jaxtypes.promote_types(b, a).name == x32
        with enable_x64(True):
            got = jaxtypes.promote_types(a, b)
            assert isinstance(got, np.dtype) and got.name == x64
            assert jaxtypes.promote_types(b, a).name == x64


STRICT_PROMOTE_CASES = [
    ("int-float32", int, "float32", "float32"),
    ("int-complex64", int, "complex64", "complex64"),
    ("int-float8", int, "float8_e4m3fn", "float8_e4m3fn"),
    ("float-complex64", float, "complex64", "complex64"),
    ("int-int4", int, "int4", "int4"),
    ("float-float4", float, "float4_e2m1fn", "float4_e2m1fn"),
    ("int-complex", int, complex, "complex128"),
    ("float-float16", float, "float16", "float16"),
    ("bool-bool", "bool", "bool", "bool"),
    ("int64-int", np.int64, int, "int64"),
]


@pytest.mark.parametrize(("case", "a", "b", "expected"), STRICT_PROMOTE_CASES, ids=[c[0] for c in STRICT_PROMOTE_CASES])
def test_promote_types_strict(case, a, b, expected):
    with numpy_dtype_promotion("strict"):
        for x64 in (False, True):
            with enable_x64(x64):
                assert jaxtypes.promote_types(a, b).name == expected
                assert jaxtypes.promote_types(b, a).name == expected


# --------------------------------------------------------------------------
# Error classes and messages
STRICT_TAIL = (
    " have no available implicit dtype promotion path when "
    "jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired "
    "output type, or set jax_numpy_dtype_promotion=standard."
)


def small_float_message(inputs: str, width: int) -> str:
    return (
        f"Input dtypes {inputs} have no available implicit dtype promotion path. "
        f"To avoid unintended promotion, {width}-bit floats do not support implicit "
        "promotion. If you'd like your inputs to be promoted to another type, you can "
        "do so explicitly using e.g. x.astype('float32')"
    )


def intn_message(inputs: str) -> str:
    return (
        f"Input dtypes {inputs} have no available implicit dtype promotion path. "
        "To avoid unintended promotion, 1-bit, 2-bit and 4-bit integers do not support "
        "implicit promotion. If you'd like your inputs to be promoted to another type, "
        "you can do so explicitly using e.g. x.astype('int32')"
    )


def test_type_promotion_error_is_a_value_error():
    assert issubclass(TypePromotionError, ValueError)
    assert jaxtypes.TypePromotionError is jaxtypes.promotion.TypePromotionError
    with numpy_dtype_promotion("strict"):
        try:
            jaxtypes.promote_types("float32", "int32")
        except ValueError as e:  # catchable as a plain ValueError
            assert isinstance(e, TypePromotionError)
            # no internal exception chained to it (a cache miss's KeyError)
            assert e.__context__ is None and e.__cause__ is None
        else:
            pytest.fail("strict promotion of float32 and int32 did not raise")


def test_strict_message_exact():
    with numpy_dtype_promotion("strict"):
        with pytest.raises(TypePromotionError) as info:
            jaxtypes.promote_types("float32", "int32")
    assert str(info.value) == "Input dtypes ('float32', 'int32')" + STRICT_TAIL


@pytest.mark.parametrize(
    ("a", "b", "shown"),
    [
        (complex, "float32", "(\"<class 'complex'>\", 'float32')"),
        ("bool", int, "('bool', \"<class 'int'>\")"),
        ("uint64", "int64", "('uint64', 'int64')"),
        ("int8", "int16", "('int8', 'int16')"),
        ("i1", "u1", "('int8', 'uint8')"),
        ("float64", "complex64", "('float64', 'complex64')"),
        (None, "int8", "('float64', 'int8')"),
        # strict outranks the small-float and sub-byte messages
        ("float8_e4m3fn", "float8_e5m2", "('float8_e4m3fn', 'float8_e5m2')"),
        ("int4", "float32", "('int4', 'float32')"),
        ("int4", bool, "('int4', 'bool')"),
    ],
)
def test_strict_messages(a, b, shown):
    for x64 in (False, True):
        with numpy_dtype_promotion("strict"), enable_x64(x64):
            with pytest.raises(TypePromotionError) as info:
                jaxtypes.promote_types(a, b)
        assert str(info.value) == f"Input dtypes {shown}" + STRICT_TAIL


def test_strict_message_from_result_type():
    with numpy_dtype_promotion("strict"):
        with pytest.raises(TypePromotionError) as info:
            jaxtypes.result_type(np.int32(1), 1.0)
    # JAX builds the tuple from a set; either order is JAX's.
    assert str(info.value) in {
        "Input dtypes (\"<class 'float'>\", 'int32')" + STRICT_TAIL,
        "Input dtypes ('int32', \"<class 'float'>\")" + STRICT_TAIL,
    }


@pytest.mark.parametrize(
    ("a", "b", "shown", "width"),
    [
        ("float8_e4m3fn", "float8_e5m2", "('float8_e4m3fn', 'float8_e5m2')", 8),
        ("float8_e4m3fn", complex, "('float8_e4m3fn', \"<class 'complex'>\")", 8),
        ("float8_e5m2", "bfloat16", "('float8_e5m2', 'bfloat16')", 8),
        # an 8-bit float outranks a 6-bit float and a sub-byte int
        ("float8_e4m3fn", "float6_e2m3fn", "('float8_e4m3fn', 'float6_e2m3fn')", 8),
        ("float6_e2m3fn", "float8_e4m3fn", "('float6_e2m3fn', 'float8_e4m3fn')", 8),
        ("int4", "float8_e4m3fn", "('int4', 'float8_e4m3fn')", 8),
        ("float6_e2m3fn", "float16", "('float6_e2m3fn', 'float16')", 6),
        ("float4_e2m1fn", "float6_e2m3fn", "('float4_e2m1fn', 'float6_e2m3fn')", 6),
        ("int4", "float4_e2m1fn", "('int4', 'float4_e2m1fn')", 4),
        ("float4_e2m1fn", complex, "('float4_e2m1fn', \"<class 'complex'>\")", 4),
    ],
)
def test_small_float_messages(a, b, shown, width):
    for x64 in (False, True):
        with enable_x64(x64):
            with pytest.raises(TypePromotionError) as info:
                jaxtypes.promote_types(a, b)
        assert str(info.value) == small_float_message(shown, width)


@pytest.mark.parametrize(
    ("a", "b", "shown"),
    [
        ("int4", "float32", "('int4', 'float32')"),
        ("uint2", "int8", "('uint2', 'int8')"),
        ("int1", "uint1", "('int1', 'uint1')"),
        ("int4", float, "('int4', \"<class 'float'>\")"),
        ("uint4", "uint8", "('uint4', 'uint8')"),
    ],
)
def test_sub_byte_int_messages(a, b, shown):
    with pytest.raises(TypePromotionError) as info:
        jaxtypes.promote_types(a, b)
    assert str(info.value) == intn_message(shown)


def test_sub_byte_message_from_result_type():
    with pytest.raises(TypePromotionError) as info:
        jaxtypes.result_type("int4", 1.0)
    assert str(info.value) in {
        intn_message("(\"<class 'float'>\", 'int4')"),
        intn_message("('int4', \"<class 'float'>\")"),
    }


def test_generic_message():
    # In standard mode every pair without a join involves a small float or a
    # sub-byte int, so (as in JAX) the generic message is not reachable through
    # promote_types/result_type; it is checked on the error builder directly.
    from jaxtypes.lattice import Variant, no_join_reason

    v = Variant("standard", True)
    assert no_join_reason(["int8", "float32"], v) == "none"
    assert no_join_reason(["int8", "float8_e5m2"], v) == "float8"
    assert no_join_reason(["int8", "int4"], v) == "intn"
    assert no_join_reason(["int8", "float32"], Variant("strict", True)) == "strict"
    err = jaxtypes.promotion._no_join_error((np.dtype("int8"), np.dtype("float32")), v)
    assert isinstance(err, TypePromotionError)  # and JAX's class too when JAX is loaded
    assert str(err) == (
        "Input dtypes ('int8', 'float32') have no available implicit dtype promotion "
        "path. Try explicitly casting inputs to the desired output type."
    )


@pytest.mark.parametrize(
    ("a", "b", "shown"),
    [
        ("object", "int8", "dtype('O')"),
        ("int8", "object", "dtype('O')"),
        ("S5", "int8", "dtype('S5')"),
        ("V8", "int8", "dtype('V8')"),
        ("U3", "U3", "dtype('<U3')"),
        ("datetime64[s]", "int8", "dtype('<M8[s]')"),
        (">f4", "int8", "dtype('>f4')"),  # non-native byte order
        (">i4", int, "dtype('>i4')"),
        (str, "int8", "dtype('<U')"),
        (object, "int8", "dtype('O')"),
    ],
)
def test_invalid_dtype_message(a, b, shown):
    with pytest.raises(ValueError) as info:
        jaxtypes.promote_types(a, b)
    assert not isinstance(info.value, TypePromotionError)
    assert str(info.value) == f"dtype={shown} is not a valid dtype for JAX type promotion."


@pytest.mark.parametrize(
    ("scalar_type", "shown"), [(np.object_, "dtype('O')"), (np.str_, "dtype('<U')"), (np.bytes_, "dtype('S')")]
)
def test_result_type_non_jax_numpy_scalar_type_with_other_arg(scalar_type, shown):
    # JAX's dtype() passes numpy scalar types through unchecked, so the lattice
    # rejects them: ValueError("dtype=... is not a valid dtype for JAX type
    # promotion."), not a TypeError.
    with pytest.raises(ValueError) as info:
        jaxtypes.result_type(scalar_type, "int8")
    assert str(info.value) == f"dtype={shown} is not a valid dtype for JAX type promotion."


@pytest.mark.parametrize("scalar_type", [np.object_, np.str_, np.bytes_])
def test_non_jax_numpy_scalar_type_alone_passes_through(scalar_type):
    # JAX 0.10.2: result_type(np.object_) is dtype('O'), dtype(np.str_) is
    # dtype('<U'): a lone numpy scalar type is not checked.
    for x64 in (False, True):
        with enable_x64(x64):
            assert jaxtypes.result_type(scalar_type, return_weak_type_flag=True) == (np.dtype(scalar_type), False)
            assert jaxtypes.dtype(scalar_type) == np.dtype(scalar_type)


def test_result_type_without_arguments():
    with pytest.raises(ValueError) as info:
        jaxtypes.result_type()
    assert str(info.value) == "at least one array or dtype is required"
    with pytest.raises(ValueError):
        jaxtypes.result_type(return_weak_type_flag=True)


@pytest.mark.parametrize(
    "call",
    [
        lambda: jaxtypes.promote_types("nonsense", "int8"),
        lambda: jaxtypes.promote_types("int8", "nonsense"),
        lambda: jaxtypes.result_type("nonsense"),
        lambda: jaxtypes.result_type("int8", "nonsense"),
        lambda: jaxtypes.dtype("nonsense"),
    ],
    ids=["promote_types-a", "promote_types-b", "result_type", "result_type-second", "dtype"],
)
def test_unknown_dtype_string(call):
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value) == "data type 'nonsense' not understood"


def test_canonicalize_dtype_unknown_dtype_string():
    # JAX: TypeError: data type 'nonsense' not understood (numpy's message).
    with pytest.raises(TypeError) as info:
        jaxtypes.canonicalize_dtype("nonsense")
    assert str(info.value) == "data type 'nonsense' not understood"


@pytest.mark.parametrize(
    ("arg", "message"),
    [
        (
            "object",
            "Value 'object' with dtype object is not a valid JAX array type. Only arrays of numeric types are supported by JAX.",
        ),
        (
            np.dtype("O"),
            "Value 'object' with dtype object is not a valid JAX array type. Only arrays of numeric types are supported by JAX.",
        ),
        (
            "S5",
            "Value 'S5' with dtype |S5 is not a valid JAX array type. Only arrays of numeric types are supported by JAX.",
        ),
        (
            np.array(["a"]),
            "Value '['a']' with dtype <U1 is not a valid JAX array type. Only arrays of numeric types are supported by JAX.",
        ),
        (
            np.array([1], dtype=object),
            "Value '[1]' with dtype object is not a valid JAX array type. Only arrays of numeric types are supported by JAX.",
        ),
        (
            np.dtype(">f4"),
            "Value '>f4' with dtype >f4 is not a valid JAX array type. Only arrays of numeric types are supported by JAX.",
        ),
        (
            str,
            "Value '<class 'str'>' with dtype <U0 is not a valid JAX array type. Only arrays of numeric types are supported by JAX.",
        ),
        ([1, 2], "Cannot determine dtype of [1, 2]"),
        ((1.0, 2.0), "Cannot determine dtype of (1.0, 2.0)"),
    ],
    ids=[
        "object-name",
        "object-dtype",
        "bytes-name",
        "str-array",
        "object-array",
        "big-endian",
        "str-type",
        "list",
        "tuple",
    ],
)
def test_result_type_rejects_non_jax_values(arg, message):
    with pytest.raises(TypeError) as info:
        jaxtypes.result_type(arg)
    assert str(info.value) == message


def test_result_type_rejects_an_arbitrary_object():
    obj = object()
    with pytest.raises(TypeError) as info:
        jaxtypes.result_type(obj)
    assert str(info.value) == f"Cannot determine dtype of {obj}"


# --------------------------------------------------------------------------
# dtype(), canonicalize_dtype(), is_weakly_typed()
DTYPE_CASES = [
    ("int-type", int, "int32", "int64"),
    ("float-type", float, "float32", "float64"),
    ("complex-type", complex, "complex64", "complex128"),
    ("bool-type", bool, "bool", "bool"),
    ("int-value", 1, "int32", "int64"),
    ("float-value", 1.0, "float32", "float64"),
    ("complex-value", 1j, "complex64", "complex128"),
    ("bool-value", True, "bool", "bool"),
    ("np.int64", np.int64, "int32", "int64"),
    ("np.float64", np.float64, "float32", "float64"),
    ("np.complex128", np.complex128, "complex64", "complex128"),
    ("np.uint64", np.uint64, "uint32", "uint64"),
    ("np.int8", np.int8, "int8", "int8"),
    ("ml_dtypes.bfloat16", ml_dtypes.bfloat16, "bfloat16", "bfloat16"),
    ("ml_dtypes.int4", ml_dtypes.int4, "int4", "int4"),
    ("name-int64", "int64", "int32", "int64"),
    ("name-uint64", "uint64", "uint32", "uint64"),
    ("name-float8", "float8_e5m2", "float8_e5m2", "float8_e5m2"),
    ("name-uint2", "uint2", "uint2", "uint2"),
    ("dtype-int64", np.dtype("int64"), "int32", "int64"),
    ("dtype-float16", np.dtype("float16"), "float16", "float16"),
    ("array-int64", arr("int64"), "int32", "int64"),
    ("array-uint64", arr("uint64"), "uint32", "uint64"),
    ("scalar-float64", np.float64(2.0), "float32", "float64"),
    ("scalar-int16", np.int16(3), "int16", "int16"),
    ("scalar-True", np.True_, "bool", "bool"),
    ("scalar-complex128", np.complex128(1), "complex64", "complex128"),
    ("has-dtype-float64", HasDtype("float64"), "float32", "float64"),
    ("has-dtype-int16", HasDtype("int16"), "int16", "int16"),
]


@pytest.mark.parametrize(("case", "x", "x32", "x64"), DTYPE_CASES, ids=[c[0] for c in DTYPE_CASES])
def test_dtype(case, x, x32, x64):
    with enable_x64(False):
        got = jaxtypes.dtype(x)
        assert isinstance(got, np.dtype) and got.name == x32
    with enable_x64(True):
        assert jaxtypes.dtype(x).name == x64


def test_dtype_errors():
    with pytest.raises(ValueError) as info:
        jaxtypes.dtype(None)
    assert str(info.value) == "Invalid argument to dtype: None."
    with pytest.raises(TypeError) as info:
        jaxtypes.dtype("object")
    assert str(info.value) == (
        "Value 'object' with dtype object is not a valid JAX array type. "
        "Only arrays of numeric types are supported by JAX."
    )


CANONICALIZE_CASES = [
    ("np.int64", np.int64, "int32", "int64"),
    ("int64", "int64", "int32", "int64"),
    ("float64", "float64", "float32", "float64"),
    ("uint64-dtype", np.dtype("uint64"), "uint32", "uint64"),
    ("complex128", "complex128", "complex64", "complex128"),
    ("int8", "int8", "int8", "int8"),
    ("np.float32", np.float32, "float32", "float32"),
    ("bfloat16", "bfloat16", "bfloat16", "bfloat16"),
    ("float8", "float8_e4m3fn", "float8_e4m3fn", "float8_e4m3fn"),
    ("int4", "int4", "int4", "int4"),
    ("float-type", float, "float32", "float64"),
    ("int-type", int, "int32", "int64"),
    ("complex-type", complex, "complex64", "complex128"),
    ("bool-type", bool, "bool", "bool"),
    ("None", None, "float32", "float64"),
    ("code-i8", "i8", "int32", "int64"),
    ("code-<f8", "<f8", "float32", "float64"),
    # Not JAX dtypes: passed through unchanged, as JAX does.
    ("object", "object", "object", "object"),
    ("bytes", "S4", "bytes32", "bytes32"),
    ("object-type", object, "object", "object"),
]


@pytest.mark.parametrize(("case", "x", "x32", "x64"), CANONICALIZE_CASES, ids=[c[0] for c in CANONICALIZE_CASES])
def test_canonicalize_dtype(case, x, x32, x64):
    with enable_x64(False):
        got = jaxtypes.canonicalize_dtype(x)
        assert isinstance(got, np.dtype) and got.name == x32
    with enable_x64(True):
        assert jaxtypes.canonicalize_dtype(x).name == x64


def test_canonicalize_dtype_keeps_non_native_byte_order():
    with enable_x64(False):
        assert jaxtypes.canonicalize_dtype(">f8") == np.dtype(">f8")


WEAK_CASES = [
    ("int-value", 1, True),
    ("float-value", 1.0, True),
    ("complex-value", 1j, True),
    ("bool-value", True, False),
    ("int-type", int, False),
    ("float-type", float, False),
    ("np.int32-scalar", np.int32(1), False),
    ("np.float64-scalar", np.float64(1), False),
    ("array", np.array(1), False),
    ("None", None, False),
    ("name", "int8", False),
    ("has-dtype", HasDtype("int8"), False),
    ("weak_type-True", HasDtype("int8", True), True),
    ("weak_type-False", HasDtype("int8", False), False),
    ("aval-weak_type-True", TracerLike("int8", True), True),
    ("aval-weak_type-False", TracerLike("int8", False), False),
    ("int-subclass", MyInt(3), False),
]


@pytest.mark.parametrize(("case", "x", "expected"), WEAK_CASES, ids=[c[0] for c in WEAK_CASES])
def test_is_weakly_typed(case, x, expected):
    assert jaxtypes.is_weakly_typed(x) is expected


# --------------------------------------------------------------------------
def test_importing_jaxtypes_does_not_import_jax():
    code = (
        "import sys, numpy as np, jaxtypes\n"
        "jaxtypes.promote_types('int8', float)\n"
        "jaxtypes.result_type(np.zeros(2, np.float32), 1, None)\n"
        "jaxtypes.is_weakly_typed(1)\n"
        "jaxtypes.dtype(1.0); jaxtypes.canonicalize_dtype('int64')\n"
        "with jaxtypes.numpy_dtype_promotion('strict'), jaxtypes.enable_x64(True):\n"
        "    jaxtypes.result_type(1)\n"
        "print(sorted(m for m in sys.modules if m == 'jax' or m.startswith(('jax.', 'jaxlib'))))\n"
    )
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
