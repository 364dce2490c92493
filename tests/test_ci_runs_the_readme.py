"""CI runs what the README says it runs: the set-up's test command, then the
slow set, each as a line of .ci/run, after the install."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _commands(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_ci_runs_the_readme_test_command_then_the_slow_set() -> None:
    readme = (REPO / "README.md").read_text()
    setup = readme.split("## Set-up", 1)[1]
    block = re.search(r"```bash\n(.*?)```", setup, re.S)
    assert block is not None, "the README's Set-up has no bash block"
    readme_commands = _commands(block.group(1))
    assert len(readme_commands) == 2, readme_commands
    test_command = readme_commands[1]
    slow_command = f"{test_command} -m slow"
    assert f"`{slow_command}`" in readme, slow_command
    ci = _commands((REPO / ".ci" / "run").read_text())
    install = next(i for i, line in enumerate(ci) if "pip install" in line and "-e" in line and "[test]" in line)
    assert ci[install + 1 :].count(test_command) == 1 and ci[-2:] == [test_command, slow_command], ci
