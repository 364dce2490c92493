"""Renders the exhaustive typecheck case files from JAX's observed answers.

``render(config)`` turns tools/data/jax_expectations.json (read by
``expectations``) into ``{file name: source}``: every marker pair under every
operator, Python scalars on both sides, NumPy scalars and arrays (a sample of
the operators, ``NUMPY_OPERATORS``), every unary operator and method the
stubs declare, each line an ``assert_type`` of JAX's answer or, where JAX
raises, the bare expression marked ``# E: KIND`` with the kind of error
(``error_kind``; tests/expected_errors.py maps each kind to each checker's
error code).

tools/generate.py commits the default configuration's files
(typecheck_cases/generated/); tests/test_mypy_plugin_corpus.py renders all four
configurations for the mypy plugin.  Like ``expectations``, this imports
nothing of jaxtypes: the answers are JAX's.
"""

from __future__ import annotations

import re

from tools.cases import expectations as jx

# Unary expressions and methods the stubs declare, as JAX's data names them.
EXPRESSIONS = (
    "-x",
    "+x",
    "abs(x)",
    "~x",
    "x.sum()",
    "x.prod()",
    "x.mean()",
    "x.var()",
    "x.std()",
    "x.max()",
    "x.min()",
    "x.argmax()",
    "x.argmin()",
    "x.all()",
    "x.any()",
    "x.clip()",
    "x.clip(0, 1)",
    "x.round()",
    "x.conj()",
    "x.real",
    "x.imag",
    "x.T",
    "x.reshape(-1)",
    "x.transpose()",
    "x[0]",
    "x[0].item()",
)


UNARY_OPERATORS = ("-x", "+x", "~x")


def error_kind(table: str, op: str, jax_error: str, in_standard_mode: bool = False) -> str:
    """The kind of error a case JAX rejects is (tests/expected_errors.py): by
    the expression's form (an operator, abs(), a method) and by JAX's
    exception (no promotion path, or a dtype the operation does not accept).
    A method's promotion error is one of strict promotion (clip with bounds),
    unless JAX raises it in standard promotion too (``in_standard_mode``:
    var and std of a 1- or 2-bit integer), which the stubs reject like a dtype
    the method does not accept."""
    if table == "unary" and op == "abs(x)":
        return "unsupported-abs"
    promotion = jax_error == "TypePromotionError"
    if table == "unary" and op not in UNARY_OPERATORS:
        return "promotion-method" if promotion and not in_standard_mode else "unsupported-method"
    return "promotion" if promotion else "unsupported"


# The NumPy cases: one operator of each promotion table the stubs share
# between operators (a NumPy operand is answered by the same tables), with a
# NumPy scalar of each dtype on either side, and NumPy arrays on the right of
# + and @.  A NumPy array on the left, or a NumPy scalar on the left of a
# comparison, is numpy's own operator (its signatures take any array-like):
# see docs/deviations.md.
NUMPY_OPERATORS = ("*", "@", "-", "/", "//", "%", "**", "&", "<<", "<")
NUMPY_ARRAY_OPERATORS = ("+", "@")
COMPARISON_OPERATORS = ("<", "<=", ">", ">=", "==", "!=")


_NUMPY_ARRAY_KEY = re.compile(r"^np\.ones\(2, (np\.\w+)\)$")


def _numpy_source(key: str) -> str:
    """How a case file writes a NumPy operand: a scalar as its key
    (``np.float32(1)``), an array as a parameter annotated with its type
    (``nd_float32``), since mypy infers an inline generic call such as
    ``np.ones(2, np.float32)`` from the operator's parameter (docs/deviations.md)."""
    found = _NUMPY_ARRAY_KEY.match(key)
    return key if found is None else "nd_" + found.group(1)[3:]


def _numpy_parameters() -> str:
    """The parameters that hold the NumPy arrays of the case files."""
    matches = [(k, m) for k in jx.load()["numpy_operands"] if (m := _NUMPY_ARRAY_KEY.match(k))]
    return "".join(f", {_numpy_source(k)}: npt.NDArray[{m.group(1)}]" for k, m in matches)


def _numpy_case(table: str, op: str, right: str) -> bool:
    """Whether a NumPy case goes in the case files."""
    kind = jx.numpy_operand(right)[0]
    if table == "numpy_left":
        return kind == "scalar" and op in NUMPY_OPERATORS and op not in COMPARISON_OPERATORS
    return op in (NUMPY_OPERATORS if kind == "scalar" else NUMPY_ARRAY_OPERATORS)


