"""One checker run per set-up over the case files of every test module.

Several test modules check their case files in each of the six set-ups, with
the JAX stubs as the README sets them up (`jaxtypes jax-stubs install` in an
environment of the session's, then each checker run from a project
directory whose only stub setting is the line the command printed for it,
``installed``; pyright and basedpyright also get the rules the cases are
written for) or without them (plain JAX, with jaxtypes' own ``Array``).
(The stubs written with ``--out typings`` are checked by the slow set and
the README's example.)  A checker run has a
fixed cost (pyright reads JAX's and NumPy's stubs anew each run, about 2 s)
and evaluates each JAX function's overloads once per run, so the modules
register their files here when they are imported, and the first test that
asks for a set-up's run checks every registered file in one run.  The
pytest-xdist workers collect the same modules, so they register the same
files: they share the run through the session's directory
(tests/conftest.py), the first to ask runs it under a lock, the others read
its output.

A file two modules register under the same path must have the same text (it
is then checked once); paths are relative to the project and keep each
module's own prefix (``scenarios/...``, ``readme/...``), and no two files may
share a base name, which mypy would take as two modules of one name.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import fcntl
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tools.checkers import (
    PYRIGHT_RULES,
    SHARED_MYPY_CACHES,
    STUBS,
    Errors,
    checker_env,
    command,
    execute,
    reported_errors,
    revealed,
    stage,
)

import environments

# A module's files for one set-up: checker -> {path in the project: text}.
FileSet = Callable[[str], Mapping[str, str]]

_REGISTERED: dict[bool, list[FileSet]] = {True: [], False: []}
_READ: dict[tuple[str, bool], ProjectRun] = {}
_FILES: dict[tuple[str, bool], dict[str, str]] = {}
_FALLBACK_BASE: list[Path] = []  # outside a pytest session (no shared directory)


def register(*, stubs: bool, files: FileSet) -> None:
    """Check ``files`` in each set-up's run with the JAX stubs (``stubs``) or without."""
    _REGISTERED[stubs].append(files)


@dataclass(frozen=True)
class ProjectRun:
    """One checker's run over every registered file of a set-up."""

    checker: str
    root: Path
    out: str

    @functools.cached_property
    def _errors(self) -> Errors:
        return reported_errors(self.checker, self.out, self.root)

    @functools.cached_property
    def _reveals(self) -> dict[tuple[str, int], list[str]]:
        return revealed(self.checker, self.out, self.root)

    def errors(self, *under: str) -> Errors:
        """The errors in the files under the directories ``under`` (the output
        is read once: tests ask line by line)."""
        prefixes = tuple(u + "/" for u in under)
        return {key: v for key, v in self._errors.items() if key[0].startswith(prefixes)}

    def reveals(self, *under: str) -> dict[tuple[str, int], list[str]]:
        """The revealed types in the files under the directories ``under``."""
        prefixes = tuple(u + "/" for u in under)
        return {key: v for key, v in self._reveals.items() if key[0].startswith(prefixes)}


