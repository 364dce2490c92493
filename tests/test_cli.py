"""The ``jaxtypes`` command line.

Expected values are written out from the table in JAX's documentation, "Type promotion semantics" (https://docs.jax.dev/en/latest/type_promotion.html)
(JAX's x64 table), not computed with the code under test.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import tools
from jaxtypes.cli import main

from seed_000 import CODES, seed_rows  # JAX's documented table, verbatim

REPO = Path(__file__).resolve().parent.parent


def x32_rows() -> list[list[str]]:
    """JAX's own table with x64 disabled (``jnp.add`` of each pair, recorded
    from JAX 0.10.2 by tools/oracle/make_jax_tables.py), in the documented
    table's codes: JAX's test names complex64/complex128 c4/c8 where the table says c8/c16."""
    data = json.loads((tools.DATA / "jax_observed_tables.json").read_text(encoding="utf-8"))
    to_seed = {"c4": "c8", "c8": "c16"}
    assert [to_seed.get(c, c) for c in data["codes"]] == CODES
    return [
        [to_seed.get(code, code)] + [to_seed.get(c, c) for c in row]
        for code, row in zip(data["codes"], data["tables"]["x32"]["table"])
    ]


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
        [sys.executable, "-m", "jaxtypes", *argv], capture_output=True, text=True, env=full_env, cwd=REPO, timeout=120
    )


def parse_markdown(text: str) -> list[list[str]]:
    lines = [ln for ln in text.splitlines() if ln.startswith("|")]
    assert re.fullmatch(r"\|(---\|)+", lines[1]), lines[1]
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in [lines[0]] + lines[2:]]


# ------------------------------------------------------------------ table
def test_table_markdown_default_is_the_seed_table(capsys):
    code, out, err = run(capsys, "table", "--x64")
    assert code == 0 and err == ""
    rows = parse_markdown(out)
    assert rows[0] == [""] + CODES
    assert rows[1:] == seed_rows()


def test_table_csv_parses_and_matches_seed(capsys):
    code, out, _ = run(capsys, "table", "--x64", "--format", "csv")
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
    code, out, _ = run(capsys, "table", "--x64", "--format", "html")
    assert code == 0
    assert out.count("<tr>") == 19 and out.strip().startswith("<table") and out.strip().endswith("</table>")
    parser = _Cells()
    parser.feed(out)
    header, body = parser.rows[0], parser.rows[1:]
    assert [c[2] for c in header] == [""] + CODES and all(c[0] == "th" for c in header)
    assert len(body) == 18
    assert [[c[2] for c in row] for row in body] == seed_rows()
    cell = {(r[0][2], CODES[j]): c for r in body for j, c in enumerate(r[1:])}
    # Differences from numpy are marked (the green cells of JAX's 2020 table), others not.
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


@pytest.mark.parametrize("argv", [["promote", "uint64", "int8", "--x32"], ["promote", "float64", "bfloat16", "--x32"]])
def test_promote_x32_prints_its_note_not_the_runtime_warning(argv):
    """The runtime warns for a truncated 64-bit dtype, as JAX does; promote
    notes the truncation on its output instead (every warning shown:
    PYTHONWARNINGS=always)."""
    proc = run_module(*argv, env=dict(os.environ, PYTHONWARNINGS="always"))
    assert (proc.returncode, proc.stderr) == (0, "")
    assert f"note: with x64 disabled, JAX canonicalizes {argv[1]} to" in proc.stdout


def test_table_strict(capsys):
    code, out, _ = run(capsys, "table", "--x64", "--strict", "--format", "csv")
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
    code, out, _ = run(capsys, "table", "--x64", "--all", "--format", "csv")
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
        (["bfloat16", "float16", "--x64"], "float32 weak_type=False"),
        (["bf", "f2", "--x64"], "float32 weak_type=False"),  # the documented table's codes
        (["uint64", "int8", "--x64"], "float64 weak_type=True"),  # f*, materialised as float64
        (["int64", "uint64", "--x64"], "float64 weak_type=True"),
        (["uint32", "int8", "--x64"], "int64 weak_type=False"),
        (["uint32", "int8", "--x32"], "int32 weak_type=False"),
        # x64 off: uint64 is canonicalized to uint32, and uint32 with int8 is int32.
        (["uint64", "int8", "--x32"], "int32 weak_type=False"),
        (["int", "float", "--x64"], "float64 weak_type=True"),
        (["i*", "f*", "--x64"], "float64 weak_type=True"),
        (["int", "float", "--x32"], "float32 weak_type=True"),
        (["bool", "int", "--x64"], "int64 weak_type=True"),
        (["int16", "int", "--x64"], "int16 weak_type=False"),
        (["int8", "uint8", "int", "--x64"], "int16 weak_type=False"),
        (["float16", "complex", "--x64"], "complex64 weak_type=False"),
        (["bfloat16", "c*", "--x64"], "complex64 weak_type=False"),
        (["int4", "int", "--x64"], "int4 weak_type=False"),
        (["int4", "bool", "--x64"], "int4 weak_type=False"),
        (["float8_e4m3fn", "int8", "--x64"], "float8_e4m3fn weak_type=False"),
        (["float32", "float", "--strict", "--x64"], "float32 weak_type=False"),
        (["uint8", "int", "--strict", "--x64"], "uint8 weak_type=False"),
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
        (["float8_e4m3fn", "complex", "--x64"], "8-bit floats do not support implicit promotion"),
        (["int4", "float", "--x64"], "1-bit, 2-bit and 4-bit integers do not support implicit promotion"),
        (["bool", "int", "--strict", "--x64"], "when jax_numpy_dtype_promotion=strict"),
    ],
)
def test_promote_errors(capsys, argv, fragment):
    code, out, _ = run(capsys, "promote", *argv)
    assert code == 1
    assert out.startswith("TypePromotionError: Input dtypes (")
    assert fragment in out


def jax_env(**values: str) -> dict[str, str]:
    """os.environ without JAX's two settings, plus ``values``."""
    env = {k: v for k, v in os.environ.items() if k not in ("JAX_ENABLE_X64", "JAX_NUMPY_DTYPE_PROMOTION")}
    return {**env, **values}


