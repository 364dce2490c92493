"""Run every real bug's buggy and fixed file under JAX (CPU) and check what JAX does.

``python -m benchmarks.real_bugs.run_jax [--bugs ID ...] [--json]``, from the
checkout's root.  Each file's ``main()`` runs in a process of its own
settings (``JAX_NUMPY_DTYPE_PROMOTION``, ``JAX_ENABLE_X64``: the manifest's,
one process per setting, set before JAX starts); the buggy file must raise the
manifest's exception or give its wrong dtype, the fixed file must give the
intended dtype.  Exits 1 on any difference, or when the manifest itself is
inconsistent (``benchmarks.real_bugs.problems``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.real_bugs import BUGS, Bug, Settings, load, problems

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Outcome:
    """What one file's ``main()`` did under JAX."""

    file: str
    dtype: str | None
    weak: bool
    raised: tuple[str, ...]  # the exception's class and its bases' names, () if none
    message: str

    def describe(self) -> str:
        if self.raised:
            return f"raises {self.raised[0]}"
        return f"{self.dtype}{' (weak)' if self.weak else ''}"


def _run_file(path: Path) -> dict[str, Any]:
    """In the worker: import ``path`` as a module of its own and run its main()."""
    spec = importlib.util.spec_from_file_location(f"real_bugs_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        with warnings.catch_warnings():
            # JAX warns where x64 is off and a 64-bit dtype is asked for: what some bugs are.
            warnings.simplefilter("ignore")
            spec.loader.exec_module(module)
            value = module.main()
    except Exception as err:  # noqa: BLE001  # the bug under test may raise anything: recorded, judged by the caller
        names = [cls.__name__ for cls in type(err).__mro__ if cls is not object]
        return {"file": path.name, "dtype": None, "weak": False, "raised": names, "message": str(err)[:300]}
    aval = getattr(value, "aval", None)
    return {
        "file": path.name,
        "dtype": str(value.dtype),
        "weak": bool(getattr(aval, "weak_type", False)),
        "raised": [],
        "message": "",
    }


def worker(files: list[str]) -> int:
    """Run the files in this process's settings; one JSON object a line."""
    for name in files:
        print(json.dumps(_run_file(BUGS / name)), flush=True)
    return 0


def run_group(settings: Settings, files: list[str]) -> dict[str, Outcome]:
    """The files' outcomes in a fresh process of these settings."""
    env = {
        **os.environ,
        "JAX_PLATFORMS": "cpu",
        "JAX_ENABLE_X64": "1" if settings.x64 else "0",
        "JAX_NUMPY_DTYPE_PROMOTION": settings.promotion,
    }
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.real_bugs.run_jax", "--worker", *files],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"the JAX worker ({settings.label()}) failed:\n{proc.stderr[-4000:]}")
    outcomes: dict[str, Outcome] = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            raw = json.loads(line)
            outcomes[raw["file"]] = Outcome(
                raw["file"], raw["dtype"], raw["weak"], tuple(raw["raised"]), raw["message"]
            )
    return outcomes


def run_all(bugs: list[Bug]) -> dict[str, Outcome]:
    """Every buggy and fixed file's outcome, each in its own settings."""
    groups: dict[Settings, list[str]] = {}
    for bug in bugs:
        groups.setdefault(bug.settings, []).append(bug.buggy)
        groups.setdefault(bug.fixed_settings, []).append(bug.fixed)
    outcomes: dict[str, Outcome] = {}
    for settings, files in groups.items():
        outcomes.update(run_group(settings, files))
    return outcomes


def verdict(bug: Bug, outcomes: dict[str, Outcome]) -> list[str]:
    """How JAX's outcomes differ from the manifest's (empty: as it says)."""
    wrong: list[str] = []
    buggy, fixed = outcomes.get(bug.buggy), outcomes.get(bug.fixed)
    if buggy is None or fixed is None:
        return [f"{bug.id}: not run"]
    if bug.buggy_raises is not None:
        if bug.buggy_raises not in buggy.raised:
            wrong.append(f"{bug.id}: {bug.buggy} should raise {bug.buggy_raises}, {buggy.describe()}")
    elif buggy.raised or buggy.dtype != bug.buggy_dtype:
        wrong.append(f"{bug.id}: {bug.buggy} should give {bug.buggy_dtype}, {buggy.describe()} {buggy.message}")
    if fixed.raised or fixed.dtype != bug.fixed_dtype:
        wrong.append(f"{bug.id}: {bug.fixed} should give {bug.fixed_dtype}, {fixed.describe()} {fixed.message}")
    return wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--bugs", nargs="+", metavar="ID", help="only these bugs (default: all)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--worker", nargs="+", metavar="FILE", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.worker)
    bugs = load()
    found = problems(bugs)
    if args.bugs:
        unknown = set(args.bugs) - {b.id for b in bugs}
        if unknown:
            parser.error(f"no such bugs: {', '.join(sorted(unknown))}")
        bugs = [b for b in bugs if b.id in args.bugs]
    outcomes = run_all(bugs)
    rows: list[dict[str, Any]] = []
    for bug in bugs:
        wrong = verdict(bug, outcomes)
        found += wrong
        rows.append(
            {
                "id": bug.id,
                "settings": bug.settings.label(),
                "buggy": outcomes[bug.buggy].describe() if bug.buggy in outcomes else None,
                "fixed": outcomes[bug.fixed].describe() if bug.fixed in outcomes else None,
                "fixed_settings": bug.fixed_settings.label(),
                "as_the_manifest_says": not wrong,
            }
        )
    if args.json:
        print(json.dumps({"bugs": rows, "problems": found}, indent=2))
    else:
        print("| bug | settings | buggy file under JAX | fixed file under JAX | as the manifest says |")
        print("|---|---|---|---|---|")
        for row in rows:
            fixed_in = "" if row["fixed_settings"] == row["settings"] else f" ({row['fixed_settings']})"
            print(
                f"| {row['id']} | {row['settings']} | {row['buggy']} | {row['fixed']}{fixed_in} | "
                f"{'yes' if row['as_the_manifest_says'] else 'NO'} |"
            )
        for problem in found:
            print(f"problem: {problem}")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
