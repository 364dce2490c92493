"""JAX's documented 18x18 x64 promotion table and lattice edges, as data.

Everything expected here is written out literally: the table rows and the
edges are copied from JAX's documentation, "Type promotion semantics"
(https://docs.jax.dev/en/latest/type_promotion.html; the rows pipe-separated, as there).  Nothing expected
is computed by jaxtypes.  The answers were also checked against JAX 0.10.2
(``jax.numpy.promote_types``) before being committed here.

Two views of the same table are checked:

(a) ``jaxtypes.lattice.join(a, b, Variant('standard', True))`` on node names;
(b) the runtime ``jaxtypes.promote_types`` under ``enable_x64(True)``, where the
    weak codes i*, f*, c* are the Python types ``int``, ``float``, ``complex``.
    As in JAX, ``promote_types`` returns a *dtype*, so a weak result comes back
    as the dtype of its Python type: i* -> int64, f* -> float64, c* -> complex128.
    The comparison maps the expected weak codes to those dtypes (a weak result
    and a strong 64-bit result are therefore indistinguishable in view (b); view
    (a) is the one that tells them apart).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import jaxtypes
from jaxtypes import lattice
from jaxtypes.lattice import Variant
from tools.oracle import lattice_facts as facts

from seed_000 import SEED_TABLE

# The table's codes (b1 = np.bool_, i2 = np.int16, u4 = np.uint32,
# bf = bfloat16, f2 = float16, c8 = complex64, ...) as lattice node names.
CODE_TO_NODE = {
    "b1": "bool",
    "u1": "uint8",
    "u2": "uint16",
    "u4": "uint32",
    "u8": "uint64",
    "i1": "int8",
    "i2": "int16",
    "i4": "int32",
    "i8": "int64",
    "bf": "bfloat16",
    "f2": "float16",
    "f4": "float32",
    "f8": "float64",
    "c8": "complex64",
    "c16": "complex128",
    "i*": "i*",
    "f*": "f*",
    "c*": "c*",
}
CODES = list(CODE_TO_NODE)

# promote_types operands: numpy dtypes for the strong codes, the Python types
# for the weak ones.
CODE_TO_OPERAND = {
    "b1": np.dtype(np.bool_),
    "u1": np.dtype(np.uint8),
    "u2": np.dtype(np.uint16),
    "u4": np.dtype(np.uint32),
    "u8": np.dtype(np.uint64),
    "i1": np.dtype(np.int8),
    "i2": np.dtype(np.int16),
    "i4": np.dtype(np.int32),
    "i8": np.dtype(np.int64),
    "bf": np.dtype(ml_dtypes.bfloat16),
    "f2": np.dtype(np.float16),
    "f4": np.dtype(np.float32),
    "f8": np.dtype(np.float64),
    "c8": np.dtype(np.complex64),
    "c16": np.dtype(np.complex128),
    "i*": int,
    "f*": float,
    "c*": complex,
}
# The same operands as numpy / ml_dtypes scalar types (weak ones unchanged).
CODE_TO_SCALAR_TYPE = {
    "b1": np.bool_,
    "u1": np.uint8,
    "u2": np.uint16,
    "u4": np.uint32,
    "u8": np.uint64,
    "i1": np.int8,
    "i2": np.int16,
    "i4": np.int32,
    "i8": np.int64,
    "bf": ml_dtypes.bfloat16,
    "f2": np.float16,
    "f4": np.float32,
    "f8": np.float64,
    "c8": np.complex64,
    "c16": np.complex128,
    "i*": int,
    "f*": float,
    "c*": complex,
}
# The dtype name promote_types returns for an expected code: a weak result is
# the dtype of its Python type (int64, float64, complex128), as in JAX.
CODE_TO_RESULT_NAME = {
    "b1": "bool",
    "u1": "uint8",
    "u2": "uint16",
    "u4": "uint32",
    "u8": "uint64",
    "i1": "int8",
    "i2": "int16",
    "i4": "int32",
    "i8": "int64",
    "bf": "bfloat16",
    "f2": "float16",
    "f4": "float32",
    "f8": "float64",
    "c8": "complex64",
    "c16": "complex128",
    "i*": "int64",
    "f*": "float64",
    "c*": "complex128",
}


def _parse_seed_table() -> dict[tuple[str, str], str]:
    lines = [ln for ln in SEED_TABLE.strip().splitlines() if ln.strip()]
    header = [c.strip() for c in lines[0].split("|") if c.strip()]
    cells: dict[tuple[str, str], str] = {}
    for line in lines[1:]:
        fields = [c.strip() for c in line.split("|") if c.strip()]
        row, values = fields[0], fields[1:]
        assert len(values) == len(header), line
        for col, value in zip(header, values):
            cells[row, col] = value
    return cells


TABLE = _parse_seed_table()
X64_STANDARD = Variant("standard", True)
X32_STANDARD = Variant("standard", False)

# With x64 disabled the lattice differs in one edge (uint32 -> int32, uint64):
# uint32 joined with a signed int of at most 32 bits gives int32, not int64.
X32_CHANGED_CELLS = {
    ("u4", "i1"): "i4",
    ("u4", "i2"): "i4",
    ("u4", "i4"): "i4",
    ("i1", "u4"): "i4",
    ("i2", "u4"): "i4",
    ("i4", "u4"): "i4",
}
ALL_CELLS = [(a, b) for a in CODES for b in CODES]


def test_seed_table_is_complete_and_uses_the_18_codes():
    assert len(TABLE) == 18 * 18
    assert {a for a, _ in TABLE} == set(CODES)
    assert {b for _, b in TABLE} == set(CODES)
    assert set(TABLE.values()) <= set(CODES)


def test_lattice_seed_codes_match_the_seed():
    assert list(lattice.SEED_NODES) == [CODE_TO_NODE[c] for c in CODES]
    assert dict(lattice.SEED_CODES) == {n: c for c, n in CODE_TO_NODE.items()}


@pytest.mark.parametrize("a", CODES)
def test_lattice_join_matches_seed_table_row(a):
    got = {b: lattice.join(CODE_TO_NODE[a], CODE_TO_NODE[b], X64_STANDARD) for b in CODES}
    expected = {b: CODE_TO_NODE[TABLE[a, b]] for b in CODES}
    assert got == expected


@pytest.mark.parametrize("a", CODES)
def test_lattice_join_x32_matches_seed_table_with_the_uint32_edge_changed(a):
    got = {b: lattice.join(CODE_TO_NODE[a], CODE_TO_NODE[b], X32_STANDARD) for b in CODES}
    expected = {b: CODE_TO_NODE[X32_CHANGED_CELLS.get((a, b), TABLE[a, b])] for b in CODES}
    assert got == expected


@pytest.mark.parametrize("a", CODES)
def test_promote_types_x64_matches_seed_table_row(a):
    # Weak results compare as int64/float64/complex128 (see the module docstring).
    with jaxtypes.enable_x64(True):
        got = {b: jaxtypes.promote_types(CODE_TO_OPERAND[a], CODE_TO_OPERAND[b]) for b in CODES}
    for b, dt in got.items():
        assert isinstance(dt, np.dtype), (a, b, dt)
    assert {b: dt.name for b, dt in got.items()} == {b: CODE_TO_RESULT_NAME[TABLE[a, b]] for b in CODES}


@pytest.mark.parametrize("a", CODES)
def test_promote_types_x64_with_scalar_types_and_names_matches_seed_table(a):
    def name_of(code):
        op = CODE_TO_OPERAND[code]
        return op if isinstance(op, type) else op.name

    expected = {b: CODE_TO_RESULT_NAME[TABLE[a, b]] for b in CODES}
    with jaxtypes.enable_x64(True):
        by_type = {b: jaxtypes.promote_types(CODE_TO_SCALAR_TYPE[a], CODE_TO_SCALAR_TYPE[b]).name for b in CODES}
        by_name = {b: jaxtypes.promote_types(name_of(a), name_of(b)).name for b in CODES}
    assert by_type == expected
    assert by_name == expected


@pytest.mark.parametrize("a", CODES)
def test_promote_types_x32_matches_seed_table_with_the_uint32_edge_changed(a):
    # promote_types uses the x32 lattice when x64 is off, but does not
    # canonicalize: weak results are still int64/float64/complex128.
    with jaxtypes.enable_x64(False):
        got = {b: jaxtypes.promote_types(CODE_TO_OPERAND[a], CODE_TO_OPERAND[b]).name for b in CODES}
    assert got == {b: CODE_TO_RESULT_NAME[X32_CHANGED_CELLS.get((a, b), TABLE[a, b])] for b in CODES}


def test_seed_table_is_symmetric():
    # The seed's own table is a lattice join: symmetric.  (A check on the
    # transcription as much as on the lattice.)
    assert all(TABLE[a, b] == TABLE[b, a] for a, b in ALL_CELLS)


# --------------------------------------------------------------------------
# The facts page's "Direct upper edges" (tools/oracle/lattice_facts.py).
SMALL_FLOATS = list(facts.SMALL_FLOATS)
ALL_INTS = list(facts.ALL_INTS)
ALL_FLOATS = list(facts.ALL_FLOATS)
ALL_NODES = list(facts.NODES)
STANDARD_X64_EDGES = facts.STANDARD_X64_EDGES
STANDARD_X32_EDGES = facts.STANDARD_X32_EDGES
STRICT_EDGES = facts.STRICT_EDGES


def _as_sets(edges):
    return {node: set(targets) for node, targets in edges.items()}


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        (Variant("standard", True), STANDARD_X64_EDGES),
        (Variant("standard", False), STANDARD_X32_EDGES),
        (Variant("strict", True), STRICT_EDGES),
        (Variant("strict", False), STRICT_EDGES),
    ],
    ids=["standard-x64", "standard-x32", "strict-x64", "strict-x32"],
)
def test_edges_match_the_facts_page(variant, expected):
    got = lattice.edges(variant)
    assert set(got) == set(ALL_NODES)
    assert _as_sets(got) == expected
    for node, targets in got.items():
        assert len(targets) == len(set(targets)), f"duplicate edge from {node}"


def test_x32_differs_from_x64_in_exactly_the_uint32_edge():
    x64 = _as_sets(lattice.edges(Variant("standard", True)))
    x32 = _as_sets(lattice.edges(Variant("standard", False)))
    assert {n for n in ALL_NODES if x64[n] != x32[n]} == {"uint32"}
    assert x64["uint32"] == {"uint64", "int64"}
    assert x32["uint32"] == {"int32", "uint64"}


@pytest.mark.parametrize(
    ("variant", "expected_edges"),
    [
        (Variant("standard", True), STANDARD_X64_EDGES),
        (Variant("standard", False), STANDARD_X32_EDGES),
        (Variant("strict", True), STRICT_EDGES),
        (Variant("strict", False), STRICT_EDGES),
    ],
    ids=["standard-x64", "standard-x32", "strict-x64", "strict-x32"],
)
def test_upper_bounds_are_the_closure_of_the_facts_edges(variant, expected_edges):
    closure = facts.upper_bounds(expected_edges)
    assert {n: lattice.upper_bounds(n, variant) for n in ALL_NODES} == closure


# --------------------------------------------------------------------------
# The facts page's "Cases worth a test of their own".
STD64, STD32 = Variant("standard", True), Variant("standard", False)
STRICT64, STRICT32 = Variant("strict", True), Variant("strict", False)
SIGNED = ["int8", "int16", "int32", "int64"]


def test_case_bool_with_weak_int_is_weak_int_standard_and_fails_strict():
    for v in (STD64, STD32):
        assert lattice.join("bool", "i*", v) == "i*"
    for v in (STRICT64, STRICT32):
        assert lattice.join("bool", "i*", v) is None
    # Runtime: promote_types gives the dtype of int (int64), result_type a weak int.
    assert jaxtypes.promote_types(bool, int) == np.dtype("int64")
    with jaxtypes.enable_x64(False):
        assert jaxtypes.result_type(True, 1, return_weak_type_flag=True) == (np.dtype("int32"), True)
        assert jaxtypes.result_type(np.bool_, int, return_weak_type_flag=True) == (np.dtype("int32"), True)
    with jaxtypes.enable_x64(True):
        assert jaxtypes.result_type(True, 1, return_weak_type_flag=True) == (np.dtype("int64"), True)
    with jaxtypes.numpy_dtype_promotion("strict"):
        with pytest.raises(jaxtypes.TypePromotionError) as info:
            jaxtypes.promote_types(bool, int)
    assert str(info.value) == (
        "Input dtypes ('bool', \"<class 'int'>\") have no available implicit dtype "
        "promotion path when jax_numpy_dtype_promotion=strict. Try explicitly casting "
        "inputs to the desired output type, or set jax_numpy_dtype_promotion=standard."
    )


@pytest.mark.parametrize("signed", SIGNED)
def test_case_uint64_with_any_signed_int_is_weak_float(signed):
    for v in (STD64, STD32):
        assert lattice.join("uint64", signed, v) == "f*"
        assert lattice.join(signed, "uint64", v) == "f*"
    with jaxtypes.enable_x64(True):
        assert jaxtypes.result_type(np.dtype("uint64"), np.dtype(signed), return_weak_type_flag=True) == (
            np.dtype("float64"),
            True,
        )
        assert jaxtypes.result_type(np.zeros(2, np.uint64), np.zeros(2, signed), return_weak_type_flag=True) == (
            np.dtype("float64"),
            True,
        )
        assert jaxtypes.promote_types("uint64", signed) == np.dtype("float64")
    # x64 off: promote_types does not canonicalize, so it is still float64.
    with jaxtypes.enable_x64(False):
        assert jaxtypes.promote_types("uint64", signed) == np.dtype("float64")


@pytest.mark.parametrize("f8", [f for f in SMALL_FLOATS if f.startswith("float8")])
def test_case_float8_with_int8_weak_float_and_weak_complex(f8):
    for v in (STD64, STD32):
        assert lattice.join("int8", f8, v) == f8
        assert lattice.join(f8, "f*", v) == f8
        assert lattice.join(f8, "c*", v) is None
    assert jaxtypes.promote_types("int8", f8) == np.dtype(getattr(ml_dtypes, f8))
    assert jaxtypes.promote_types(f8, float) == np.dtype(getattr(ml_dtypes, f8))
    assert jaxtypes.result_type(np.zeros(1, getattr(ml_dtypes, f8)), 1.0) == np.dtype(getattr(ml_dtypes, f8))
    with pytest.raises(jaxtypes.TypePromotionError) as info:
        jaxtypes.promote_types(f8, complex)
    assert str(info.value) == (
        f"Input dtypes ('{f8}', \"<class 'complex'>\") have no available implicit dtype "
        "promotion path. To avoid unintended promotion, 8-bit floats do not support "
        "implicit promotion. If you'd like your inputs to be promoted to another type, "
        "you can do so explicitly using e.g. x.astype('float32')"
    )


@pytest.mark.parametrize("n", ["int1", "int2", "int4", "uint1", "uint2", "uint4"])
def test_case_sub_byte_int_with_weak_int_bool_and_weak_float(n):
    for v in (STD64, STD32):
        assert lattice.join(n, "i*", v) == n
        assert lattice.join(n, "bool", v) == n
        assert lattice.join(n, "f*", v) is None
    dt = np.dtype(getattr(ml_dtypes, n))
    assert jaxtypes.promote_types(n, int) == dt
    assert jaxtypes.promote_types(n, bool) == dt
    assert jaxtypes.result_type(np.zeros(1, dt), 3) == dt
    with pytest.raises(jaxtypes.TypePromotionError) as info:
        jaxtypes.promote_types(n, float)
    assert str(info.value) == (
        f"Input dtypes ('{n}', \"<class 'float'>\") have no available implicit dtype "
        "promotion path. To avoid unintended promotion, 1-bit, 2-bit and 4-bit "
        "integers do not support implicit promotion. If you'd like your inputs to be "
        "promoted to another type, you can do so explicitly using e.g. x.astype('int32')"
    )


def test_case_bfloat16_with_float16_and_weak_complex():
    for v in (STD64, STD32):
        assert lattice.join("bfloat16", "float16", v) == "float32"
        assert lattice.join("bfloat16", "c*", v) == "complex64"
    for x64 in (True, False):
        with jaxtypes.enable_x64(x64):
            assert jaxtypes.promote_types(ml_dtypes.bfloat16, np.float16) == np.dtype("float32")
            assert jaxtypes.promote_types("bfloat16", complex) == np.dtype("complex64")
            assert jaxtypes.result_type("bfloat16", 1j, return_weak_type_flag=True) == (np.dtype("complex64"), False)


@pytest.mark.parametrize("v", [STRICT64, STRICT32], ids=["x64", "x32"])
def test_case_strict_still_allows_weak_with_its_own_kind(v):
    for n in ALL_INTS:
        assert lattice.join("i*", n, v) == n
    for n in ALL_FLOATS:
        assert lattice.join("f*", n, v) == n
    for n in ("complex64", "complex128"):
        assert lattice.join("c*", n, v) == n
    with jaxtypes.numpy_dtype_promotion("strict"), jaxtypes.enable_x64(v.x64):
        for n in ALL_INTS:
            assert jaxtypes.promote_types(int, n) == np.dtype(getattr(ml_dtypes, n, n))
        for n in ALL_FLOATS:
            assert jaxtypes.promote_types(n, float) == np.dtype(getattr(ml_dtypes, n, n))
        for n in ("complex64", "complex128"):
            assert jaxtypes.promote_types(complex, n) == np.dtype(n)
        assert jaxtypes.result_type(np.float32(1), 1) == np.dtype("float32")
        assert jaxtypes.result_type(np.int8(1), 1) == np.dtype("int8")
        assert jaxtypes.result_type(np.complex64(1), 1j) == np.dtype("complex64")