@pytest.mark.parametrize(
    "env, flags, expected",
    [
        # JAX's defaults: x64 disabled (uint32 with int8 is int32), standard promotion.
        ({}, [], "int32 weak_type=False"),
        ({"JAX_ENABLE_X64": "1"}, [], "int64 weak_type=False"),
        ({"JAX_ENABLE_X64": "true"}, [], "int64 weak_type=False"),
        ({"JAX_ENABLE_X64": "0"}, [], "int32 weak_type=False"),
        # The flags win over the environment.
        ({"JAX_ENABLE_X64": "1"}, ["--x32"], "int32 weak_type=False"),
        ({}, ["--x64"], "int64 weak_type=False"),
        ({"JAX_NUMPY_DTYPE_PROMOTION": "strict"}, ["--standard"], "int32 weak_type=False"),
    ],
)
def test_defaults_follow_the_environment(env, flags, expected):
    proc = run_module("promote", "uint32", "int8", *flags, env=jax_env(**env))
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.splitlines()[0] == expected


def test_readme_x32_example():
    proc = run_module("promote", "float32", "float64", env=jax_env())
    assert proc.stdout.splitlines()[0] == "float32 weak_type=False"
    proc = run_module("promote", "float32", "float64", "--x64", env=jax_env())
    assert proc.stdout.splitlines()[0] == "float64 weak_type=False"


def test_strict_from_the_environment():
    proc = run_module("promote", "float32", "int32", env=jax_env(JAX_NUMPY_DTYPE_PROMOTION="strict"))
    assert proc.returncode == 1
    assert "when jax_numpy_dtype_promotion=strict" in proc.stdout
    table = run_module("table", "--format", "csv", env=jax_env(JAX_NUMPY_DTYPE_PROMOTION="strict", JAX_ENABLE_X64="1"))
    rows = list(csv.reader(io.StringIO(table.stdout)))
    assert rows[CODES.index("f4") + 1][CODES.index("i4") + 1] == "-"


def test_x64_flags_are_exclusive():
    proc = run_module("table", "--x64", "--x32")
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
    assert "not allowed with argument" in proc.stderr


# ---------------------------------------------------------------- explain
def test_explain_uint64_int8(capsys):
    code, out, _ = run(capsys, "explain", "uint64", "int8", "--x64")
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
    code, out, _ = run(capsys, "explain", "bool", "int", "--x64")
    assert code == 0
    assert "bool: bool -> i*" in out.splitlines()
    code, out, _ = run(capsys, "explain", "uint32", "int8", "--x32")
    assert code == 0
    assert "uint32: uint32 -> int32" in out.splitlines()
    assert any(ln.startswith("join: int32") for ln in out.splitlines())


