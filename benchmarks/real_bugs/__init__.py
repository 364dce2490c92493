"""Real dtype bugs reported in public JAX projects, each with its fix.

``bugs/`` holds, per bug, the code of a public issue, pull request or fix
commit, reduced only as far as it must be to stand alone
(``NAME_buggy.py``) and the same code fixed as the thread fixed it
(``NAME_fixed.py``), both annotated with the dtypes their authors meant
(``jaxtypes.Array[bfloat16]``, which runs as it is).  ``manifest.toml``
describes each pair: its source, its kind, the line of the buggy file where a
dtype check should report, the JAX settings it runs in, what JAX gives for
each file, and whether a static check could see the bug at all.

Two commands, from the checkout's root:

- ``python -m benchmarks.real_bugs.run_jax``: runs every file under JAX (CPU)
  in its settings and checks that the buggy one shows the wrong dtype (or
  raises) and the fixed one the intended dtype, as the manifest says (JAX is
  the oracle: the manifest's dtypes were read off JAX).
- ``python -m benchmarks.real_bugs`` (``benchmarks.real_bugs.check``):
  type-checks every file in the six set-ups and reports, per set-up, the bugs
  caught at their line and the errors on the fixed files.

Each file's ``main()`` returns the array whose dtype the bug is about.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # the test extra installs tomli there
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
BUGS = HERE / "bugs"
MANIFEST = HERE / "manifest.toml"
MARK = "# bug:"  # ends the buggy line the manifest names
KINDS = (
    "silent upcast",
    "lost precision",
    "integer overflow",
    "weak type",
    "wrong dtype or param_dtype",
    "dtype mismatch error",
    "strict promotion",
    "x64 truncation",
    "complex truncation",
    "int4 or float8",
    "optimizer state dtype",
)
PROMOTIONS = ("standard", "strict")


@dataclass(frozen=True)
class Settings:
    """The JAX configuration a file runs in, and the one the plugin reads."""

    promotion: str = "standard"
    x64: bool = False

    def label(self) -> str:
        return f"{self.promotion}{', x64' if self.x64 else ''}"


@dataclass(frozen=True)
class Bug:
    id: str
    project: str
    url: str
    kind: str
    description: str
    buggy: str  # file name under bugs/
    line: int  # the buggy file's line where a dtype check should report
    fixed: str
    settings: Settings  # the buggy file's
    fixed_settings: Settings  # the fixed file's (x64 may be the fix)
    buggy_dtype: str | None  # what JAX gives, or None when it raises
    buggy_raises: str | None  # the exception JAX raises, or None
    fixed_dtype: str  # the intended dtype, JAX's for the fixed file
    static: bool  # whether a static dtype check could see the bug
    why: str  # when not: why not

    def statement_lines(self) -> range:
        """The lines of the buggy file's statement holding ``line``: an error
        anywhere in that statement is reported where the bug is written."""
        tree = ast.parse((BUGS / self.buggy).read_text())
        best: tuple[int, int] | None = None
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and not isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.While, ast.If, ast.With)
            ):
                end = node.end_lineno or node.lineno
                if node.lineno <= self.line <= end and (best is None or end - node.lineno < best[1] - best[0]):
                    best = (node.lineno, end)
        if best is None:
            raise ValueError(f"{self.buggy}:{self.line}: no statement there")
        return range(best[0], best[1] + 1)


def _bug(entry: dict[str, Any]) -> Bug:
    settings = Settings(entry.get("promotion", "standard"), bool(entry.get("x64", False)))
    fixed_settings = Settings(settings.promotion, bool(entry.get("fixed_x64", settings.x64)))
    return Bug(
        id=entry["id"],
        project=entry["project"],
        url=entry["url"],
        kind=entry["kind"],
        description=entry["description"],
        buggy=entry["buggy"],
        line=int(entry["line"]),
        fixed=entry["fixed"],
        settings=settings,
        fixed_settings=fixed_settings,
        buggy_dtype=entry.get("buggy_dtype"),
        buggy_raises=entry.get("buggy_raises"),
        fixed_dtype=entry["fixed_dtype"],
        static=bool(entry["static"]),
        why=entry.get("why", ""),
    )


def load(path: Path = MANIFEST) -> list[Bug]:
    """The manifest's bugs, in its order."""
    data = tomllib.loads(path.read_text())
    return [_bug(entry) for entry in data["bug"]]


def problems(bugs: list[Bug]) -> list[str]:
    """What is wrong with the manifest itself (not with what JAX does)."""
    found: list[str] = []
    seen: set[str] = set()
    for bug in bugs:
        where = bug.id
        if bug.id in seen:
            found.append(f"{where}: id given twice")
        seen.add(bug.id)
        if bug.kind not in KINDS:
            found.append(f"{where}: kind {bug.kind!r} is none of {KINDS}")
        if not bug.url.startswith("https://github.com/"):
            found.append(f"{where}: the source must be a public thread's address")
        if bug.settings.promotion not in PROMOTIONS:
            found.append(f"{where}: promotion {bug.settings.promotion!r}")
        if (bug.buggy_dtype is None) == (bug.buggy_raises is None):
            found.append(f"{where}: give buggy_dtype or buggy_raises, not both")
        if bug.buggy_dtype == bug.fixed_dtype and bug.settings == bug.fixed_settings:
            found.append(f"{where}: the buggy and the fixed file give one dtype")
        if not bug.static and not bug.why:
            found.append(f"{where}: out of a static check's reach: say why")
        for name in (bug.buggy, bug.fixed):
            if not (BUGS / name).is_file():
                found.append(f"{where}: no file bugs/{name}")
        if (BUGS / bug.buggy).is_file():
            lines = (BUGS / bug.buggy).read_text().splitlines()
            if not 0 < bug.line <= len(lines) or MARK not in lines[bug.line - 1]:
                found.append(f"{where}: line {bug.line} of {bug.buggy} is not the one marked {MARK!r}")
            marked = [n for n, text in enumerate(lines, 1) if MARK in text]
            if marked != [bug.line]:
                found.append(f"{where}: {bug.buggy} marks lines {marked}, the manifest names {bug.line}")
    return found
