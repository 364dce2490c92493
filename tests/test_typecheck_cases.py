"""Every case file in typecheck_cases/ under each of the five type checkers.

A case line that ends in ``# E`` must get an error; every other line must get
none (a failed ``assert_type`` is an error, so a wrong dtype fails the line).
typecheck_cases/deviations.toml lists where a checker knowingly differs,
line by line, with the message it must give; an entry that no longer holds
fails too, so a change in a checker shows up.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from checkers import CHECKERS, MYPY_PLUGIN, Errors, run, stage

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CASES = Path(__file__).resolve().parent.parent / "typecheck_cases"
CASE_DIRS = ("scenarios", "generated")
EXPECT_ERROR = re.compile(r"#\s*E\b")


def case_files() -> dict[str, str]:
    files = {}
    for sub in CASE_DIRS:
        for path in sorted((CASES / sub).rglob("*.py")):
            files[path.relative_to(CASES).as_posix()] = path.read_text()
    return files


def expected_errors(files: dict[str, str]) -> set[tuple[str, int]]:
    return {(rel, n) for rel, text in files.items()
            for n, line in enumerate(text.splitlines(), 1) if EXPECT_ERROR.search(line)}


def deviations(checker: str, files: dict[str, str],
               config: str = "standard-x32") -> dict[tuple[str, int], dict]:
    """{(file, line): entry} of this checker's listed deviations.  An entry names
    one line by its exact ``line`` text, or a class of lines by ``line_regex``
    with the exact ``count`` of lines it must match (in the files matching
    ``file``, a glob), so that the list cannot silently grow or shrink."""
    data = tomllib.loads((CASES / "deviations.toml").read_text())
    out = {}
    for entry in data.get("deviation", []):
        if checker not in entry["checkers"] or entry.get("config", "standard-x32") != config:
            continue
        hits = []
        for rel in sorted(f for f in files if Path(f).match(entry["file"]) or f == entry["file"]):
            for n, text in enumerate(files[rel].splitlines(), 1):
                if "line" in entry and text.strip() == entry["line"].strip():
                    hits.append((rel, n))
                elif "line_regex" in entry and re.search(entry["line_regex"], text):
                    hits.append((rel, n))
        want = entry.get("count", 1)
        label = entry.get("line") or entry["line_regex"]
        assert len(hits) == want, f"deviation {label!r} matches {len(hits)} lines, not {want}"
        for key in hits:
            out[key] = entry
    return out


@pytest.fixture(scope="session")
def checker_errors(tmp_path_factory: pytest.TempPathFactory):
    cache: dict[str, Errors] = {}
    files = case_files()

    def get(checker: str) -> Errors:
        if checker not in cache:
            root = tmp_path_factory.mktemp(f"cases-{checker}")
            cache[checker] = run(checker, root, stage(files, root))
        return cache[checker]

    return get


def test_there_are_cases() -> None:
    files = case_files()
    assert any(rel.startswith("scenarios/") for rel in files)
    assert expected_errors(files)


def wrong_answers(files: dict[str, str], errors: Errors,
                  listed: dict[tuple[str, int], dict]) -> list[str]:
    """Every line where a checker's errors differ from the ``# E`` marks, once
    the listed deviations are applied; each deviation must still hold."""
    expected = expected_errors(files)
    problems = []
    for key, entry in listed.items():
        got = errors.get(key, [])
        if entry["expect"] == "no error":
            expected.discard(key)
            if got:
                problems.append(f"{key}: listed deviation expects no error, got {got}")
        else:
            expected.add(key)
            if not any(re.search(entry["message"], msg) for msg in got):
                problems.append(f"{key}: listed deviation expects /{entry['message']}/, got {got}")
    for key in sorted(expected - set(errors)):
        line = files[key[0]].splitlines()[key[1] - 1].strip()
        problems.append(f"{key[0]}:{key[1]}: expected an error, got none: {line}")
    for key in sorted(set(errors) - expected):
        line = files[key[0]].splitlines()[key[1] - 1].strip()
        problems.append(f"{key[0]}:{key[1]}: unexpected error {errors[key]}: {line}")
    return problems


@pytest.mark.parametrize("checker", (*CHECKERS, MYPY_PLUGIN))
def test_cases(checker: str, checker_errors) -> None:
    """The stubs in each checker, and mypy with the plugin at JAX's default
    settings (tests/test_mypy_plugin_corpus.py has the other settings)."""
    files = case_files()
    problems = wrong_answers(files, checker_errors(checker), deviations(checker, files))
    assert not problems, f"{checker}: {len(problems)} wrong answers\n" + "\n".join(problems[:60])
