"""The README's benchmark commands start: each benchmark is a module run from
the checkout's root (``python -m benchmarks.NAME``) and its imports resolve.

The benchmarks themselves run by hand (they time checkers); this keeps the
commands the README prints from rotting."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "name",
    [
        "operator_chains",
        "reach",
        "encodings",
        "runtime",
        "jax_versions",
        "real_bugs",
        "real_bugs.run_jax",
        "annotate_overhead",
    ],
)
def test_benchmark_module_starts(name: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", f"benchmarks.{name}", "--help"], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage:"), proc.stdout
