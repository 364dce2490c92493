"""Runs the five type checkers on case files and collects their errors by line.

Each checker runs once over all the files it is given, in a scratch directory
holding copies of them, with PYTHONPATH removed: the checkers must resolve
``jaxtypes`` to the installed package (with its stubs), as a user's would.
A checker that is not installed is an error, never a skip.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path

from jaxtypes import jax_stubs

CHECKERS = ("mypy", "pyright", "basedpyright", "pyrefly", "ty")
# mypy with ``plugins = jaxtypes.mypy_plugin``; its settings go in mypy_config.
MYPY_PLUGIN = "mypy-plugin"
PLUGIN_CONFIG = "[mypy]\nplugins = jaxtypes.mypy_plugin\n"


def plugin_config(promotion: str = "standard", x64: bool = False) -> str:
    """mypy.ini text enabling the plugin with these [jaxtypes] settings."""
    return PLUGIN_CONFIG + f"\n[jaxtypes]\npromotion = {promotion}\nx64 = {str(x64).lower()}\n"
BIN = Path(sys.executable).parent

# Errors keyed by (path relative to the scratch root, 1-based line).
Errors = dict[tuple[str, int], list[str]]


def tool(name: str) -> str:
    """The path of a checker's executable: this environment's, else PATH's."""
    path = BIN / name
    if not path.exists():
        found = shutil.which(name)
        if found is None:
            raise RuntimeError(f"type checker {name!r} is not installed; install the test extra")
        return found
    return str(path)


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}


def stage(files: Mapping[str, str], root: Path) -> list[str]:
    """Write {relative path: text} under root; return the relative paths."""
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return sorted(files)


def _mypy(root: Path, paths: list[str], mypy_config: str) -> tuple[list[str], str]:
    (root / "mypy.ini").write_text(mypy_config)
    cmd = [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--no-incremental",
           "--show-error-codes", "--no-error-summary", "--hide-error-context",
           "--no-color-output", "--no-pretty", "--python-executable", sys.executable, *paths]
    return cmd, r"^(?P<path>[^:\n]+):(?P<line>\d+): error: (?P<msg>.*)$"


STUBS = "typings"  # where ``jaxtypes jax-stubs --out typings`` puts them in a project


def stub_setting(checker: str) -> jax_stubs.Setting:
    """What ``jaxtypes jax-stubs --out typings`` prints (and the README says)
    for a checker's configuration."""
    name = "mypy" if checker == MYPY_PLUGIN else checker
    (setting,) = [s for s in jax_stubs.setup(STUBS) if s.checker == name]
    return setting


def command(checker: str, root: Path, paths: Iterable[str], *,
            mypy_config: str | None = None, stubs: bool = False) -> list[str]:
    """The command line that runs one checker over ``paths`` in ``root``,
    after writing the checker's configuration files into ``root`` (pyrefly's
    and ty's are both pyproject.toml: give each set-up its own root).
    ``mypy_config`` is the mypy.ini of "mypy" (default: empty) and of
    "mypy-plugin" (default: the plugin with JAX's default settings).  With
    ``stubs``, ``root/typings`` holds stubs made by ``jaxtypes jax-stubs``,
    configured by the line the command prints, verbatim, in the file it names."""
    paths = list(paths)
    setting = stub_setting(checker) if stubs else None
    if checker in ("mypy", MYPY_PLUGIN):
        if mypy_config is None:
            mypy_config = plugin_config() if checker == MYPY_PLUGIN else "[mypy]\n"
        if setting is not None:
            assert (setting.file, setting.section) == ("mypy.ini", "[mypy]"), setting
            mypy_config = mypy_config.replace("[mypy]\n", f"[mypy]\n{setting.line}\n", 1)
        return _mypy(root, paths, mypy_config)[0]
    if checker in ("pyright", "basedpyright"):
        config = {
            "typeCheckingMode": "standard",
            "reportUnusedExpression": False,
            "reportUnnecessaryTypeIgnoreComment": False,
            "pythonVersion": f"{sys.version_info[0]}.{sys.version_info[1]}",
        }
        if setting is not None and setting.line:  # none for typings, their default stubPath
            assert setting.file == "pyrightconfig.json", setting
            config.update(json.loads("{" + setting.line + "}"))
        (root / "pyrightconfig.json").write_text(json.dumps(config))
        return [tool(checker), "--outputjson", "--pythonpath", sys.executable,
                "-p", "pyrightconfig.json", *paths]
    if checker == "pyrefly" and setting is not None:
        # Checks the project, not file names, which would make pyrefly ignore
        # its configuration; no walk-up search path (below).
        assert (setting.file, setting.section) == ("pyproject.toml", "[tool.pyrefly]"), setting
        (root / "pyproject.toml").write_text(
            f"[tool.pyrefly]\n{setting.line}\npreset = \"default\"\n"
            f"disable-search-path-heuristics = true\nproject-includes = {json.dumps(paths)}\n"
            f"python-interpreter-path = {json.dumps(sys.executable)}\n")
        return [tool("pyrefly"), "check", "--output-format", "json", "--summary=none"]
    if checker == "pyrefly":
        # No walk-up search path: from the installed jaxtypes it would reach a
        # checkout's source tree (no stubs) when the venv lives inside it.
        return [tool("pyrefly"), "check", "--preset", "default", "--python-interpreter-path",
                sys.executable, "--disable-search-path-heuristics", "--search-path", ".",
                "--output-format", "json", "--summary=none", *paths]
    if checker == "ty":
        if setting is not None:
            assert (setting.file, setting.section) == ("pyproject.toml", "[tool.ty.environment]"), setting
            (root / "pyproject.toml").write_text(f"{setting.section}\n{setting.line}\n")
        return [tool("ty"), "check", "--python", sys.prefix, "--output-format", "concise",
                "--color", "never", *paths]
    raise ValueError(f"unknown checker {checker!r}; expected one of "
                     f"{', '.join((*CHECKERS, MYPY_PLUGIN))}")


