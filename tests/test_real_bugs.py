"""The real dtype bugs of benchmarks/real_bugs: the manifest is consistent, and
JAX does what it says (the buggy file gives the wrong dtype or raises, the
fixed one gives the intended dtype); and, in the slow set (CI's slow stage),
what the type checkers catch: ``python -m benchmarks.real_bugs`` in the six
set-ups, with no error on any fixed file, mypy with the plugin catching at
least 80% of the bugs a static check could see, and every set-up still
catching the bugs benchmarks/real_bugs/caught.toml records for it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.real_bugs import BUGS, HERE, load, problems
from tools.checkers import ALL_CHECKERS, MYPY_PLUGIN

if sys.version_info >= (3, 11):
    import tomllib
else:  # the test extra installs tomli there
    import tomli as tomllib

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


CAUGHT = HERE / "caught.toml"
MIN_PLUGIN_RECALL = 0.8  # issue 48's figure: of the bugs a static check could see


def _recorded() -> dict[str, list[str]]:
    return tomllib.loads(CAUGHT.read_text())["caught"]


def test_the_recorded_catches_are_bugs_of_the_manifest() -> None:
    recorded = _recorded()
    assert set(recorded) == set(ALL_CHECKERS), "caught.toml names each set-up once"
    static = {bug.id for bug in load() if bug.static}
    for setup, ids in recorded.items():
        assert ids == sorted(set(ids)), f"{setup}: sorted, each once"
        assert set(ids) <= static, f"{setup}: {sorted(set(ids) - static)} are no bugs a static check could see"


def test_the_readme_and_the_docs_state_the_recorded_figures() -> None:
    """The README's opening (and the site's home page) give caught.toml's
    counts, of the bugs each set-up is scored on (check.applies)."""
    from benchmarks.real_bugs.check import applies

    bugs = load()
    caught = {setup: len(ids) for setup, ids in _recorded().items()}
    catchable = {setup: sum(b.static for b in bugs if applies(setup, b)) for setup in caught}
    stub_only = {catchable[s] for s in caught if s != MYPY_PLUGIN}
    assert len(stub_only) == 1, "the stub-only set-ups are scored on the same bugs"
    assert caught["pyright"] == caught["basedpyright"] == caught["pyrefly"], "the sentence names them together"
    expected = [
        f"On {len(bugs)} real dtype bugs",
        f"mypy with the plugin catches {caught[MYPY_PLUGIN]} of the {catchable[MYPY_PLUGIN]} a static check can see",
        f"pyright, basedpyright and pyrefly catch {caught['pyright']} and ty {caught['ty']} "
        f"of the {stub_only.pop()} written for it (mypy alone {caught['mypy']})",
        "No set-up reports an error on any of the fixed versions",
    ]
    for path in (REPO / "README.md", REPO / "docs" / "index.md"):
        text = " ".join(path.read_text().split())
        for sentence in expected:
            assert sentence in text, f"{path.name}: {sentence!r}"


@pytest.mark.slow  # the six set-ups on 86 files, about 2 minutes: `pytest -m slow`, and CI
def test_the_checkers_catch_the_recorded_bugs_and_pass_every_fix() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.real_bugs", "--json"], cwd=REPO, capture_output=True, text=True, timeout=3600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    setups = {s["setup"]: s for s in json.loads(proc.stdout)["setups"]}
    assert set(setups) == set(ALL_CHECKERS)
    wrong: list[str] = []
    for setup, result in setups.items():
        if result["false_positives"]:
            wrong.append(f"{setup}: errors on fixed files: {result['false_positives']}")
    plugin = setups[MYPY_PLUGIN]
    if plugin["caught"] < MIN_PLUGIN_RECALL * plugin["catchable"]:
        wrong.append(f"mypy with the plugin catches {plugin['caught']} of {plugin['catchable']}: under 80%")
    for setup, ids in _recorded().items():
        caught = set(setups[setup]["caught_ids"])
        lost = sorted(set(ids) - caught)
        new = sorted(caught - set(ids))
        if lost:
            wrong.append(f"{setup} no longer catches {lost}")
        if new:
            wrong.append(f"{setup} now catches {new}: add them to {CAUGHT.relative_to(REPO)}")
    assert not wrong, "\n".join(wrong)
