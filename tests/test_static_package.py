"""The shipped package as static tools see it: stubtest and pyright --verifytypes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _env() -> dict[str, str]:
    # The installed package, found through this interpreter's environment.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["VIRTUAL_ENV"] = sys.prefix
    return env


def test_stubtest_passes(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "jaxtypes", "--allowlist", str(ROOT / "stubtest-allowlist.txt")],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert "Success: no issues found" in proc.stdout


def test_verifytypes_reports_every_public_symbol_typed(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "pyright"),
            "--verifytypes",
            "jaxtypes",
            "--ignoreexternal",
            "--pythonpath",
            sys.executable,
        ],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    score = re.search(r"Type completeness score: ([\d.]+)%", proc.stdout)
    assert score, proc.stdout[-4000:]
    assert float(score.group(1)) == 100.0, proc.stdout[-8000:]
