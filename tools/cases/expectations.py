"""Reads tools/data/jax_expectations.json: JAX's observed answers.

Shared by the generator of the exhaustive typecheck cases (tools/generate.py)
and by tests/test_ops_vs_jax.py.  Imports nothing of jaxtypes: what JAX did
is the expectation, never what the code under test computes.

A cell becomes one of:
* ``("ok", node)``: the result's marker node (a weakly typed result is the
  weak node of its kind: int32 weak is ``i*``);
* ``("error", class name)``: JAX raised;
* ``("skip", reason)``: no dtype answer to expect, because XLA's CPU backend
  failed to compile or run the case (a gap of the backend, not a dtype rule:
  1-bit and 6-bit types, some comparisons of sub-byte ints), or because JAX
  could not build the operand as the marker's dtype.

An operand is a marker name or, from ``other_width_cases``, a weakly typed
array of the other width than the configuration makes (``weak_int64`` with x64
off, ``weak_int32`` with x64 on), which the weak marker also types.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Iterator

import tools

DATA = tools.DATA / "jax_expectations.json"

WEAK_NODE = {"i": "i*", "u": "i*", "f": "f*", "c": "c*"}
# numpy kind letter of each lattice dtype name (b, u, i, f, c).
_FLOAT_PREFIXES = ("float", "bfloat")


def _kind(dtype: str) -> str:
    if dtype == "bool":
        return "b"
    if dtype.startswith("uint"):
        return "u"
    if dtype.startswith("int"):
        return "i"
    if dtype.startswith(_FLOAT_PREFIXES):
        return "f"
    return "c"


def marker_node(dtype: str, weak: bool) -> str:
    """The marker node typing a JAX result (JAX's _jax_type)."""
    if not weak or dtype == "bool":
        return dtype
    if dtype == "bfloat16" or (dtype.startswith("float") and "_" in dtype):
        return "f*"
    return WEAK_NODE[_kind(dtype)]


OPERATOR_NAMES = {
    "+": "add",
    "-": "sub",
    "*": "mul",
    "/": "truediv",
    "//": "floordiv",
    "%": "mod",
    "**": "pow",
    "@": "matmul",
    "&": "and",
    "|": "or",
    "^": "xor",
    "<<": "lshift",
    ">>": "rshift",
    "<": "lt",
    "<=": "le",
    ">": "gt",
    ">=": "ge",
    "==": "eq",
    "!=": "ne",
}
SCALAR_NODES = {"1": "i*", "1.0": "f*", "1j": "c*", "True": "bool"}


@lru_cache(maxsize=1)
def load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text())
    return data


def _backend_failure(data: dict[str, Any], cell: dict[str, Any]) -> bool:
    if cell["error"] in ("JaxRuntimeError", "ProcessCrash"):
        return True
    message: str = data["errors"][cell["ref"]]["message"]
    return message.startswith("Cannot lower jaxpr")


def truth(cell: dict[str, Any]) -> tuple[str, str]:
    data = load()
    if "dtype" in cell:
        return "ok", marker_node(cell["dtype"], cell["weak"])
    if cell.get("operand_unavailable"):
        # jax.eval_shape answers without the backend that cannot hold the type.
        abstract = cell.get("abstract")
        if abstract and "dtype" in abstract:
            return "ok", marker_node(abstract["dtype"], abstract["weak"])
        if abstract and "error" in abstract:
            return "error", abstract["error"]
        return "skip", "operand unavailable"
    if _backend_failure(data, cell):
        return "skip", "XLA CPU backend: " + data["errors"][cell["ref"]]["message"][:60]
    return "error", cell["error"]


def numpy_operand(key: str) -> tuple[str, str]:
    """(kind, dtype) of a NumPy operand: kind is scalar or array, dtype its
    numpy dtype name."""
    found = load()["numpy_operands"][key]
    return found["kind"], found["dtype"]


def operand_marker(name: str) -> str:
    """The marker that types an operand."""
    marker: str = load()["operand_markers"][name]
    return marker


def mistyped_operands(config: str) -> set[str]:
    """Operands whose array JAX built is not typed by their marker (its
    dtype, or a weak node for a weakly typed array): their cells would say
    nothing about the marker.  Empty for data made by the current oracle."""
    data = load()
    markers = data["markers"]
    return {
        o
        for o, cell in data["configs"][config]["operands"].items()
        if "dtype" in cell and marker_node(cell["dtype"], cell["weak"]) != markers[operand_marker(o)]
    }


Case = tuple[str, str, Any, Any, tuple[str, str]]  # (table, op, left, right, truth)


def _all_cases(config: str) -> Iterator[Case]:
    data = load()
    conf = data["configs"][config]
    skip = mistyped_operands(config)
    order = conf["operand_order"]  # an operand x operand row lists its cells in this order
    for op, table in conf["binary"].items():
        for a, row in table.items():
            for b, cell in zip(order, row):
                if a not in skip and b not in skip:
                    yield "binary", op, a, b, truth(cell)
    for side in ("scalar_right", "scalar_left", "numpy_right", "numpy_left"):
        for op, table in conf.get(side, {}).items():
            for a, row in table.items():
                for s, cell in row.items():
                    if a not in skip:
                        yield side, op, a, s, truth(cell)
    for expr, row in conf["unary"].items():
        for a, cell in row.items():
            if a not in skip:
                yield "unary", expr, a, None, ("ok", cell["pytype"]) if "pytype" in cell else truth(cell)


def _is_marker_case(case: Case) -> bool:
    markers = load()["markers"]
    table, _, left, right, _ = case
    return left in markers and (table != "binary" or right in markers)


def cases(config: str) -> Iterator[Case]:
    """Every case of a configuration on marker operands: (table, operator or
    expression, left, right, truth), where table is binary, scalar_right,
    scalar_left, numpy_right, numpy_left or unary; operands are marker names
    (scalars by their key: '1', '1.0', '1j', 'True'; NumPy operands by theirs:
    'np.float32(1)', 'np.ones(2, np.float32)', see ``numpy_operand``)."""
    return (c for c in _all_cases(config) if _is_marker_case(c))


def other_width_cases(config: str) -> Iterator[Case]:
    """The cases with a weakly typed operand of the other width (operand names
    as in ``load()['configs'][config]['operand_order']``)."""
    return (c for c in _all_cases(config) if not _is_marker_case(c))
