"""jaxtypes against JAX's own observed promotion tables, committed as data.

The expected answers come from JAX alone: ``tools/oracle/make_jax_tables.py``
ran JAX 0.10.2 and wrote ``tools/data/jax_observed_tables.json`` (the 18x18
tables of JAX's ``testObservedPromotionTable``, the code of
``jnp.add(row_value, column_value)``) and ``tools/data/jax_lattice_joins.json``
(``jnp.promote_types`` and JAX's least upper bound for every ordered pair of
the 35 lattice nodes in the four configurations).  Nothing expected here is
computed by jaxtypes; the tests only translate codes into dtypes.

Which jaxtypes call answers which table:

``x64`` (jax_enable_x64=True)
    ``result_type(row, col, return_weak_type_flag=True)`` under
    ``enable_x64(True)``, for every input form of the row and column types
    (dtype, name, scalar type, numpy array, numpy scalar, JAX array; Python
    scalar and Python type for the weak codes); and ``promote_types`` on the
    dtypes, where a weak code reads as its Python type's dtype (i* -> int64).
``x32`` (x64 off, values canonicalized)
    ``result_type`` as above under ``enable_x64(False)``: numpy inputs are
    canonicalized as JAX canonicalizes its values; ``promote_types`` on the
    canonicalized dtypes, canonicalized.
``x32_warn_x64_values`` (x64 off, 64-bit JAX arrays made while x64 was on)
    ``result_type`` on those very JAX arrays (and Python scalars) under
    ``enable_x64(False)``: JAX keeps an existing array's dtype, and jaxtypes
    models JAX's default ``jax_explicit_x64_dtypes='warn'``.
``x32_explicit_x64`` (x64 off, ``jax_explicit_x64_dtypes='allow'``)
    jaxtypes has no explicit-x64 switch, so this table is checked through what
    it is made of: ``promote_types`` under ``enable_x64(False)`` is the x32
    lattice join with nothing canonicalized, which is the table's dtype (a weak
    code reading as int64/float64/complex128, as above); and ``result_type`` on
    the 64-bit JAX arrays gives the table's weak flag, and its dtype where the
    result is weak (the x32 default of the kind).
"""

from __future__ import annotations

import json
import warnings
from typing import Any, Iterator

import jax  # a required test dependency: no skip when it is missing
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import jaxtypes
import tools
from jaxtypes import lattice

DATA = tools.DATA
OBSERVED = json.loads((DATA / "jax_observed_tables.json").read_text(encoding="utf-8"))
JOINS = json.loads((DATA / "jax_lattice_joins.json").read_text(encoding="utf-8"))
REGENERATE = "regenerate with: python -m tools.oracle.make_jax_tables"

CODES: list[str] = OBSERVED["codes"]
CODE_DTYPE = {c: np.dtype(getattr(ml_dtypes, n, None) or n) for c, n in OBSERVED["code_dtypes"].items()}
WEAK_CODES = {"i*": int, "f*": float, "c*": complex}
WEAK_NODE_TYPES = {"i*": int, "f*": float, "c*": complex}
# A weak code read as promote_types' answer: the dtype of its Python type.
WEAK_AS_DTYPE = {"i": np.dtype("int64"), "f": np.dtype("float64"), "c": np.dtype("complex128")}
X32_DEFAULT = {"i": np.dtype("int32"), "f": np.dtype("float32"), "c": np.dtype("complex64")}
TO_32 = {
    np.dtype("int64"): np.dtype("int32"),
    np.dtype("uint64"): np.dtype("uint32"),
    np.dtype("float64"): np.dtype("float32"),
    np.dtype("complex128"): np.dtype("complex64"),
}


def canon32(dt: np.dtype) -> np.dtype:
    return TO_32.get(dt, dt)


def code_of(dt: np.dtype, weak: bool) -> str:
    """The table code of a (dtype, weak) answer, as JAX's test spells it."""
    for code, cdt in CODE_DTYPE.items():
        if not code.endswith("*") and cdt == dt:
            return code[:-1] + "*" if weak else code
    return f"<{dt}{' weak' if weak else ''}>"


def expected_cell(code: str) -> tuple[str, bool]:
    return code, code.endswith("*")


@pytest.fixture(autouse=True)
def _quiet_x64_warnings() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Explicitly requested dtype", category=UserWarning)
        yield


