"""Propose a row of jaxtypes/functions.csv from JAX's answers for a function.

    python -m tools.classify_functions jax.lax.cummax [NAME ...]
    python -m tools.classify_functions jax.numpy.sqrt --family keeps   # why not keeps?

For each function it reads the oracle's answers (tools/data/
jax_function_dtypes.json, written by ``python -m
tools.oracle.make_function_tables --only NAME``: JAX's result dtype for each
combination of input dtypes, in the default configuration and with x64 on)
and tries every family of ``jaxtypes.function_rules.FAMILIES`` with the
parameters that change its answers (weak results kept or not, a Python
scalar operand, a fixed or default dtype, which inputs take part...).  The
dtypes JAX refuses are read off the answers: ``accepts`` drops a kind JAX
refuses whenever the family would give it, ``rejects`` lists the nodes JAX
refuses whatever the family gives.  Each candidate is scored exactly as
tests/test_function_rules.py scores the table (``function_rules.apply`` against
every answer), and:

* the families whose best candidate agrees with every answer are the
  proposed rows (simplest first: fewest parameters, fewest unknown answers);
* every other family is ruled out by the input combinations it gets wrong;
* when no family fits but one misses only on probes with a few input dtypes,
  it proposes that family with those inputs ``unknown`` (the reason is left
  for you to write: why JAX computes them another way);
* otherwise the row is untyped, with the closest candidate as its reason.

``--family`` tries only the families named (to see why one does not fit).
It proposes; the table is what you write, and tests/test_function_rules.py
checks what you wrote against every answer.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable, Sequence, cast

import tools
from jaxtypes import function_rules, lattice, operation_rules
from jaxtypes.function_rules import Rule
from tools.cases import expectations as jx  # JAX's cell -> marker node, written without jaxtypes

DATA = tools.DATA / "jax_function_dtypes.json"
CONFIGS = ("standard-x32", "standard-x64")
UNTYPED = ("untyped", "higher_order")
KINDS = "biufc"
# Families tried, in the order a tie is broken (simplest rules first).
FAMILIES = (
    "keeps",
    "inexact",
    "mean",
    "fixed",
    "sum",
    "dtype",
    "like",
    "real",
    "complex",
    "fft",
    "equal",
    "select",
    "operator",
    "key",
    "not_an_array",
)
# A family that misses on probes with at most this many input dtypes is
# proposed with those inputs unknown.
MAX_UNKNOWN = 4
# Past this many nodes, refusals are no rule's (proposed: the rule without them).
MAX_REJECTS = 6
EXAMPLES = 3  # misfits shown per ruled-out family
# Kinds where dtype= decides: only the families that read it (and fixed) are tried.
DTYPE_KINDS = ("d", "xd", "kd")


@dataclass(frozen=True)
class Answer:
    """One probe of the oracle: the inputs and dtype= it passed, and JAX's result."""

    config: str
    key: str  # the probe key (its inputs joined by ',')
    inputs: tuple[str, ...]
    dtype: str | None
    truth: tuple[str, str]  # ("ok", node) or ("error", exception class)
    cell: str = ""  # JAX's whole cell: ``float32,int32`` for results of different dtypes


@dataclass
class Candidate:
    """A rule scored on a function's answers."""

    rule: Rule
    misfits: list[tuple[Answer, tuple[str, str]]] = field(default_factory=list[tuple[Answer, tuple[str, str]]])
    unknown: int = 0
    answered: int = 0

    @property
    def fits(self) -> bool:
        return not self.misfits and self.answered > 0

    def sort_key(self) -> tuple[bool, int, int, int, int, int]:
        """Better first: one that answers, fewer misfits, more answers, fewer
        unknown inputs, fewer parameters, an earlier family of ``FAMILIES``."""
        family = FAMILIES.index(self.rule.family) if self.rule.family in FAMILIES else len(FAMILIES)
        return (
            self.answered == 0,
            len(self.misfits),
            -self.answered,
            len(self.rule.unknown),
            complexity(self.rule),
            family,
        )


