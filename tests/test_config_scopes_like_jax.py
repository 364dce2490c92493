"""jaxtypes' configuration scopes are per thread, exactly as JAX's are.

JAX 0.10.2 keeps the value of each of its scopes (``jax.enable_x64``,
``jax.numpy_dtype_promotion``, ...; "jax.enable_x64",
https://docs.jax.dev/en/latest/_autosummary/jax.enable_x64.html) per thread,
and a scope's exit puts back the value its entry found.  Run side by side,
JAX shows what follows: an asyncio task sees the scopes open in its thread
when it runs, whenever it was created; a thread, a pool's worker and
``asyncio.to_thread`` see none of the scopes of the thread that started them;
``contextvars`` play no part.

Each scenario of tests/scope_scenarios.py runs with JAX's scopes asking JAX
(``jax.numpy.promote_types``, ``jax.numpy.result_type``), then with jaxtypes'
scopes and with mixes of the two kinds (a mix answers as if all its scopes
were JAX's: of the two kinds, the innermost scope wins), asking jaxtypes
through its C fast paths and through its Python functions; in a fresh
interpreter also without the C module, and without JAX.  Every answer must
be JAX's.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Callable

import jax
import jax.numpy as jnp
import pytest
from jax._src import config as jax_config_internal  # explicit_x64_dtypes is not exported

import jaxtypes
from jaxtypes import promotion

import scope_scenarios as sc

pytestmark = pytest.mark.filterwarnings("ignore:Explicitly requested dtype")

TESTS = Path(__file__).resolve().parent

JAX = sc.Scopes("jax", jax.enable_x64, jax.numpy_dtype_promotion, jax_config_internal.explicit_x64_dtypes)
JT = sc.Scopes("jaxtypes", jaxtypes.enable_x64, jaxtypes.numpy_dtype_promotion, jaxtypes.explicit_x64_dtypes)
KINDS = {"jaxtypes": JT, "jax": JAX}
MIXES = [("jaxtypes", "jaxtypes"), ("jaxtypes", "jax"), ("jax", "jaxtypes"), ("jax", "jax")]

JAX_PROBE = sc.make_probe(jnp.promote_types, jnp.result_type)
C_PROBE = sc.make_probe(jaxtypes.promote_types, jaxtypes.result_type)
PYTHON_PROBE = sc.make_probe(promotion._promote_types_py, promotion._result_type_py)
SCENARIOS = {s.__name__: s for s in sc.SCENARIOS}


@functools.cache
def jax_answers(name: str) -> list[Any]:
    """What JAX answers in the scenario, with JAX's scopes only."""
    return sc.run(SCENARIOS[name], JAX, JAX, JAX_PROBE)


def test_the_c_fast_paths_are_the_public_functions() -> None:
    # The in-process runs below ask them; the Python paths are asked too.
    assert promotion.ACCELERATED
    assert type(jaxtypes.result_type).__name__ == "FastPath"


@pytest.mark.parametrize("mix", MIXES, ids="/".join)
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario_answers_as_jax(name: str, mix: tuple[str, str]) -> None:
    expected = jax_answers(name)
    a, b = KINDS[mix[0]], KINDS[mix[1]]
    assert sc.run(SCENARIOS[name], a, b, C_PROBE) == expected
    assert sc.run(SCENARIOS[name], a, b, PYTHON_PROBE) == expected


def test_the_answers_differ_between_the_cases() -> None:
    # The scenarios see each configuration: they would catch a scope seen
    # where it should not be, or missed where it should be.
    seen = {tuple(p) for name in SCENARIOS for p in _probes(jax_answers(name))}
    assert {p[:2] for p in seen} == {("int32", "float32"), ("int64", "float64")}
    assert {p[2] for p in seen} == {"int32", "int64", "error: TypePromotionError"}
    assert {p[3] for p in seen} == {"float32", "error: TypePromotionError"}
    assert {p[4] for p in seen} == {"int64", "int32", "error: ValueError", "error: TypePromotionError"}
    # The bug this file was written for: a task created inside an x64 scope
    # and run after it sees x64 off, in JAX.
    inside, after, task, strict_task = jax_answers("task_created_inside_a_scope_runs_after_it")
    assert inside[0] == "int64" and after[0] == task[0] == "int32"
    assert strict_task[3] == "float32"


def _probes(value: Any) -> list[list[str]]:
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return [value] if len(value) == len(sc.QUESTIONS) else []
    if isinstance(value, list):
        return [p for v in value for p in _probes(v)]
    return []


# ------------------------------------------------------------ fresh interpreters
CHILD = """
import json, sys, warnings
if BLOCK_C:
    sys.modules["jaxtypes._speedups"] = None  # the import fails: the Python paths
warnings.simplefilter("ignore")
import jaxtypes
from jaxtypes import promotion
import scope_scenarios as sc
kinds = {"jaxtypes": sc.Scopes("jaxtypes", jaxtypes.enable_x64, jaxtypes.numpy_dtype_promotion,
                               jaxtypes.explicit_x64_dtypes)}
if WITH_JAX:
    import jax
    from jax._src import config as jax_config_internal
    kinds["jax"] = sc.Scopes("jax", jax.enable_x64, jax.numpy_dtype_promotion,
                             jax_config_internal.explicit_x64_dtypes)
probe = sc.make_probe(jaxtypes.promote_types, jaxtypes.result_type)
runs = {f"{a}/{b}": sc.run_all(kinds[a], kinds[b], probe) for a in kinds for b in kinds}
print(json.dumps({"accelerated": promotion.ACCELERATED, "jax": "jax" in sys.modules,
                  "runs": runs}))
"""


