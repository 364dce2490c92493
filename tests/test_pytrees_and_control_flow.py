"""Pytrees and JAX's transforms: the scenarios of
typecheck_cases/jax_interop/scenarios/pytrees_and_control_flow.py (checked in the
six set-ups by tests/test_jax_stubs.py) hold when run under JAX, and
``jax.jit`` of a library function (Optax's, Flax's) adds no error to what the
direct call gets (typecheck_cases/jax_interop/library_results/)."""

from __future__ import annotations

import collections
import importlib.util
import sys
import typing
import warnings
from pathlib import Path
from typing import Any

import pytest
import typing_extensions

from tools.checkers import ALL_CHECKERS

import expected_errors
import project_runs

REPO = Path(__file__).resolve().parents[1]
SCENARIO = REPO / "typecheck_cases" / "jax_interop" / "scenarios" / "pytrees_and_control_flow.py"
LIBRARY_JIT = REPO / "typecheck_cases" / "jax_interop" / "library_results" / "jit_of_library_functions.py"
PREFIX = "library_jit"
needs_flax = pytest.mark.skipif(sys.version_info < (3, 11), reason="flax 0.12 needs Python 3.11")


def _library_files(checker: str) -> dict[str, str]:
    return {f"{PREFIX}/{LIBRARY_JIT.name}": LIBRARY_JIT.read_text()}


project_runs.register(stubs=True, files=_library_files)
project_runs.register(stubs=False, files=_library_files)


def _holds(value: Any, typ: Any) -> bool:
    """Whether a run-time ``value`` is of the type an ``assert_type`` names:
    containers item by item, ``jax.Array[D]`` by its dtype (JAX's answer)."""
    import jax
    import numpy as np

    origin, args = typing.get_origin(typ), typing.get_args(typ)
    if typ is Any:
        return True
    if origin is dict:
        return isinstance(value, dict) and all(_holds(v, args[1]) for v in value.values())
    if origin is list:
        return isinstance(value, list) and all(_holds(v, args[0]) for v in value)
    if origin is tuple:
        return isinstance(value, tuple) and len(value) == len(args) and all(map(_holds, value, args))
    if origin is not None and issubclass(origin, jax.Array):
        return isinstance(value, jax.Array) and value.dtype == np.dtype(args[0])
    if isinstance(typ, type) and issubclass(typ, tuple) and hasattr(typ, "_fields"):  # a NamedTuple: field by field
        hints = typing.get_type_hints(typ)
        return isinstance(value, typ) and all(_holds(getattr(value, name), hints[name]) for name in typ._fields)
    return isinstance(value, typ)


def _checking_assert_type(monkeypatch: pytest.MonkeyPatch, checked: list[str]) -> None:
    def assert_type(value: Any, typ: Any) -> Any:
        assert _holds(value, typ), f"assert_type({value!r}, {typ})"
        checked.append(str(typ))
        return value

    monkeypatch.setattr(typing_extensions, "assert_type", assert_type)


