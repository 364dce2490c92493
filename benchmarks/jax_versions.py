"""Which JAX releases `jaxtypes jax-stubs` supports, checked by hand (not in CI).

For each JAX version given, in a throwaway venv (``python -m venv``, pip's
cache reused): ``jax[cpu]==VERSION`` (which pins its jaxlib), jaxtypes from
this checkout and the test extra's checkers (its pinned jax/jaxlib left out).
In that venv, ``jaxtypes jax-stubs --out`` either refuses (its message is
shown) or writes the stubs, and then, under the six set-ups, exactly as
``tests/test_jax_stubs.py`` does (its ``run_checker``, ``scenario_problems``):

* the interop scenarios (``typecheck_cases/jax_interop/scenarios``): the
  wrong answers (``test_interop_scenarios``);
* the interop corpus (``typecheck_cases/jax_interop/corpus``, plain
  ``jax.Array`` code), with and without the stubs: the lines that get an
  error only with them (``test_corpus_gains_no_errors``).

Prints one table row per version: the outcome and, per set-up, "wrong
answers / corpus errors gained" (``0 / 0`` everywhere: supported and
working); then a second table: how many of JAX's functions the stubs type,
per generated module (a function with a typed overload in front of JAX's
own declaration; ``-``: no stub for that module, it keeps JAX's own typing).

    python -m benchmarks.jax_versions 0.4.38 0.5.3 0.10.2   # by hand; minutes per version

CI tests only the pinned JAX (tests/test_jax_stubs.py).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NotRequired, TypedDict

import tomllib

REPO = Path(__file__).resolve().parent.parent
TESTS = REPO / "tests"


class Outcome(TypedDict):
    """One version's result (``inside()``'s, passed on as JSON)."""

    version: str
    outcome: str  # "supported", "refused", "not installable", "script failed"
    detail: NotRequired[str]
    # When supported, per checker: the scenarios' wrong answers, the corpus's
    # errors only with the stubs; per module, the functions typed (None: no stub).
    problems: NotRequired[dict[str, int]]
    gained: NotRequired[dict[str, int]]
    typed: NotRequired[dict[str, int | None]]


def _test_requirements() -> list[str]:
    """The test extra's requirements, without its pinned jax and jaxlib."""
    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    return [r for r in extra if re.split(r"[<>=!~; \[]", r, maxsplit=1)[0] not in ("jax", "jaxlib")]


