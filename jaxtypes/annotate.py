"""``jaxtypes annotate -- COMMAND...``: run a command, record dtypes, write them.

The command (``python train.py``, ``pytest tests/``) runs as a child process
with its own arguments, environment and working directory, and with a
``sitecustomize`` first on ``PYTHONPATH`` that starts
``jaxtypes.dtype_recorder`` in every Python process it starts; its exit code
and behaviour are its own (its standard output goes to this command's
standard error, so that standard output holds the diff or the summary).
When it succeeds, the records of its processes are merged and each
project file they name is rewritten by ``jaxtypes.annotation_rewriter``
(or shown as a unified diff with ``diff``).  The summary lists the
annotations written and those left as written, with the reason.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, cast

from jaxtypes import dtype_recorder
from jaxtypes.annotation_rewriter import MIXED, RETURN, WEAK_SUFFIX, Change, FunctionRecord, Left, keyed_place, rewrite

__all__ = ["AnnotateError", "Records", "run_recorded", "load_records", "annotate"]


ITEMS = "items"  # a recorded container's dtypes: {"items": [...]} (dtype_recorder's JSON)
KEYS = "keys"  # and a string-keyed dict's, key by key: {"keys": {"k": "float32", ...}}


class AnnotateError(Exception):
    """The command could not run, or recorded nothing: the message says why."""


@dataclasses.dataclass
class Records:
    """What the command's processes saw, by file."""

    functions: dict[Path, dict[tuple[int, str], FunctionRecord]] = dataclasses.field(
        default_factory=dict[Path, dict[tuple[int, str], FunctionRecord]]
    )
    fields: dict[Path, dict[str, dict[str, list[str]]]] = dataclasses.field(
        default_factory=dict[Path, dict[str, dict[str, list[str]]]]
    )
    files_read: int = 0


def run_recorded(command: Sequence[str], root: Path, patterns: Sequence[str], out: Path) -> int:
    """Run ``command`` with the recorder started in its Python processes,
    writing their records into ``out``; its exit code."""
    hook = out / "hook"
    hook.mkdir()
    recorder = Path(dtype_recorder.__file__).resolve()
    (hook / "sitecustomize.py").write_text(
        dtype_recorder.SITECUSTOMIZE.format(here=str(hook), recorder=str(recorder)), encoding="utf-8"
    )
    records = out / "records"
    records.mkdir()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(hook), *filter(None, [env.get("PYTHONPATH")])])
    env[dtype_recorder.ENV_OUT] = str(records)
    env[dtype_recorder.ENV_ROOT] = str(root)
    env[dtype_recorder.ENV_PATHS] = json.dumps(list(patterns))
    try:
        proc = subprocess.run(list(command), env=env, stdout=2)
    except FileNotFoundError:
        raise AnnotateError(f"cannot run {command[0]!r}: no such command") from None
    except PermissionError:
        raise AnnotateError(f"cannot run {command[0]!r}: permission denied") from None
    return proc.returncode


def _merged(items: Sequence[str]) -> str:
    """What a container holding arrays of the ``items``' dtypes holds, as one
    place's value: the one strong dtype (weakly typed items of it aside), the
    one weak dtype, or ``MIXED`` and the dtypes when no one dtype is held."""
    strong = {i for i in items if not i.endswith(WEAK_SUFFIX)}
    weak = {i.removesuffix(WEAK_SUFFIX) for i in items if i.endswith(WEAK_SUFFIX)}
    if len(strong) == 1 and weak <= strong:
        return next(iter(strong))
    if not strong and len(weak) == 1:
        return next(iter(items))
    return MIXED + ",".join(sorted(strong | weak))


def _place_values(place: str, value: Any, places: dict[str, str], depth: int = 0) -> None:
    """The values a recorded ``value`` gives ``place`` and the places inside
    it: ``place[0]`` for a tuple's first item, ``place[*]`` for every item of
    a container (a dict's values, a list's or tuple's items)."""
    if isinstance(value, str):
        places[place] = value
    elif isinstance(value, dict) and isinstance(items := value.get(ITEMS), list):  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        places[f"{place}[*]"] = _merged([str(i) for i in cast("list[object]", items)])
        keys = cast("dict[str, object]", value).get(KEYS)
        if isinstance(keys, dict):
            for key, dtype in cast("dict[str, object]", keys).items():
                places[keyed_place(place, key)] = str(dtype)
    elif isinstance(value, list) and depth == 0:
        arrays: list[str] = []
        for index, item in enumerate(value):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
            _place_values(f"{place}[{index}]", item, places, depth + 1)
            if isinstance(item, str):
                arrays.append(item)
        if arrays and len(arrays) == len(value):  # pyright: ignore[reportUnknownArgumentType]
            places[f"{place}[*]"] = _merged(arrays)


