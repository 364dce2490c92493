"""The code base is linted and formatted as pyproject.toml's [tool.ruff] says:
ruff's check and its formatter's check over the repository, from its root."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from environments import pinned_requirement

REPO = Path(__file__).resolve().parent.parent
RUFF = Path(sys.executable).parent / "ruff"


@pytest.mark.parametrize(
    "command", [["check", "--output-format", "concise"], ["format", "--check"]], ids=["lint", "format"]
)
def test_ruff(command: list[str]) -> None:
    assert RUFF.is_file(), "ruff is not installed: install the test extra"
    proc = subprocess.run([str(RUFF), *command, "."], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]


def test_pre_commit_runs_the_same_ruff() -> None:
    """.pre-commit-config.yaml is valid, and its ruff hooks run the version the
    test extra pins, with the commands test_ruff runs."""
    import yaml  # pre-commit's own dependency (PyYAML)

    config_file = REPO / ".pre-commit-config.yaml"
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "pre-commit"), "validate-config", str(config_file)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    pinned = pinned_requirement("ruff")
    hooks = {h["id"]: h for repo in yaml.safe_load(config_file.read_text())["repos"] for h in repo["hooks"]}
    for hook_id, command in (("ruff-check", "ruff check"), ("ruff-format", "ruff format")):
        assert hooks[hook_id]["additional_dependencies"] == [pinned], hooks[hook_id]
        assert hooks[hook_id]["entry"].startswith(command), hooks[hook_id]
    assert hooks["generated-files-fresh"]["entry"] == "python -m tools.generate --check"