def run_child(block_c: bool, with_jax: bool, tmp_path: Path) -> dict[str, Any]:
    code = CHILD.replace("BLOCK_C", repr(block_c)).replace("WITH_JAX", repr(with_jax))
    # The child imports this folder's scope_scenarios.
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")} | {"PYTHONPATH": str(TESTS)}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=str(tmp_path), env=env
    )
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return report


@pytest.mark.parametrize(
    ("block_c", "with_jax"),
    [(True, True), (True, False), (False, False)],
    ids=["no C module", "no C module, no JAX", "no JAX"],
)
def test_in_a_fresh_interpreter(block_c: bool, with_jax: bool, tmp_path: Path) -> None:
    report = run_child(block_c, with_jax, tmp_path)
    assert report["accelerated"] is (not block_c)
    assert report["jax"] is with_jax
    expected = {name: jax_answers(name) for name in SCENARIOS}
    mixes = MIXES if with_jax else [("jaxtypes", "jaxtypes")]
    assert sorted(report["runs"]) == sorted("/".join(m) for m in mixes)
    for mix, answers in report["runs"].items():
        for name in SCENARIOS:
            assert answers[name] == expected[name], (mix, name)


def test_jax_imported_inside_a_jaxtypes_scope(tmp_path: Path) -> None:
    # jaxtypes starts following JAX's scopes while its own scope is open: its
    # scope stays in force, and a JAX scope inside it wins, as the innermost.
    code = textwrap.dedent("""
        import json, jaxtypes
        def x(): return str(jaxtypes.result_type(1))
        seen = []
        with jaxtypes.enable_x64(True):
            import jax, jax.numpy as jnp
            seen.append(x())
            with jax.enable_x64(False):
                seen += [x(), str(jnp.result_type(1))]
            seen.append(x())
        seen += [x(), str(jnp.result_type(1))]
        print(json.dumps(seen))
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=str(tmp_path), env=env
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == ["int64", "int32", "int32", "int64", "int32", "int32"]


# ------------------------------------------------------------ where jaxtypes differs
def _x64_of(probe: Callable[[], tuple[str, ...]]) -> str:
    return probe()[0]


def test_reusing_one_scope_object_nested_restores_the_outer_value() -> None:
    """JAX keeps the value a scope found on the scope object, so the same
    object entered twice, nested, forgets the outer entry's value and leaves
    its setting changed after the outer exit.  jaxtypes keeps one saved value
    per entry: the setting is restored.  (Both written out as run.)"""

    def reuse(kind: sc.Scopes, probe: Callable[[], tuple[str, ...]]) -> list[str]:
        strict = kind.numpy_dtype_promotion("strict")
        with strict:
            with strict:
                pass
            inside = probe()[3]
        return [inside, probe()[3]]

    assert sc._in_thread(lambda: reuse(JAX, JAX_PROBE)) == ["error: TypePromotionError", "error: TypePromotionError"]
    for probe in (C_PROBE, PYTHON_PROBE):
        assert sc._in_thread(lambda: reuse(JT, probe)) == [  # noqa: B023 - called at once
            "error: TypePromotionError",
            "float32",
        ]


def test_a_decorated_coroutine_function_holds_the_scope_while_it_runs() -> None:
    """JAX's scope as a decorator is left when the coroutine is created,
    before its body runs; jaxtypes' holds over the body, as a JAX scope in a
    ``with`` block in the coroutine does (the same answers, overlapping tasks
    included)."""

    def run(decorate: bool, kind: sc.Scopes, probe: Callable[[], tuple[str, ...]]) -> list[Any]:
        async def body(started: asyncio.Event, other: asyncio.Event) -> tuple[str, ...]:
            started.set()
            await other.wait()
            await asyncio.sleep(0)
            return probe()

        if decorate:
            strict_task = kind.numpy_dtype_promotion("strict")(body)
            x64_task = kind.enable_x64(True)(body)
        else:

            async def strict_task(s: asyncio.Event, o: asyncio.Event) -> tuple[str, ...]:
                with kind.numpy_dtype_promotion("strict"):
                    return await body(s, o)

            async def x64_task(s: asyncio.Event, o: asyncio.Event) -> tuple[str, ...]:
                with kind.enable_x64(True):
                    return await body(s, o)

        async def main() -> list[Any]:
            s1, s2 = asyncio.Event(), asyncio.Event()
            return [*await asyncio.gather(strict_task(s1, s2), x64_task(s2, s1)), probe()]

        return sc._plain(sc._in_thread(lambda: asyncio.run(main())))

    with_blocks = run(False, JAX, JAX_PROBE)
    for probe in (C_PROBE, PYTHON_PROBE):
        assert run(True, JT, probe) == with_blocks
    plain = list(JAX_PROBE())
    assert run(True, JAX, JAX_PROBE) == [plain, plain, plain]  # JAX's decorators: no effect
    assert with_blocks != [plain, plain, plain]
