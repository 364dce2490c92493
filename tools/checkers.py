"""Runs the type checkers on case files and collects their errors by line.

The one checker runner of the project: the tests, the benchmarks (which put
``tests/`` on ``sys.path``) and the example use it.  ``command`` says how each
checker is invoked and configured, ``execute`` runs it, ``reported_errors`` and
``revealed`` read its machine-readable output.

Each checker runs once over all the files it is given, in a scratch directory
holding copies of them, with PYTHONPATH removed: the checkers must resolve
``jaxtypes`` to the installed package (with its stubs), as a user's would.
A checker that is not installed is an error, never a skip.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Final, NamedTuple

from jaxtypes._stubgen import jax_stubs

CHECKERS = ("mypy", "pyright", "basedpyright", "pyrefly", "ty")
# mypy with ``plugins = jaxtypes.mypy_plugin``; its settings go in mypy_config.
MYPY_PLUGIN = "mypy-plugin"
ALL_CHECKERS = (*CHECKERS[:1], MYPY_PLUGIN, *CHECKERS[1:])
PLUGIN_CONFIG = "[mypy]\nplugins = jaxtypes.mypy_plugin\n"
BIN = Path(sys.executable).parent

STUBS = "typings"  # where ``jaxtypes jax-stubs --out typings`` puts them in a project


def stub_setting(checker: str) -> jax_stubs.Setting:
    """What ``jaxtypes jax-stubs --out typings`` prints (and docs/jax-stubs.md says)
    for a checker's configuration."""
    name = "mypy" if checker == MYPY_PLUGIN else checker
    (setting,) = [s for s in jax_stubs.setup(STUBS) if s.checker == name]
    return setting


def plugin_config(promotion: str = "standard", x64: bool = False) -> str:
    """mypy.ini text enabling the plugin with these [jaxtypes] settings."""
    return PLUGIN_CONFIG + f"\n[jaxtypes]\npromotion = {promotion}\nx64 = {str(x64).lower()}\n"


class Error(str):
    """One error a checker reports, as text ending with its error code (mypy's
    ``... [operator]``, pyright's ``... (reportOperatorIssue)``), with the code
    ("" when the checker gives none) and the message apart."""

    code: str
    message: str

    def __new__(cls, code: str, message: str, text: str | None = None) -> Error:
        error = super().__new__(cls, f"{message} [{code}]" if text is None else text)
        error.code, error.message = code, message
        return error


# Errors keyed by (path relative to the scratch root, 1-based line).
Errors = dict[tuple[str, int], list[Error]]


def tool(name: str) -> str:
    """The path of a checker's executable: this environment's, else PATH's."""
    path = BIN / name
    if not path.exists():
        found = shutil.which(name)
        if found is None:
            raise RuntimeError(f"type checker {name!r} is not installed; install the test extra")
        return found
    return str(path)


def checker_env(**extra: str) -> dict[str, str]:
    """The environment of a checker run: without PYTHONPATH and MYPYPATH, which
    could point at a source tree instead of the installed package."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    env.update(extra)
    return env


def stage(files: Mapping[str, str], root: Path) -> list[str]:
    """Write {relative path: text} under root; return the relative paths."""
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return sorted(files)


# A directory the test session keeps mypy caches in (tests/conftest.py makes
# it), so that JAX and NumPy are analysed once per mypy configuration, not
# once per run.  Each run gets a private cache, copied from the snapshot of its
# configuration (the configuration file's text) when there is one;
# the first run of a configuration leaves the snapshot (runs of the same
# configuration meanwhile wait for it rather than analyse JAX too), without
# the modules it was given: a module of the same name and text in another
# project would replay its cached errors under the first project's path (mypy
# takes a moved file of unchanged hash as fresh).  Unset (benchmarks, the
# example run by hand) or empty, mypy runs cold.
SHARED_MYPY_CACHES = "JAXTYPES_TEST_MYPY_CACHES"
_RUN_NOTE = "jaxtypes-run.json"  # in a run's private cache: its snapshot, its own modules


def mypy_cache_flags(config: str, paths: Iterable[str], environment: str = sys.prefix) -> list[str]:
    """mypy's cache flags for a run over ``paths`` (relative to the project)
    with this configuration file text, in the Python ``environment`` (its
    prefix): a private cache that ``launch`` (or ``mypy_run_cache`` around a
    run) fills from the session's snapshot, publishes and removes; else
    ``--no-incremental``."""
    shared = os.environ.get(SHARED_MYPY_CACHES)
    if not shared:
        return ["--no-incremental"]
    cache = Path(tempfile.mkdtemp(prefix="run-", dir=shared))
    note = {"snapshot": str(snapshot_of(config, environment)), "modules": sorted(_module_names(paths))}
    (cache / _RUN_NOTE).write_text(json.dumps(note))
    return ["--cache-dir", str(cache)]


def snapshot_of(config: str, environment: str = sys.prefix) -> Path:
    """Where the session keeps the cache snapshot of a configuration in a
    Python environment.  (A snapshot of another environment would be correct,
    as mypy re-analyses a module found at another path or with other
    contents, such as the stubs installed there, but no faster.)"""
    key = hashlib.sha256(f"{environment}\n{config}".encode()).hexdigest()[:16]
    return Path(os.environ[SHARED_MYPY_CACHES]) / key


def _module_names(paths: Iterable[str]) -> set[str]:
    """The cache names (without suffix) mypy may give the modules of these
    files: every tail of the path, as the module name depends on __init__ files."""
    names = set()
    for path in paths:
        parts = Path(path).with_suffix("").parts
        names.update("/".join(parts[start:]) for start in range(len(parts)))
    return names


def _module_of(name: str) -> str:
    """The module part of a cache entry's name ("pkg/mod.meta.ff" -> "pkg/mod")."""
    head, _, base = name.rpartition("/")
    stem = base.split(".", 1)[0]
    return f"{head}/{stem}" if head else stem


