"""The ``jaxtypes`` command line.

Expected values are written out from the documented table (seed 000, JAX's
x64 table) and the facts in shared/reference/jax-promotion-facts.md, not
computed with the code under test.
"""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from jaxtypes.cli import main
from seed_000 import CODES, seed_rows  # seed 000's table, verbatim

REPO = Path(__file__).resolve().parent.parent


def x32_rows() -> list[list[str]]:
    """The seed table with x64 off: uint32 with int8/16/32 gives int32 (facts:
    the x32 lattice's one different edge, uint32 -> int32, uint64)."""
    rows = seed_rows()
    u4, col = CODES.index("u4") , {c: CODES.index(c) + 1 for c in CODES}
    for signed in ("i1", "i2", "i4"):
        rows[u4][col[signed]] = "i4"
        rows[CODES.index(signed)][col["u4"]] = "i4"
    return rows


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_module(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ if env is None else env)
    full_env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO)] + ([full_env["PYTHONPATH"]] if full_env.get("PYTHONPATH") else [])
    )
    return subprocess.run(
        [sys.executable, "-m", "jaxtypes", *argv],
        capture_output=True, text=True, env=full_env, cwd=REPO, timeout=120,
    )


def parse_markdown(text: str) -> list[list[str]]:
    lines = [ln for ln in text.splitlines() if ln.startswith("|")]
    assert re.fullmatch(r"\|(---\|)+", lines[1]), lines[1]
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in [lines[0]] + lines[2:]]


# ------------------------------------------------------------------ table
def test_table_markdown_default_is_the_seed_table(capsys):
    code, out, err = run(capsys, "table")
    assert code == 0 and err == ""
    rows = parse_markdown(out)
    assert rows[0] == [""] + CODES
    assert rows[1:] == seed_rows()


def test_table_csv_parses_and_matches_seed(capsys):
    code, out, _ = run(capsys, "table", "--format", "csv")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert len(rows) == 19 and all(len(r) == 19 for r in rows)
    assert rows[0] == [""] + CODES
    assert rows[1:] == seed_rows()


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[tuple[str, str, str]]] = []  # (tag, class, text)
        self._cell: list | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = [tag, dict(attrs).get("class") or "", ""]

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[2] += data

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(tuple(self._cell))
            self._cell = None


def test_table_html_has_header_and_18_rows(capsys):
    code, out, _ = run(capsys, "table", "--format", "html")
    assert code == 0
    assert out.count("<tr>") == 19 and out.strip().startswith("<table") and out.strip().endswith("</table>")
    parser = _Cells()
    parser.feed(out)
    header, body = parser.rows[0], parser.rows[1:]
    assert [c[2] for c in header] == [""] + CODES and all(c[0] == "th" for c in header)
    assert len(body) == 18
    assert [[c[2] for c in row] for row in body] == seed_rows()
    cell = {(r[0][2], CODES[j]): c for r in body for j, c in enumerate(r[1:])}
    # Differences from numpy are marked (seed 002's green cells), others not.
    assert "d" in cell["u8", "i1"][1].split()  # JAX f*, numpy float64
    assert "d" in cell["u4", "f4"][1].split()  # JAX float32, numpy float64
    assert "d" in cell["i2", "f2"][1].split()  # JAX float16, numpy float32
    assert cell["i1", "i2"][1] == ""
    assert cell["f4", "f8"][1] == ""


def test_table_x32(capsys):
    code, out, _ = run(capsys, "table", "--x32")
    assert code == 0
    rows = parse_markdown(out)
    assert rows[1:] == x32_rows()
    assert rows[1:] != seed_rows()