def _venv(version: str, where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    python = where / "bin" / "python"
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            f"jax[cpu]=={version}",
            str(REPO),
            *_test_requirements(),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return python


def measure(version: str) -> Outcome:
    """Build the venv for ``version`` and run the scenarios in it (``--inside``)."""
    with tempfile.TemporaryDirectory(prefix=f"jaxtypes-jax-{version}-") as tmp:
        try:
            python = _venv(version, Path(tmp) / "venv")
        except subprocess.CalledProcessError as e:
            tail = (e.stderr or "").strip().splitlines()
            return {"version": version, "outcome": "not installable", "detail": tail[-1] if tail else str(e)}
        proc = subprocess.run([str(python), __file__, "--inside"], capture_output=True, text=True, cwd=tmp)
        if proc.returncode != 0:
            return {"version": version, "outcome": "script failed", "detail": proc.stderr.strip()[-2000:]}
        outcome: Outcome = json.loads(proc.stdout.strip().splitlines()[-1])  # as inside() made it
        return outcome


# The modules whose functions the stubs type, as the second table names them.
MODULES = {
    "numpy/__init__.pyi": "jax.numpy",
    "nn/__init__.pyi": "jax.nn",
    "random.pyi": "jax.random",
    "lax/__init__.pyi": "jax.lax",
    "numpy/linalg.pyi": "jax.numpy.linalg",
    "numpy/fft.pyi": "jax.numpy.fft",
    "__init__.pyi": "jax",
}
_JAXTYPES_NAME = re.compile(r"\b_[Jj]axtypes")


def typed_functions(stub: str) -> set[str]:
    """The functions a generated module types: those with an overload whose
    signature names jaxtypes' markers or type variables (JAX's own
    declarations name none), and ufuncs retyped as jaxtypes' classes."""
    import ast

    names: set[str] = set()
    for node in ast.parse(stub).body:
        if isinstance(node, ast.FunctionDef):
            signature = ast.unparse(node.args) + " -> " + ast.unparse(node.returns or ast.Constant(None))
            if _JAXTYPES_NAME.search(signature):
                names.add(node.name)
        elif (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and _JAXTYPES_NAME.match(ast.unparse(node.annotation))
        ):
            names.add(node.target.id)
    return names


def inside() -> Outcome:
    """In the throwaway venv: generate the stubs, check the scenarios and the corpus."""
    import importlib.metadata

    sys.path[:0] = [str(REPO), str(TESTS)]
    from tools.checkers import stage

    from test_jax_stubs import CASES, CHECKERS, files_under, run_checker, scenario_problems

    version = importlib.metadata.version("jax")
    with tempfile.TemporaryDirectory(prefix="jaxtypes-scenarios-") as tmp:
        base = Path(tmp)
        gen = subprocess.run(
            [sys.executable, "-m", "jaxtypes", "jax-stubs", "--out", "typings"],
            cwd=base,
            capture_output=True,
            text=True,
        )
        if gen.returncode != 0:
            return {"version": version, "outcome": "refused", "detail": gen.stderr.strip()}
        generated = base / "typings" / ".search-path" / "jax"
        typed = {
            name: len(typed_functions((generated / rel).read_text())) if (generated / rel).is_file() else None
            for rel, name in MODULES.items()
        }
        scenarios = files_under(CASES / "scenarios", "scenarios")
        corpus = files_under(CASES / "corpus", "corpus")
        problems: dict[str, int] = {}
        gained: dict[str, int] = {}
        wrong: list[str] = []
        for checker in CHECKERS:
            root = base / checker
            root.mkdir()
            (root / "typings").symlink_to(base / "typings")
            errors = run_checker(checker, root, stage({**scenarios, **corpus}, root), stubs=True)
            found = scenario_problems(checker, scenarios, errors)
            problems[checker] = len(found)
            wrong += [f"{checker}: {p}" for p in found]
            plain = base / f"{checker}-without"
            plain.mkdir()
            without = run_checker(checker, plain, stage(corpus, plain), stubs=False)
            new = sorted(k for k in errors if k[0].startswith("corpus/") and k not in without)
            gained[checker] = len(new)
            wrong += [f"{checker}: {f}:{n}: error only with the stubs: {errors[f, n]}" for f, n in new]
    result: Outcome = {
        "version": version,
        "outcome": "supported",
        "problems": problems,
        "gained": gained,
        "typed": typed,
    }
    if wrong:
        result["detail"] = "\n  ".join(wrong)
    return result


def row(result: Outcome, checkers: list[str]) -> str:
    problems, gained = result.get("problems"), result.get("gained")
    if problems is not None and gained is not None:
        cells = [f"{problems[c]} / {gained[c]}" for c in checkers]
    else:
        cells = ["-"] * len(checkers)
    return f"| {result['version']} | {result['outcome']} | " + " | ".join(cells) + " |"


def typed_row(result: Outcome) -> str:
    typed = result.get("typed")
    counts = [typed.get(m) if typed is not None else None for m in MODULES.values()]
    cells = ["-" if n is None else str(n) for n in counts]
    total = sum(n for n in counts if n is not None)
    return f"| {result['version']} | " + " | ".join(cells) + f" | {total if typed is not None else '-'} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("versions", nargs="*", help="JAX versions, e.g. 0.4.38 0.10.2")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        print(json.dumps(inside()))
        return
    checkers = ["mypy", "mypy-plugin", "pyright", "basedpyright", "pyrefly", "ty"]
    print("| JAX | outcome | " + " | ".join(checkers) + " |")
    print("|---|---|" + "---|" * len(checkers))
    results: list[Outcome] = []
    for version in args.versions:
        result = measure(version)
        results.append(result)
        print(row(result, checkers), flush=True)
        if "detail" in result:  # (as it comes; all of them again at the end)
            print(f"{version}: {result['detail']}", file=sys.stderr, flush=True)
    print()
    print("| JAX | " + " | ".join(f"`{m}`" for m in MODULES.values()) + " | total |")
    print("|---|" + "---|" * (len(MODULES) + 1))
    for result in results:
        print(typed_row(result))
    for result in results:
        if "detail" in result:
            print(f"{result['version']}: {result['detail']}")


if __name__ == "__main__":
    main()
