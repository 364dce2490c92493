"""The plugin's settings: JAX's promotion mode and x64 flag for the project.

Read from ``[tool.jaxtypes]`` of the ``pyproject.toml`` that mypy reads, and
from a ``[jaxtypes]`` section of mypy's ini-style config file
(``mypy.ini``, ``.mypy.ini``, ``setup.cfg``)::

    [tool.jaxtypes]
    promotion = "strict"   # or "standard" (the default, as in JAX)
    x64 = true             # or false (the default, as in JAX)

Which files: mypy's config file itself (``options.config_file``), and the
``pyproject.toml`` next to it when that file is an ini file.  With no config
file (mypy run programmatically), the first ``pyproject.toml`` found from the
current directory upwards, stopping at a ``.git``/``.hg`` root, as mypy looks.
A key set in two of these files must have the same value.

Anything else is a ``ConfigError`` that names the file, the key or value, and
what is allowed.
"""

from __future__ import annotations

import configparser
import os
import sys
from pathlib import Path
from typing import Any, Final, NamedTuple, Optional

from jaxtypes import lattice

__all__ = ["Settings", "ConfigError", "load", "stamp", "DEFAULT", "TOML_TABLE", "INI_SECTION"]

TOML_TABLE: Final = "[tool.jaxtypes]"
INI_SECTION: Final = "[jaxtypes]"
KEYS: Final = ("promotion", "x64")
_INI_NAMES: Final = ("mypy.ini", ".mypy.ini", "setup.cfg")
_BOOL_WORDS: Final = {
    "1": True, "yes": True, "true": True, "on": True,
    "0": False, "no": False, "false": False, "off": False,
}


class ConfigError(Exception):
    """A setting the plugin cannot use; the message says where and what is allowed."""


class Settings(NamedTuple):
    promotion: lattice.PromotionMode = "standard"
    x64: bool = False
    sources: tuple[str, ...] = ()  # the files the settings came from

    @property
    def variant(self) -> lattice.Variant:
        return lattice.Variant(self.promotion, self.x64)

    def config_data(self) -> dict[str, Any]:
        """What mypy stores with each module's cache entry (see report_config_data)."""
        return {"jaxtypes": {"promotion": self.promotion, "x64": self.x64}}


DEFAULT: Final = Settings()


def _allowed_keys() -> str:
    return ", ".join(KEYS)


def _check_promotion(value: object, where: str) -> lattice.PromotionMode:
    text = value.strip().strip("\"'") if isinstance(value, str) else None
    for mode in lattice.PROMOTION_MODES:
        if text == mode:
            return mode
    raise ConfigError(
        f"{where}: invalid value {value!r} for 'promotion'; "
        f"expected one of: {', '.join(repr(m) for m in lattice.PROMOTION_MODES)}"
    )


def _check_x64(value: object, where: str, *, ini: bool) -> bool:
    if isinstance(value, bool):
        return value
    if ini and isinstance(value, str) and value.strip().lower() in _BOOL_WORDS:
        return _BOOL_WORDS[value.strip().lower()]
    expected = "true or false" + (" (or yes/no, on/off, 1/0)" if ini else " (a TOML boolean)")
    raise ConfigError(f"{where}: invalid value {value!r} for 'x64'; expected {expected}")


def _parse_table(table: Any, where: str, *, ini: bool) -> dict[str, Any]:
    if not hasattr(table, "items"):
        raise ConfigError(f"{where}: expected a table of settings ({_allowed_keys()}), got {table!r}")
    out: dict[str, Any] = {}
    unknown = [k for k in table if k not in KEYS]
    if unknown:
        raise ConfigError(
            f"{where}: unknown {'key' if len(unknown) == 1 else 'keys'} "
            f"{', '.join(repr(k) for k in unknown)}; allowed keys: {_allowed_keys()}"
        )
    for key, value in table.items():
        if key == "promotion":
            out[key] = _check_promotion(value, where)
        else:
            out[key] = _check_x64(value, where, ini=ini)
    return out