def _base() -> Path:
    shared = os.environ.get(SHARED_MYPY_CACHES)
    if shared:
        base = Path(shared) / "project-runs"
    else:
        if not _FALLBACK_BASE:
            _FALLBACK_BASE.append(Path(tempfile.mkdtemp(prefix="jaxtypes-project-runs-")))
        base = _FALLBACK_BASE[0]
    base.mkdir(parents=True, exist_ok=True)
    return base


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path.with_name(path.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def installed() -> tuple[Path, str]:
    """The session's environment with `jaxtypes jax-stubs install` run in it,
    made once (the README's set-up), and what the command printed.  Runs
    only read it: the life-cycle tests (tests/test_jax_stubs.py) change
    environments of their own."""
    target = _base() / "installed"
    printed = target / "install-output.txt"
    with _locked(target):
        if not printed.is_file():
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir()
            python, _ = environments.make_venv(target / "venv", pip=False)  # as uv makes one: faster
            proc = environments.jaxtypes_in(python, "jax-stubs", "install")
            if proc.returncode != 0:
                raise RuntimeError(f"jaxtypes jax-stubs install failed:\n{proc.stderr}")
            printed.write_text(proc.stdout)
    return target / "venv", printed.read_text()


def mypy_with_plugin(root: Path, files: Mapping[str, str], promotion: str = "standard", x64: bool = False) -> Errors:
    """The errors of mypy with the plugin, in the session's environment with
    the stubs installed (the README's set-up), on ``files`` written to
    ``root``, with these ``[jaxtypes]`` settings."""
    from tools.checkers import launch, plugin_config

    for rel, text in files.items():
        (root / rel).write_text(text)
    venv = installed()[0]
    cmd = environments.mypy_in(venv, root, plugin_config(promotion, x64=x64), list(files))
    run = launch("mypy", root, cmd, 600, environments.user_env(venv))
    return reported_errors("mypy", run.stdout, root)


def typings() -> Path:
    """The session's stubs, written once by ``jaxtypes jax-stubs --out typings``."""
    target = _base() / "stubs" / STUBS
    target.parent.mkdir(exist_ok=True)
    with _locked(target):
        if not (target / "jaxtypes-stubs").is_dir():
            proc = subprocess.run(
                [sys.executable, "-m", "jaxtypes", "jax-stubs", "--out", STUBS],
                cwd=target.parent,
                env=checker_env(),
                capture_output=True,
                text=True,
                timeout=600,
            )
            if proc.returncode != 0:
                raise RuntimeError(f"jaxtypes jax-stubs --out {STUBS} failed:\n{proc.stderr}")
    return target


def files_of(checker: str, stubs: bool) -> dict[str, str]:
    """Every file registered for a set-up, by path."""
    files: dict[str, str] = {}
    for file_set in _REGISTERED[stubs]:
        for rel, text in file_set(checker).items():
            if files.get(rel, text) != text:
                raise ValueError(f"{rel}: registered twice with different texts")
            files[rel] = text
    names: dict[str, str] = {}
    for rel in files:
        name = PurePosixPath(rel).name
        if names.setdefault(name, rel) != rel:
            raise ValueError(f"{rel} and {names[name]}: one base name, which mypy would take as one module twice")
    return files


def _files_of_run(checker: str, stubs: bool) -> dict[str, str]:
    """``files_of``, once per set-up and process."""
    if (checker, stubs) not in _FILES:
        _FILES[checker, stubs] = files_of(checker, stubs)
    return _FILES[checker, stubs]


def project_run(checker: str, stubs: bool) -> ProjectRun:
    """The set-up's run over every registered file (run once per session)."""
    if (checker, stubs) in _READ:
        return _READ[checker, stubs]
    files = _files_of_run(checker, stubs)
    if not files:
        raise ValueError(f"no files registered for {checker} {'with' if stubs else 'without'} the stubs")
    key = hashlib.sha256(json.dumps([checker, stubs, sorted(files.items())]).encode()).hexdigest()[:16]
    where = _base() / f"{checker}-{'stubs' if stubs else 'plain'}-{key}"
    root, result = where / "project", where / "output.json"
    with _locked(where):
        if not result.is_file():
            shutil.rmtree(where, ignore_errors=True)
            root.mkdir(parents=True)
            paths = stage(files, root)
            if stubs:
                venv, printed = installed()
                environments.write_printed_settings(root, checker, environments.printed_settings(printed))
                if checker in ("pyright", "basedpyright"):  # their rules, not the stubs' (none printed)
                    (root / "pyrightconfig.json").write_text(json.dumps(PYRIGHT_RULES))
                cmd = environments.user_command(checker, venv, root, paths)
                out = execute(checker, root, cmd, timeout=1200, env=environments.user_env(venv))
            else:
                out = execute(checker, root, command(checker, root, paths), timeout=1200)
            result.write_text(json.dumps({"out": out}))
    run = ProjectRun(checker, root, json.loads(result.read_text())["out"])
    _READ[checker, stubs] = run
    return run


def project_runs(setups: Iterable[tuple[str, bool]]) -> dict[tuple[str, bool], ProjectRun]:
    """Several set-ups' runs, two at a time (each checker takes about a core).
    Their files are made first, in this thread: the file sets parse Python,
    and CPython 3.11's ``ast.parse`` in two threads at once can fail with
    "SystemError: AST constructor recursion depth mismatch" (python/cpython
    issue 106905; seen here in a run of the default tests)."""
    setups = list(setups)
    for checker, stubs in setups:
        _files_of_run(checker, stubs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(setups, pool.map(lambda s: project_run(*s), setups)))
