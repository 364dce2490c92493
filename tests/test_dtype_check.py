"""``jaxtypes.check_dtypes``: ``Array[DT]`` annotations checked at run time,
agreeing with the type checkers.

The agreement: typecheck_cases/dtype_checks/ (generated from
tools/cases/dtype_check_cases.py) holds programs that call checked functions;
each program is run with JAX, and each of the six set-ups checks the file with
the JAX stubs installed as the README sets them up.  The programs a checker
reports an error in must be the programs whose run raises ``DtypeCheckError``,
no more and no fewer."""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import project_runs

if sys.version_info >= (3, 11):  # the test extra installs jaxtyping from 3.11
    from jaxtyping import Float32  # read by check_dtypes in the annotations of a test's function

from jaxtypes import Array, DtypeCheckError, bfloat16, check_dtypes, float32, int8, weak_float

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "typecheck_cases" / "dtype_checks"
RUNTIME_PAGE = (REPO / "docs" / "runtime.md").read_text()  # its count of the agreement programs
AGREEMENT = "dtype_checks/agreement.py"
JAXTYPING_NAMES = "dtype_checks/jaxtyping_names.py"
CHECKERS = ("mypy", "mypy-plugin", "pyright", "basedpyright", "pyrefly", "ty")


def _files(checker: str) -> dict[str, str]:
    files = {AGREEMENT: (CASES / "agreement.py").read_text()}
    if checker == "mypy-plugin":  # jaxtyping's own names carry a dtype to the plugin only
        files[JAXTYPING_NAMES] = (CASES / "jaxtyping_names.py").read_text()
    return files


project_runs.register(stubs=True, files=_files)