@dataclass
class Classification:
    name: str
    kind: str
    answers: int
    fits: list[Candidate]  # the best fitting candidate of each family that fits
    closest: dict[str, Candidate]  # the best candidate of each family
    partial: list[Candidate] = field(default_factory=list[Candidate])  # families fitting with a few inputs unknown
    data: Sequence[Answer] = ()

    def rows(self) -> list[dict[str, str]]:
        """The proposed rows: one per fitting family; else one per partial fit;
        else the untyped row with the closest candidate as its reason."""
        if self.fits:
            return [self._typed_row(c.rule) for c in self.fits]
        if self.partial:
            return [self._typed_row(c.rule) for c in self.partial]
        return [row_for(self.name, self.kind, Rule("untyped", reason=self.untyped_reason()))]

    def _typed_row(self, rule: Rule) -> dict[str, str]:
        others = others_for(rule, self.data)
        row = row_for(self.name, self.kind, rule._replace(others=others or ()))
        if others is None and not row["several_results"]:
            row["several_results"] = "TODO: how the results' dtypes differ"
        return row

    def untyped_reason(self) -> str:
        if not self.closest:
            return "no answer from JAX to classify"
        best = min(self.closest.values(), key=Candidate.sort_key)
        return f"closest rule {describe(best.rule)} differs from JAX on {len(best.misfits)} of {self.answers} probes"


# ------------------------------------------------------------------ the data
@lru_cache(maxsize=1)
def load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return data


def table_name(probe: str) -> str:
    """A probe's function: ``jax.numpy.sum(dtype=)`` probes jax.numpy.sum."""
    return probe.split("(")[0]


def parse_key(key: str) -> tuple[tuple[str, ...], str | None]:
    """A probe key's input nodes and dtype= node (a raw key is uint32)."""
    inputs: list[str] = []
    dtype = None
    for part in filter(None, key.split(",")):
        if part.startswith("dtype="):
            dtype = None if part == "dtype=None" else part[len("dtype=") :]
        else:
            inputs.append("uint32" if part == "uint32[2]" else part)
    return tuple(inputs), dtype


def expected(cell: str) -> tuple[str, str]:
    """JAX's answer for the first result (``float32,int32``: top_k's values)."""
    cell = cell.split(",")[0]
    if cell.startswith("!"):
        return "error", cell[1:]
    if cell.startswith("py:"):
        return "ok", function_rules.NOT_AN_ARRAY
    if cell.startswith("key<"):
        return "ok", cell
    return "ok", jx.marker_node(cell.rstrip("*"), cell.endswith("*"))


def answers(name: str, data: dict[str, Any] | None = None) -> tuple[str, list[Answer]]:
    """The function's probe kind and its answers (every probe of it: ``sum``
    and ``sum(dtype=)``)."""
    data = data if data is not None else load()
    kind = ""
    out: list[Answer] = []
    for config in CONFIGS:
        for probe, row in data["configs"][config]["results"].items():
            if table_name(probe) != name:
                continue
            if probe != name and function_rules.probe_rule(probe) != function_rules.TABLE.get(name):
                continue  # (a choice picking another rule: jax.image.resize(method=nearest))
            if probe == name:
                kind = data["probes"][probe]["kind"]
            for key, cell in row.items():
                inputs, dtype = parse_key(key)
                out.append(Answer(config, key, inputs, dtype, expected(cell), cell))
    return kind, out


def variant(config: str) -> lattice.Variant:
    return lattice.variant("standard", config.endswith("x64"))


# ------------------------------------------------------------------ scoring
def ours(rule: Rule, answer: Answer) -> tuple[str, str]:
    try:
        out = function_rules.apply(rule, answer.inputs, variant(answer.config), answer.dtype)
    except (ValueError, AssertionError, KeyError, IndexError) as err:  # (a family of another arity: sum of two arrays)
        return "unusable", f"{type(err).__name__}: {err}"
    if out.node is None and out.error is None:
        return "unknown", ""
    return ("ok", out.node) if out.node else ("error", out.error or "")


def agree(truth: tuple[str, str], got: tuple[str, str]) -> bool:
    return truth[0] == got[0] and (truth[0] == "error" or truth[1] == got[1])


def score(rule: Rule, data: Sequence[Answer]) -> Candidate:
    """``rule`` against every answer, as tests/test_function_rules.py checks it."""
    out = Candidate(rule)
    for answer in data:
        got = ours(rule, answer)
        if got[0] == "unknown":
            out.unknown += 1
        elif agree(answer.truth, got):
            out.answered += 1
        else:
            out.misfits.append((answer, got))
    return out