def _cache_entries(cache: Path) -> list[tuple[Path, str]]:
    """(file, entry name) of each entry of a mypy cache: rows of its SQLite
    shards, or files (an older mypy's cache)."""
    entries = []
    for version in (v for v in cache.iterdir() if v.is_dir()):
        for db in sorted(version.glob("cache*.db")):
            with contextlib.closing(sqlite3.connect(db)) as conn:
                entries += [(db, name) for (name,) in conn.execute("SELECT path FROM files2")]
        entries += [(f, f.relative_to(version).as_posix()) for f in sorted(version.rglob("*.json"))]
    return entries


def cached_modules(cache: Path) -> set[str]:
    """The modules a mypy cache holds entries for, as cache names ("pkg/mod")."""
    return {_module_of(name) for _, name in _cache_entries(cache)}


def _forget_modules(cache: Path, modules: set[str]) -> None:
    """Drop these modules' entries from a mypy cache."""
    rows: dict[Path, list[str]] = defaultdict(list)
    for file, name in _cache_entries(cache):
        if _module_of(name) in modules:
            if file.suffix == ".db":
                rows[file].append(name)
            else:
                file.unlink()
    for db, names in rows.items():
        with contextlib.closing(sqlite3.connect(db)) as conn:
            conn.executemany("DELETE FROM files2 WHERE path = ?", [(name,) for name in names])
            conn.commit()