def test_table_strict(capsys):
    code, out, _ = run(capsys, "table", "--strict", "--format", "csv")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    cell = {(r[0], rows[0][j]): v for r in rows[1:] for j, v in enumerate(r) if j}
    # Equal types promote; weak to strong within a kind; weak to weak.
    for c in CODES:
        assert cell[c, c] == c
    assert cell["i*", "u8"] == "u8" and cell["i1", "i*"] == "i1"
    assert cell["f*", "bf"] == "bf" and cell["f4", "f*"] == "f4"
    assert cell["c*", "c8"] == "c8"
    assert cell["i*", "f*"] == "f*" and cell["f*", "c*"] == "c*" and cell["i*", "c*"] == "c*"
    # Everything else has no join.
    assert cell["f4", "i4"] == "-"
    assert cell["b1", "i*"] == "-"
    assert cell["u1", "u2"] == "-"
    assert cell["i*", "f4"] == "f4"  # i* -> f* -> float32, as `float32 array + 1`
    assert cell["i*", "c16"] == "c16"
    assert cell["f*", "c8"] == "c8"


def test_table_all_nodes(capsys):
    code, out, _ = run(capsys, "table", "--all", "--format", "csv")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    # 35 nodes: bool, 7 unsigned, 7 signed, 11 small floats, 4 floats, 2 complex, 3 weak.
    assert len(rows) == 36 and all(len(r) == 36 for r in rows)
    header = rows[0]
    for name in ("bool", "uint1", "int4", "float8_e4m3fn", "float4_e2m1fn", "bfloat16", "complex128", "i*", "f*", "c*"):
        assert name in header
    cell = {(r[0], header[j]): v for r in rows[1:] for j, v in enumerate(r) if j}
    assert cell["int4", "i*"] == "int4"
    assert cell["int4", "bool"] == "int4"
    assert cell["int4", "f*"] == "-"
    assert cell["int8", "float8_e4m3fn"] == "float8_e4m3fn"
    assert cell["float8_e4m3fn", "f*"] == "float8_e4m3fn"
    assert cell["float8_e4m3fn", "c*"] == "-"
    assert cell["bfloat16", "float16"] == "float32"
    assert cell["bfloat16", "c*"] == "complex64"
    assert cell["uint64", "int8"] == "f*"


def test_table_help_explains_flags(capsys):
    code, out, _ = run(capsys, "table", "--help")
    assert code == 0
    assert "--x32" in out and "x64" in out and "--strict" in out and "--all" in out
    assert "jax_numpy_dtype_promotion" in out


# ---------------------------------------------------------------- promote
@pytest.mark.parametrize(
    "argv, expected",
    [
        (["bfloat16", "float16"], "float32 weak_type=False"),
        (["bf", "f2"], "float32 weak_type=False"),  # seed codes
        (["uint64", "int8"], "float64 weak_type=True"),  # f*, materialised as float64
        (["int64", "uint64"], "float64 weak_type=True"),
        (["uint32", "int8"], "int64 weak_type=False"),
        (["uint32", "int8", "--x32"], "int32 weak_type=False"),
        # x64 off: uint64 is canonicalized to uint32, and uint32 with int8 is int32.
        (["uint64", "int8", "--x32"], "int32 weak_type=False"),
        (["int", "float"], "float64 weak_type=True"),
        (["i*", "f*"], "float64 weak_type=True"),
        (["int", "float", "--x32"], "float32 weak_type=True"),
        (["bool", "int"], "int64 weak_type=True"),
        (["int16", "int"], "int16 weak_type=False"),
        (["int8", "uint8", "int"], "int16 weak_type=False"),
        (["float16", "complex"], "complex64 weak_type=False"),
        (["bfloat16", "c*"], "complex64 weak_type=False"),
        (["int4", "int"], "int4 weak_type=False"),
        (["int4", "bool"], "int4 weak_type=False"),
        (["float8_e4m3fn", "int8"], "float8_e4m3fn weak_type=False"),
        (["float32", "float", "--strict"], "float32 weak_type=False"),
        (["uint8", "int", "--strict"], "uint8 weak_type=False"),
    ],
)
def test_promote(capsys, argv, expected):
    code, out, err = run(capsys, "promote", *argv)
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == expected