def _parameters(rule: Rule) -> list[tuple[str, str, int]]:
    """(name, text, weight) of each parameter a rule sets: a tuple weighs its items."""
    default = Rule(rule.family)._asdict()
    out: list[tuple[str, str, int]] = []
    for name, value in rule._asdict().items():
        if name in ("family", "reason") or value == default[name]:
            continue
        if isinstance(value, tuple):
            items = [str(item) for item in cast("tuple[object, ...]", value)]
            out.append((name, "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")", max(1, len(items))))
        else:
            out.append((name, str(value), 1))
    return out


def complexity(rule: Rule) -> int:
    """How many parameters a rule sets, a tuple counting its items (fewer is simpler)."""
    return sum(weight for _, _, weight in _parameters(rule))


def describe(rule: Rule) -> str:
    """``Rule(keeps, keep_weak=False, accepts=fc)``: the family and the parameters it sets."""
    return f"Rule({', '.join([rule.family, *(f'{name}={text}' for name, text, _ in _parameters(rule))])})"


# ------------------------------------------------------------------ candidates
def _dtype_specs(data: Sequence[Answer]) -> list[str]:
    """Fixed or default dtypes to try: the kind letters (each kind's default
    dtype) and every strong result JAX gave."""
    seen = [a.truth[1] for a in data if a.truth[0] == "ok" and a.truth[1] in lattice.STRONG]
    return ["b", "i", "u", "f", "c", *sorted(set(seen), key=lattice.NODES.index)]


def _arg_choices(data: Sequence[Answer]) -> list[tuple[int, ...] | None]:
    width = max((len(a.inputs) for a in data), default=0)
    out: list[tuple[int, ...] | None] = [None]
    if width > 1:
        out += [(i,) for i in range(width)]
    if width == 3:
        out.append((1, 2))
    return out


def bases(family: str, data: Sequence[Answer]) -> Iterable[Rule]:
    """The rules of a family worth scoring on these answers, before what
    JAX refuses is read off them (``refine``)."""
    weak = (True, False)
    args = _arg_choices(data)
    if family in ("keeps", "inexact"):
        for keep, scalar, bool_int, bool_as, chosen in itertools.product(
            weak, (None, "i*", "f*"), (False, True), (None, "int32"), args
        ):
            if bool_int and bool_as:
                continue
            if family == "inexact" and bool_as:
                continue
            yield Rule(family, args=chosen, keep_weak=keep, scalar=scalar, bool_as_int=bool_int, bool_as=bool_as)
    elif family == "not_an_array":
        if any(a.truth == ("ok", function_rules.NOT_AN_ARRAY) for a in data):
            yield Rule(family)
    elif family in ("mean", "sum", "complex", "fft"):
        for keep in weak if family in ("complex", "fft") else (True,):
            yield Rule(family, keep_weak=keep)
    elif family == "fixed":
        for spec, chosen in itertools.product(_dtype_specs(data), (None, ())):
            yield Rule(family, args=chosen, fixed=spec)
    elif family == "dtype":
        for default in (None, *_dtype_specs(data)):
            yield Rule(family, default=default)
    elif family == "like":
        for keep, bool_int in itertools.product(weak, (False, True)):
            yield Rule(family, keep_weak=keep, bool_as_int=bool_int)
    elif family == "real":
        for default, keep in itertools.product((None, "f"), weak):
            yield Rule(family, default=default, keep_weak=keep)
    elif family == "equal":
        for keep, chosen in itertools.product(weak, args):
            yield Rule(family, args=chosen, keep_weak=keep)
    elif family == "select" and all(len(a.inputs) >= 2 for a in data):
        for keep in weak:
            yield Rule(family, keep_weak=keep)
    elif family == "operator":
        width = max((len(a.inputs) for a in data), default=0)
        names = (
            operation_rules.BINARY_OPERATORS if width == 2 else operation_rules.UNARY_OPERATORS if width == 1 else ()
        )
        for op in names:
            yield Rule(family, fixed=op)
    elif family == "key" and all("key<" in a.key or "uint32[2]" in a.key for a in data if a.inputs):
        for fixed in (None, "uint32", function_rules.KEY):
            yield Rule(family, fixed=fixed)


def _kind(node: str) -> str | None:
    if node in lattice.NODES:
        return lattice.kind(node)
    return None


def _nodes(answer: Answer) -> list[tuple[str, str]]:
    """(node, role) of each dtype an answer passes: 'input' or 'dtype'."""
    out = [(n, "input") for n in answer.inputs]
    if answer.dtype is not None:
        out.append((answer.dtype, "dtype"))
    return out


def refine(base: Rule, data: Sequence[Answer]) -> Candidate:
    """``base`` with what JAX refuses read off the answers: the kinds it
    refuses whenever the family would give them (``accepts``: of the result,
    or of the inputs for ``fixed``, which checks them), then the nodes it
    refuses whatever the family gives (``rejects``, or ``input_rejects``
    for a node JAX takes as a dtype= argument)."""
    first = score(base, data)
    got_of = [(a, ours(base, a)) for a in data]
    tried = [first]
    for on_inputs in (False, True) if base.family == "fixed" else (False,):
        needed: set[str] = set()
        refused: set[str] = set()
        for answer, got in got_of:
            if got[0] != "ok":
                continue
            kinds = [_kind(n) for n in answer.inputs] if on_inputs else [_kind(got[1])]
            for k in filter(None, kinds):
                (needed if answer.truth[0] == "ok" else refused).add(k)
        accepts = "".join(k for k in KINDS if k not in refused - needed)
        if accepts != base.accepts:
            tried.append(score(base._replace(accepts=accepts), data))
    best = min(tried, key=Candidate.sort_key)
    rule = best.rule
    # nodes JAX refuses in every answer where the rule, answering, is right otherwise
    bad: dict[tuple[str, str], int] = Counter()
    good: set[tuple[str, str]] = set()
    for answer in data:
        got = ours(rule, answer)
        for node_role in _nodes(answer):
            if got[0] == "ok" and answer.truth[0] == "error":
                bad[node_role] += 1
            elif agree(answer.truth, got) and answer.truth[0] == "ok":
                good.add(node_role)
    refused_inputs = {n for (n, role) in bad if role == "input" and (n, role) not in good}
    refused_dtypes = {n for (n, role) in bad if role == "dtype" and (n, role) not in good}
    as_dtype_ok = {n for (n, role) in good if role == "dtype"}
    as_input_ok = {n for (n, role) in good if role == "input"}
    rejects = {n for n in refused_inputs | refused_dtypes if n not in as_dtype_ok and n not in as_input_ok}
    input_rejects = {n for n in refused_inputs if n in as_dtype_ok}
    if not rejects and not input_rejects or len(rejects) + len(input_rejects) > MAX_REJECTS:
        return best
    refined = rule._replace(
        rejects=tuple(sorted(rejects, key=_order)), input_rejects=tuple(sorted(input_rejects, key=_order))
    )
    return min((best, score(refined, data)), key=Candidate.sort_key)


def _order(node: str) -> int:
    """Nodes in the lattice's order (a PRNG key last)."""
    return lattice.NODES.index(node) if node in lattice.NODES else len(lattice.NODES)


def _with_unknown(best: Candidate, data: Sequence[Answer]) -> Candidate | None:
    """``best`` with the few input dtypes of its misfits unknown, if that fits."""
    left: list[tuple[Answer, tuple[str, str]]] = list(best.misfits)
    chosen: list[str] = []
    while left and len(chosen) < MAX_UNKNOWN:
        counts = Counter(n for a, _ in left for n in set(a.inputs))
        if not counts:
            return None
        node = max(counts, key=lambda n: (counts[n], -_order(n)))
        chosen.append(node)
        left = [(a, g) for a, g in left if node not in a.inputs]
    if left or not chosen:
        return None
    candidate = score(
        best.rule._replace(
            unknown=tuple(sorted(chosen, key=_order)), reason="TODO: why JAX gives these inputs another dtype"
        ),
        data,
    )
    return candidate if candidate.fits else None


def classify(name: str, families: Sequence[str] = FAMILIES, data: dict[str, Any] | None = None) -> Classification:
    """Every family of ``families`` tried on the oracle's answers for ``name``."""
    kind, found = answers(name, data)
    closest: dict[str, Candidate] = {}
    for family in families:
        if family not in function_rules.FAMILIES or family in UNTYPED:
            raise ValueError(f"not a family that types: {family!r} (one of {', '.join(FAMILIES)})")
        if kind in DTYPE_KINDS and family not in (*function_rules.DTYPE_FAMILIES, "fixed"):
            continue  # (the others leave every dtype= answer unknown: no fit of them says anything)
        scored = [refine(base, found) for base in bases(family, found)]
        if scored:
            closest[family] = min(scored, key=Candidate.sort_key)
    fits = sorted((c for c in closest.values() if c.fits), key=Candidate.sort_key)
    out = Classification(name, kind, len(found), fits, closest, data=found)
    if not fits:
        completed = (_with_unknown(c, found) for c in closest.values())
        out.partial = sorted((c for c in completed if c is not None), key=Candidate.sort_key)
    return out


def check(name: str, rule: Rule, data: dict[str, Any] | None = None) -> Candidate:
    """One rule (a row you wrote) against the oracle's answers for ``name``."""
    return score(rule, answers(name, data)[1])


def others_for(rule: Rule, data: Sequence[Answer]) -> tuple[str, ...] | None:
    """The ``others`` of a function whose results JAX gives in different
    dtypes (``top_k``: int32 indices), as tests/test_function_rules.py checks
    them: () for one result dtype, None when no dtype per result says them
    (the row's several_results)."""
    multi = [a for a in data if "," in a.cell]
    if not multi:
        return ()
    width = len(multi[0].cell.split(",")) - 1
    if width > 2 or any(len(a.cell.split(",")) != width + 1 for a in multi):
        return None
    seen = {expected(part)[1] for a in multi for part in a.cell.split(",")}
    specs = [
        "b",
        "i",
        "u",
        "f",
        "c",
        *sorted(seen & set(lattice.STRONG), key=lattice.NODES.index),
        *function_rules.RESULT_FAMILIES,
    ]
    for combo in itertools.product(specs, repeat=width):
        candidate = rule._replace(others=combo)
        if all(_others_agree(candidate, a) for a in data):
            return combo
    return None


def _others_agree(rule: Rule, answer: Answer) -> bool:
    if answer.cell.startswith("!"):
        return True
    parts = answer.cell.split(",")
    if len(parts) == 1:  # (every result of one dtype: int32 values, int32 indices)
        parts *= 1 + len(rule.others)
    truth = [expected(part)[1] for part in parts[1:]]
    return truth == list(function_rules.other_results(rule, answer.inputs, variant(answer.config)))


# ------------------------------------------------------------------ rows
def row_for(name: str, kind: str, rule: Rule) -> dict[str, str]:
    """A table row: the committed row's other columns (kind, positions,
    notes...) if the table has the function, with ``rule``'s columns."""
    current = _rows().get(name)
    row = dict(current) if current is not None else {**dict.fromkeys(function_rules.COLUMNS, ""), "name": name}
    if not row["kind"]:
        row["kind"] = kind
    row.update(function_rules.rule_columns(rule))
    return row


@lru_cache(maxsize=1)
def _rows() -> dict[str, dict[str, str]]:
    path = resources.files("jaxtypes").joinpath(function_rules.TABLE_FILE)
    return {row["name"]: row for row in function_rules.read_rows(path.read_text(encoding="utf-8"))}


def _misfit_text(answer: Answer, got: tuple[str, str]) -> str:
    def say(outcome: tuple[str, str]) -> str:
        if outcome[0] == "unusable":
            return f"cannot ({outcome[1]})"
        return "raises" if outcome[0] == "error" else outcome[1] if outcome[0] == "ok" else "unknown"

    return f"{answer.key or '()'} ({answer.config}): JAX {say(answer.truth)}, rule {say(got)}"


def report(result: Classification) -> str:
    """The proposal and its reasons, as text."""
    lines = [f"{result.name}: kind {result.kind or '(not probed)'}, {result.answers} answers from JAX"]
    if not result.answers:
        lines.append("  no answers: run python -m tools.oracle.make_function_tables --only " + result.name)
    if result.fits:
        lines.append("  fits: " + ", ".join(f"{c.rule.family} ({describe(c.rule)})" for c in result.fits))
    elif result.partial:
        fitting = ", ".join(describe(c.rule) for c in result.partial)
        lines.append(f"  no family fits every answer; with a few inputs unknown: {fitting}")
    else:
        lines.append("  no family fits: untyped")
    ruled_out = {f: c for f, c in result.closest.items() if not c.fits}
    if ruled_out:
        lines.append("  ruled out (best candidate of each family, the inputs it gets wrong):")
    for family, c in sorted(ruled_out.items(), key=lambda item: item[1].sort_key()):
        if not c.misfits:
            lines.append(f"    {family}: {describe(c.rule)} answers nothing (every answer unknown)")
            continue
        if all(got[0] == "unusable" for _, got in c.misfits):
            lines.append(f"    {family}: takes another number of arrays ({c.misfits[0][1][1]})")
            continue
        shown = "; ".join(_misfit_text(a, g) for a, g in c.misfits[:EXAMPLES])
        lines.append(f"    {family}: {describe(c.rule)} differs on {len(c.misfits)} of {result.answers}: {shown}")
    lines.append("  proposed row(s) for jaxtypes/functions.csv:")
    text = function_rules.render_rows(result.rows()).splitlines()[1:]
    lines += ["    " + line for line in text]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("names", nargs="+", metavar="NAME", help="qualified names: jax.lax.cummax")
    parser.add_argument("--family", action="append", help="try only this family (repeatable)")
    args = parser.parse_args(argv)
    families: Sequence[str] = args.family or FAMILIES
    status = 0
    for name in args.names:
        try:
            result = classify(name, families)
        except ValueError as err:
            print(err, file=sys.stderr)
            return 2
        print(report(result))
        if not result.fits:
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
