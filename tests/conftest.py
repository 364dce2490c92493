"""Test-run settings shared by every test module.

The suite runs in parallel (pytest-xdist, ``-n auto --dist loadgroup`` in
pyproject.toml).  A module whose tests share an expensive module- or
session-scoped fixture (stubs generated once, every checker run once, JAX run
over a corpus) keeps its tests on one worker, so that the fixture is built
once, not once per worker.
"""

from __future__ import annotations

import pytest

# Modules whose tests share an expensive fixture.
ONE_WORKER = frozenset({
    "test_jax_stubs.py",          # typings, runs (every checker), installed (a venv)
    "test_expectations_fresh.py",  # JAX re-run on a sample of the expectations
    "test_reach_corpus.py",        # JAX run over the reach corpus
    "test_readme.py",              # checked (every set-up over the README's examples)
})


def pytest_itemcollected(item: pytest.Item) -> None:
    # At collection, so before xdist reads the marks (pytest_collection_modifyitems).
    if item.path.name in ONE_WORKER:
        item.add_marker(pytest.mark.xdist_group(item.path.stem))
