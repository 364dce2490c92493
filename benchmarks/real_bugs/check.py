"""Real dtype bugs: how many each type-checker set-up catches where they are written.

``python -m benchmarks.real_bugs [--checkers ...] [--bugs ID ...] [--json]``
(or ``python -m benchmarks.real_bugs.check``), from the checkout's root.

Every buggy and fixed file of ``benchmarks/real_bugs/bugs`` is type-checked
in the six set-ups with the JAX stubs as the README sets them up
(``jaxtypes jax-stubs install`` in an environment of this one's, each checker
run from a project directory whose only stub setting is the line the command
printed for it): the runs are ``tests/project_runs.py``'s, the code the tests
check their case files with.

Which bugs each set-up is scored on (``applies``): a set-up is asked only
about the code it can be right about.

- mypy with the plugin reads the project's JAX settings (``promotion``,
  ``x64`` in its ``[jaxtypes]`` section): it runs once per setting the
  manifest names (``project_runs.mypy_with_plugin``), each file in its own,
  and is scored on every bug.
- The stubs alone (mypy without the plugin, pyright, basedpyright, pyrefly,
  ty) follow JAX's defaults, standard promotion with x64 off, and read no
  setting.  A file whose dtypes depend on x64 or strict promotion (the
  manifest's ``x64``, ``fixed_x64`` or ``promotion = "strict"``) holds
  another configuration's truth there: these set-ups neither check such a
  bug's files nor count it, caught or missed (``defaults_only``; their
  "catchable" is the bugs in JAX's defaults that a static check could see).

Per set-up, the report gives:

- caught: the bugs a static check could see (``static = true`` in the
  manifest) with an error in the statement the manifest's line is in, of all
  those bugs (the recall), and of those the ones whose fixed file gets no
  error (a catch the fix answers);
- false positives: the fixed files with any error (the fixed code runs under
  JAX with the intended dtypes, ``benchmarks.real_bugs.run_jax``);
- the out-of-reach bugs (``static = false``), with why, and whether a set-up
  flagged one anyway.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.real_bugs import BUGS, Bug, Settings, load, problems
from tools.checkers import ALL_CHECKERS, MYPY_PLUGIN, Error, Errors

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
PREFIX = "real_bugs"  # the files' directory in the checked projects

if str(TESTS) not in sys.path:  # the tests' project runs (as benchmarks/jax_versions.py does)
    sys.path.insert(0, str(TESTS))

import project_runs  # noqa: E402


@dataclass
class SetupResult:
    setup: str
    catchable: int
    scored: int  # the bugs the set-up is run on (``applies``)
    caught: list[str] = field(default_factory=list[str])
    missed: list[str] = field(default_factory=list[str])
    caught_out_of_reach: list[str] = field(default_factory=list[str])
    # bug id -> the fixed file's errors, "line: message"
    false_positives: dict[str, list[str]] = field(default_factory=dict[str, list[str]])
    # bug id -> errors in the buggy file outside the bug's statement
    other_errors: dict[str, list[str]] = field(default_factory=dict[str, list[str]])

    def caught_with_clean_fix(self) -> list[str]:
        """The bugs caught whose fixed file gets no error: a catch the fix
        answers, not one the set-up reports whatever the code."""
        return [bug_id for bug_id in self.caught if bug_id not in self.false_positives]

    def as_dict(self) -> dict[str, Any]:
        return {
            "setup": self.setup,
            "caught": len(self.caught),
            "catchable": self.catchable,
            "scored": self.scored,
            "recall": round(len(self.caught) / max(self.catchable, 1), 3),
            "caught_with_clean_fix": len(self.caught_with_clean_fix()),
            "fixed_files_with_errors": len(self.false_positives),
            "caught_ids": self.caught,
            "missed_ids": self.missed,
            "caught_out_of_reach": self.caught_out_of_reach,
            "false_positives": self.false_positives,
            "other_errors_in_buggy_files": self.other_errors,
        }


def _text(name: str) -> str:
    return (BUGS / name).read_text()


def defaults_only(bug: Bug) -> bool:
    """Whether both of the bug's files run in JAX's defaults (standard
    promotion, x64 off): the configuration the stubs alone type."""
    return bug.settings == Settings() and bug.fixed_settings == Settings()


def applies(setup: str, bug: Bug) -> bool:
    """Whether ``setup`` is run on the bug and scored on it: mypy with the
    plugin on every bug (it reads the settings), the stubs alone on the
    bugs in JAX's defaults (the module's docstring)."""
    return setup == MYPY_PLUGIN or defaults_only(bug)


def _files(bugs: list[Bug]) -> dict[str, str]:
    """{path in the project: text} of every buggy and fixed file."""
    return {f"{PREFIX}/{name}": _text(name) for bug in bugs for name in (bug.buggy, bug.fixed)}


def _plugin_errors(bugs: list[Bug]) -> Errors:
    """mypy with the plugin, one run per JAX setting, each file in its own."""
    groups: dict[Settings, dict[str, str]] = {}
    for bug in bugs:
        groups.setdefault(bug.settings, {})[bug.buggy] = _text(bug.buggy)
        groups.setdefault(bug.fixed_settings, {})[bug.fixed] = _text(bug.fixed)
    errors: Errors = {}
    for settings, files in groups.items():
        with tempfile.TemporaryDirectory(prefix="real-bugs-plugin-") as tmp:
            found = project_runs.mypy_with_plugin(Path(tmp), files, settings.promotion, x64=settings.x64)
        errors.update({(f"{PREFIX}/{path}", line): errs for (path, line), errs in found.items()})
    return errors


def setup_errors(checkers: list[str], bugs: list[Bug]) -> dict[str, Errors]:
    """{set-up: its errors in the bug files, by (project path, line)}."""
    files = _files([b for b in bugs if defaults_only(b)])
    project_runs.register(stubs=True, files=lambda checker: files)
    others = [c for c in checkers if c != MYPY_PLUGIN]
    runs = project_runs.project_runs((c, True) for c in others)
    found = {c: runs[c, True].errors(PREFIX) for c in others}
    if MYPY_PLUGIN in checkers:
        found[MYPY_PLUGIN] = _plugin_errors(bugs)
    return {c: found[c] for c in checkers}


def _in_file(errors: Errors, name: str) -> dict[int, list[Error]]:
    return {line: errs for (path, line), errs in errors.items() if path == f"{PREFIX}/{name}"}


def _first_line(error: Error) -> str:
    """An error's first line and its code (pyright's messages go on for lines)."""
    first = error.message.splitlines()[0] if error.message else str(error)
    return f"{first} [{error.code}]" if error.code else first


def score(setup: str, bugs: list[Bug], errors: Errors) -> SetupResult:
    """The set-up's result on the bugs it applies to (``applies``)."""
    bugs = [b for b in bugs if applies(setup, b)]
    result = SetupResult(setup, catchable=sum(b.static for b in bugs), scored=len(bugs))
    for bug in bugs:
        buggy = _in_file(errors, bug.buggy)
        statement = bug.statement_lines()
        hit = any(line in statement for line in buggy)
        if bug.static:
            (result.caught if hit else result.missed).append(bug.id)
        elif hit:
            result.caught_out_of_reach.append(bug.id)
        other = [
            f"{line}: {_first_line(e)}" for line, errs in sorted(buggy.items()) if line not in statement for e in errs
        ]
        if other:
            result.other_errors[bug.id] = other
        fixed = _in_file(errors, bug.fixed)
        if fixed:
            result.false_positives[bug.id] = [
                f"{line}: {_first_line(e)}" for line, errs in sorted(fixed.items()) for e in errs
            ]
    return result