@contextlib.contextmanager
def mypy_run_cache(cmd: list[str]) -> Iterator[None]:
    """Around a mypy run with a private cache (``mypy_cache_flags``): fill it
    from its configuration's snapshot, or, for the first run, publish it as
    the snapshot without the run's own modules, holding the snapshot's lock
    meanwhile; then remove it."""
    cache = Path(cmd[cmd.index("--cache-dir") + 1]) if "--cache-dir" in cmd else None
    if cache is None or not (cache / _RUN_NOTE).is_file():
        yield  # no cache, or one the caller keeps (benchmarks)
        return
    note = json.loads((cache / _RUN_NOTE).read_text())
    (cache / _RUN_NOTE).unlink()
    snapshot = Path(note["snapshot"])
    try:
        with open(snapshot.with_name(snapshot.name + ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not snapshot.is_dir():
                yield
                _forget_modules(cache, set(note["modules"]))
                cache.rename(snapshot)
                return
        shutil.copytree(snapshot, cache, dirs_exist_ok=True)
        yield
    finally:
        shutil.rmtree(cache, ignore_errors=True)


MYPY_FLAGS = ("--show-error-codes", "--no-error-summary", "--hide-error-context", "--no-color-output", "--no-pretty")


# The rules the case files are written for, in pyright and basedpyright (whose
# default is its stricter "recommended"): a project's choice, no stub setting.
PYRIGHT_RULES: Final = {
    "typeCheckingMode": "standard",
    "reportUnusedExpression": False,
    "reportUnnecessaryTypeIgnoreComment": False,
}


def command(
    checker: str,
    root: Path,
    paths: Iterable[str],
    *,
    mypy_config: str | None = None,
    stubs: bool = False,
    mypy_cache: Path | None = None,
) -> list[str]:
    """The command line that runs one checker over ``paths`` in ``root``,
    writing its configuration files there.

    ``mypy_config`` is the mypy.ini of "mypy" (default: empty) and of
    "mypy-plugin" (default: the plugin with JAX's default settings).  mypy uses
    the cache ``mypy_cache`` names, else the one ``mypy_cache_flags`` gives.
    With ``stubs``, ``root/typings`` holds stubs made by ``jaxtypes jax-stubs
    --out typings``, and each checker is configured by the line the command
    prints, verbatim, in the file it names (pyrefly then checks the project,
    not file names, which would make it ignore its configuration)."""
    paths = list(paths)
    if checker in ("mypy", MYPY_PLUGIN):
        if mypy_config is None:
            mypy_config = plugin_config() if checker == MYPY_PLUGIN else "[mypy]\n"
        if stubs:
            setting = stub_setting(checker)
            assert (setting.file, setting.section) == ("mypy.ini", "[mypy]"), setting
            mypy_config = mypy_config.replace("[mypy]\n", f"[mypy]\n{setting.line}\n", 1)
        (root / "mypy.ini").write_text(mypy_config)
        cache = mypy_cache_flags(mypy_config, paths) if mypy_cache is None else ["--cache-dir", str(mypy_cache)]
        return [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            "mypy.ini",
            *cache,
            *MYPY_FLAGS,
            "--python-executable",
            sys.executable,
            *paths,
        ]
    if checker in ("pyright", "basedpyright"):
        config: dict[str, object] = {**PYRIGHT_RULES, "pythonVersion": f"{sys.version_info[0]}.{sys.version_info[1]}"}
        setting = stub_setting(checker) if stubs else None
        if setting is not None and setting.line:  # none for typings, their default stubPath
            assert setting.file == "pyrightconfig.json", setting
            config.update(json.loads("{" + setting.line + "}"))
        (root / "pyrightconfig.json").write_text(json.dumps(config))
        return [tool(checker), "--outputjson", "--pythonpath", sys.executable, "-p", "pyrightconfig.json", *paths]
    if stubs and checker in ("pyrefly", "ty"):
        _write_stub_project(root, paths)
    if checker == "pyrefly":
        # No walk-up search path: from the installed jaxtypes it would reach a
        # checkout's source tree (no stubs) when the venv lives inside it.
        output = ["--output-format", "json", "--summary=none"]
        if stubs:  # the settings are in pyproject.toml
            return [tool("pyrefly"), "check", *output]
        return [
            tool("pyrefly"),
            "check",
            "--preset",
            "default",
            "--python-interpreter-path",
            sys.executable,
            "--disable-search-path-heuristics",
            "--search-path",
            ".",
            *output,
            *paths,
        ]
    if checker == "ty":
        return [tool("ty"), "check", "--python", sys.prefix, "--output-format", "concise", "--color", "never", *paths]
    raise ValueError(f"unknown checker {checker!r}; expected one of {', '.join(ALL_CHECKERS)}")


def _write_stub_project(root: Path, paths: list[str]) -> None:
    """pyproject.toml with pyrefly's and ty's printed settings for typings/
    (pyrefly's other options as ``command`` passes them without stubs), one
    file for both, so that they may share a root."""
    pyrefly, ty = stub_setting("pyrefly"), stub_setting("ty")
    assert (pyrefly.file, pyrefly.section) == ("pyproject.toml", "[tool.pyrefly]"), pyrefly
    assert (ty.file, ty.section) == ("pyproject.toml", "[tool.ty.environment]"), ty
    # The printed search path, and the project's root, which pyrefly's
    # search-path heuristics (disabled here, see ``command``) add in a user's
    # project: its own modules importing each other by name.
    search_path = [*json.loads(pyrefly.line.split("=", 1)[1]), "."]
    (root / "pyproject.toml").write_text(
        f"{pyrefly.section}\nsearch-path = {json.dumps(search_path)}\npreset = \"default\"\n"
        f"disable-search-path-heuristics = true\nproject-includes = {json.dumps(paths)}\n"
        f"python-interpreter-path = {json.dumps(sys.executable)}\n\n"
        f"{ty.section}\n{ty.line}\n"
    )


class Finished(NamedTuple):
    """A checker run: its output, wall time and CPU time (user + system of the
    child processes, measured around the run: meaningful when nothing else
    runs a child process meanwhile)."""

    stdout: str
    stderr: str
    wall: float
    cpu: float


def launch(
    checker: str, root: Path, cmd: list[str], timeout: float = 1200, env: Mapping[str, str] | None = None
) -> Finished:
    """Run a checker's command in ``root`` (environment: ``checker_env()``).
    A crash or an unexpected exit status is an error."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with mypy_run_cache(cmd):
        proc = subprocess.run(
            cmd,
            cwd=root,
            env=dict(env) if env is not None else checker_env(),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = proc.stdout
    if "Traceback" in proc.stderr or "INTERNAL ERROR" in out + proc.stderr:
        raise RuntimeError(f"{checker} crashed:\n{proc.stderr[-4000:]}\n{out[-2000:]}")
    if checker in ("mypy", MYPY_PLUGIN, "ty") and proc.returncode not in (0, 1):
        raise RuntimeError(f"{checker} failed with exit code {proc.returncode}:\n{proc.stderr[-4000:]}\n{out[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Finished(out, proc.stderr, wall, cpu)


def execute(
    checker: str, root: Path, cmd: list[str], timeout: float = 1200, env: Mapping[str, str] | None = None
) -> str:
    """Run a checker's command in ``root`` as ``launch`` does; its standard output."""
    return launch(checker, root, cmd, timeout, env).stdout


def _relative(path: str, root: Path) -> str:
    """A reported path relative to ``root`` (pyright and pyrefly checking a
    project report absolute ones)."""
    p = Path(path)
    return p.resolve().relative_to(root.resolve()).as_posix() if p.is_absolute() else p.as_posix()


_MYPY_ERROR = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+): error: (?P<msg>.*?)(?:  \[(?P<code>[\w-]+)\])?$", re.M)
_TY_ERROR = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+):\d+: error\[(?P<code>[\w-]+)\] (?P<msg>.*)$", re.M)


