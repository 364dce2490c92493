"""Run the YAML cases against the installed jaxtypes, as users get it.

pytest-mypy-plugins appends the pytest rootdir (this checkout) to MYPYPATH,
where mypy would find the source tree's ``jaxtypes`` (without the generated
stubs, which the wheel maps into the package) before the installed one.  The
plugin and the stubs ship in the wheel, so the cases must see the installed
package: drop the rootdir from MYPYPATH.  The check below stops the run with
a clear message when the installed plugin is not this checkout's.
"""

from __future__ import annotations

import filecmp
import functools
import importlib.metadata
import importlib.util
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


def installed_plugin_dir() -> Path | None:
    """Where the installed distribution keeps the plugin (not the checkout,
    which ``python -m pytest`` may put first on sys.path)."""
    try:
        dist = importlib.metadata.distribution("jaxtypes")
    except importlib.metadata.PackageNotFoundError:
        return None
    path = Path(str(dist.locate_file("jaxtypes/mypy_plugin")))
    return path if (path / "__init__.py").is_file() else None


@functools.lru_cache(maxsize=None)
def stale_install() -> str:
    """Why the installed jaxtypes is not this checkout's ("" when it is)."""
    installed = installed_plugin_dir()
    if installed is None:
        return "jaxtypes is not installed with its mypy plugin"
    source = ROOT / "mypy_plugin"
    names = sorted(p.name for p in source.glob("*.py"))
    _, mismatch, errors = filecmp.cmpfiles(source, installed, names, shallow=False)
    stubs = sorted(p.name for p in (ROOT / "stubs" / "jaxtypes").glob("*.pyi"))
    _, stub_mismatch, stub_errors = filecmp.cmpfiles(
        ROOT / "stubs" / "jaxtypes", installed.parent, stubs, shallow=False)
    stale = mismatch + errors + stub_mismatch + stub_errors
    if stale:
        return f"the installed jaxtypes ({installed.parent}) differs from this checkout: {', '.join(stale)}"
    return ""


def pytest_runtest_setup(item: pytest.Item) -> None:
    reason = stale_install()
    if reason:
        pytest.fail(f"{reason}; reinstall it: pip install --no-deps --force-reinstall .",
                    pytrace=False)


def load_checkout_plugin() -> Any:
    """This checkout's mypy_plugin/ as a package (the installed copy is
    jaxtypes.mypy_plugin; ``python -m pytest`` may shadow jaxtypes with the
    source tree, which has no mypy_plugin subpackage)."""
    name = "_jaxtypes_mypy_plugin_checkout"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(
        name, ROOT / "mypy_plugin" / "__init__.py",
        submodule_search_locations=[str(ROOT / "mypy_plugin")])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


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
    return subprocess.run(MYPY + args, cwd=cwd, capture_output=True, text=True,
                          env=mypy_env(**env), timeout=600)


@pytest.fixture(scope="session")
def support() -> Any:
    """This module (its helpers), for the tests next to it."""
    return sys.modules[__name__]