def _places(seen: dict[str, Any]) -> dict[str, str]:
    places: dict[str, str] = {}
    for name, value in seen["params"].items():
        _place_values(name, value, places)
    _place_values(RETURN, seen["result"], places)
    return places


def load_records(directory: Path) -> Records:
    """The records the command's processes wrote into ``directory``, merged."""
    records = Records()
    calls: dict[tuple[Path, int, str], dict[str, dict[str, str]]] = {}
    for path in sorted(directory.glob("record-*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        records.files_read += 1
        for function in data["calls"]:
            key = (Path(function["file"]).resolve(), int(function["line"]), str(function["name"]))
            distinct = calls.setdefault(key, {})
            for seen in function["seen"]:
                places = _places(seen)
                distinct.setdefault(json.dumps(places, sort_keys=True), places)
        for cls in data["fields"]:
            attributes = records.fields.setdefault(Path(cls["file"]).resolve(), {}).setdefault(cls["class"], {})
            for name, dtypes in cls["fields"].items():
                merged = attributes.setdefault(name, [])
                merged.extend(d for d in dtypes if d not in merged)
    for (file, line, name), distinct in calls.items():
        params: dict[str, set[str]] = {}
        for places in distinct.values():
            for place, dtype in places.items():
                if not place.startswith(RETURN):
                    params.setdefault(place, set()).add(dtype)
        records.functions.setdefault(file, {})[line, name] = FunctionRecord(list(distinct.values()), params)
    return records


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _change_line(file: str, change: Change) -> str:
    written = ", ".join(f"{place}: {text}" for place, text in change.places.items())
    return f"  {file}:{change.line} {change.where}: {written}"


def _left_line(file: str, left: Left) -> str:
    return f"  {file}:{left.line} {left.where}, {left.place}: {left.reason}"


def annotate(
    command: Sequence[str],
    *,
    spelling: str,
    diff: bool,
    patterns: Sequence[str],
    root: Path,
    stdout: IO[str],
    stderr: IO[str],
) -> int:
    """Run ``command`` recording dtypes, then rewrite (or diff) the project's
    files; the summary goes to ``stdout`` (to ``stderr`` with ``diff``, after
    the diff on ``stdout``).  Returns the exit code."""
    root = root.resolve()
    with tempfile.TemporaryDirectory(prefix="jaxtypes-annotate-") as scratch:
        code = run_recorded(command, root, patterns, Path(scratch))
        if code != 0:
            stderr.write(
                f"jaxtypes annotate: the command exited with code {code}; nothing was rewritten "
                "(a failing run's dtypes are not trusted)\n"
            )
            return code if 0 < code < 256 else 1
        records = load_records(Path(scratch) / "records")
    if records.files_read == 0:
        raise AnnotateError(
            "the command started no Python process that recorded: run Python through it "
            "(python script.py, python -m pytest, pytest), without -I or -S"
        )
    summary = stderr if diff else stdout
    changes: list[str] = []
    lefts: list[str] = []
    functions = 0
    files = 0
    for file in sorted(set(records.functions) | set(records.fields)):
        if not file.is_file():
            continue
        source = file.read_text(encoding="utf-8")
        result = rewrite(source, spelling, records.functions.get(file, {}), records.fields.get(file, {}))
        shown = _shown(file, root)
        changes += [_change_line(shown, c) for c in result.changes]
        lefts += [_left_line(shown, left) for left in result.left]
        functions += len(result.changes)
        if result.source == source:
            continue
        files += 1
        if diff:
            stdout.writelines(
                difflib.unified_diff(
                    source.splitlines(keepends=True),
                    result.source.splitlines(keepends=True),
                    fromfile=f"a/{shown}",
                    tofile=f"b/{shown}",
                )
            )
        else:
            file.write_text(result.source, encoding="utf-8")
    verb = "would annotate" if diff else "annotated"
    summary.write(
        f"jaxtypes annotate: {verb} {functions} function{'s' * (functions != 1)} or class"
        f"{'es' * (functions != 1)} in {files} file{'s' * (files != 1)}; {len(lefts)} "
        f"annotation{'s' * (len(lefts) != 1)} left as written\n"
    )
    summary.writelines(line + "\n" for line in changes)
    if lefts:
        summary.write("left as written:\n")
        summary.writelines(line + "\n" for line in lefts)
    return 0
