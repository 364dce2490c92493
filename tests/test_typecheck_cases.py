"""Every case file in typecheck_cases/ under each of the five type checkers.

A case line that ends in ``# E: KIND`` must get an error, each with the code
the checker gives that kind of error (tests/expected_errors.py); every other
line must get none (a failed ``assert_type`` is an error, so a wrong dtype
fails the line).  typecheck_cases/deviations.toml lists where a checker
knowingly differs, line by line; an entry that no longer holds fails too, so
a change in a checker shows up.

The default run checks a sample of the rows of the generated pair-by-pair
files and ``pytest -m slow`` the rest (tests/case_sample.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tools.checkers import ALL_CHECKERS, Error, Errors, run, stage

import case_sample
import expected_errors
import project_runs

CASES = Path(__file__).resolve().parent.parent / "typecheck_cases"
CASE_DIRS = ("scenarios", "generated")


def case_files() -> dict[str, str]:
    files = {}
    for sub in CASE_DIRS:
        for path in sorted((CASES / sub).rglob("*.py")):
            files[path.relative_to(CASES).as_posix()] = path.read_text()
    return files


# The sampled part joins the session's one run per set-up without the JAX
# stubs (tests/project_runs.py); the rest (pytest -m slow) is a run of its own.
project_runs.register(stubs=False, files=lambda checker: case_sample.part_of(case_files(), "sampled"))


@pytest.fixture(scope="session")
def checker_errors(tmp_path_factory: pytest.TempPathFactory):
    cache: dict[tuple[str, str], Errors] = {}
    files = case_files()

    def get(checker: str, part: str) -> Errors:
        if (checker, part) not in cache:
            if part == "sampled":
                cache[checker, part] = project_runs.project_run(checker, False).errors(*CASE_DIRS)
            else:
                root = tmp_path_factory.mktemp(f"cases-{checker}-{part}")
                cache[checker, part] = run(checker, root, stage(case_sample.part_of(files, part), root))
        return cache[checker, part]

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
    errors = {
        ("f.py", 1): _error("reportOperatorIssue"),
        ("f.py", 2): _error("reportCallIssue"),
        ("f.py", 3): _error("reportOperatorIssue"),
    }
    problems = expected_errors.wrong_answers("pyright", files, errors, {})
    assert problems == [
        "f.py:2: x - y  # E: unsupported: expected unsupported (reportOperatorIssue), "
        "got ['a message [reportCallIssue]']",
        "f.py:3: x * y: unexpected error ['a message [reportOperatorIssue]']",
        "f.py:4: x / y  # E: promotion: expected an error (promotion), got none",
    ]
    # the plugin's code for the same kind is its own
    assert (
        expected_errors.wrong_answers(
            "mypy-plugin", {"f.py": "x + y  # E: promotion\n"}, {("f.py", 1): _error("jax-promotion")}, {}
        )
        == []
    )
    assert (
        expected_errors.wrong_answers(
            "mypy-plugin", {"f.py": "x + y  # E: promotion\n"}, {("f.py", 1): _error("jax-unsupported")}, {}
        )
        != []
    )


PARTS = [pytest.param(p, marks=pytest.mark.slow) if p == "rest" else p for p in case_sample.PARTS]


@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("checker", ALL_CHECKERS)
def test_cases(checker: str, part: str, checker_errors) -> None:
    """The stubs in each checker, and mypy with the plugin at JAX's default
    settings (tests/test_mypy_plugin_corpus.py has the other settings)."""
    files = case_files()
    part_files = case_sample.part_of(files, part)
    listed = case_sample.on_lines_of(part_files, expected_errors.deviations(checker, files))
    problems = expected_errors.wrong_answers(checker, part_files, checker_errors(checker, part), listed)
    assert not problems, f"{checker} ({part}): {len(problems)} wrong answers\n" + "\n".join(problems[:60])


def test_the_sample_and_the_rest_are_every_case_once() -> None:
    files = case_files()
    sampled, rest = (case_sample.part_of(files, p) for p in case_sample.PARTS)
    split_files = [rel for rel in files if case_sample.is_split_case_file(rel)]
    assert set(rest) == set(split_files) and set(sampled) == set(files)
    assert {rel.split("/")[-1].split("_")[0] for rel in split_files} == {"binary", "numpy", "scalar"}
    in_sample = cases = 0
    for rel, text in files.items():
        lines = text.splitlines()
        mine = sampled[rel].splitlines()
        others = rest[rel].splitlines() if rel in rest else [""] * len(lines)
        assert len(mine) == len(others) == len(lines), rel
        assert [a or b for a, b in zip(mine, others)] == lines, rel
        twice = [a for a, b in zip(mine, others) if a and b and a.startswith("    ")]
        assert not twice, (rel, twice[:3])
        if rel in rest:
            in_sample += sum(1 for a in mine if a.startswith("    "))
            cases += sum(1 for a in lines if a.startswith("    "))
            if rel.split("/")[-1].startswith("binary_"):  # pairs: every dtype on either side in each part
                for side in (0, 1):
                    seen = [
                        {re.findall(r"\bx_\w+", a)[side] for a in part if a.startswith("    ") and a.count("x_") == 2}
                        for part in (lines, mine, others)
                    ]
                    assert len(seen[0]) > 30 and seen[0] == seen[1] == seen[2], (rel, side)
            # both parts check this operator with NumPy scalars and arrays, on either side
            for part in (lines, mine, others) if case_sample.is_numpy_case_file(rel) else ():
                body = [a for a in part if a.startswith("    ")]
                operands = {(" nd_" in a, "np." in a.split("x_")[0]) for a in body}
                if part is lines:
                    every = operands
                assert operands == every, rel
    assert 0.1 < in_sample / cases < 0.2, (in_sample, cases)


def _hand_written_case_files() -> dict[str, str]:
    """Every case file a reader writes by hand (not the generated ones)."""
    return {
        path.relative_to(CASES).as_posix(): path.read_text()
        for path in sorted(CASES.rglob("*.py"))
        if path.relative_to(CASES).parts[0] not in ("generated", "functions", "contexts")
    }


def test_a_listed_deviation_is_written_at_its_line() -> None:
    """Each deviation of typecheck_cases/deviations.toml that names a
    hand-written line has its note, ``# deviation (CHECKERS): REASON``, right
    above that line, and every such note is one of the list's."""
    files = _hand_written_case_files()
    listed: set[tuple[str, int, tuple[str, ...], str]] = set()
    for entry in expected_errors.listed_deviations():
        if "line" not in entry or entry["file"] not in files:
            continue
        lines = files[entry["file"]].splitlines()
        hits = [n for n, text in enumerate(lines, 1) if text.strip() == entry["line"].strip()]
        assert hits, f"{entry['file']}: no line {entry['line']!r}"
        listed |= {(entry["file"], n, tuple(entry["checkers"]), entry["reason"]) for n in hits}
    written = {
        (rel, n, checkers, reason)
        for rel, text in files.items()
        for n, notes in expected_errors.deviation_notes(text).items()
        for checkers, reason in notes
    }
    assert len(listed) >= 16
    assert sorted(listed - written) == [], "listed deviations without their note at the line"
    assert sorted(written - listed) == [], "notes at a line that deviations.toml does not list"


def test_deviation_notes_are_read_above_their_line() -> None:
    text = "x = 1\n# deviation (ty): a reason\n# another comment\nassert_type(x, int)\n# deviation (mypy): other\n"
    assert expected_errors.deviation_notes(text) == {4: [(("ty",), "a reason")], 6: [(("mypy",), "other")]}
