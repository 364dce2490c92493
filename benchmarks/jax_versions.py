"""Which JAX releases `jaxtypes jax-stubs` supports, checked by hand (not in CI).

For each JAX version given, in a throwaway venv (``python -m venv``, pip's
cache reused): ``jax[cpu]==VERSION`` (which pins its jaxlib), jaxtypes from
this checkout and the test extra's checkers (its pinned jax/jaxlib left out).
In that venv, ``jaxtypes jax-stubs --out`` either refuses (its message is
shown) or writes the stubs, and then the interop scenarios
(``typecheck_cases/jax_interop/scenarios``) are checked under the six set-ups
exactly as ``tests/test_jax_stubs.py::test_interop_scenarios`` does (its
``run_checker`` and ``scenario_problems``).  Prints one table row per version:
the outcome and the wrong answers per set-up (0 everywhere: supported and
working).

    python benchmarks/jax_versions.py 0.4.38 0.5.3 0.10.2   # by hand; minutes per version

CI tests only the pinned JAX (tests/test_jax_stubs.py).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import NotRequired, TypedDict

REPO = Path(__file__).resolve().parent.parent
TESTS = REPO / "tests"


def _test_requirements() -> list[str]:
    """The test extra's requirements, without its pinned jax and jaxlib."""
    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    return [r for r in extra if re.split(r"[<>=!~; \[]", r, maxsplit=1)[0] not in ("jax", "jaxlib")]


def _venv(version: str, where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    python = where / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    f"jax[cpu]=={version}", str(REPO), *_test_requirements()],
                   check=True, capture_output=True, text=True)
    return python


class Outcome(TypedDict):
    """What happened to one JAX version (a table row), as JSON."""

    version: str
    outcome: str
    problems: NotRequired[dict[str, int]]  # wrong answers per set-up
    detail: NotRequired[str]


def measure(version: str) -> Outcome:
    """Build the venv for ``version`` and run the scenarios in it (``--inside``)."""
    with tempfile.TemporaryDirectory(prefix=f"jaxtypes-jax-{version}-") as tmp:
        try:
            python = _venv(version, Path(tmp) / "venv")
        except subprocess.CalledProcessError as e:
            tail = (e.stderr or "").strip().splitlines()
            return {"version": version, "outcome": "not installable",
                    "detail": tail[-1] if tail else str(e)}
        proc = subprocess.run([str(python), __file__, "--inside"], capture_output=True, text=True,
                              cwd=tmp)
        if proc.returncode != 0:
            return {"version": version, "outcome": "script failed", "detail": proc.stderr.strip()[-2000:]}
        outcome: Outcome = json.loads(proc.stdout.strip().splitlines()[-1])  # as inside() made it
        return outcome


def inside() -> Outcome:
    """In the throwaway venv: generate the stubs, check the scenarios."""
    import importlib.metadata

    sys.path.insert(0, str(TESTS))
    from checkers import stage  # noqa: E402
    from test_jax_stubs import CASES, CHECKERS, run_checker, scenario_problems  # noqa: E402
    from test_jax_stubs import _files  # pyright: ignore[reportPrivateUsage]  # the test's own reader

    version = importlib.metadata.version("jax")
    with tempfile.TemporaryDirectory(prefix="jaxtypes-scenarios-") as tmp:
        base = Path(tmp)
        gen = subprocess.run([sys.executable, "-m", "jaxtypes", "jax-stubs", "--out", "typings"],
                             cwd=base, capture_output=True, text=True)
        if gen.returncode != 0:
            return {"version": version, "outcome": "refused", "detail": gen.stderr.strip()}
        scenarios = _files(CASES / "scenarios", "scenarios")
        problems: dict[str, int] = {}
        wrong: list[str] = []
        for checker in CHECKERS:
            root = base / checker
            root.mkdir()
            (root / "typings").symlink_to(base / "typings")
            paths = stage(scenarios, root)
            errors = run_checker(checker, root, paths, stubs=True)
            found = scenario_problems(checker, scenarios, errors)
            problems[checker] = len(found)
            wrong += [f"{checker}: {p}" for p in found]
    result: Outcome = {"version": version, "outcome": "supported", "problems": problems}
    if wrong:
        result["detail"] = "\n  ".join(wrong)
    return result


def row(result: Outcome, checkers: list[str]) -> str:
    problems = result.get("problems")
    cells = [str(problems[c]) for c in checkers] if isinstance(problems, dict) else ["-"] * len(checkers)
    return f"| {result['version']} | {result['outcome']} | " + " | ".join(cells) + " |"


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
    details: list[str] = []
    for version in args.versions:
        result = measure(version)
        print(row(result, checkers), flush=True)
        if "detail" in result:
            details.append(f"{version}: {result['detail']}")
    for d in details:
        print(d)


if __name__ == "__main__":
    main()