@pytest.mark.parametrize(
    "argv, reason",
    [
        (["float32", "int32", "--strict"], "when jax_numpy_dtype_promotion=strict"),
        (["float8_e4m3fn", "c*"], "8-bit floats do not support implicit promotion"),
        (["int4", "float32"], "1-bit, 2-bit and 4-bit integers do not support implicit promotion"),
        (["int4", "float32", "--x64"], "1-bit, 2-bit and 4-bit integers do not support implicit promotion"),
    ],
)
def test_explain_no_join_gives_jax_s_reason(capsys, argv, reason):
    code, out, _ = run(capsys, "explain", *argv)
    assert code == 1
    assert "no common upper bound" in out
    last = out.splitlines()[-1]
    assert last.startswith("TypePromotionError: Input dtypes (") and reason in last


def test_explain_x32_canonicalizes_as_promote_does(capsys):
    code, out, _ = run(capsys, "explain", "float32", "float64", "--x32")
    assert code == 0
    lines = out.splitlines()
    assert "note: with x64 disabled, JAX canonicalizes float64 to float32 before promoting" in lines
    assert any(ln.startswith("join: float32") for ln in lines)


# ---------------------------------------------------------------- lattice
# Direct upper edges, standard mode, x64 (facts), small floats and sub-byte ints written out.
SMALL_FLOATS = [
    "float4_e2m1fn",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e8m0fnu",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
]
STANDARD_X64_EDGES = {
    ("bool", "i*"),
    *(("i*", t) for t in ["uint8", "uint2", "uint4", "uint1", "int8", "int2", "int4", "int1"]),
    ("uint8", "uint16"),
    ("uint8", "int16"),
    ("uint16", "uint32"),
    ("uint16", "int32"),
    ("uint32", "uint64"),
    ("uint32", "int64"),
    ("uint64", "f*"),
    ("int8", "int16"),
    ("int16", "int32"),
    ("int32", "int64"),
    ("int64", "f*"),
    *(("f*", t) for t in SMALL_FLOATS + ["bfloat16", "float16", "c*"]),
    ("bfloat16", "float32"),
    ("float16", "float32"),
    ("float32", "float64"),
    ("float32", "complex64"),
    ("float64", "complex128"),
    ("c*", "complex64"),
    ("complex64", "complex128"),
}


def mermaid_edges(text: str) -> set[tuple[str, str]]:
    labels = dict(re.findall(r'^\s*(\S+)\["([^"]+)"\]\s*$', text, re.M))
    return {(labels[a], labels[b]) for a, b in re.findall(r"^\s*(\S+) --> (\S+)\s*$", text, re.M)}


def dot_edges(text: str) -> set[tuple[str, str]]:
    return set(re.findall(r'^\s*"([^"]+)" -> "([^"]+)";$', text, re.M))


def test_lattice_mermaid_standard(capsys):
    code, out, _ = run(capsys, "lattice", "--x64")
    assert code == 0
    assert out.startswith("graph BT")
    assert 'i_weak["i*"]' in out and 'f_weak["f*"]' in out and 'c_weak["c*"]' in out
    assert "uint8 --> uint16" in out and "uint64 --> f_weak" in out and "f_weak --> c_weak" in out
    assert mermaid_edges(out) == STANDARD_X64_EDGES
    # All 35 nodes declared, even the ones without edges.
    assert len(re.findall(r'^\s*\S+\["[^"]+"\]\s*$', out, re.M)) == 35