def table(results: list[SetupResult], bugs: list[Bug]) -> str:
    rows = [
        "| set-up | caught / catchable | recall | of which the fix gets no error | fixed files with errors |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        rows.append(
            f"| {r.setup} | {len(r.caught)} / {r.catchable} | {100 * len(r.caught) / max(r.catchable, 1):.0f}% | "
            f"{len(r.caught_with_clean_fix())} | {len(r.false_positives)} / {r.scored} |"
        )
    head = "| bug | kind | settings | " + " | ".join(r.setup for r in results) + " |"
    rows += ["", head, "|---|---|---|" + "---|" * len(results)]
    for bug in bugs:
        cells: list[str] = []
        for r in results:
            if bug.id in r.caught or bug.id in r.caught_out_of_reach:
                cell = "caught"
            elif bug.id in r.missed:
                cell = "missed"
            elif not applies(r.setup, bug):
                cell = "not run"  # (its truth is another configuration's)
            else:
                cell = "-"
            if bug.id in r.false_positives:
                cell += ", FP on fixed"
            cells.append(cell)
        settings = bug.settings.label() + (
            f" (fixed: {bug.fixed_settings.label()})" if bug.fixed_settings != bug.settings else ""
        )
        rows.append(f"| {bug.id} | {bug.kind} | {settings} | " + " | ".join(cells) + " |")
    out_of_reach = [b for b in bugs if not b.static]
    if out_of_reach:
        rows.append(f"\nOut of a static check's reach ({len(out_of_reach)}):")
        rows += [f"  {b.id}: {b.why}" for b in out_of_reach]
    for r in results:
        if r.false_positives:
            rows.append(f"\n{r.setup}: errors on the fixed files:")
            rows += [f"  {bug_id}: {e}" for bug_id, errs in r.false_positives.items() for e in errs]
        if r.other_errors:
            rows.append(f"\n{r.setup}: errors in the buggy files away from the bug's line:")
            rows += [f"  {bug_id}: {e}" for bug_id, errs in r.other_errors.items() for e in errs]
    return "\n".join(rows)


def report(results: list[SetupResult], bugs: list[Bug]) -> Mapping[str, Any]:
    return {
        "bugs": len(bugs),
        "catchable": sum(b.static for b in bugs),
        "setups": [r.as_dict() for r in results],
        "out_of_reach": [{"id": b.id, "why": b.why} for b in bugs if not b.static],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--checkers", nargs="+", default=list(ALL_CHECKERS), choices=ALL_CHECKERS)
    parser.add_argument("--bugs", nargs="+", metavar="ID", help="only these bugs (default: all)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    bugs = load()
    found = problems(bugs)
    if found:
        parser.error("the manifest is inconsistent:\n" + "\n".join(found))
    if args.bugs:
        unknown = set(args.bugs) - {b.id for b in bugs}
        if unknown:
            parser.error(f"no such bugs: {', '.join(sorted(unknown))}")
        bugs = [b for b in bugs if b.id in args.bugs]
    errors = setup_errors(args.checkers, bugs)
    results = [score(c, bugs, errors[c]) for c in args.checkers]
    if args.json:
        print(json.dumps(report(results, bugs), indent=2))
    else:
        print(f"{len(bugs)} bugs, {sum(b.static for b in bugs)} within a static check's reach")
        print(table(results, bugs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