# ------------------------------------------------------------ freshness
def test_committed_tables_match_the_installed_jax() -> None:
    for data in (OBSERVED, JOINS):
        assert data["jax_version"] == jax.__version__, (
            f"the committed JAX tables are from JAX {data['jax_version']}, but JAX "
            f"{jax.__version__} is installed; {REGENERATE}"
        )


def test_committed_nodes_are_the_lattice_nodes() -> None:
    assert JOINS["nodes"] == list(lattice.NODES), REGENERATE
    assert set(OBSERVED["tables"]) == {"x64", "x32", "x32_explicit_x64", "x32_warn_x64_values"}
    for name, entry in OBSERVED["tables"].items():
        table = entry["table"]
        assert len(table) == 18 and all(len(row) == 18 for row in table), name


def test_committed_tables_are_jax_s_published_ones() -> None:
    """Spot checks against the literal tables of JAX's dtypes_test (and JAX's documented table)."""
    t64 = OBSERVED["tables"]["x64"]["table"]
    t32 = OBSERVED["tables"]["x32"]["table"]
    ix = CODES.index
    assert t64[ix("u8")][ix("i1")] == "f*" and t32[ix("u8")][ix("i1")] == "i4"
    assert t64[ix("u4")][ix("i4")] == "i8" and t32[ix("u4")][ix("i4")] == "i4"
    assert t64[ix("bf")][ix("f2")] == "f4" and t64[ix("c*")][ix("bf")] == "c4"
    assert t64[ix("b1")][ix("i*")] == "i*" and t32[ix("f*")][ix("f*")] == "f*"


# ------------------------------------------------------- input forms
def strong_forms(code: str) -> list[tuple[str, Any]]:
    """numpy-side inputs that stand for a strong code (no JAX involved)."""
    dt = CODE_DTYPE[code]
    return [
        ("dtype", dt),
        ("name", dt.name),
        ("scalar type", dt.type),
        ("numpy array", np.zeros((2,), dt)),
        ("numpy 0-d array", np.zeros((), dt)),
        ("numpy scalar", dt.type(0)),
    ]


def weak_forms(code: str) -> list[tuple[str, Any]]:
    typ = WEAK_CODES[code]
    return [("python value", typ(0)), ("python type", typ)]


def forms(code: str) -> list[tuple[str, Any]]:
    return weak_forms(code) if code.endswith("*") else strong_forms(code)


def jax_values(x64_values: bool) -> dict[str, Any]:
    """JAX's own test values: jnp.<dtype>(0) (strong) and Python scalars (weak)."""
    out: dict[str, Any] = {}
    with jax.enable_x64(x64_values):
        for code in CODES:
            if code.endswith("*"):
                out[code] = WEAK_CODES[code](0)
            else:
                out[code] = jnp.asarray(0, dtype=CODE_DTYPE[code])
    return out


def table_cells(name: str) -> Iterator[tuple[str, str, str]]:
    table = OBSERVED["tables"][name]["table"]
    for i, row_code in enumerate(CODES):
        for j, col_code in enumerate(CODES):
            yield row_code, col_code, table[i][j]


def _twice_result_type(x: Any, y: Any) -> tuple[np.dtype, bool]:
    """result_type twice (the second call may be served by the cache): both must agree."""
    first = jaxtypes.result_type(x, y, return_weak_type_flag=True)
    second = jaxtypes.result_type(x, y, return_weak_type_flag=True)
    assert first == second and type(first[1]) is bool, (x, y, first, second)
    assert jaxtypes.result_type(x, y) == first[0]
    return first


def _twice_promote_types(x: Any, y: Any) -> np.dtype:
    first = jaxtypes.promote_types(x, y)
    second = jaxtypes.promote_types(x, y)
    assert first == second, (x, y, first, second)
    return first


def _report(table: str, bad: list[str], checked: int) -> None:
    assert checked > 0
    assert not bad, (
        f"jaxtypes differs from JAX's observed '{table}' table in {len(bad)} of {checked} "
        "checks (row operand, column operand -> want JAX's, got jaxtypes'):\n  " + "\n  ".join(bad[:40])
    )


