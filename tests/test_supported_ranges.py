"""The runtime's declared requirements hold at both ends of their ranges.

The test extra pins numpy and ml_dtypes to the versions JAX's recorded answers
were made with (``tools/data/*.json``), so a new release elsewhere never
changes what the default run compares.  The runtime's own requirements stay
ranges (``[project] dependencies``); this module installs jaxtypes as a user
does (a wheel of this checkout, not editable) into two throwaway venvs:

* ``oldest``: every runtime requirement at its lower bound;
* ``newest``: the newest numpy and ml_dtypes the package index serves;

each with the pinned JAX, and runs there the tests that ask the installed JAX
live (nothing recorded): the differential test, the runtime API, JAX's
documented table and the configuration scopes.  The test files are copied out
of the checkout, so the venv's jaxtypes is the one imported.

A new numpy or ml_dtypes that changes an answer fails here and names the
versions; the default run, on the pins, stays as it was.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from environments import PYPROJECT, pinned_requirement, requirement_name

REPO = Path(__file__).resolve().parent.parent

# Run in each venv: they compare jaxtypes with the JAX installed beside it.
LIVE_TESTS = (
    "tests/test_jax_differential.py",
    "tests/test_runtime_api.py",
    "tests/test_seed_table.py",
    "tests/test_config_scopes_like_jax.py",
)
# What these tests import besides jaxtypes and JAX.
TEST_TOOLS = ("pytest", "hypothesis")


def lower_bounds() -> list[str]:
    """Each runtime requirement at its lower bound (``numpy>=2.0`` -> ``numpy==2.0``)."""
    pins = []
    for requirement in PYPROJECT["project"]["dependencies"]:
        m = re.fullmatch(r"([\w.-]+)>=([\w.]+)(?:,.*)?", requirement)
        assert m, f"{requirement!r}: a runtime requirement without a lower bound is untested here"
        pins.append(f"{m[1]}=={m[2]}")
    return pins


def test_every_runtime_requirement_has_a_lower_bound() -> None:
    assert [requirement_name(p) for p in lower_bounds()] == ["numpy", "ml-dtypes", "typing-extensions"]


def test_the_pins_lie_in_the_runtime_ranges() -> None:
    """The pinned versions the recorded data was made with satisfy the ranges a user installs."""
    from packaging.requirements import Requirement

    for requirement in PYPROJECT["project"]["dependencies"]:
        name = requirement_name(requirement)
        if name in ("numpy", "ml-dtypes"):
            pin = pinned_requirement(name).split("==", 1)[1]
            assert Requirement(requirement).specifier.contains(pin), (requirement, pin)


ENDS = {
    "oldest": lower_bounds,
    # --upgrade with no version: whatever the index serves newest.
    "newest": lambda: ["numpy", "ml_dtypes", "typing_extensions"],
}


@pytest.mark.slow
@pytest.mark.parametrize("end", sorted(ENDS))
def test_live_tests_pass_at_each_end_of_the_ranges(end: str, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    install = subprocess.run(
        [
            python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--upgrade",
            str(REPO), pinned_requirement("jax"), pinned_requirement("jaxlib"),
            *(pinned_requirement(t) for t in TEST_TOOLS), *ENDS[end](),
        ],
        capture_output=True, text=True,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr[-4000:]
    versions = subprocess.run(
        [python, "-c", "import numpy, ml_dtypes, jax, jaxtypes; "
         "print(numpy.__version__, ml_dtypes.__version__, jax.__version__, jaxtypes.__file__)"],
        capture_output=True, text=True, check=True, cwd=tmp_path,
    ).stdout.split()  # fmt: skip
    assert str(venv) in versions[3], f"jaxtypes imported from {versions[3]}, not the venv's install"
    if end == "oldest":
        assert _same_release(lower_bounds(), versions), (lower_bounds(), versions)

    # The tests and the pipeline they import, without the package: the venv's jaxtypes is imported.
    work = tmp_path / "work"
    for folder in ("tests", "tools"):
        shutil.copytree(REPO / folder, work / folder, ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copy(REPO / "pyproject.toml", work / "pyproject.toml")
    run = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=--import-mode=importlib -rs",
         *LIVE_TESTS],
        cwd=work, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    where = f"{end}: numpy {versions[0]}, ml_dtypes {versions[1]}, jax {versions[2]}"
    assert run.returncode == 0, f"{where}\n{run.stdout[-6000:]}\n{run.stderr[-2000:]}"
    summary = run.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "skipped" not in summary, f"{where}: {summary}"


def _same_release(pins: list[str], versions: list[str]) -> bool:
    """``numpy==2.0`` is installed as 2.0.0: the same release, padded."""
    wanted = {requirement_name(p): p.split("==", 1)[1] for p in pins}

    def padded(v: str) -> tuple[int, ...]:
        parts = [int(x) for x in v.split(".")]
        return tuple(parts + [0] * (3 - len(parts)))

    return padded(wanted["numpy"]) == padded(versions[0]) and padded(wanted["ml-dtypes"]) == padded(versions[1])
