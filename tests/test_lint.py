"""The code base is linted and formatted as pyproject.toml's [tool.ruff] says:
ruff's check and its formatter's check over the repository, from its root."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RUFF = Path(sys.executable).parent / "ruff"


@pytest.mark.parametrize(
    "command", [["check", "--output-format", "concise"], ["format", "--check"]], ids=["lint", "format"]
)
def test_ruff(command: list[str]) -> None:
    assert RUFF.is_file(), "ruff is not installed: install the test extra"
    proc = subprocess.run([str(RUFF), *command, "."], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
