"""Throwaway environments, and the checkers run in them as a user runs them.

The README's quick start is `jaxtypes jax-stubs install` in the active
environment, then each checker from a project directory with no
configuration for the stubs but the line `install` prints for it (mypy's
plugin, pyrefly's preset; nothing for pyright, basedpyright and ty).
``user_command`` is that run: output-format flags only (machine-readable
errors), pyrefly on the project as the printed line says, mypy reading its
configuration file.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import tomllib

from tools.checkers import MYPY_FLAGS, checker_env, mypy_cache_flags, tool

# A line `install` prints for a checker: "  pyrefly: LINE (FILE [SECTION]); why",
# or "  ty: nothing".
PRINTED_SETTING = re.compile(
    r"^  (?P<checker>[\w-]+): +(?:(?P<line>.+?) \((?P<file>[\w.]+)(?: (?P<section>\[.+?\]))?\)"
    r"(?:; .*)?|nothing)$"
)


PYPROJECT: dict[str, Any] = tomllib.loads(
    (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text(encoding="utf-8")
)


def requirement_name(requirement: str) -> str:
    """A requirement's project name, normalized (``ml_dtypes==0.6.0`` -> ``ml-dtypes``)."""
    return re.split(r"[<>=!~; \[]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def pinned_requirement(name: str) -> str:
    """The test extra's line for the project ``name`` (its pin), without a comment."""
    wanted = requirement_name(name)
    lines: list[str] = PYPROJECT["project"]["optional-dependencies"]["test"]
    return next(r for r in lines if requirement_name(r) == wanted)


def printed_settings(stdout: str) -> dict[str, tuple[str, str, str] | None]:
    """{checker: (line, file, section), None for nothing} as `install` prints them."""
    found: dict[str, tuple[str, str, str] | None] = {}
    for text in stdout.splitlines():
        m = PRINTED_SETTING.match(text)
        if m:
            found[m["checker"]] = (m["line"], m["file"], m["section"] or "") if m["line"] else None
    return found


def write_printed_settings(root: Path, checker: str, printed: dict[str, tuple[str, str, str] | None]) -> None:
    """A project's configuration files holding the lines `install` printed for
    ``checker`` (mypy's for "mypy-plugin"; plain mypy: none, as without the plugin)."""
    setting = printed["mypy" if checker == "mypy-plugin" else checker]
    if setting is not None and checker != "mypy":
        line, file, section = setting
        (root / file).write_text(f"{section}\n{line}\n")


def user_env(venv: Path) -> dict[str, str]:
    """The user's shell with ``venv`` activated."""
    return {**checker_env(), "VIRTUAL_ENV": str(venv), "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}


def user_command(checker: str, venv: Path, root: Path, paths: list[str]) -> list[str]:
    """A checker run over ``paths`` in the project ``root`` (pyrefly: over the
    project, which its configuration names; given file names, pyrefly
    ignores it) with ``venv`` active (``user_env``)."""
    if checker.startswith("mypy"):
        python = str(venv / "bin" / "python")
        config = next((f.read_text() for f in (root / "mypy.ini", root / "pyproject.toml") if f.is_file()), "")
        cache = mypy_cache_flags(config, paths, environment=str(venv))
        return [python, "-m", "mypy", *cache, *MYPY_FLAGS, *paths]
    if checker in ("pyright", "basedpyright"):
        return [tool(checker), "--outputjson", *paths]
    if checker == "pyrefly":
        return [tool("pyrefly"), "check", "--output-format", "json", "--summary=none"]
    return [tool("ty"), "check", "--output-format", "concise", "--color", "never", *paths]


def _purelib(python: Path | str) -> Path:
    return Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )


def make_venv(venv: Path, *, pip: bool = True, checkout: bool = True) -> tuple[Path, Path]:
    """A throwaway environment (its python, its site-packages) seeing this
    one's packages (a .pth file); with ``checkout``, jaxtypes from this
    checkout too (what this environment's own .pth files add).  Without
    ``pip``, as uv makes environments (``venv --without-pip``)."""
    subprocess.run(
        [sys.executable, "-m", "venv", *([] if pip else ["--without-pip"]), str(venv)], check=True, timeout=300
    )
    python = venv / "bin" / "python"
    site = _purelib(python)
    ours = _purelib(sys.executable)
    added = [
        line
        for pth in sorted(ours.glob("*.pth"))
        for line in pth.read_text().splitlines()
        if line and not line.startswith(("#", "import"))
    ]
    packages = ours
    if not pip:  # this environment's packages but pip, linked one by one
        packages = venv.parent / f"{venv.name}-packages"
        packages.mkdir()
        for entry in ours.iterdir():
            if entry.name != "pip" and not entry.name.startswith("pip-"):
                (packages / entry.name).symlink_to(entry)
    (site / "_test_env.pth").write_text("\n".join([str(packages), *(added if checkout else [])]) + "\n")
    return python, site


def jaxtypes_in(python: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "jaxtypes", *argv], env=checker_env(), capture_output=True, text=True, timeout=600
    )


def mypy_in(venv: Path, root: Path, config: str, paths: list[str]) -> list[str]:
    """mypy as a user runs it with ``venv`` active, over ``paths`` of the
    project ``root``, configured by ``config`` (written as its mypy.ini)."""
    (root / "mypy.ini").write_text(config)
    return user_command("mypy", venv, root, paths)