# ------------------------------------------- x64 and x32 (canonicalized) tables
@pytest.mark.parametrize("table,x64", [("x64", True), ("x32", False)])
def test_result_type_matches_table(table: str, x64: bool) -> None:
    bad: list[str] = []
    checked = 0
    with jaxtypes.numpy_dtype_promotion("standard"), jaxtypes.enable_x64(x64):
        for row, col, want in table_cells(table):
            for rform, x in forms(row):
                for cform, y in forms(col):
                    dt, weak = _twice_result_type(x, y)
                    got = code_of(dt, weak)
                    checked += 1
                    if got != want:
                        bad.append(f"{row} ({rform}), {col} ({cform}) -> want {want}, got {got}")
    _report(table, bad, checked)
    assert checked >= 18 * 18


@pytest.mark.parametrize("table,x64", [("x64", True), ("x32", False)])
def test_result_type_on_jax_values_matches_table(table: str, x64: bool) -> None:
    """The very values of JAX's test: jnp.<dtype>(0) arrays and Python scalars."""
    values = jax_values(x64)
    bad: list[str] = []
    with jaxtypes.numpy_dtype_promotion("standard"), jaxtypes.enable_x64(x64):
        for row, col, want in table_cells(table):
            got = code_of(*_twice_result_type(values[row], values[col]))
            if got != want:
                bad.append(f"{row}, {col} -> want {want}, got {got}")
    _report(table, bad, 18 * 18)


def _promote_operand(code: str, x64: bool) -> Any:
    if code.endswith("*"):
        return WEAK_CODES[code]
    return CODE_DTYPE[code] if x64 else canon32(CODE_DTYPE[code])


@pytest.mark.parametrize("table,x64", [("x64", True), ("x32", False)])
def test_promote_types_matches_table(table: str, x64: bool) -> None:
    bad: list[str] = []
    with jaxtypes.numpy_dtype_promotion("standard"), jaxtypes.enable_x64(x64):
        for row, col, want in table_cells(table):
            if want.endswith("*"):
                want_dt = WEAK_AS_DTYPE[want[0]]
            else:
                want_dt = CODE_DTYPE[want]
            got = _twice_promote_types(_promote_operand(row, x64), _promote_operand(col, x64))
            if not x64:
                got, want_dt = canon32(got), canon32(want_dt)
            if got != want_dt:
                bad.append(f"{row}, {col} -> want {want_dt} (cell {want}), got {got}")
    _report(table, bad, 18 * 18)


# ---------------------------------------- x64 off, 64-bit JAX arrays kept
def test_result_type_on_64bit_jax_arrays_with_x64_off() -> None:
    values = jax_values(True)
    assert values["i8"].dtype == np.dtype("int64")  # the 64-bit arrays exist
    bad: list[str] = []
    with jaxtypes.numpy_dtype_promotion("standard"), jaxtypes.enable_x64(False):
        for row, col, want in table_cells("x32_warn_x64_values"):
            got = code_of(*_twice_result_type(values[row], values[col]))
            if got != want:
                bad.append(f"{row}, {col} -> want {want}, got {got}")
    _report("x32_warn_x64_values", bad, 18 * 18)


def test_explicit_x64_table_is_the_uncanonicalized_x32_join() -> None:
    values = jax_values(True)
    bad: list[str] = []
    with jaxtypes.numpy_dtype_promotion("standard"), jaxtypes.enable_x64(False):
        for row, col, want in table_cells("x32_explicit_x64"):
            want_weak = want.endswith("*")
            want_dt = WEAK_AS_DTYPE[want[0]] if want_weak else CODE_DTYPE[want]
            got_dt = _twice_promote_types(_promote_operand(row, True), _promote_operand(col, True))
            if got_dt != want_dt:
                bad.append(f"promote_types: {row}, {col} -> want {want_dt} (cell {want}), got {got_dt}")
            dt, weak = _twice_result_type(values[row], values[col])
            if weak != want_weak:
                bad.append(f"result_type weak flag: {row}, {col} -> want {want_weak}, got {weak}")
            if want_weak and dt != X32_DEFAULT[want[0]]:
                bad.append(f"result_type: {row}, {col} -> want {X32_DEFAULT[want[0]]} (weak), got {dt}")
    _report("x32_explicit_x64", bad, 18 * 18)


# --------------------------------------------------- the 35-node joins
CONFIG_LABELS = list(JOINS["configs"])


def _node_operands(node: str) -> list[tuple[str, Any]]:
    if node in WEAK_NODE_TYPES:
        return [("type", WEAK_NODE_TYPES[node])]
    dt = np.dtype(getattr(ml_dtypes, node, None) or node)
    return [("dtype", dt), ("name", node), ("scalar type", dt.type)]


