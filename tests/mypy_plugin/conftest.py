"""Run the YAML cases against jaxtypes as mypy finds it in this environment
(the checkout, installed editable: tests/test_checkout_is_package.py).

pytest-mypy-plugins appends the pytest rootdir (this checkout) to MYPYPATH,
which would make the checkout's tests/ and tools/ importable
top-level names for mypy: drop the rootdir from MYPYPATH, as a user's mypy
sees only the installed package.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pytest_mypy_plugins import item as _item

ROOT = Path(__file__).resolve().parents[2]

_collect_mypy_path = _item.MypyExecutor._collect_mypy_path


def _without_rootdir(self: _item.MypyExecutor, rootdir: Path | None) -> None:
    _collect_mypy_path(self, None)


_item.MypyExecutor._collect_mypy_path = _without_rootdir  # type: ignore[method-assign]

# pytest-mypy-plugins finds mypy on PATH; CI runs .venv/bin/pytest without
# activating the venv, so put this interpreter's scripts first.
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def load_checkout_plugin() -> Any:
    """The plugin package mypy loads (``jaxtypes.mypy_plugin``): the checkout's
    jaxtypes/mypy_plugin/ in an editable install (tests/test_checkout_is_package.py
    checks that it is this checkout's)."""
    return importlib.import_module("jaxtypes.mypy_plugin")


@pytest.fixture(scope="session")
def plugin_source() -> Any:
    return load_checkout_plugin()


def mypy_env(**extra: str) -> dict[str, str]:
    """The environment for a mypy subprocess: the installed jaxtypes, not a checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    env.update(extra)
    return env


MYPY = [sys.executable, "-m", "mypy"]


def run_mypy(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(MYPY + args, cwd=cwd, capture_output=True, text=True, env=mypy_env(**env), timeout=600)


@pytest.fixture(scope="session")
def support() -> Any:
    """This module (its helpers), for the tests next to it."""
    return sys.modules[__name__]
