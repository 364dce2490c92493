"""jaxtypes.operation_rules (the operator rules the stubs and the mypy plugin use) against
every answer JAX gave, committed in tools/data/jax_expectations.json
by tools/oracle/make_expectations.py."""

from __future__ import annotations

from collections import Counter

import ml_dtypes
import numpy as np
import pytest

from jaxtypes import lattice, operation_rules
from tools.cases import expectations as jx

UNARY = {
    "-x": lambda n, v: operation_rules.unary("neg", n, v),
    "+x": lambda n, v: operation_rules.unary("pos", n, v),
    "abs(x)": lambda n, v: operation_rules.unary("abs", n, v),
    "~x": lambda n, v: operation_rules.unary("invert", n, v),
    "x.clip(0, 1)": lambda n, v: operation_rules.clip(n, lattice.WEAK_INT, v),
    "x.clip(0.0, 1.0)": lambda n, v: operation_rules.clip(n, lattice.WEAK_FLOAT, v),
    "x.clip()": lambda n, v: operation_rules.clip(n, None, v),
    **{
        f"x.{m}()": (lambda m: lambda n, v: operation_rules.method(m, n, v))(m)  # noqa: B023 - m bound by the outer lambda
        for m in (
            "sum",
            "prod",
            "mean",
            "var",
            "std",
            "max",
            "min",
            "argmax",
            "argmin",
            "all",
            "any",
            "round",
            "conj",
            "transpose",
        )
    },
    "x.real": lambda n, v: operation_rules.method("real", n, v),
    "x.imag": lambda n, v: operation_rules.method("imag", n, v),
    "x.T": lambda n, v: operation_rules.method("T", n, v),
    "x.reshape(-1)": lambda n, v: operation_rules.method("reshape", n, v),
    "x[0]": lambda n, v: operation_rules.method("getitem", n, v),
    **{
        f"x.{m}(promote_integers=False)": (
            lambda m: lambda n, v: operation_rules.method(m, n, v, promote_integers=False)  # noqa: B023 - m bound by the outer lambda
        )(m)
        for m in ("sum", "prod")
    },
}


def ours(table: str, op: str, left: str, right: str | None, v: lattice.Variant) -> tuple[str, str] | None:
    """ops' answer for a case; operands are named as in the data (markers, or
    the weakly typed arrays of the other width, which their weak marker types)."""
    data = jx.load()
    node = {o: data["markers"][m] for o, m in data["operand_markers"].items()}
    if table == "unary":
        if op == "x[0].item()":
            return "ok", operation_rules.item_type(node[left], v)
        rule = UNARY.get(op)
        if rule is None:
            return None  # a method the stubs do not declare
        out = rule(node[left], v)
    elif table == "binary":
        out = operation_rules.binary(jx.OPERATOR_NAMES[op], node[left], node[right], v)
    elif table == "scalar_right":
        out = operation_rules.binary(jx.OPERATOR_NAMES[op], node[left], jx.SCALAR_NODES[right], v, b_is_scalar=True)
    elif table == "scalar_left":
        out = operation_rules.binary(jx.OPERATOR_NAMES[op], jx.SCALAR_NODES[right], node[left], v, a_is_scalar=True)
    else:  # a NumPy scalar or array on the right or the left
        kind, dtype = jx.numpy_operand(right)
        numpy_node, scalar = operation_rules.numpy_operand(dtype, v), kind == "scalar"
        if table == "numpy_right":
            out = operation_rules.binary(jx.OPERATOR_NAMES[op], node[left], numpy_node, v, b_is_numpy_scalar=scalar)
        else:
            out = operation_rules.binary(jx.OPERATOR_NAMES[op], numpy_node, node[left], v, a_is_numpy_scalar=scalar)
    return ("ok", out.node) if out.node else ("error", "")


def same(got: tuple[str, str], truth: tuple[str, str]) -> bool:
    return got[0] == truth[0] and (truth[0] == "error" or got[1] == truth[1])


CONFIGS = ["standard-x32", "standard-x64", "strict-x32", "strict-x64"]


