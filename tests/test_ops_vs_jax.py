"""jaxtypes.ops (the operator rules the stubs and the mypy plugin use) against
every answer JAX gave, committed in typecheck_cases/data/jax_expectations.json
by typecheck_cases/oracle/make_expectations.py."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from jaxtypes import lattice, ops

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "typecheck_cases" / "oracle"))
import expectations as jx  # noqa: E402

UNARY = {
    "-x": lambda n, v: ops.unary("neg", n, v), "+x": lambda n, v: ops.unary("pos", n, v),
    "abs(x)": lambda n, v: ops.unary("abs", n, v), "~x": lambda n, v: ops.unary("invert", n, v),
    "x.clip(0, 1)": lambda n, v: ops.clip(n, lattice.WEAK_INT, v),
    "x.clip()": lambda n, v: ops.clip(n, None, v),
    **{f"x.{m}()": (lambda m: lambda n, v: ops.method(m, n, v))(m)
       for m in ("sum", "prod", "mean", "max", "min", "argmax", "argmin", "all", "any",
                 "round", "conj", "transpose")},
    "x.real": lambda n, v: ops.method("real", n, v), "x.imag": lambda n, v: ops.method("imag", n, v),
    "x.T": lambda n, v: ops.method("T", n, v), "x.reshape(-1)": lambda n, v: ops.method("reshape", n, v),
    "x[0]": lambda n, v: ops.method("getitem", n, v),
}


def ours(table: str, op: str, left: str, right: str | None, v: lattice.Variant) -> tuple[str, str] | None:
    node = jx.load()["markers"]
    if table == "unary":
        if op == "x[0].item()":
            return "ok", ops.item_type(node[left], v)
        rule = UNARY.get(op)
        if rule is None:
            return None  # a method the stubs do not declare
        out = rule(node[left], v)
    elif table == "binary":
        out = ops.binary(jx.OPERATOR_NAMES[op], node[left], node[right], v)
    elif table == "scalar_right":
        out = ops.binary(jx.OPERATOR_NAMES[op], node[left], jx.SCALAR_NODES[right], v, b_is_scalar=True)
    else:
        out = ops.binary(jx.OPERATOR_NAMES[op], jx.SCALAR_NODES[right], node[left], v, a_is_scalar=True)
    return ("ok", out.node) if out.node else ("error", "")


@pytest.mark.parametrize("config", ["standard-x32", "standard-x64", "strict-x32", "strict-x64"])
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
        same = got[0] == truth[0] and (truth[0] == "error" or got[1] == truth[1])
        counts["agree" if same else "disagree"] += 1
        if not same:
            wrong.append((table, op, left, right, "JAX", truth, "ops", got))
    print(f"{config}: {dict(counts)}")
    assert not wrong, f"{len(wrong)} answers differ from JAX:\n" + "\n".join(map(str, wrong[:40]))
    assert counts["agree"] > 19_000  # of about 30,000 cases per configuration


def test_float_precision_is_finfo() -> None:
    for name, (maxexp, nmant) in ops.FLOAT_PRECISION.items():
        info = ml_dtypes.finfo(getattr(ml_dtypes, name, None) or np.dtype(name))
        assert (info.maxexp, info.nmant) == (maxexp, nmant), name