def _load(path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    return module


def _refused_when_run(module: ModuleType) -> set[str]:
    """The programs whose run raises DtypeCheckError (any other exception fails the test)."""
    refused = set()
    names = sorted((n for n in vars(module) if n.startswith("program_")), key=lambda n: int(n.split("_")[1]))
    assert names, "no programs"
    for name in names:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a 64-bit dtype with x64 off: JAX warns, and makes it 32-bit
                getattr(module, name)()
        except DtypeCheckError:
            refused.add(name)
    return refused


@functools.cache
def _program_lines(text: str) -> dict[int, str]:
    """Each line of a program's function -> the program's name."""
    owner = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("program_"):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            for line in range(start, (node.end_lineno or node.lineno) + 1):
                owner[line] = node.name
    return owner


def _disagreements(checker: str, rel: str, text: str, refused: set[str]) -> list[str]:
    errors = project_runs.project_run(checker, True).errors("dtype_checks")
    owner = _program_lines(text)
    lines = text.splitlines()
    reported: dict[str, list[str]] = {}
    problems = []
    for (path, line), found in sorted(errors.items()):
        if path != rel:
            continue
        if line not in owner:
            problems.append(f"{rel}:{line}: an error outside the programs: {found}: {lines[line - 1].strip()}")
            continue
        reported.setdefault(owner[line], []).append(f"{line}: {found}")
    for name in sorted(refused - set(reported), key=lambda n: int(n.split("_")[1])):
        body = [lines[n - 1].strip() for n, o in sorted(_program_lines(text).items()) if o == name][1:]
        problems.append(f"{name}: refused when run, no error from {checker}: {' / '.join(body)}")
    for name in sorted(set(reported) - refused, key=lambda n: int(n.split("_")[1])):
        problems.append(f"{name}: runs, but {checker} reports {reported[name]}")
    return problems


@pytest.fixture(scope="module")
def refused_programs() -> dict[str, set[str]]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        return {
            AGREEMENT: _refused_when_run(_load(CASES / "agreement.py", "dtype_check_agreement", monkeypatch)),
            JAXTYPING_NAMES: _refused_when_run(_load(CASES / "jaxtyping_names.py", "dtype_check_names", monkeypatch)),
        }


def test_the_programs_both_pass_and_fail_when_run_as_the_readme_counts(refused_programs: dict[str, set[str]]) -> None:
    counts = {}
    for rel, refused in refused_programs.items():
        programs = set(_program_lines((CASES / Path(rel).name).read_text()).values())
        assert refused and refused < programs, f"{rel}: {len(refused)} of {len(programs)} programs refused"
        counts[rel] = (len(programs), len(refused))
    said = re.search(
        r"\((\d+) programs, (\d+)\s+refused; with the plugin also jaxtyping's own\s+names, (\d+) more\)", RUNTIME_PAGE
    )
    assert said, "docs/runtime.md's count of the agreement programs"
    assert (int(said[1]), int(said[2]), int(said[3])) == (*counts[AGREEMENT], counts[JAXTYPING_NAMES][0])


@pytest.mark.parametrize("checker", CHECKERS)
def test_each_checker_reports_exactly_the_programs_the_runtime_check_refuses(
    checker: str, refused_programs: dict[str, set[str]]
) -> None:
    problems = []
    for rel, text in _files(checker).items():
        problems += _disagreements(checker, rel, text, refused_programs[rel])
    assert not problems, f"{checker}: {len(problems)} disagreements\n" + "\n".join(problems)


# ------------------------------------------------------------ the check itself


@check_dtypes
def scale(x: Array[float32], factor: Array[weak_float] | None = None) -> Array[float32]:
    return x if factor is None else x * factor


def test_an_argument_of_another_dtype_is_named_with_both_dtypes() -> None:
    with pytest.raises(DtypeCheckError) as raised:
        scale(jnp.ones(3, jnp.bfloat16))
    assert str(raised.value) == (
        "scale(): parameter 'x' is declared Array[float32]; got Array[bfloat16], an array of dtype bfloat16"
    )


def test_weak_types_are_their_own_dtype() -> None:
    assert scale(jnp.ones(3), jnp.asarray(2.0)).dtype == jnp.float32
    with pytest.raises(
        DtypeCheckError, match=r"'factor' is declared Array\[weak_float\] \| None; got Array\[float32\]"
    ):
        scale(jnp.ones(3), jnp.ones((), jnp.float32))
    with pytest.raises(DtypeCheckError, match=r"got Array\[weak_float\], an array of dtype float32, weakly typed"):
        scale(jnp.asarray(2.0))


def test_python_scalars_and_numpy_arrays_are_no_arrays() -> None:
    with pytest.raises(DtypeCheckError, match="got a Python float, not a JAX array"):
        scale(1.0)  # type: ignore[arg-type]  # what the checkers refuse too
    with pytest.raises(DtypeCheckError, match="got a NumPy float32 array, not a JAX array"):
        scale(np.ones(3, np.float32))  # type: ignore[arg-type]


def test_tracers_under_jit_and_vmap_are_checked() -> None:
    with pytest.raises(DtypeCheckError, match=r"got Array\[int8\], a tracer of dtype int8"):
        jax.jit(scale)(jnp.ones(3, jnp.int8))  # type: ignore[arg-type]
    with pytest.raises(DtypeCheckError, match=r"got Array\[float16\], a tracer of dtype float16"):
        jax.vmap(scale)(jnp.ones((2, 3), jnp.float16))  # type: ignore[arg-type]
    assert jax.jit(scale)(jnp.ones(3)).dtype == jnp.float32


def test_a_result_of_another_dtype_is_refused_after_the_call() -> None:
    calls = []

    @check_dtypes
    def narrow(x: Array[float32]) -> tuple[Array[float32], Array[bfloat16]]:
        calls.append(x)
        return x, x  # type: ignore[return-value]  # what the checkers refuse too

    with pytest.raises(
        DtypeCheckError,
        match=r"narrow\(\): the result is declared tuple\[Array\[float32\], Array\[bfloat16\]\]; item 1: got Array\[float32\]",
    ):
        narrow(jnp.ones(3))
    assert len(calls) == 1


def test_defaults_and_unannotated_parameters_are_left_alone() -> None:
    @check_dtypes
    def f(x: Array[int8], y: Any = 1.0, z: Array[int8] = "not checked") -> None:  # type: ignore[assignment]
        del x, y, z

    f(jnp.ones(3, jnp.int8))
    f(jnp.ones(3, jnp.int8), y="anything")


def test_annotations_are_read_at_the_first_call() -> None:
    @check_dtypes
    def f(x: Array[Later]) -> None:  # type: ignore[type-var]
        del x

    with pytest.raises(TypeError, match="the type argument is not a jaxtypes dtype marker"):
        f(jnp.ones(3))


@pytest.mark.skipif(sys.version_info < (3, 11), reason="the test extra installs jaxtyping from 3.11")
def test_above_jaxtyped_both_dtypes_and_shapes_are_checked() -> None:
    from beartype import beartype
    from jaxtyping import jaxtyped

    @check_dtypes
    @jaxtyped(typechecker=beartype)
    def add(x: Float32[Array[float32], "n"], y: Float32[Array[float32], "n"]) -> Float32[Array[float32], "n"]:  # noqa: F821
        return x + y

    assert add(jnp.ones(3), jnp.ones(3)).dtype == jnp.float32
    with pytest.raises(TypeError) as shape:
        add(jnp.ones(3), jnp.ones(4))
    assert not isinstance(shape.value, DtypeCheckError)  # jaxtyping's, before the body runs
    with pytest.raises(DtypeCheckError, match=r"'y' is declared Array\[float32\]; got Array\[weak_float\]"):
        add(jnp.ones(3), jnp.asarray(1.0))  # a weak float32 array, which jaxtyping alone accepts


class Later:
    pass
