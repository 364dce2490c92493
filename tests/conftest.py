"""Test-run settings shared by every test module.

The suite runs in parallel (pytest-xdist, ``-n auto --dist loadgroup`` in
pyproject.toml).  A module whose tests share an expensive module- or
session-scoped fixture (stubs generated once, every checker run once, JAX run
over a corpus) keeps its tests on one worker, so that the fixture is built
once, not once per worker.

mypy runs start from shared cache snapshots (``checkers.mypy_cache_flags``),
and the case files of several modules are checked in one run per set-up that
the workers share (tests/project_runs.py): one directory for the session,
made here by the controlling process before it starts the workers, which
inherit its environment, and removed at the end.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from tools.checkers import SHARED_MYPY_CACHES

_made = pytest.StashKey[str]()  # the shared mypy caches this process made


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput") and SHARED_MYPY_CACHES not in os.environ:
        os.environ[SHARED_MYPY_CACHES] = tempfile.mkdtemp(prefix="jaxtypes-mypy-caches-")
        config.stash[_made] = os.environ[SHARED_MYPY_CACHES]


def pytest_unconfigure(config: pytest.Config) -> None:
    made = config.stash.get(_made, None)
    if made is not None:
        shutil.rmtree(made, ignore_errors=True)
        del os.environ[SHARED_MYPY_CACHES]


# Modules whose tests share an expensive fixture.
ONE_WORKER = frozenset(
    {
        "test_jax_stubs.py",  # typings, runs (every checker), installed (a venv)
        "test_expectations_fresh.py",  # JAX re-run on a sample of the expectations
        "test_reach_corpus.py",  # JAX run over the reach corpus
        "test_show_dtypes.py",  # first_run (the example, every set-up)
    }
)


def pytest_itemcollected(item: pytest.Item) -> None:
    # At collection, so before xdist reads the marks (pytest_collection_modifyitems).
    if item.path.name in ONE_WORKER:
        item.add_marker(pytest.mark.xdist_group(item.path.stem))
