"""jaxtypes.function_rules (the dtype rule of each public JAX function) against every
answer JAX gave, committed in tools/data/jax_function_dtypes.json by
tools/oracle/make_function_tables.py."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Iterator

import pytest

import tools
from jaxtypes import function_rules, lattice

HERE = Path(__file__).resolve().parent
DATA = tools.DATA / "jax_function_dtypes.json"

CONFIGS = ("standard-x32", "standard-x64")
UNTYPED = ("untyped", "higher_order")

# (function, config, probe key) -> why the rule and JAX differ.  The test
# checks each still differs, so that the list stays exact.
_ABS_INT1 = (
    "jax.numpy.abs gives int8 for an int1 array (eval_shape), where the abs rule "
    "it shares with the abs(x) operator (jaxtypes.operation_rules.unary) refuses sub-byte ints"
)
EXCLUSIONS: dict[tuple[str, str, str], str] = {
    (f"jax.numpy.{name}", config, "int1"): _ABS_INT1
    for name in ("abs", "absolute")
    for config in ("standard-x32", "standard-x64")
}


# JAX's answers as the oracle recorded them, read as the classifier reads them.
from tools.classify_functions import expected, load, parse_key, table_name  # noqa: E402


def ours(name: str, key: str, v: lattice.Variant, rule: function_rules.Rule | None = None) -> tuple[str, str]:
    inputs, dtype = parse_key(key)
    out = function_rules.apply(rule or function_rules.probe_rule(name), inputs, v, dtype)
    if out.node is None and out.error is None:
        return "unknown", ""
    return ("ok", out.node) if out.node else ("error", out.error or "")


def probes(configs: tuple[str, ...] = CONFIGS) -> Iterator[tuple[str, lattice.Variant, str, dict[str, str]]]:
    """(config, its variant, the probe's name, its cells) of every probe: the
    function's table name, with a choice's value (``jax.image.resize(method=nearest)``,
    checked against the rule that value picks: ``function_rules.probe_rule``)."""
    for config in configs:
        conf = load()["configs"][config]
        v = lattice.variant("standard", conf["x64"])
        for probe, cells in conf["results"].items():
            yield config, v, probe if function_rules.CHOICES.get(table_name(probe)) else table_name(probe), cells


def comparisons(config: str) -> list[tuple[str, str, tuple[str, str], tuple[str, str]]]:
    """(function, probe key, JAX's answer, the rule's) for every probe of a typed function."""
    out = []
    for _, v, name, cells in probes((config,)):
        if function_rules.probe_rule(name).family in UNTYPED:
            continue
        for key, cell in cells.items():
            out.append((name, key, expected(cell), ours(name, key, v)))
    return out


def agree(truth: tuple[str, str], got: tuple[str, str]) -> bool:
    return truth[0] == got[0] and (truth[0] == "error" or truth[1] == got[1])


@pytest.mark.parametrize("config", CONFIGS)
def test_rules_agree_with_jax(config: str) -> None:
    counts: Counter[str] = Counter()
    wrong = []
    for name, key, truth, got in comparisons(config):
        if (name, config, key) in EXCLUSIONS:
            assert not agree(truth, got), f"excluded case now agrees: {name}({key}) in {config}"
            counts["excluded"] += 1
            continue
        if got[0] == "unknown":  # the rule does not answer: the stubs say Array[Any]
            counts["unknown"] += 1
            continue
        ok = agree(truth, got)
        counts["agree" if ok else "disagree"] += 1
        if not ok:
            wrong.append(f"{name}({key}): JAX {truth}, rule {got}")
    print(f"{config}: {dict(counts)}")
    assert not wrong, f"{len(wrong)} answers differ from JAX:\n" + "\n".join(wrong[:60])
    assert counts["agree"] > 40_000  # of about 43,000 (x32) and 56,000 (x64) answers


def test_other_results_agree_with_jax() -> None:
    """A typed function whose results JAX gives in different dtypes (a cell
    ``float32,int32``) declares the dtypes after the first (``Rule.others``),
    and they are JAX's for every input JAX takes, or is listed in
    ``function_rules.SEVERAL_RESULT_DTYPES`` (exactly those).  Without either the
    plugin would give every result the first one's dtype."""
    multi: dict[str, set[str]] = {}
    checked = 0
    for config, v, probe, cells in probes():
        name, rule = table_name(probe), function_rules.probe_rule(probe)
        if rule.family in UNTYPED:
            continue
        for key, cell in cells.items():
            others = function_rules.other_results(rule, parse_key(key)[0], v)
            parts = cell.split(",")
            if len(parts) > 1:
                multi.setdefault(name, set()).add(config)
            if cell.startswith("!") or not others:
                continue
            if len(parts) == 1:  # (every result of one dtype: int32 values, int32 indices)
                parts *= 1 + len(others)
            truth = [expected(part)[1] for part in parts[1:]]
            assert truth == list(others), f"{name}({key}) in {config}: JAX {cell}, rule {others}"
            checked += 1
    declared = {n for n, r in function_rules.TABLE.items() if r.others}
    assert declared <= set(multi), f"others declared for one-dtype results: {sorted(declared - set(multi))}"
    assert checked > 0
    assert set(multi) - declared == set(function_rules.SEVERAL_RESULT_DTYPES), (
        f"typed, results of different dtypes, no others: {sorted(set(multi) - declared)}"
    )


def test_preferred_results_are_jax_s() -> None:
    """The functions the stubs type with ``preferred_element_type=`` are the
    ones probed with it, and JAX gives the preferred dtype for every input
    dtype the stubs take with it (function_rules.PREFERRED_RESULTS)."""
    suffix = "(preferred_element_type=)"
    checked = 0
    for config in CONFIGS:
        results = load()["configs"][config]["results"]
        preferred_probes = [p for p in results if p.endswith(suffix)]
        assert {table_name(p) for p in preferred_probes} == function_rules.PREFERRED_TYPED
        for probe in preferred_probes:
            for preferred, inputs in function_rules.PREFERRED_RESULTS.items():
                for node in inputs:
                    cell = results[probe][f"{node},{node},dtype={preferred}"]
                    assert cell == preferred, f"{probe}({node}, {node}, {preferred}) in {config}: JAX {cell}"
                    checked += 1
    assert checked == len(CONFIGS) * len(function_rules.PREFERRED_TYPED) * sum(
        len(inputs) for inputs in function_rules.PREFERRED_RESULTS.values()
    )


def test_unknown_inputs_are_the_ones_the_family_gets_wrong() -> None:
    """Each input a rule leaves unknown is one where its family, answering,
    would differ from JAX in some configuration (so the list is no longer
    than it must be), and the rule says why."""
    needed: dict[str, set[str]] = {}
    for _, v, name, cells in probes():
        rule = function_rules.probe_rule(name)
        if not rule.unknown:
            continue
        answering = rule._replace(unknown=())
        for key, cell in cells.items():
            inputs, _ = parse_key(key)
            for node in set(inputs) & set(rule.unknown):
                if not agree(expected(cell), ours(name, key, v, answering)):
                    needed.setdefault(name, set()).add(node)
    for name, rule in function_rules.TABLE.items():
        if rule.unknown:
            assert len(rule.reason) > 10, name
            assert set(rule.unknown) == needed.get(name, set()), (
                f"{name}: unknown {sorted(rule.unknown)}, needed {sorted(needed.get(name, set()))}"
            )


def test_every_typed_entry_has_data() -> None:
    data = load()
    for config in CONFIGS:
        probed = {table_name(p) for p in data["configs"][config]["results"]}
        typed = {n for n, r in function_rules.TABLE.items() if r.family not in UNTYPED}
        assert not typed - probed, f"{config}: no JAX data for {sorted(typed - probed)}"
        assert not probed - set(function_rules.TABLE), (
            f"{config}: probed but not in the table: {sorted(probed - set(function_rules.TABLE))}"
        )


def test_every_typed_entry_has_an_answer_that_is_not_an_error() -> None:
    """A probe that JAX refuses for every input (a wrong call: a missing
    argument, a wrong shape) checks its rule on nothing but errors."""
    data = load()
    for config in CONFIGS:
        answered: dict[str, int] = Counter()
        for probe, row in data["configs"][config]["results"].items():
            answered[table_name(probe)] += sum(not cell.startswith("!") for cell in row.values())
        typed = {n for n, r in function_rules.TABLE.items() if r.family not in UNTYPED}
        only_errors = sorted(n for n in typed if answered[n] == 0)
        assert not only_errors, f"{config}: every probe is an error: {only_errors}"


def test_arguments_are_as_the_oracle_probed_them() -> None:
    """function_rules.ARGUMENTS (which parameters are the inputs, read by the stub
    generator) says what the oracle script did when it called each function."""
    probes = load()["probes"]
    assert function_rules.ARGUMENTS == {name: probe["kind"] for name, probe in probes.items()}


def test_positions_are_jax_s_parameters() -> None:
    """function_rules.DTYPE_POSITION names JAX's positional-only dtype parameters
    (the plugin reads the dtype there), and INPUT_POSITION a parameter that
    is not the first."""
    import importlib
    import inspect

    def parameters(name: str) -> list[inspect.Parameter]:
        module, _, attr = name.rpartition(".")
        return list(inspect.signature(getattr(importlib.import_module(module), attr)).parameters.values())

    for name, i in function_rules.DTYPE_POSITION.items():
        p = parameters(name)[i]
        assert (p.name, p.kind) == ("dtype", inspect.Parameter.POSITIONAL_ONLY), (name, p)
    for name, i in function_rules.INPUT_POSITION.items():
        assert i > 0 and len(parameters(name)) > i, name


def test_untyped_entries_say_why() -> None:
    for name, reason in function_rules.untyped().items():
        assert len(reason) > 10, name


def test_families_and_rule_parameters_are_known() -> None:
    for name, rule in function_rules.TABLE.items():
        assert rule.family in function_rules.FAMILIES, name
        assert set(rule.accepts) <= set("biufc"), name
        if rule.family == "dtype":  # without a default, dtype=None is unknown: say why
            assert rule.default is not None or len(rule.reason) > 10, name
        assert set(rule.unknown) <= set(lattice.NODES), name


def test_unknown_function_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no dtype rule for 'jax.numpy.nope'"):
        function_rules.result("jax.numpy.nope", ("float32",))


def test_data_provenance() -> None:
    data = load()
    assert data["jax_version"] == "0.10.2"
    assert set(data["configs"]) == set(CONFIGS)


def _assert_live_probes_agree(sample: set[str]) -> None:
    """Re-run JAX on ``sample`` (function names) and compare with the committed data."""
    pytest.importorskip("jax")
    from tools.oracle import make_function_tables as oracle

    data = load()
    for config in CONFIGS:
        x64 = data["configs"][config]["x64"]
        live = oracle.probe_all(x64, only=sample)
        for name in sample:
            assert live[name] == data["configs"][config]["results"][name], (config, name)


def _probes(kinds: tuple[str, ...]) -> list[str]:
    """The functions whose probe is of one of ``kinds`` (make_function_tables.py)."""
    from tools.oracle import make_function_tables as oracle

    return sorted(n for n, p in oracle.PROBES.items() if p.kind in kinds)


def test_committed_data_is_fresh() -> None:
    """Re-run JAX on a sample of functions and compare with the committed data."""
    # The most used functions of one input (a pair probe is hundreds of calls),
    # plus a seeded sample of the other one-input probes: well under 30 s.
    fixed = [
        "jax.numpy.sqrt",
        "jax.numpy.sum",
        "jax.numpy.zeros",
        "jax.numpy.asarray",
        "jax.random.split",
        "jax.random.normal",
        "jax.nn.softmax",
        "jax.nn.relu",
        "jax.numpy.mean",
        "jax.numpy.reshape",
    ]
    others = [n for n in _probes(("x", "d", "k", "n")) if n not in fixed]
    _assert_live_probes_agree(set(fixed) | set(random.Random(11).sample(others, 8)))


@pytest.mark.slow
def test_committed_data_is_fresh_for_every_one_input_function() -> None:
    """Every function probed with one array, a dtype or a key (about 470 of the
    608 probes; pair probes are the generator's own run: about 16 minutes)."""
    names = _probes(("x", "d", "k", "n", "xd", "kd"))
    assert len(names) > 400
    _assert_live_probes_agree(set(names))


# Run under JAX, x64 as the environment says: for each random draw given, with
# dtype=, an array of each other dtype for one parameter at a time (the rest
# Python scalars, which JAX converts to dtype=), what the draw gave.
_DRAW_PROBE = r"""
import inspect, json, sys, warnings
import jax, jax.numpy as jnp
warnings.simplefilter("ignore")
key = jax.random.key(0)
# (an array wider than dtype= shows a promotion; a narrower one a cast)
pairs = {False: (("float32", "bfloat16"), ("bfloat16", "float32")), True: (("int32", "int8"), ("int8", "int32"))}
# values a draw needs in a shape of its own, and its other required arguments
shapes = {"dirichlet": {"alpha": (3,)}, "multinomial": {"p": (3,)}}
required = {"ball": {"d": 3}, "randint": {"shape": (2,)}, "multinomial": {"n": 4.0}}
out = {}
for name in json.loads(sys.argv[1]):
    short = name.removeprefix("jax.random.")
    fn = getattr(jax.random, short)
    params = inspect.signature(fn).parameters
    arrays = [p for p, v in params.items() if p != "key" and any(
        a in str(v.annotation) for a in ("RealArray", "IntegerArray", "ArrayLike"))]
    integral = "Int" in str(params["dtype"].annotation)
    for probed in arrays:
        seen = set()
        for given, wanted in pairs[integral]:
            args = {p: 1 if integral else 0.5 for p in arrays}
            args.update(required.get(short, {}))
            args.update((p, jnp.full(s, 1 / s[0], jnp.float32)) for p, s in shapes.get(short, {}).items())
            args[probed] = jnp.full(shapes.get(short, {}).get(probed, ()), 1, dtype=given)
            try:
                got = fn(key, **args, dtype=wanted).dtype
            except (TypeError, ValueError):
                seen.add("raises")
                continue
            seen.add("keeps" if got == jnp.dtype(wanted) else "promotes")
        out[f"{name} {probed}"] = sorted(seen)
print(json.dumps(out))
"""


@pytest.mark.slow
@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
def test_a_random_draws_neutral_arrays_keep_its_dtype(x64: bool) -> None:
    """A random draw's array parameters named in its row's neutral column
    (uniform's minval, gamma's a) never change the dtype= it is given: JAX
    converts them, or refuses an unsafe cast.  Each other array parameter
    (double_sided_maxwell's loc) promotes the draw for some dtype, so its
    typed overloads take it as a Python scalar only (CallPlan.dtype_scalar)."""
    import json
    import os
    import subprocess
    import sys

    draws = sorted(
        name
        for name, kind in function_rules.ARGUMENTS.items()
        if kind == "kd" and function_rules.TABLE[name].family in function_rules.DTYPE_FAMILIES
    )
    assert len(draws) > 25
    env = {**os.environ, "JAX_ENABLE_X64": "1" if x64 else "0", "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run(
        [sys.executable, "-c", _DRAW_PROBE, json.dumps(draws)], capture_output=True, text=True, env=env, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen: dict[str, list[str]] = json.loads(proc.stdout.splitlines()[-1])
    wrong = []
    for entry, outcomes in sorted(seen.items()):
        name, param = entry.split()
        neutral = param in function_rules.NEUTRAL_PARAMETERS.get(name, ())
        if neutral != ("promotes" not in outcomes):
            wrong.append(f"{name}'s {param}: JAX {outcomes}, neutral column {'says' if neutral else 'omits'} it")
    assert not wrong, "\n".join(wrong)
    assert {e.split()[0] for e in seen} >= {"jax.random.uniform", "jax.random.double_sided_maxwell"}