def reported_errors(checker: str, out: str, root: Path) -> Errors:
    """The errors in one checker's output (as ``command`` asks for it), by
    (path relative to ``root``, 1-based line)."""
    errors: Errors = defaultdict(list)
    if checker in ("pyright", "basedpyright"):
        for diag in json.loads(out)["generalDiagnostics"]:
            if diag["severity"] == "error":
                rule = diag.get("rule", "")
                errors[_relative(diag["file"], root), diag["range"]["start"]["line"] + 1].append(
                    Error(rule, diag["message"], f"{diag['message']} ({rule})")
                )
    elif checker == "pyrefly":
        for err in json.loads(out or '{"errors": []}')["errors"]:
            if err["severity"] == "error":
                errors[_relative(err["path"], root), err["line"]].append(Error(err["name"], err["concise_description"]))
    elif checker in ("mypy", MYPY_PLUGIN, "ty"):
        for m in (_TY_ERROR if checker == "ty" else _MYPY_ERROR).finditer(out):
            code, msg = m.group("code") or "", m.group("msg")
            text = None if checker == "ty" else f"{msg}  [{code}]" if code else msg  # mypy's own text
            errors[Path(m.group("path")).as_posix(), int(m.group("line"))].append(Error(code, msg, text))
    else:
        raise ValueError(f"unknown checker {checker!r}; expected one of {', '.join(ALL_CHECKERS)}")
    return dict(errors)


def revealed(checker: str, out: str, root: Path) -> dict[tuple[str, int], list[str]]:
    """The types a checker's output reveals (``reveal_type``), keyed by (path
    relative to ``root``, 1-based line), as the checker prints them."""
    found: dict[tuple[str, int], list[str]] = defaultdict(list)
    if checker in ("pyright", "basedpyright"):
        for diag in json.loads(out)["generalDiagnostics"]:
            m = re.match(r'^Type of ".*" is "(.*)"$', diag["message"], re.S)
            if diag["severity"] == "information" and m:
                found[_relative(diag["file"], root), diag["range"]["start"]["line"] + 1].append(m.group(1))
    elif checker == "pyrefly":
        for err in json.loads(out or '{"errors": []}')["errors"]:
            if err["name"] == "reveal-type":
                m = re.match(r"^revealed type: (.*)$", err["concise_description"], re.S)
                if m:
                    found[_relative(err["path"], root), err["line"]].append(m.group(1))
    else:
        pattern = (
            r'^(?P<path>[^:\n]+):(?P<line>\d+): note: Revealed type is "(?P<type>.*)"$'
            if checker in ("mypy", MYPY_PLUGIN)
            else r"^(?P<path>[^:\n]+):(?P<line>\d+):\d+: info\[revealed-type\] Revealed type: `(?P<type>.*)`$"
        )
        for m in re.finditer(pattern, out, re.M):
            found[Path(m.group("path")).as_posix(), int(m.group("line"))].append(m.group("type"))
    return dict(found)


def run(
    checker: str,
    root: Path,
    paths: Iterable[str],
    *,
    mypy_config: str | None = None,
    stubs: bool = False,
    timeout: float = 1200,
) -> Errors:
    """Run one checker over ``paths`` (relative to ``root``); return its errors.
    ``mypy_config`` and ``stubs`` are as for ``command``."""
    cmd = command(checker, root, paths, mypy_config=mypy_config, stubs=stubs)
    return reported_errors(checker, execute(checker, root, cmd, timeout), root)
