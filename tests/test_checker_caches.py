"""The mypy cache snapshots the test session shares (tools/checkers.py): a run
starts from its configuration's snapshot, which holds the libraries but not
the modules of the run that left it, so that a run reports its own modules'
errors under its own paths, whatever another project of the session held."""

from __future__ import annotations

import concurrent.futures
import os
from pathlib import Path

from tools.checkers import SHARED_MYPY_CACHES, cached_modules, run, snapshot_of, stage

CASE = 'import json\nx: int = "one"\n'


def _config(tag: str) -> str:
    # A configuration no other test uses, so that this test's first run publishes.
    return f"[mypy]\n# {tag}\n"


def test_the_session_shares_snapshots() -> None:
    assert os.environ.get(SHARED_MYPY_CACHES), "tests/conftest.py sets the shared cache directory"


def test_snapshot_holds_the_libraries_not_the_run_s_modules(tmp_path: Path) -> None:
    config = _config("snapshot contents")
    assert not snapshot_of(config).exists()
    paths = stage({"pkg/__init__.py": "", "pkg/mod.py": CASE}, tmp_path)
    assert list(run("mypy", tmp_path, paths, mypy_config=config)) == [("pkg/mod.py", 2)]
    modules = cached_modules(snapshot_of(config))
    assert {"json/__init__", "builtins"} <= modules
    assert not modules & {"pkg/mod", "pkg/__init__", "mod", "pkg"}


def test_same_module_elsewhere_reports_under_its_own_path(tmp_path: Path) -> None:
    """The first project's sub/m.py (module "m": no __init__.py) and the
    second project's m.py, of the same text: the second run's error is at its
    own path, not a replay of the first one's."""
    config = _config("same module elsewhere")
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    assert list(run("mypy", first, stage({"sub/m.py": CASE}, first), mypy_config=config)) == [("sub/m.py", 2)]
    assert snapshot_of(config).exists()
    assert list(run("mypy", second, stage({"m.py": CASE}, second), mypy_config=config)) == [("m.py", 2)]


def test_runs_of_a_new_configuration_at_once(tmp_path: Path) -> None:
    """Two runs of a configuration that has no snapshot yet, at the same time
    (the fixtures run checkers two at a time): one publishes, the other waits
    for the snapshot; each reports its own module at its own path."""
    config = _config("at once")
    projects = {"a": {"a/sub/m.py": CASE}, "b": {"m.py": CASE}}
    for name in projects:
        (tmp_path / name).mkdir()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        found = dict(
            zip(
                projects,
                pool.map(
                    lambda name: list(
                        run("mypy", tmp_path / name, stage(projects[name], tmp_path / name), mypy_config=config)
                    ),
                    projects,
                ),
            )
        )
    assert found == {"a": [("a/sub/m.py", 2)], "b": [("m.py", 2)]}
    assert snapshot_of(config).is_dir()
