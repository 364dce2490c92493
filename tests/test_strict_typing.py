"""Our own code type-checks under ``mypy --strict`` and ``pyright --strict``.

Both run exactly as a contributor runs them, from the checkout's root with no
arguments, so that what they check (``jaxtypes/``, the mypy plugin,
``tools/``, ``benchmarks/``) and how is their configuration in pyproject.toml
(``[tool.mypy]``, ``[tool.pyright]``).  The checkers are the test extra's
pinned ones, from this interpreter's venv.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# The venv's scripts sit next to its python (not resolved: that is the base interpreter).
BIN = Path(sys.executable).parent

# Each run takes a core for a while (pyright about 20 s, mypy up to a minute
# without its cache): both on one worker, after each other.
pytestmark = pytest.mark.xdist_group("test_strict_typing")


def _run(checker: str) -> subprocess.CompletedProcess[str]:
    executable = BIN / checker
    if not executable.exists():
        pytest.fail(f"{executable} is missing: install the test extra (pip install -e '.[test]')")
    return subprocess.run([str(executable)], cwd=REPO, capture_output=True, text=True, timeout=1200)


def _clean(checker: str, proc: subprocess.CompletedProcess[str], summary: str) -> None:
    out = proc.stdout + proc.stderr
    if proc.returncode != 0 or summary not in "\n" + out:
        pytest.fail(f"{checker} (strict, run from the checkout's root) reports:\n{out}", pytrace=False)


def test_mypy_strict() -> None:
    _clean("mypy", _run("mypy"), "\nSuccess: no issues found")


def test_pyright_strict() -> None:
    _clean("pyright", _run("pyright"), "\n0 errors, ")