def _relative(path: str, root: Path) -> str:
    """A reported file's path relative to ``root`` (pyrefly reports absolute
    paths when it checks a project)."""
    p = Path(path)
    return (p.resolve().relative_to(root.resolve()) if p.is_absolute() else p).as_posix()


def execute(checker: str, root: Path, cmd: list[str], timeout: float = 1200) -> str:
    """Run a checker's command in ``root``; its standard output.  A crash or an
    unexpected exit status is an error."""
    proc = subprocess.run(cmd, cwd=root, env=_env(), capture_output=True, text=True, timeout=timeout)
    out = proc.stdout
    if "Traceback" in proc.stderr or "INTERNAL ERROR" in out + proc.stderr:
        raise RuntimeError(f"{checker} crashed:\n{proc.stderr[-4000:]}\n{out[-2000:]}")
    if checker in ("mypy", MYPY_PLUGIN, "ty") and proc.returncode not in (0, 1):
        raise RuntimeError(f"{checker} failed with exit code {proc.returncode}:\n"
                           f"{proc.stderr[-4000:]}\n{out[-2000:]}")
    return out


def revealed(checker: str, out: str, root: Path) -> dict[tuple[str, int], list[str]]:
    """The types a checker's output reveals (``reveal_type``), keyed by (path
    relative to ``root``, 1-based line), as the checker prints them."""
    found: dict[tuple[str, int], list[str]] = defaultdict(list)
    if checker in ("pyright", "basedpyright"):
        for diag in json.loads(out)["generalDiagnostics"]:
            m = re.match(r'^Type of ".*" is "(.*)"$', diag["message"], re.S)
            if diag["severity"] == "information" and m:
                rel = Path(diag["file"]).resolve().relative_to(root.resolve()).as_posix()
                found[rel, diag["range"]["start"]["line"] + 1].append(m.group(1))
    elif checker == "pyrefly":
        for err in json.loads(out or '{"errors": []}')["errors"]:
            if err["name"] == "reveal-type":
                m = re.match(r"^revealed type: (.*)$", err["concise_description"], re.S)
                if m:
                    found[_relative(err["path"], root), err["line"]].append(m.group(1))
    else:
        pattern = (r'^(?P<path>[^:\n]+):(?P<line>\d+): note: Revealed type is "(?P<type>.*)"$'
                   if checker in ("mypy", MYPY_PLUGIN) else
                   r"^(?P<path>[^:\n]+):(?P<line>\d+):\d+: info\[revealed-type\] Revealed type: `(?P<type>.*)`$")
        for m in re.finditer(pattern, out, re.M):
            found[Path(m.group("path")).as_posix(), int(m.group("line"))].append(m.group("type"))
    return dict(found)


def run(checker: str, root: Path, paths: Iterable[str], *,
        mypy_config: str | None = None, stubs: bool = False, timeout: float = 1200) -> Errors:
    """Run one checker over ``paths`` (relative to ``root``); return its errors.
    ``mypy_config`` and ``stubs`` are as for ``command``."""
    out = execute(checker, root, command(checker, root, paths, mypy_config=mypy_config, stubs=stubs),
                  timeout)
    return reported_errors(checker, out, root)


def reported_errors(checker: str, out: str, root: Path) -> Errors:
    """The errors in a checker's output, keyed by (path relative to ``root``,
    1-based line); each message ends with the checker's error code."""
    pattern = (r"^(?P<path>[^:\n]+):(?P<line>\d+): error: (?P<msg>.*)$" if checker != "ty" else
               r"^(?P<path>[^:\n]+):(?P<line>\d+):\d+: error\[(?P<code>[\w-]+)\] (?P<msg>.*)$")
    errors: Errors = defaultdict(list)
    if checker in ("pyright", "basedpyright"):
        report = json.loads(out)
        for diag in report["generalDiagnostics"]:
            if diag["severity"] == "error":
                rel = Path(diag["file"]).resolve().relative_to(root.resolve()).as_posix()
                errors[rel, diag["range"]["start"]["line"] + 1].append(
                    f"{diag['message']} ({diag.get('rule', '')})")
    elif checker == "pyrefly":
        report = json.loads(out or '{"errors": []}')
        for err in report["errors"]:
            if err["severity"] == "error":
                errors[_relative(err["path"], root), err["line"]].append(
                    f"{err['concise_description']} [{err['name']}]")
    else:
        for m in re.finditer(pattern, out, re.M):
            msg = m.group("msg")
            if checker == "ty":
                msg = f"{msg} [{m.group('code')}]"
            errors[Path(m.group("path")).as_posix(), int(m.group("line"))].append(msg)
    return dict(errors)