def _expected_promotion(label: str, a: str, b: str) -> tuple[str, str, str]:
    """('ok', dtype name, '') or ('error', class name, message) from the data."""
    cell = JOINS["configs"][label]["promote_types"][a][JOINS["nodes"].index(b)]
    if not cell.startswith("!"):
        return ("ok", cell, "")
    template = JOINS["error_templates"][cell[1:]]
    shown = str((JOINS["display"][a], JOINS["display"][b]))
    return ("error", template["class"], template["message"].replace("{dtypes}", shown))


def test_all_four_configurations_are_recorded() -> None:
    assert sorted(CONFIG_LABELS) == sorted(v.label for v in lattice.VARIANTS)
    for label in CONFIG_LABELS:
        cfg = JOINS["configs"][label]
        assert lattice.variant(cfg["mode"], cfg["x64"]).label == label
        assert list(cfg["promote_types"]) == JOINS["nodes"]
        assert all(len(row) == len(JOINS["nodes"]) for row in cfg["promote_types"].values())


@pytest.mark.parametrize("label", CONFIG_LABELS)
def test_promote_types_matches_jax_on_all_node_pairs(label: str) -> None:
    cfg = JOINS["configs"][label]
    bad: list[str] = []
    checked = 0
    with jaxtypes.numpy_dtype_promotion(cfg["mode"]), jaxtypes.enable_x64(cfg["x64"]):
        for a in JOINS["nodes"]:
            for b in JOINS["nodes"]:
                want = _expected_promotion(label, a, b)
                for aform, x in _node_operands(a):
                    for bform, y in _node_operands(b):
                        got_twice = []
                        for _ in range(2):  # the second call may come from the cache
                            try:
                                got_twice.append(("ok", jaxtypes.promote_types(x, y).name, ""))
                            except Exception as err:  # noqa: BLE001 - compared below
                                got_twice.append(("error", type(err).__name__, str(err)))
                                if want[0] == "error":
                                    assert isinstance(err, ValueError), err
                        checked += 1
                        if got_twice[0] != got_twice[1]:
                            bad.append(f"{a} ({aform}), {b} ({bform}): second call differs: {got_twice}")
                        elif got_twice[0] != want:
                            bad.append(f"{a} ({aform}), {b} ({bform}) -> want {want}, got {got_twice[0]}")
    assert checked >= len(JOINS["nodes"]) ** 2
    assert not bad, (
        f"jaxtypes.promote_types differs from jnp.promote_types ({label}) in {len(bad)} of "
        f"{checked} cases:\n  " + "\n  ".join(bad[:40])
    )


@pytest.mark.parametrize("label", CONFIG_LABELS)
def test_lattice_join_matches_jax_least_upper_bound(label: str) -> None:
    cfg = JOINS["configs"][label]
    v = lattice.variant(cfg["mode"], cfg["x64"])
    bad = []
    for a in JOINS["nodes"]:
        for j, b in enumerate(JOINS["nodes"]):
            want = cfg["least_upper_bound"][a][j]
            got = lattice.join(a, b, v)
            if got != want:
                bad.append(f"join({a}, {b}) -> want {want}, got {got}")
    assert not bad, f"jaxtypes.lattice.join differs from JAX ({label}):\n  " + "\n  ".join(bad[:40])


@pytest.mark.parametrize("label", CONFIG_LABELS)
def test_error_reasons_match_jax_messages(label: str) -> None:
    """lattice.no_join_reason picks the message JAX picks, for every pair with no join."""
    cfg = JOINS["configs"][label]
    v = lattice.variant(cfg["mode"], cfg["x64"])
    phrases = {
        "strict": "when jax_numpy_dtype_promotion=strict",
        "float8": "8-bit floats do not support implicit promotion",
        "float6": "6-bit floats do not support implicit promotion",
        "float4": "4-bit floats do not support implicit promotion",
        "intn": "1-bit, 2-bit and 4-bit integers do not support implicit promotion",
        "none": "promotion path. Try explicitly casting inputs to the desired output type.",
    }
    errors = 0
    for a in JOINS["nodes"]:
        for b in JOINS["nodes"]:
            kind, cls, message = _expected_promotion(label, a, b)
            if kind != "error":
                continue
            errors += 1
            reason = lattice.no_join_reason((a, b), v)
            assert phrases[reason] in message, (a, b, reason, message)
            assert cls == "TypePromotionError"
    assert errors > 0