def test_lattice_dot(capsys):
    code, out, _ = run(capsys, "lattice", "--x64", "--format", "dot")
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
    code, out, _ = run(capsys, "lattice", "--x64", "--strict")
    assert code == 0
    ints = [
        "uint1",
        "uint2",
        "uint4",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "int1",
        "int2",
        "int4",
        "int8",
        "int16",
        "int32",
        "int64",
    ]
    floats = SMALL_FLOATS + ["bfloat16", "float16", "float32", "float64"]
    expected = (
        {("i*", "f*")}
        | {("i*", t) for t in ints}
        | {("f*", "c*")}
        | {("f*", t) for t in floats}
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
    code, out, _ = run(capsys, "diff", "numpy", "--x64")
    assert code == 0
    cells = diff_cells(out)
    # int8 with uint64: JAX's weak float, numpy's float64.
    assert cells[frozenset(("int8", "uint64"))] == ("f*", "float64", "weak")
    assert cells[frozenset(("int64", "uint64"))] == ("f*", "float64", "weak")
    # The highlighted cells of JAX's 2020 table: JAX keeps the float's width.
    assert cells[frozenset(("uint32", "float32"))] == ("float32", "float64", "dtype")
    assert cells[frozenset(("int16", "float16"))] == ("float16", "float32", "dtype")
    assert cells[frozenset(("int64", "complex64"))] == ("complex64", "complex128", "dtype")
    # NumPy 2 (NEP 50), like JAX, keeps the array's precision with a Python scalar.
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":
        for same in (
            ("int16", "i*"),
            ("float32", "f*"),
            ("uint8", "i*"),
            ("float16", "f*"),
            ("complex64", "c*"),
            ("float32", "c*"),
        ):
            assert frozenset(same) not in cells, same
    # bfloat16 rows.
    assert cells[frozenset(("bfloat16", "float16"))][0] == "float32"
    assert cells[frozenset(("bfloat16", "float16"))][1] != "float32"
    assert cells[frozenset(("bfloat16", "f*"))][0] == "bfloat16"
    # Where JAX and numpy agree, nothing is listed.
    for same in (
        ("int8", "int16"),
        ("uint8", "int8"),
        ("float32", "float64"),
        ("uint32", "int32"),
        ("float16", "float32"),
        ("int64", "i*"),
    ):
        assert frozenset(same) not in cells
    # Each unordered pair once.
    assert len(cells) == len(parse_markdown(out)) - 1


def test_diff_numpy_csv_and_strict(capsys):
    code, out, _ = run(capsys, "diff", "numpy", "--format", "csv", "--strict", "--x64")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["a", "b", "jax", "numpy", "kind"]
    cells = {frozenset((r[0], r[1])): tuple(r[2:]) for r in rows[1:]}
    assert cells[frozenset(("float32", "int32"))] == ("-", "float64", "jax-error")
    assert cells[frozenset(("int8", "int16"))] == ("-", "int16", "jax-error")
    assert frozenset(("int8", "int8")) not in cells


def test_diff_numpy_text(capsys):
    code, out, _ = run(capsys, "diff", "numpy", "--format", "text", "--x64")
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
    proc = run_module("table", "--x64", "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    assert list(csv.reader(io.StringIO(proc.stdout)))[1:] == seed_rows()


def test_python_dash_m_help_and_version():
    proc = run_module("--help")
    assert proc.returncode == 0
    for name in ("table", "promote", "explain", "lattice", "diff"):
        assert name in proc.stdout
    proc = run_module("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("jaxtypes ")


# ------------------------------------------------- against JAX and numpy
def jax_cells(nodes: list[str], x64: bool, mode: str) -> dict[tuple[str, str], str]:
    """What JAX itself answers for an operand of each node (a dtype, or a
    Python type for i*/f*/c*), as a node: weak results as i*/f*/c*, '-' where
    JAX raises."""
    import jax
    import ml_dtypes

    weak_types = {"i*": int, "f*": float, "c*": complex}
    operand = {n: weak_types.get(n) or np.dtype(getattr(ml_dtypes, n, None) or n) for n in nodes}
    kinds = {"i": "i*", "u": "i*", "f": "f*", "c": "c*"}
    out = {}
    with jax.enable_x64(x64), jax.numpy_dtype_promotion(mode), warnings.catch_warnings():
        # With x64 disabled JAX warns that it truncates the 64-bit dtypes; it is what we test.
        warnings.filterwarnings("ignore", message="Explicitly requested dtype", category=UserWarning)
        for a in nodes:
            for b in nodes:
                try:
                    dt, weak = jax.dtypes.result_type(operand[a], operand[b], return_weak_type_flag=True)
                except Exception as e:  # noqa: BLE001 - checked on the next line: JAX's TypePromotionError
                    assert type(e).__name__ == "TypePromotionError", e
                    out[a, b] = "-"
                    continue
                out[a, b] = kinds[dt.kind] if weak else dt.name
    return out


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("mode", ["standard", "strict"])
def test_table_is_jax_result_type_cell_by_cell(capsys, x64, mode):
    flags = ["--x64" if x64 else "--x32"] + (["--strict"] if mode == "strict" else ["--standard"])
    code, out, _ = run(capsys, "table", "--all", "--format", "csv", *flags)
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    nodes = rows[0][1:]
    expected = jax_cells(nodes, x64, mode)
    got = {(r[0], b): cell for r in rows[1:] for b, cell in zip(nodes, r[1:])}
    assert {k: v for k, v in got.items() if v != expected[k]} == {}


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("mode", ["standard", "strict"])
def test_promote_is_jax_result_type_for_every_pair(capsys, x64, mode):
    """promote agrees with JAX, and so with the table, on the 18 seed dtypes."""
    seed = [
        "bool",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "int8",
        "int16",
        "int32",
        "int64",
        "bfloat16",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
        "i*",
        "f*",
        "c*",
    ]
    expected = jax_cells(seed, x64, mode)
    flags = ["--x64" if x64 else "--x32", "--strict" if mode == "strict" else "--standard"]
    wrong = {}
    for a in seed:
        for b in seed:
            code, out, _ = run(capsys, "promote", a, b, *flags)
            if code == 1:
                got = "-"
            else:
                name, weak = out.splitlines()[0].split(" weak_type=")
                got = {"i": "i*", "u": "i*", "f": "f*", "c": "c*"}[np.dtype(name).kind] if weak == "True" else name
            if got != expected[a, b]:
                wrong[a, b] = (got, expected[a, b])
    assert wrong == {}


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
def test_diff_numpy_is_jax_against_the_installed_numpy(capsys, x64):
    """The listed pairs are exactly those where JAX's own answer differs from
    what the installed numpy gives for the same operands (Python scalars 0,
    0.0, 0j for the weak types: numpy's own rule for them, NEP 50 in NumPy 2)."""
    from jaxtypes import lattice

    seed = list(lattice.SEED_NODES)
    jax_answer = jax_cells(seed, x64, "standard")
    scalar = {"i*": 0, "f*": 0.0, "c*": 0j}

    def numpy_answer(a: str, b: str) -> str:
        import ml_dtypes

        ops = [scalar[n] if n in scalar else np.dtype(getattr(ml_dtypes, n, None) or n) for n in (a, b)]
        try:
            return np.result_type(*ops).name
        except TypeError:
            return "-"

    expected = set()
    for i, a in enumerate(seed):
        for b in seed[i:]:
            j, n = jax_answer[a, b], numpy_answer(a, b)
            if j != n:
                expected.add((a, b, j, n))
    code, out, _ = run(capsys, "diff", "numpy", "--format", "csv", "--x64" if x64 else "--x32")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))[1:]
    assert {(a, b, j, n) for a, b, j, n, _ in rows} == expected
    # Each difference's kind: weak when the dtypes agree and only JAX's is weak.
    default = {
        "i*": "int64" if x64 else "int32",
        "f*": "float64" if x64 else "float32",
        "c*": "complex128" if x64 else "complex64",
    }
    for a, b, j, n, kind in rows:
        want = "jax-error" if j == "-" else "numpy-error" if n == "-" else "weak" if default.get(j) == n else "dtype"
        assert kind == want, (a, b, j, n, kind)


# ------------------------------------------------------------------ names
@pytest.mark.parametrize(
    "name, node",
    [
        ("bool_", "bool"),
        ("weak_int", "i*"),
        ("weak_float", "f*"),
        ("weak_complex", "c*"),
        ("single", "float32"),
        ("double", "float64"),
        ("half", "float16"),
        ("?", "bool"),
        ("f4", "float32"),
        ("i2", "int16"),
        ("u1", "uint8"),
        ("c16", "complex128"),
        ("bf", "bfloat16"),
        ("float8_e4m3fn", "float8_e4m3fn"),
        ("int_", "int64"),
    ],
)
def test_names_numpy_codes_and_markers(name, node):
    from jaxtypes.cli import parse_node

    assert parse_node(name) == node


@pytest.mark.parametrize(
    "name, suggestion",
    [
        ("f32", "float32"),
        ("i64", "int64"),
        ("bf16", "bfloat16"),
        ("u16", "uint16"),
        ("Float32", "float32"),
        ("flaot32", "float32"),
        ("weak_flaot", "weak_float"),
        ("c64", "complex64"),
    ],
)
def test_typo_suggestions(capsys, name, suggestion):
    code, out, err = run(capsys, "promote", name, "int8")
    assert code == 2 and out == ""
    assert f"unknown dtype {name!r} (did you mean {suggestion!r}?)" in err


@pytest.mark.parametrize("name", ["1", "xyz", "2"])
def test_no_misleading_suggestion(capsys, name):
    code, _, err = run(capsys, "promote", name, "int8")
    assert code == 2
    assert "did you mean" not in err


def test_a_shell_expanded_glob_is_explained(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "install.sh").write_text("")
    code, _, err = run(capsys, "promote", "install.sh", "int8")
    assert code == 2
    assert "it names a file: quote i*, f*, c*" in err


def test_no_arguments_prints_usage():
    proc = run_module()
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("usage: jaxtypes")
    for name in ("table", "promote", "explain", "lattice", "diff", "jax-stubs"):
        assert name in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bare_jax_stubs_prints_its_usage_and_writes_nothing(tmp_path):
    """`jaxtypes jax-stubs` alone used to write 36 files into ./typings; a user
    typing it wants its usage: argparse's convention for a missing argument
    (usage and one error line on stderr, exit code 2)."""
    proc = subprocess.run(
        [sys.executable, "-m", "jaxtypes", "jax-stubs"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 2 and proc.stdout == ""
    usage, error = proc.stderr.splitlines()
    assert usage.startswith("usage: jaxtypes jax-stubs [-h] [--out DIR] [{install,check,uninstall}]"), usage
    assert error == (
        "jaxtypes: error: jax-stubs: say what to do: install, check or uninstall, or --out DIR "
        "to write the stubs into DIR (nothing was written)"
    )
    assert list(tmp_path.iterdir()) == []


def test_jax_stubs_help_names_every_action(capsys):
    code, out, _ = run(capsys, "jax-stubs", "--help")
    assert code == 0
    for action in ("install:", "check:", "uninstall:", "--out DIR"):
        assert action in " ".join(out.split())


# ------------------------------------------------------ hostile conditions
LONG = "x" * 100_000


def assert_one_line_error(proc: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr[-2000:]
    assert re.match(r"jaxtypes( [a-z-]+)?: error: ", lines[0]), lines[0]
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.mark.parametrize(
    "argv",
    [
        ["promote", LONG, "int8"],
        ["explain", "int8", LONG],
        ["table", "--format", LONG],
        [LONG],
        ["diff", LONG],
        ["jax-stubs", "--out", "/nonexistent/" + LONG],
        ["table", "--" + LONG],
        ["jax-stubs", "install", LONG],
    ],
    ids=["promote", "explain", "format", "command", "diff", "jax-stubs-out", "unrecognized option", "unrecognized"],
)
def test_a_long_argument_is_shortened(argv):
    proc = run_module(*argv)
    assert_one_line_error(proc, f"({len(max(argv, key=len))} characters)")
    assert len(proc.stderr) < 1000


@pytest.mark.parametrize(
    "variable, value",
    [
        ("JAX_ENABLE_X64", "maybe"),
        ("JAX_ENABLE_X64", ""),
        ("JAX_NUMPY_DTYPE_PROMOTION", "loose"),
        ("JAX_NUMPY_DTYPE_PROMOTION", LONG),
    ],
    ids=["x64-word", "x64-empty", "promotion-word", "promotion-long"],
)
@pytest.mark.parametrize("how", ["module", "script"])
def test_a_bad_environment_value_is_one_line(variable, value, how):
    env = jax_env(**{variable: value})
    if how == "module":
        proc = run_module("table", env=env)
    else:  # the installed console script
        script = Path(sys.executable).parent / "jaxtypes"
        assert script.exists(), "the jaxtypes script is not installed next to this python"
        proc = subprocess.run([str(script), "table"], capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert_one_line_error(proc, variable)
    assert proc.stdout == ""


def test_a_bad_environment_value_still_raises_for_a_library_user():
    env = jax_env(JAX_ENABLE_X64="maybe")
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.run(
        [sys.executable, "-c", "import jaxtypes"], capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1].startswith(
        "ValueError: invalid value 'maybe' for environment variable JAX_ENABLE_X64"
    )


def run_shell(redirect: str, *argv: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    cmd = " ".join([sys.executable, "-m", "jaxtypes", *argv]) + " " + redirect
    return subprocess.run(["/bin/sh", "-c", cmd], capture_output=True, text=True, env=env, cwd=REPO, timeout=120)


@pytest.mark.parametrize("argv", [["table"], ["promote", "int8", "float32"], ["lattice", "--format", "dot"]])
def test_stdout_closed(argv):
    proc = run_shell(">&-", *argv)
    assert_one_line_error(proc, "standard output is closed")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("argv", [["table", "--all"], ["promote", "int8", "float32"], ["diff", "numpy"]])
def test_stdout_on_a_full_disk(argv):
    proc = run_shell(">/dev/full", *argv)
    assert_one_line_error(proc, "cannot write to standard output", "No space left on device")


def test_stdout_closed_early_by_the_reader():
    proc = run_shell("| head -c 10 >/dev/null", "table", "--all")
    assert proc.returncode == 0  # the shell's status: head's
    assert proc.stderr == ""