def test_promote_x32_notes_canonicalization(capsys):
    code, out, _ = run(capsys, "promote", "uint64", "int8", "--x32")
    assert code == 0
    assert "uint64 to uint32" in out


def test_promote_strict_error(capsys):
    code, out, _ = run(capsys, "promote", "float32", "int32", "--strict")
    assert code == 1
    # JAX names the dtypes in set order, which varies with PYTHONHASHSEED.
    assert out.strip() in {
        f"TypePromotionError: Input dtypes {pair} have no available implicit "
        "dtype promotion path when jax_numpy_dtype_promotion=strict. Try explicitly casting "
        "inputs to the desired output type, or set jax_numpy_dtype_promotion=standard."
        for pair in ("('float32', 'int32')", "('int32', 'float32')")
    }


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["float8_e4m3fn", "complex"], "8-bit floats do not support implicit promotion"),
        (["int4", "float"], "1-bit, 2-bit and 4-bit integers do not support implicit promotion"),
        (["bool", "int", "--strict"], "when jax_numpy_dtype_promotion=strict"),
    ],
)
def test_promote_errors(capsys, argv, fragment):
    code, out, _ = run(capsys, "promote", *argv)
    assert code == 1
    assert out.startswith("TypePromotionError: Input dtypes (")
    assert fragment in out


