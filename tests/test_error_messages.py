"""The errors a user sees name the operation and the dtypes, never jaxtypes' internals.

Every expected error (``# E: KIND``) of the hand-written scenario files is collected
per checker, and each message is searched for the stubs' internal names: an
identifier with a leading underscore (``_bitwise_int8``, ``_UnknownDtype``,
``_DTypeArg``) or ``__call__`` (a table's call, which the checkers name
when it is a ``def __call__``: the stubs alias it to a def named for the
operation instead).  An operator's own dunder (``__and__``) is not internal:
it is what the user wrote.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tools.checkers import CHECKERS, MYPY_PLUGIN, Error, Errors, run, stage

import expected_errors
import project_runs

SCENARIOS = Path(__file__).resolve().parent.parent / "typecheck_cases" / "scenarios"
# A leading-underscore identifier not preceded by a word character or a dot
# (a module path like jaxtypes._array is where a name lives, not the name).
INTERNAL = re.compile(r"(?<![\w.])(?!_AnyShape\b)_[A-Za-z]\w*|__call__")
# (numpy's own private names, such as ndarray's _AnyShape, are numpy's to show.)
# pyright's own explanation under "Object of type X is not callable": the
# protocol it looked for, not a name of jaxtypes.  (Its JSON output indents
# the lines of a message with no-break spaces.)
PYRIGHT_NOT_CALLABLE = '\n  Attribute "__call__" is unknown'
# Where the stubs' encoding still shows through, with the leak written out:
# strict xfails, so that a fix shows up.  mypy without the plugin names the
# table an operator calls: its __call__ is a def, as an alias (which mypy's
# errors leave unnamed) costs mypy 3% more instructions on mixed-dtype
# arithmetic (jaxtypes/_stubgen/package_stubs.py, _table_class).
KNOWN_LEAKS: dict[str, str] = {
    "mypy": 'binary operators: Argument 1 to "__call__" of "AddInt4" has incompatible type '
    '"Array[float32]"; No overload variant of "__call__" of "AddInt4" matches '
    'argument type "float"'
}


def scenario_files() -> dict[str, str]:
    """typecheck_cases/scenarios, under the path typecheck_cases' own run gives them."""
    return {f"scenarios/{p.name}": p.read_text() for p in sorted(SCENARIOS.glob("*.py"))}


project_runs.register(stubs=False, files=lambda checker: scenario_files())


def expected_error_lines(files: dict[str, str]) -> set[tuple[str, int]]:
    return set(expected_errors.expected(files))


def internal_names(files: dict[str, str], errors: Errors) -> list[str]:
    """'file:line: message' for each expected error whose message leaks an internal name."""
    leaks = []
    for key in sorted(expected_error_lines(files)):
        for error in errors.get(key, []):
            if INTERNAL.search(error.message.replace("\xa0", " ").replace(PYRIGHT_NOT_CALLABLE, "")):
                leaks.append(f"{key[0]}:{key[1]}: {error}")
    return leaks


def test_internal_name_pattern() -> None:
    """What the pattern calls internal, on the messages the stubs used to give."""
    assert INTERNAL.search('No overload variant of "__call__" of "_bitwise_int8" matches')
    assert INTERNAL.search('expected "Array[_UnknownDtype]"')
    assert INTERNAL.search('"_Unsupported" not callable')
    assert INTERNAL.search("`jaxtypes._array._Reduce.__call__`")
    assert not INTERNAL.search('"ArgmaxNotSupportedForComplex64" not callable')
    assert not INTERNAL.search('Unsupported operand types for & ("Array[float32]" and "float")')
    assert not INTERNAL.search("`jaxtypes._array.Array.astype`")
    assert not INTERNAL.search('not assignable to "ndarray[_AnyShape, dtype[Any]]"')
    pyright_not_callable = (
        'Object of type "ArgmaxNotSupportedForComplex64" is not callable'
        '\n\xa0\xa0Attribute "__call__" is unknown (reportCallIssue)'
    )
    assert not internal_names(
        {"f.py": "x  # E: promotion\n"}, {("f.py", 1): [Error("reportCallIssue", pyright_not_callable)]}
    )
    assert internal_names(
        {"f.py": "x  # E: promotion\n"}, {("f.py", 1): [Error("reportCallIssue", 'No overloads for "__call__"')]}
    )


@pytest.mark.parametrize(
    "checker",
    [
        pytest.param(c, marks=pytest.mark.xfail(reason=KNOWN_LEAKS[c], strict=True)) if c in KNOWN_LEAKS else c
        for c in (*CHECKERS, MYPY_PLUGIN)
    ],
)
def test_scenario_errors_name_no_internals(checker: str) -> None:
    files = scenario_files()
    errors = project_runs.project_run(checker, False).errors("scenarios")
    reported = [key for key in expected_error_lines(files) if errors.get(key)]
    assert len(reported) >= 20, f"{checker} reported only {len(reported)} expected errors"
    leaks = internal_names(files, errors)
    assert not leaks, f"{checker}: {len(leaks)} messages name internals\n" + "\n".join(leaks)


def test_readme_quotes_mypy_s_message_without_the_plugin(tmp_path: Path) -> None:
    """The mypy row of "What each checker needs" (docs/getting-started/index.md)
    quotes what mypy without the plugin says for ``i4 * 1.5``: that quote is
    mypy's message for it."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "getting-started" / "index.md").read_text()
    row = next(line for line in page.splitlines() if line.startswith("| mypy | "))
    quote, example = re.findall(r"`([^`]*)` for `([^`]*)`", row)[0]
    source = f"from jaxtypes import Array, int4\n\n\ndef f(i4: Array[int4]) -> None:\n    {example}\n"
    errors = run("mypy", tmp_path, stage({"case.py": source}, tmp_path))
    assert [e.message for e in errors.get(("case.py", 5), [])] == [quote]