@pytest.mark.parametrize("config", CONFIGS)
def test_ops_agree_with_jax(config: str) -> None:
    conf = jx.load()["configs"][config]
    v = lattice.variant(conf["mode"], conf["x64"])
    counts: Counter[str] = Counter()
    wrong = []
    for table, op, left, right, truth in jx.cases(config):
        if truth[0] == "skip":
            counts["skipped: " + truth[1].split(":")[0]] += 1
            continue
        got = ours(table, op, left, right, v)
        if got is None:
            counts["not declared"] += 1
            continue
        counts["agree" if same(got, truth) else "disagree"] += 1
        if not same(got, truth):
            wrong.append((table, op, left, right, "JAX", truth, "ops", got))
    print(f"{config}: {dict(counts)}")
    assert not wrong, f"{len(wrong)} answers differ from JAX:\n" + "\n".join(map(str, wrong[:40]))
    # Every marker is an operand, the 64-bit ones with x64 off too (arrays made
    # with x64 on): 35 x 35 x 19 + 35 x 8 x 19 + 35 x 24 cases, less a few
    # hundred the CPU backend cannot run.
    assert counts["agree"] > 29_000


def _native_answer(config: str, table: str, op: str, left: str, right: str | None) -> tuple[str, str]:
    """JAX's answer for a case with the configuration's own weak arrays in place
    of the other width's; where running it kills the process, eval_shape's."""
    conf = jx.load()["configs"][config]
    a = jx.operand_marker(left)
    if table == "binary":
        assert right is not None
        cell = conf["binary"][op][a][conf["operand_order"].index(jx.operand_marker(right))]
    elif table == "unary":
        cell = conf["unary"][op][a]
    else:
        cell = conf[table][op][a][right]
    if cell.get("error") == "ProcessCrash" and "dtype" in cell.get("abstract", {}):
        cell = cell["abstract"]
    return ("ok", cell["pytype"]) if "pytype" in cell else jx.truth(cell)


@pytest.mark.parametrize("config", CONFIGS)
def test_weak_arrays_of_the_other_width(config: str) -> None:
    """A weakly typed array made with the other setting of x64 (weak int64 with
    x64 off, weak int32 with x64 on) is typed by the same weak marker as the
    configuration's own, so ops can give only one answer for both: it must be
    JAX's answer wherever JAX answers both alike, and the configuration's own
    weak array's answer where JAX tells the widths apart (docs/deviations.md)."""
    data = jx.load()
    conf = data["configs"][config]
    v = lattice.variant(conf["mode"], conf["x64"])
    counts: Counter[str] = Counter()
    wrong = []
    for table, op, left, right, truth in jx.other_width_cases(config):
        if truth[0] == "skip":
            counts["skipped"] += 1
            continue
        got = ours(table, op, left, right, v)
        if got is None:
            counts["not declared"] += 1
            continue
        if same(got, truth):
            counts["agree"] += 1
            continue
        as_native = _native_answer(config, table, op, left, right)
        if as_native[0] != "skip" and not same(as_native, truth) and same(got, as_native):
            counts["width-dependent in JAX"] += 1
            continue
        wrong.append((table, op, left, right, "JAX", truth, "ops", got, "JAX native", as_native))
    print(f"{config}: {dict(counts)}")
    assert not wrong, f"{len(wrong)} answers differ from JAX:\n" + "\n".join(map(str, wrong[:40]))
    answered = counts["agree"] + counts["width-dependent in JAX"]
    assert (counts["width-dependent in JAX"], answered) == WIDTH_DEPENDENT[config]


# (answers where JAX tells the widths apart, answers) for the weak arrays of the
# other width, as docs/deviations.md states them (380 of 31,204): a change shows up.
WIDTH_DEPENDENT = {
    "standard-x32": (170, 7786),
    "standard-x64": (87, 7812),
    "strict-x32": (86, 7794),
    "strict-x64": (37, 7812),
}
assert sum(w for w, _ in WIDTH_DEPENDENT.values()) == 380
assert sum(n for _, n in WIDTH_DEPENDENT.values()) == 31_204


def test_float_precision_is_finfo() -> None:
    for name, (maxexp, nmant) in operation_rules.FLOAT_PRECISION.items():
        info = ml_dtypes.finfo(getattr(ml_dtypes, name, None) or np.dtype(name))
        assert (info.maxexp, info.nmant) == (maxexp, nmant), name