def _load_scenario(monkeypatch: pytest.MonkeyPatch, checked: list[str]) -> Any:
    _checking_assert_type(monkeypatch, checked)
    spec = importlib.util.spec_from_file_location("pytrees_and_control_flow_scenario", SCENARIO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module


def test_the_tree_scenarios_hold_when_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import jax.numpy as jnp

    checked: list[str] = []
    module = _load_scenario(monkeypatch, checked)
    params = {"w": jnp.ones(3, jnp.float32), "b": jnp.zeros(3, jnp.float32)}
    grads = {"w": jnp.ones(3, jnp.bfloat16), "b": jnp.ones(3, jnp.bfloat16)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module.tree_maps(params, grads)
        module.tree_reductions(params)
        module.jitted(params, grads)
    before_control_flow = SCENARIO.read_text().partition("\ndef control_flow(")[0]
    assert len(checked) == before_control_flow.count("assert_type(")  # each one ran


def test_the_wrong_tree_cases_are_wrong_under_jax(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lines marked E in the scenario: what JAX gives is not what they
    declare (a dict of float32 arrays is not one of bfloat16 arrays, a jitted
    cast to bfloat16 gives bfloat16)."""
    import jax
    import jax.numpy as jnp

    module = _load_scenario(monkeypatch, [])
    params = {"w": jnp.ones(3, jnp.float32)}
    decayed = jax.tree.map(module.decay, params)
    assert decayed["w"].dtype == jnp.float32
    assert jax.jit(module.to_bf16)(params["w"]).dtype == jnp.bfloat16


def test_the_wrong_control_flow_raises_under_jax(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each line marked E in the scenario's ``control_flow`` raises JAX's
    TypeError when run (branches of different dtypes, a carry whose dtype
    changes), no other line there does, and its ``assert_type`` lines hold."""
    import jax.numpy as jnp

    checked: list[str] = []
    _checking_assert_type(monkeypatch, checked)
    text = SCENARIO.read_text()
    namespace: dict[str, Any] = {"__name__": "pytrees_and_control_flow_run", "raised": []}
    exec(compile(expected_errors.catching_marked_lines(text, "TypeError"), str(SCENARIO), "exec"), namespace)
    namespace["control_flow"](jnp.ones(3, jnp.float32), jnp.ones(3, jnp.int32), None)
    lines = text.splitlines()
    start = next(n for n, line in enumerate(lines, 1) if line.startswith("def control_flow("))
    end = next(n for n, line in enumerate(lines, 1) if line.startswith("def index_updates("))
    marked = [n for n, line in enumerate(lines, 1) if start < n < end and expected_errors.kind_of(line) is not None]
    assert len(marked) == 5
    assert namespace["raised"] == marked
    control_flow = text.partition("\ndef control_flow(")[2].partition("\ndef index_updates(")[0]
    assert len(checked) == control_flow.count("assert_type(") == 2


def test_the_lossy_index_updates_warn_under_jax(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each line marked E in the scenario's ``index_updates`` makes JAX warn
    that it casts the value unsafely (a FutureWarning, made an error here),
    no other line there does, and its ``assert_type`` lines hold: JAX keeps
    the array's dtype, dropping part of the value."""
    import jax.numpy as jnp

    checked: list[str] = []
    _checking_assert_type(monkeypatch, checked)
    text = SCENARIO.read_text()
    namespace: dict[str, Any] = {"__name__": "pytrees_and_control_flow_run", "raised": []}
    exec(compile(expected_errors.catching_marked_lines(text, "FutureWarning"), str(SCENARIO), "exec"), namespace)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        namespace["index_updates"](jnp.ones(3, jnp.float32), jnp.ones(3, jnp.int32), jnp.ones(3, jnp.complex64))
    lines = text.splitlines()
    start = next(n for n, line in enumerate(lines, 1) if line.startswith("def index_updates("))
    marked = [n for n, line in enumerate(lines, 1) if n > start and expected_errors.kind_of(line) is not None]
    assert len(marked) == 3
    assert namespace["raised"] == marked
    assert len(checked) == text.partition("\ndef index_updates(")[2].count("assert_type(") == 3
    # what JAX stores: the real part, the integer part
    assert float(jnp.zeros(1).at[0].set(jnp.complex64(2 + 3j)).item()) == 2.0
    assert int(jnp.zeros(1, jnp.int32).at[0].set(1.5).item()) == 1


@needs_flax
def test_library_functions_run_directly_and_jitted() -> None:
    spec = importlib.util.spec_from_file_location("jit_of_library_functions", LIBRARY_JIT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.demo()


def _pairs() -> list[tuple[int, int]]:
    """(direct line, jitted line) of the library file."""
    lines = LIBRARY_JIT.read_text().splitlines()
    return [
        (n, n + 1)
        for n, line in enumerate(lines, 1)
        if line.endswith("# direct") and n < len(lines) and lines[n].endswith("# jitted")
    ]


@needs_flax
@pytest.mark.parametrize("checker", ALL_CHECKERS)
def test_jit_adds_no_error_the_direct_call_lacks(checker: str) -> None:
    """With the stubs, ``jax.jit(f)(...)`` gets the errors ``f(...)`` gets
    (the same codes, as many), neither fewer nor more: the stubs keep what
    the library declares.  Without them JAX's ``jit`` returns ``Any``."""
    pairs = _pairs()
    assert len(pairs) == 5
    rel = f"{PREFIX}/{LIBRARY_JIT.name}"
    with_stubs = project_runs.project_run(checker, True).errors(PREFIX)
    without = project_runs.project_run(checker, False).errors(PREFIX)
    for direct, jitted in pairs:
        got = collections.Counter(e.code for e in with_stubs.get((rel, jitted), []))
        assert got == collections.Counter(e.code for e in with_stubs.get((rel, direct), [])), (direct, jitted)
        assert not without.get((rel, jitted)), (jitted, without.get((rel, jitted)))