def _unreadable(path: Path, section: str, err: OSError | UnicodeDecodeError) -> ConfigError:
    """The error for a settings file that exists but cannot be read as text."""
    if isinstance(err, UnicodeDecodeError):
        why = f"the file is not valid UTF-8 (byte {err.object[err.start]:#04x} at offset {err.start})"
    else:
        why = err.strerror or str(err)
    return ConfigError(f"{path}: cannot read {section}: {why}")


def _read_toml(path: Path) -> dict[str, Any] | None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - mypy depends on tomli before 3.11
        import tomli as tomllib
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as err:
        raise _unreadable(path, TOML_TABLE, err) from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: cannot read {TOML_TABLE}: {err}") from None
    tool = data.get("tool")
    if not isinstance(tool, dict) or "jaxtypes" not in tool:
        return None
    return _parse_table(tool["jaxtypes"], f"{path}: {TOML_TABLE}", ini=False)


def _read_ini(path: Path) -> dict[str, Any] | None:
    parser = configparser.RawConfigParser()
    try:
        with path.open(encoding="utf-8") as f:
            parser.read_file(f)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as err:
        raise _unreadable(path, INI_SECTION, err) from None
    except configparser.Error as err:
        raise ConfigError(f"{path}: cannot read {INI_SECTION}: {err}") from None
    if "jaxtypes" not in parser:
        return None
    return _parse_table(dict(parser["jaxtypes"]), f"{path}: {INI_SECTION}", ini=True)


def _find_pyproject(start: Path) -> Path | None:
    current = start.resolve()
    while True:
        candidate = current / "pyproject.toml"
        if candidate.is_file():
            return candidate
        if any((current / root).exists() for root in (".git", ".hg")) or current.parent == current:
            return None
        current = current.parent


def config_files(config_file: str | None, cwd: str | None = None) -> list[Path]:
    """The files the settings are read from, in order (see the module docstring)."""
    if config_file:
        path = Path(config_file).expanduser()
        if path.suffix == ".toml":
            return [path]
        sibling = path.parent / "pyproject.toml"
        return [path, sibling] if sibling.is_file() else [path]
    found = _find_pyproject(Path(cwd or os.getcwd()))
    return [found] if found else []


# (path, mtime_ns, size) per file; None, None for an absent one.
Stamp = tuple[tuple[str, Optional[int], Optional[int]], ...]


def stamp(config_file: str | None, cwd: str | None = None) -> Stamp:
    """(path, mtime_ns, size) of every file the settings could come from, None
    for one that is absent: a cheap test of whether the settings may have changed.
    The ``pyproject.toml`` beside an ini file counts even when absent, since
    creating it can change the settings."""
    paths = config_files(config_file, cwd)
    if config_file and not config_file.endswith(".toml"):
        sibling = Path(config_file).expanduser().parent / "pyproject.toml"
        if sibling not in paths:
            paths.append(sibling)
    out: list[tuple[str, int | None, int | None]] = []
    for path in paths:
        try:
            st = path.stat()
        except OSError:
            out.append((str(path), None, None))
        else:
            out.append((str(path), st.st_mtime_ns, st.st_size))
    return tuple(out)


def load(config_file: str | None, cwd: str | None = None) -> Settings:
    """The settings in force for a mypy run whose config file is ``config_file``."""
    merged: dict[str, Any] = {}
    origin: dict[str, Path] = {}
    sources: list[str] = []
    for path in config_files(config_file, cwd):
        table = _read_toml(path) if path.suffix == ".toml" else _read_ini(path)
        if table is None:
            continue
        sources.append(str(path))
        for key, value in table.items():
            if key in merged and merged[key] != value:
                raise ConfigError(
                    f"{path}: '{key}' is {value!r} here but {merged[key]!r} in {origin[key]}; "
                    "set it in one place"
                )
            merged[key] = value
            origin[key] = path
    return Settings(
        promotion=merged.get("promotion", DEFAULT.promotion),
        x64=merged.get("x64", DEFAULT.x64),
        sources=tuple(sources),
    )
