"""jaxtyping's dtype annotations under the mypy plugin
(jaxtypes/mypy_plugin/jaxtyping_annotations.py): ``Float32[Array, "n"]`` is
``Array[float32]`` however jaxtyping's name is imported, a category
(``Float``) is ``Array[Any]``, any other ``Annotated`` is as mypy makes it.

The case is checked by mypy with the plugin and the stubs installed (the
README's set-up), and run with jaxtyping's own runtime check (beartype): each
call mypy reports is one jaxtyping refuses when run, and no other."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import expected_errors
import project_runs

needs_311 = pytest.mark.skipif(sys.version_info < (3, 11), reason="the test extra installs jaxtyping from 3.11")

# A module of the user's that re-exports jaxtyping's names under its own.
REEXPORT = """\
from jaxtyping import Array as Array, Float32 as F32
"""

# An annotation whose halves disagree: checked by mypy only (not run).
CONTRADICTION = """\
from jaxtyping import Float32

import jaxtypes
from jaxtypes import bfloat16


def contradicts(x: Float32[jaxtypes.Array[bfloat16], "n"]) -> None:  # E: jaxtyping-dtype
    pass
"""

CASE = """\
from __future__ import annotations

from typing import Annotated, Any

import jax
import jax.numpy as jnp
import jaxtyping as jt
from beartype import beartype
from jaxtyping import Array, BFloat16, Float, Float32, Int8 as I8, jaxtyped
from typing_extensions import assert_type

from jaxtypes import bfloat16, float32, int8
from user_types import F32


@jaxtyped(typechecker=beartype)
def mix(x: Float32[Array, "n"], h: BFloat16[Array, "n"]) -> Float32[Array, "n"]:
    assert_type(x, jax.Array[float32])
    assert_type(h, jax.Array[bfloat16])
    assert_type(x + h, jax.Array[float32])
    return x + h


@jaxtyped(typechecker=beartype)
def count(t: jt.Int8[jax.Array, "n"], f: Float[Array, "n"], s: F32[Array, "n"]) -> I8[Array, "n"]:
    assert_type(t, jax.Array[int8])
    assert_type(f, jax.Array[Any])
    assert_type(s, jax.Array[float32])
    return t


def untouched(a: Annotated[int, "meta"], m: Float32[Array, "n"] | None) -> None:
    assert_type(a, int)
    assert_type(m, jax.Array[float32] | None)


def main() -> None:
    x = jnp.ones(3, jnp.float32)
    h = jnp.ones(3, jnp.bfloat16)
    t = jnp.ones(3, jnp.int8)
    mix(x, h)
    count(t, h, x)
    mix(h, h)  # E: argument
    count(x, x, x)  # E: argument
    count(t, x, h)  # E: argument
    wrong: I8[Array, "n"] = mix(x, h)  # E: assignment
    del wrong
"""


def _run_with_jaxtyping(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Run the case's ``main``: the lines jaxtyping refuses."""
    tmp_path.mkdir()
    (tmp_path / "user_types.py").write_text(REEXPORT)
    runnable = expected_errors.catching_marked_lines(CASE, "TypeError", into="refused")
    (tmp_path / "case_run.py").write_text(runnable + "refused: list[int] = []\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = importlib.util.spec_from_file_location("case_run", tmp_path / "case_run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "case_run", module)
    spec.loader.exec_module(module)
    module.main()
    refused: list[int] = module.refused
    return refused


@needs_311
def test_jaxtyping_dtypes_are_array_dtypes_to_the_plugin_and_agree_with_jaxtyping(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marked = sorted(n for (_, n), kind in expected_errors.expected({"case.py": CASE}).items() if kind == "argument")
    assert _run_with_jaxtyping(tmp_path / "run", monkeypatch) == marked  # (what jaxtyping checks when run: calls)
    files = {"case.py": CASE, "user_types.py": REEXPORT, "contradiction.py": CONTRADICTION}
    errors = project_runs.mypy_with_plugin(tmp_path, files)
    assert not expected_errors.wrong_answers("mypy-plugin", files, errors, {})


SCENARIO = (
    Path(__file__).resolve().parent.parent
    / "typecheck_cases"
    / "jax_interop"
    / "scenarios"
    / "jaxtyping_annotations.py"
)


@needs_311
def test_the_spelling_for_every_checker_is_checked_alike_by_jaxtyping(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scenario the six set-ups check (tests/test_jax_stubs.py), run
    under jaxtyping's runtime check: the calls every checker refuses are
    those jaxtyping refuses, and no other."""
    text = SCENARIO.read_text()
    refused: list[int] = []
    namespace: dict[str, object] = {"refused": refused, "__name__": "jaxtyping_scenario"}
    monkeypatch.setitem(sys.modules, "jaxtyping_scenario", type(sys)("jaxtyping_scenario"))
    exec(
        compile(expected_errors.catching_marked_lines(text, "TypeError", into="refused"), str(SCENARIO), "exec"),
        namespace,
    )
    main = namespace["main"]
    assert callable(main)
    main()
    assert refused == sorted(n for _, n in expected_errors.expected({"s.py": text}))
