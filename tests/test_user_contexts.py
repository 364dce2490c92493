"""What users trust the JAX stubs for, on code shaped as they write it.

* ``typecheck_cases/public_idioms``: correct model code in the idioms of
  public JAX projects (dtype defaults and config fields, ``clip`` with
  array-like bounds, reflected operators of user classes, computed padding,
  dtype annotations).  It runs under JAX, and in each of the six set-ups the
  stubs add no error line to it (the same project checked without them).
* ``typecheck_cases/contexts/wrong_dtypes.py`` (tools/cases/context_cases.py):
  typed JAX expressions where another dtype is declared, in every context a
  declared type reaches (return, annotated assignment, re-binding, argument,
  attribute, dataclass field, default).  Each wrong dtype must be reported on
  its own line with its kind's code, and no other line may get an error: a
  re-bound name is used on the next line, so an error reported there
  instead fails.  Each expression's dtype, written in the file, is JAX's.

Each set-up is configured as a user's project with ``jaxtypes jax-stubs
--out typings`` and the lines it prints (``checkers.command``).  mypy
without the plugin resolves an overloaded call against the declared type
first (its type context) and then falls back to JAX's own signature, so in
these contexts it misses most wrong dtypes of JAX's functions: the
documentation makes the plugin mypy's supported set-up, and the test pins what plain mypy
misses and that it never reports an error elsewhere.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from jax import lax

from tools.checkers import ALL_CHECKERS, Errors, run, stage

import expected_errors
import project_runs

REPO = Path(__file__).resolve().parent.parent
IDIOMS = REPO / "typecheck_cases" / "public_idioms"
CONTEXTS = REPO / "typecheck_cases" / "contexts"
ARGUMENT_CODES = REPO / "typecheck_cases" / "argument_codes"
FUNCTIONS_PAGE = REPO / "docs" / "functions.md"  # its "Ignore comments" table
CASE = re.compile(r"^# (?P<expr>.+): (?P<marker>\w+) in JAX$")

# Lines of the context cases plain mypy misses: every wrong dtype a call of
# JAX's functions gives in a return, an assignment, an argument or a default
# (read off mypy's output; a change in either direction fails here, and the
# documentation quotes the figure: docs/getting-started/mypy.md, docs/checked.md).
PLAIN_MYPY_MISSED = 182


def _files(directory: Path, prefix: str) -> dict[str, str]:
    return {f"{prefix}/{p.name}": p.read_text() for p in sorted(directory.glob("*.py"))}


def _both_files(checker: str) -> dict[str, str]:
    """The idioms and the wrong arguments: checked with the stubs and without."""
    return {**_files(IDIOMS, "idioms"), **_files(ARGUMENT_CODES, "arguments")}


def _with_stubs_files(checker: str) -> dict[str, str]:
    """...and the context cases, which only the stubs type."""
    return {**_both_files(checker), **_files(CONTEXTS, "contexts")}


project_runs.register(stubs=True, files=_with_stubs_files)
project_runs.register(stubs=False, files=_both_files)


@pytest.fixture(scope="module")
def errors() -> dict[tuple[str, bool], Errors]:
    """{(set-up, with the stubs): its errors}: with the stubs over the idioms,
    the wrong arguments and the context cases, without them over the first
    two (the session's one run per set-up, tests/project_runs.py)."""
    runs = project_runs.project_runs((c, stubs) for c in ALL_CHECKERS for stubs in (True, False))
    return {key: run.errors("idioms", "arguments", "contexts") for key, run in runs.items()}


def _in(prefix: str, found: Errors) -> Errors:
    return {k: v for k, v in found.items() if k[0].startswith(prefix + "/")}


def test_idioms_run_under_jax() -> None:
    """Every idiom module's ``demo()`` runs under JAX (a module without one fails)."""
    modules = sorted(p.stem for p in IDIOMS.glob("*.py"))
    assert modules, f"no idioms in {IDIOMS}"
    script = "import importlib\n" + "".join(f"importlib.import_module({m!r}).demo()\n" for m in modules)
    proc = subprocess.run([sys.executable, "-c", script], cwd=IDIOMS, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.parametrize("checker", ALL_CHECKERS)
def test_stubs_add_no_error_to_public_idioms(checker: str, errors: dict[tuple[str, bool], Errors]) -> None:
    without = _in("idioms", errors[checker, False])
    added = {k: v for k, v in _in("idioms", errors[checker, True]).items() if k not in without}
    assert not added, f"{checker}: errors only with the stubs:\n" + "\n".join(
        f"{k[0]}:{k[1]}: {v}" for k, v in sorted(added.items())
    )


def _verdicts(checker: str, found: Errors) -> tuple[list[str], list[str]]:
    """(marked lines without their error, other problems) of the context cases."""
    missed, problems = [], []
    for rel, text in _files(CONTEXTS, "contexts").items():
        for n, line in enumerate(text.splitlines(), 1):
            kind, got = expected_errors.kind_of(line), found.get((rel, n))
            if kind is not None and not got:
                missed.append(f"{rel}:{n}: {line.strip()}")
            elif got and kind is None:
                problems.append(f"{rel}:{n}: unexpected {got}: {line.strip()}")
            elif got and kind is not None and checker != "mypy" and expected_errors.wrong_codes(kind, checker, got):
                problems.append(
                    f"{rel}:{n}: expected {kind} ({' or '.join(expected_errors.codes(kind, checker))}),"
                    f" got {got}: {line.strip()}"
                )
    return missed, problems


@pytest.mark.parametrize("checker", [c for c in ALL_CHECKERS if c != "mypy"])
def test_every_wrong_dtype_is_reported_where_it_happens(checker: str, errors: dict[tuple[str, bool], Errors]) -> None:
    missed, problems = _verdicts(checker, _in("contexts", errors[checker, True]))
    assert not missed + problems, f"{checker}:\n" + "\n".join(missed + problems)


def test_plain_mypy_misses_only_what_the_readme_says(errors: dict[tuple[str, bool], Errors]) -> None:
    missed, problems = _verdicts("mypy", _in("contexts", errors["mypy", True]))
    assert not problems, "plain mypy:\n" + "\n".join(problems)
    assert len(missed) == PLAIN_MYPY_MISSED, "\n".join(missed)


def test_the_pages_quote_what_plain_mypy_misses() -> None:
    """The figure the pages give for plain mypy is PLAIN_MYPY_MISSED, which
    the test above pins to mypy's output, of the context cases' marked lines."""
    (cases,) = _files(CONTEXTS, "contexts").values()
    marked = sum(expected_errors.kind_of(line) is not None for line in cases.splitlines())
    for name in ("getting-started/mypy.md", "checked.md", "faq.md"):
        text = " ".join((REPO / "docs" / name).read_text().split())
        assert f"{PLAIN_MYPY_MISSED} of the {marked}" in text, name


def test_context_cases_cover_every_context() -> None:
    (text,) = _files(CONTEXTS, "contexts").values()
    kinds = [expected_errors.kind_of(line) for line in text.splitlines()]
    cases = sum(1 for line in text.splitlines() if CASE.match(line))
    assert cases >= 40
    for kind, per_case in (
        ("return", 1),
        ("assignment", 2),
        ("argument", 2),
        ("attribute-assignment", 1),
        ("default", 1),
    ):
        assert kinds.count(kind) == per_case * cases, kind


def test_context_expressions_have_jax_dtypes() -> None:
    """Each case's expression, run under JAX, has the dtype its comment says."""
    names = {
        "x": jnp.float32,
        "b": jnp.bfloat16,
        "h": jnp.float16,
        "i": jnp.int32,
        "i8": jnp.int8,
        "u8": jnp.uint8,
        "m": jnp.bool_,
    }
    scope: dict[str, object] = {"jax": jax, "jnp": jnp, "lax": lax, "key": jax.random.key(0)}
    scope.update({name: jnp.ones((2, 2), dtype) for name, dtype in names.items()})
    (text,) = _files(CONTEXTS, "contexts").values()
    checked = 0
    for line in text.splitlines():
        m = CASE.match(line)
        if m:
            value = eval(m.group("expr"), scope)
            want = "bool" if m.group("marker") == "bool_" else m.group("marker")
            assert (str(value.dtype), getattr(value, "weak_type", False)) == (want, False), m.group("expr")
            checked += 1
    assert checked >= 40


def _readme_argument_codes() -> dict[str, tuple[set[str], set[str]]]:
    """{set-up: (codes without the stubs, codes with them)} of the table of a
    wrong argument's codes (docs/functions.md, "Ignore comments")."""
    text = FUNCTIONS_PAGE.read_text()
    section = text[text.index("## Ignore comments") :]
    table = next(block for block in section.split("\n\n") if block.startswith("| checker |"))
    names = {
        "mypy": "mypy",
        "mypy with the plugin": "mypy-plugin",
        "pyright": "pyright",
        "basedpyright": "basedpyright",
        "pyrefly": "pyrefly",
        "ty": "ty",
    }
    out = {}
    for row in table.splitlines()[2:]:
        who, without, with_ = (cell.strip() for cell in row.strip("|").split("|"))
        for name in who.split(", "):
            out[names[name]] = (set(re.findall(r"`([\w-]+)`", without)), set(re.findall(r"`([\w-]+)`", with_)))
    return out


@pytest.mark.parametrize("checker", ALL_CHECKERS)
def test_argument_codes_are_the_readmes(checker: str, errors: dict[tuple[str, bool], Errors]) -> None:
    """A wrong argument to one of JAX's functions changes its error code with
    the stubs (the functions become overloaded): docs/functions.md's table says to
    what, so that users can update their ignore comments once."""
    (text,) = _files(ARGUMENT_CODES, "arguments").values()
    lines = [n for n, line in enumerate(text.splitlines(), 1) if line.endswith("# wrong argument")]
    assert len(lines) >= 4
    want = _readme_argument_codes()[checker]
    for stubs, codes in zip((False, True), want):
        found = _in("arguments", errors[checker, stubs])
        for n in lines:
            got = {e.code for e in found.get(("arguments/wrong_arguments.py", n), [])}
            assert got == codes, (checker, "with" if stubs else "without", n, got)


# --------------------------------------------------------------- every function (slow)
EVERY_FUNCTION = CONTEXTS / "every_function"
# Lines of the every-function matrix a checker knowingly misses: {checker: {expression: why}}.
KNOWN_MISSES = {
    checker: {
        "lax.optimization_barrier(a_bfloat16)": "JAX's own unannotated function (the stubs leave it to JAX): "
        "pyright infers its result at the call from the argument, but not where a type is declared"
    }
    for checker in ("pyright", "basedpyright")
}
_CASE_DEF = re.compile(r"def (known|return|assign|rebind|argument|attribute|field|default)_(\w+)\(")


@pytest.mark.slow
@pytest.mark.parametrize("checker", ALL_CHECKERS)
def test_every_function_s_wrong_dtype_is_reported_where_it_happens(checker: str, tmp_path: Path) -> None:
    """A call of each JAX function the function cases hold, in every context:
    wherever the checker knows the call's dtype (its ``known_NAME`` line asserts
    it without error), each context reports the wrong dtype on its line; no
    line but those gets an error (plain mypy: that alone)."""
    files = {f"contexts/{p.name}": p.read_text() for p in sorted(EVERY_FUNCTION.glob("*.py"))}
    shutil.copytree(project_runs.typings(), tmp_path / "typings")
    found = run(checker, tmp_path, stage(files, tmp_path), stubs=True)
    problems, known = [], 0
    for rel, text in files.items():
        lines = text.splitlines()
        case: dict[int, str | None] = {}
        expr: dict[str, str] = {}
        unknown: set[str | None] = set()
        current: str | None = None
        for n, line in enumerate(lines, 1):
            m = _CASE_DEF.match(line)
            if m:
                current = m.group(2)
                if m.group(1) == "known":
                    expr[current] = CASE.match(lines[n - 2])["expr"]  # type: ignore[index]
            case[n] = current
        for n, line in enumerate(lines, 1):
            if line.strip().startswith("assert_type(") and found.get((rel, n)):
                unknown.add(case[n])
        for n, line in enumerate(lines, 1):
            kind, got, c = expected_errors.kind_of(line), found.get((rel, n)), case.get(n)
            if line.strip().startswith("assert_type("):
                continue
            if kind is None and got:
                problems.append(f"{rel}:{n}: unexpected {got}: {line.strip()}")
            elif kind is not None and checker != "mypy" and c not in unknown:
                if expr.get(c) in KNOWN_MISSES.get(checker, {}):
                    continue
                if not got:  # (any error there reports it: the codes are pinned by the test above)
                    problems.append(f"{rel}:{n}: missed: {line.strip()}")
        known += len(expr) - len(unknown)
    assert known >= 400, known
    assert not problems, f"{checker}: {len(problems)} problems\n" + "\n".join(problems[:200])
