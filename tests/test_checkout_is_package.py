"""The checkout is the package: the modules the tests import, and those mypy
reads, are this checkout's files (installed editable: ``pip install -e``), so
an edit to any of them is what the next test run sees, with no reinstall.

``jaxtypes/`` holds the plugin and the generated stubs themselves, no link;
the editable install puts only ``.dev-site`` on ``sys.path``, whose one entry
(made by the install, hatch_build.py) links to ``jaxtypes/``, so the
checkout's other top-level folders are not importable names.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(code: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_runtime_modules_are_the_checkouts(tmp_path: Path) -> None:
    out = _run(
        "import jaxtypes, jaxtypes.mypy_plugin, jaxtypes._speedups, jaxtypes.promotion\n"
        "for m in (jaxtypes, jaxtypes.mypy_plugin, jaxtypes._speedups, jaxtypes.promotion):\n"
        "    print(m.__file__)\n",
        tmp_path,
    )
    files = [Path(line).resolve() for line in out.splitlines()]
    assert files == [
        ROOT / "jaxtypes" / "__init__.py",
        ROOT / "jaxtypes" / "mypy_plugin" / "__init__.py",
        files[2],
        ROOT / "jaxtypes" / "promotion.py",
    ]
    assert files[2].parent == ROOT / "jaxtypes" and files[2].name.startswith("_speedups.")


def test_the_package_holds_no_link() -> None:
    assert [p for p in (ROOT / "jaxtypes").rglob("*") if p.is_symlink()] == []
    assert (ROOT / ".dev-site" / "jaxtypes").resolve() == ROOT / "jaxtypes"


@pytest.mark.parametrize("name", ["tests", "tools", "benchmarks", "hatch_build", "checkers"])
def test_no_other_top_level_name_is_importable(tmp_path: Path, name: str) -> None:
    out = _run(f"import importlib.util; print(importlib.util.find_spec({name!r}))", tmp_path)
    assert out.strip() == "None"


def test_mypy_reads_the_checkouts_stubs_and_plugin(tmp_path: Path) -> None:
    (tmp_path / "mypy.ini").write_text("[mypy]\nplugins = jaxtypes.mypy_plugin\n")
    (tmp_path / "t.py").write_text("import jaxtypes\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--verbose", "t.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    parsed = dict(re.findall(r"Parsing (\S+) \((jaxtypes[\w.]*)\)", proc.stderr))
    found = {module: Path(path).resolve() for path, module in parsed.items()}
    assert found["jaxtypes._array"] == ROOT / "jaxtypes" / "_array.pyi"
    assert found["jaxtypes.markers"] == ROOT / "jaxtypes" / "markers.pyi"
    assert found["jaxtypes"] == ROOT / "jaxtypes" / "__init__.py"
    assert (found["jaxtypes"].parent / "py.typed").is_file()  # PEP 561: the package is typed