def test_promote_ignores_environment():
    env = dict(os.environ, JAX_ENABLE_X64="0", JAX_NUMPY_DTYPE_PROMOTION="strict")
    proc = run_module("promote", "uint64", "int8", env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "float64 weak_type=True"


# ---------------------------------------------------------------- explain
def test_explain_uint64_int8(capsys):
    code, out, _ = run(capsys, "explain", "uint64", "int8")
    assert code == 0
    lines = out.splitlines()
    assert "uint64: uint64 -> f*" in lines
    assert "int8: int8 -> int16 -> int32 -> int64 -> f*" in lines
    assert any(ln.startswith("join: f*") for ln in lines)


def test_explain_bfloat16_float16(capsys):
    code, out, _ = run(capsys, "explain", "bfloat16", "float16")
    assert code == 0
    lines = out.splitlines()
    assert "bfloat16: bfloat16 -> float32" in lines
    assert "float16: float16 -> float32" in lines
    assert any(ln.startswith("join: float32") for ln in lines)


def test_explain_weak_aliases_and_x32(capsys):
    code, out, _ = run(capsys, "explain", "bool", "int")
    assert code == 0
    assert "bool: bool -> i*" in out.splitlines()
    code, out, _ = run(capsys, "explain", "uint32", "int8", "--x32")
    assert code == 0
    assert "uint32: uint32 -> int32" in out.splitlines()
    assert any(ln.startswith("join: int32") for ln in out.splitlines())


def test_explain_no_join(capsys):
    code, out, _ = run(capsys, "explain", "float32", "int32", "--strict")
    assert code == 0
    assert "no common upper bound" in out
    code, out, _ = run(capsys, "explain", "float8_e4m3fn", "c*")
    assert "no common upper bound" in out


# ---------------------------------------------------------------- lattice
# Direct upper edges, standard mode, x64 (facts), small floats and sub-byte ints written out.
SMALL_FLOATS = ["float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3",
                "float8_e8m0fnu", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
                "float8_e5m2", "float8_e5m2fnuz"]
STANDARD_X64_EDGES = {
    ("bool", "i*"),
    *(("i*", t) for t in ["uint8", "uint2", "uint4", "uint1", "int8", "int2", "int4", "int1"]),
    ("uint8", "uint16"), ("uint8", "int16"),
    ("uint16", "uint32"), ("uint16", "int32"),
    ("uint32", "uint64"), ("uint32", "int64"),
    ("uint64", "f*"),
    ("int8", "int16"), ("int16", "int32"), ("int32", "int64"), ("int64", "f*"),
    *(("f*", t) for t in SMALL_FLOATS + ["bfloat16", "float16", "c*"]),
    ("bfloat16", "float32"), ("float16", "float32"),
    ("float32", "float64"), ("float32", "complex64"),
    ("float64", "complex128"),
    ("c*", "complex64"), ("complex64", "complex128"),
}


def mermaid_edges(text: str) -> set[tuple[str, str]]:
    labels = dict(re.findall(r'^\s*(\S+)\["([^"]+)"\]\s*$', text, re.M))
    return {(labels[a], labels[b]) for a, b in re.findall(r"^\s*(\S+) --> (\S+)\s*$", text, re.M)}


def dot_edges(text: str) -> set[tuple[str, str]]:
    return set(re.findall(r'^\s*"([^"]+)" -> "([^"]+)";$', text, re.M))


def test_lattice_mermaid_standard(capsys):
    code, out, _ = run(capsys, "lattice")
    assert code == 0
    assert out.startswith("graph BT")
    assert 'i_weak["i*"]' in out and 'f_weak["f*"]' in out and 'c_weak["c*"]' in out
    assert "uint8 --> uint16" in out and "uint64 --> f_weak" in out and "f_weak --> c_weak" in out
    assert mermaid_edges(out) == STANDARD_X64_EDGES
    # All 35 nodes declared, even the ones without edges.
    assert len(re.findall(r'^\s*\S+\["[^"]+"\]\s*$', out, re.M)) == 35


def test_lattice_dot(capsys):
    code, out, _ = run(capsys, "lattice", "--format", "dot")
    assert code == 0
    assert out.startswith("digraph") and out.rstrip().endswith("}") and "rankdir=BT" in out
    assert '"bool" -> "i*";' in out and '"float32" -> "complex64";' in out
    assert '"i*" [style=dashed];' in out
    assert dot_edges(out) == STANDARD_X64_EDGES


def test_lattice_x32_has_the_one_different_edge(capsys):
    code, out, _ = run(capsys, "lattice", "--x32", "--format", "dot")
    assert code == 0
    expected = (STANDARD_X64_EDGES - {("uint32", "int64")}) | {("uint32", "int32")}
    assert dot_edges(out) == expected


def test_lattice_strict(capsys):
    code, out, _ = run(capsys, "lattice", "--strict")
    assert code == 0
    ints = ["uint1", "uint2", "uint4", "uint8", "uint16", "uint32", "uint64",
            "int1", "int2", "int4", "int8", "int16", "int32", "int64"]
    floats = SMALL_FLOATS + ["bfloat16", "float16", "float32", "float64"]
    expected = (
        {("i*", "f*")} | {("i*", t) for t in ints}
        | {("f*", "c*")} | {("f*", t) for t in floats}
        | {("c*", "complex64"), ("c*", "complex128")}
    )
    assert mermaid_edges(out) == expected
    assert 'bool["bool"]' in out  # declared though it has no edge


# ------------------------------------------------------------------- diff
def diff_cells(out: str) -> dict[frozenset[str], tuple[str, str, str]]:
    rows = parse_markdown(out)
    assert rows[0] == ["a", "b", "jax", "numpy", "kind"]
    return {frozenset((a, b)): (jax, npy, kind) for a, b, jax, npy, kind in rows[1:]}


def test_diff_numpy_known_cells(capsys):
    code, out, _ = run(capsys, "diff", "numpy")
    assert code == 0
    cells = diff_cells(out)
    # int8 with uint64: JAX's weak float, numpy's float64.
    assert cells[frozenset(("int8", "uint64"))] == ("f*", "float64", "weak")
    assert cells[frozenset(("int64", "uint64"))] == ("f*", "float64", "weak")
    # Seed 002's highlighted cells: JAX keeps the float's width.
    assert cells[frozenset(("uint32", "float32"))] == ("float32", "float64", "dtype")
    assert cells[frozenset(("int16", "float16"))] == ("float16", "float32", "dtype")
    assert cells[frozenset(("int64", "complex64"))] == ("complex64", "complex128", "dtype")
    # Weak scalars keep the array's precision (numpy: int64 / float64).
    assert cells[frozenset(("int16", "i*"))] == ("int16", "int64", "dtype")
    assert cells[frozenset(("float32", "f*"))] == ("float32", "float64", "dtype")
    # bfloat16 rows.
    assert cells[frozenset(("bfloat16", "float16"))][0] == "float32"
    assert cells[frozenset(("bfloat16", "float16"))][1] != "float32"
    assert cells[frozenset(("bfloat16", "f*"))][0] == "bfloat16"
    assert cells[frozenset(("bfloat16", "c*"))][0] == "complex64"
    # Where JAX and numpy agree, nothing is listed.
    for same in (("int8", "int16"), ("uint8", "int8"), ("float32", "float64"),
                 ("uint32", "int32"), ("float16", "float32"), ("int64", "i*")):
        assert frozenset(same) not in cells
    # Each unordered pair once.
    assert len(cells) == len(parse_markdown(out)) - 1


def test_diff_numpy_csv_and_strict(capsys):
    code, out, _ = run(capsys, "diff", "numpy", "--format", "csv", "--strict")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["a", "b", "jax", "numpy", "kind"]
    cells = {frozenset((r[0], r[1])): tuple(r[2:]) for r in rows[1:]}
    assert cells[frozenset(("float32", "int32"))] == ("-", "float64", "jax-error")
    assert cells[frozenset(("int8", "int16"))] == ("-", "int16", "jax-error")
    assert frozenset(("int8", "int8")) not in cells


def test_diff_numpy_text(capsys):
    code, out, _ = run(capsys, "diff", "numpy", "--format", "text")
    assert code == 0
    assert out.splitlines()[0].split() == ["a", "b", "jax", "numpy", "kind"]
    assert any(ln.split() == ["uint64", "int8", "f*", "float64", "weak"] for ln in out.splitlines())


# ----------------------------------------------------------- bad arguments
@pytest.mark.parametrize(
    "argv, must_contain",
    [
        (["promote", "flaot32", "int8"], ["unknown dtype 'flaot32'", "float32", "bfloat16", "int"]),
        (["explain", "int8", "nope"], ["unknown dtype 'nope'", "valid names:", "complex128"]),
        (["table", "--format", "xml"], ["'xml'", "markdown", "csv", "html"]),
        (["lattice", "--format", "png"], ["'png'", "mermaid", "dot"]),
        (["diff", "pandas"], ["'pandas'", "numpy"]),
        (["frobnicate"], ["'frobnicate'", "table", "promote", "explain", "lattice", "diff"]),
        ([], ["command"]),
        (["promote", "int8"], ["required"]),
    ],
)
def test_bad_arguments_one_line_exit_2(argv, must_contain):
    proc = run_module(*argv)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("jaxtypes")
    assert "error:" in lines[0]
    for fragment in must_contain:
        assert fragment in lines[0]


def test_unknown_dtype_in_process(capsys):
    code, out, err = run(capsys, "promote", "float32", "flaot32")
    assert code == 2 and out == ""
    assert err.startswith("jaxtypes: error: unknown dtype 'flaot32'")
    assert len(err.splitlines()) == 1


# ---------------------------------------------------------- python -m
def test_python_dash_m_table_matches_main(capsys):
    proc = run_module("table", "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    assert list(csv.reader(io.StringIO(proc.stdout)))[1:] == seed_rows()


def test_python_dash_m_help_and_version():
    proc = run_module("--help")
    assert proc.returncode == 0
    for name in ("table", "promote", "explain", "lattice", "diff"):
        assert name in proc.stdout
    proc = run_module("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("jaxtypes ")