# The oracle's expression for each unary operator and method of jaxtypes.operation_rules,
# written out: an operation added to ops without one fails below.
UNARY_EXPRESSIONS = {"neg": "-x", "pos": "+x", "abs": "abs(x)", "invert": "~x"}
METHOD_EXPRESSIONS = {
    "T": "x.T",
    "reshape": "x.reshape(-1)",
    "transpose": "x.transpose()",
    "getitem": "x[0]",
    "conj": "x.conj()",
    "sum": "x.sum()",
    "prod": "x.prod()",
    "mean": "x.mean()",
    "var": "x.var()",
    "std": "x.std()",
    "max": "x.max()",
    "min": "x.min()",
    "argmax": "x.argmax()",
    "argmin": "x.argmin()",
    "all": "x.all()",
    "any": "x.any()",
    "clip": "x.clip()",
    "round": "x.round()",
    "real": "x.real",
    "imag": "x.imag",
}
SCALAR_KEYS = {"bool": "True", lattice.WEAK_INT: "1", lattice.WEAK_FLOAT: "1.0", lattice.WEAK_COMPLEX: "1j"}


def expected_operands(v: lattice.Variant) -> set[tuple[str, str, bool]]:
    """(marker node, dtype, weak) of every array JAX can hold in a configuration:
    each dtype (a 64-bit one with x64 off made while x64 was on), and a weakly
    typed array of each kind at both widths (made with x64 off and on)."""
    out = {(n, n, False) for n in lattice.NODES if n not in lattice.WEAK}
    for node in lattice.WEAK:
        out |= {(node, lattice.default_dtype(node[0], x64), True) for x64 in (False, True)}
    return out


@pytest.mark.parametrize("v", lattice.VARIANTS, ids=lambda v: v.label)
def test_expectations_cover_every_operation(v: lattice.Variant) -> None:
    """Every (operand, operation) of jaxtypes.operation_rules in every configuration has a
    recorded JAX answer: the lists come from jaxtypes (lattice nodes, ops'
    operators and methods), the answers from the data."""
    assert set(UNARY_EXPRESSIONS) == set(operation_rules.UNARY_OPERATORS)
    assert set(METHOD_EXPRESSIONS) == set(operation_rules.METHODS)
    data = jx.load()
    conf = data["configs"][v.label]
    assert (conf["mode"], conf["x64"]) == (v.mode, v.x64)
    assert sorted(data["markers"].values()) == sorted(lattice.NODES)
    node_of = {o: data["markers"][m] for o, m in data["operand_markers"].items()}
    order = conf["operand_order"]
    held = {}
    for name in order:
        cell = conf["operands"][name]
        if "dtype" in cell:
            held[node_of[name], cell["dtype"], cell["weak"]] = name
        else:  # JAX cannot build it at all here: its cases are eval_shape's or skipped
            assert cell.get("operand_unavailable"), (name, cell)
            held[node_of[name], node_of[name], False] = name
    missing = expected_operands(v) - set(held)
    assert not missing, f"{v.label}: no operand for {sorted(missing)}"
    operands = [held[key] for key in sorted(expected_operands(v))]
    binary = [operation_rules.SYMBOLS[op] for op in (*operation_rules.BINARY_OPERATORS, *operation_rules.COMPARISONS)]
    unary = [
        *UNARY_EXPRESSIONS.values(),
        *METHOD_EXPRESSIONS.values(),
        "x.clip(0, 1)",
        "x.clip(0.0, 1.0)",
        "x[0].item()",
    ]
    absent, checked = [], 0

    def look(*path: str | int) -> None:
        nonlocal checked
        node: object = conf
        try:
            for key in path:
                node = node[order.index(key)] if isinstance(node, list) else node[key]  # type: ignore[index]
        except (KeyError, ValueError):
            absent.append(path)
            return
        if isinstance(node, dict) and {"dtype", "pytype", "error"} & set(node):
            checked += 1
        else:
            absent.append(path)

    for a in operands:
        for symbol in binary:
            for b in operands:
                look("binary", symbol, a, b)
            for scalar in SCALAR_KEYS.values():
                look("scalar_right", symbol, a, scalar)
                look("scalar_left", symbol, a, scalar)
        for expr in unary:
            look("unary", expr, a)
    print(f"{v.label}: {checked} (operand, operation) answers recorded")
    assert not absent, f"{len(absent)} missing from the expectations, e.g. {absent[:10]}"