def _repeated_numpy_rows(config: str) -> dict[tuple[str, str, str, str], str]:
    """{(table, operator, left dtype, "scalar" or "array"): the one NumPy
    operand kept} for the rows of the NumPy cases whose answers JAX gives for
    another row of the same table, operator and kind of operand too, every
    answer an error: the rows of a dtype the
    operator refuses whatever the other operand (``x_float32 & np.int8(1)``,
    ``x @ np.float32(1)``).  Such a row keeps its first case, so that a
    missing error still shows; the others would check the same refusal
    again, at the cost of the checkers' slowest path (about 2,000 lines)."""
    rows: dict[tuple[str, str, str, str], list[tuple[str, tuple[str, str]]]] = {}
    for table, op, left, right, truth in jx.cases(config):
        if table in ("numpy_right", "numpy_left") and _numpy_case(table, op, right):
            kind = jx.numpy_operand(right)[0]
            rows.setdefault((table, op, left, kind), []).append((right, truth))
    seen: set[tuple[str, str, str, tuple[tuple[str, tuple[str, str]], ...]]] = set()
    repeated: dict[tuple[str, str, str, str], str] = {}
    for (table, op, left, kind), cases in rows.items():
        if not all(truth[0] == "error" for _, truth in cases):
            continue
        if (table, op, kind, tuple(cases)) in seen:
            repeated[table, op, left, kind] = cases[0][0]
        seen.add((table, op, kind, tuple(cases)))
    return repeated


def _raises_in_standard_mode(config: str, op: str, left: str) -> bool:
    """Whether JAX raises for the unary case in standard promotion with the
    configuration's x64."""
    data = jx.load()
    standard = "standard-" + config.rpartition("-")[2]
    cell = data["configs"][standard]["unary"][op][left]
    return jx.truth(cell)[0] == "error"


def _header(config: str) -> str:
    which = "default configuration" if config == jx.load()["default_config"] else f"configuration {config}"
    return (
        "# Generated by tools/generate.py from tools/data/jax_expectations.json\n"
        f"# (JAX's observed answers, {which}); do not edit.\n"
    )


def render(config: str) -> dict[str, str]:
    """{file name: source} of the case files of one configuration."""
    data = jx.load()
    markers = data["markers"]  # marker name -> lattice node
    marker_of = {node: name for name, node in markers.items()}
    names = list(data["marker_order"])
    imports = "from typing_extensions import assert_type\n\nfrom jaxtypes import Array, " + ", ".join(names) + "\n\n\n"
    params = ", ".join(f"x_{m}: Array[{m}]" for m in names)
    files: dict[str, list[str]] = {}
    skipped: dict[str, int] = {}

    def line(expr: str, truth: tuple[str, str], kind: str, item: bool = False) -> str:
        if truth[0] == "error":
            return f"    {expr}  # E: {kind}"
        expected = truth[1] if item else f"Array[{marker_of[truth[1]]}]"
        return f"    assert_type({expr}, {expected})"

    repeated = _repeated_numpy_rows(config)
    for table, op, left, right, truth in jx.cases(config):
        if table == "binary":
            name, expr = f"binary_{jx.OPERATOR_NAMES[op]}.py", f"x_{left} {op} x_{right}"
        elif table == "scalar_right":
            name, expr = f"scalar_{jx.OPERATOR_NAMES[op]}.py", f"x_{left} {op} {right}"
        elif table == "scalar_left":
            if op in ("==", "!="):
                continue  # Python's int.__eq__ answers first: see docs/deviations.md
            name, expr = f"scalar_{jx.OPERATOR_NAMES[op]}.py", f"{right} {op} x_{left}"
        elif table in ("numpy_right", "numpy_left"):
            if not _numpy_case(table, op, right):
                continue
            row = (table, op, left, jx.numpy_operand(right)[0])
            if row in repeated and right != repeated[row]:
                continue
            name, operand = f"numpy_{jx.OPERATOR_NAMES[op]}.py", _numpy_source(right)
            expr = f"x_{left} {op} {operand}" if table == "numpy_right" else f"{operand} {op} x_{left}"
        else:
            if op not in EXPRESSIONS:
                continue
            name, expr = "unary_and_methods.py", op.replace("x", f"x_{left}", 1)
        if truth[0] == "skip":
            skipped[name] = skipped.get(name, 0) + 1
            continue
        raises_anyway = truth[0] == "error" and table == "unary" and _raises_in_standard_mode(config, op, left)
        kind = error_kind(table, op, truth[1], raises_anyway)
        files.setdefault(name, []).append(line(expr, truth, kind, item=op == "x[0].item()"))
    out: dict[str, str] = {}
    for name, body in sorted(files.items()):
        note = f"# {skipped[name]} case(s) left out: XLA's CPU backend cannot run them.\n" if name in skipped else ""
        numpy = name.startswith("numpy_")
        out[name] = (
            _header(config)
            + note
            + ("import numpy as np\nimport numpy.typing as npt\n" if numpy else "")
            + imports
            + f"def cases({params}{_numpy_parameters() if numpy else ''}) -> None:\n"
            + "\n".join(body)
            + "\n"
        )
    return out
