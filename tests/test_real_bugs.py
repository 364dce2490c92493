"""The real dtype bugs of benchmarks/real_bugs: the manifest is consistent, and
JAX does what it says (the buggy file gives the wrong dtype or raises, the
fixed one gives the intended dtype).  What each type checker catches is the
benchmark's to measure (``python -m benchmarks.real_bugs``), not a test's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.real_bugs import BUGS, load, problems

REPO = Path(__file__).resolve().parent.parent


def test_manifest_is_consistent() -> None:
    bugs = load()
    assert not problems(bugs), "\n".join(problems(bugs))
    assert len(bugs) >= 40
    listed = {name for bug in bugs for name in (bug.buggy, bug.fixed)}
    assert listed == {p.name for p in BUGS.glob("*.py")}, "a file of bugs/ no bug names, or the reverse"


def test_each_buggy_file_cites_its_thread() -> None:
    for bug in load():
        assert bug.url in (BUGS / bug.buggy).read_text(), bug.id


@pytest.mark.slow  # JAX runs 80 small programs, one process per configuration: `pytest -m slow`, and CI
def test_real_bugs_run_under_jax_as_the_manifest_says() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.real_bugs.run_jax"], cwd=REPO, capture_output=True, text=True, timeout=1800
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
