"""Every case file in typecheck_cases/ under each of the five type checkers.

A case line that ends in ``# E: KIND`` must get an error, each with the code
the checker gives that kind of error (tests/expected_errors.py); every other
line must get none (a failed ``assert_type`` is an error, so a wrong dtype
fails the line).  typecheck_cases/deviations.toml lists where a checker
knowingly differs, line by line; an entry that no longer holds fails too, so
a change in a checker shows up.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import expected_errors
from checkers import ALL_CHECKERS, Error, Errors, run, stage

CASES = Path(__file__).resolve().parent.parent / "typecheck_cases"
CASE_DIRS = ("scenarios", "generated")


def case_files() -> dict[str, str]:
    files = {}
    for sub in CASE_DIRS:
        for path in sorted((CASES / sub).rglob("*.py")):
            files[path.relative_to(CASES).as_posix()] = path.read_text()
    return files


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
    kinds = set(expected_errors.expected(files).values())
    assert {"promotion", "unsupported", "unsupported-method"} <= kinds


def test_every_kind_has_a_code_for_every_checker() -> None:
    for kind, codes in expected_errors.ERROR_CODES.items():
        assert set(codes) == set(ALL_CHECKERS), kind
        assert any(codes.values()), kind


def test_a_marker_names_a_known_kind() -> None:
    assert expected_errors.kind_of("    x + y  # E: promotion") == "promotion"
    assert expected_errors.kind_of("    x + y") is None
    for line in ("    x + y  # E", "    x + y  # E: operator", "    x + y  # E:"):
        with pytest.raises(expected_errors.MarkerError, match="KIND one of promotion, unsupported"):
            expected_errors.kind_of(line)


def _error(code: str) -> list[Error]:
    return [Error(code, "a message")]


def test_an_error_of_another_code_is_a_wrong_answer() -> None:
    files = {"f.py": "x + y  # E: promotion\nx - y  # E: unsupported\nx * y\nx / y  # E: promotion\n"}
    errors = {("f.py", 1): _error("reportOperatorIssue"), ("f.py", 2): _error("reportCallIssue"),
              ("f.py", 3): _error("reportOperatorIssue")}
    problems = expected_errors.wrong_answers("pyright", files, errors, {})
    assert problems == [
        "f.py:2: x - y  # E: unsupported: expected unsupported (reportOperatorIssue), "
        "got ['a message [reportCallIssue]']",
        "f.py:3: x * y: unexpected error ['a message [reportOperatorIssue]']",
        "f.py:4: x / y  # E: promotion: expected an error (promotion), got none",
    ]
    # the plugin's code for the same kind is its own
    assert expected_errors.wrong_answers("mypy-plugin", {"f.py": "x + y  # E: promotion\n"},
                                         {("f.py", 1): _error("jax-promotion")}, {}) == []
    assert expected_errors.wrong_answers("mypy-plugin", {"f.py": "x + y  # E: promotion\n"},
                                         {("f.py", 1): _error("jax-unsupported")}, {}) != []


@pytest.mark.parametrize("checker", ALL_CHECKERS)
def test_cases(checker: str, checker_errors) -> None:
    """The stubs in each checker, and mypy with the plugin at JAX's default
    settings (tests/test_mypy_plugin_corpus.py has the other settings)."""
    files = case_files()
    problems = expected_errors.wrong_answers(checker, files, checker_errors(checker),
                                             expected_errors.deviations(checker, files))
    assert not problems, f"{checker}: {len(problems)} wrong answers\n" + "\n".join(problems[:60])

