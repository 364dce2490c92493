"""The plugin's settings: JAX's promotion mode and x64 flag for the project.

Read from ``[tool.jaxtypes]`` of the ``pyproject.toml`` that mypy reads, and
from a ``[jaxtypes]`` section of mypy's ini-style config file
(``mypy.ini``, ``.mypy.ini``, ``setup.cfg``)::

    [tool.jaxtypes]
    promotion = "strict"   # or "standard" (the default, as in JAX)
    x64 = true             # or false (the default, as in JAX)
    explicit_x64_dtypes = "warn"  # or "allow", "error": jax_explicit_x64_dtypes

Values are checked as ``jax.config.update`` checks them: the promotion mode
and ``explicit_x64_dtypes`` exactly (JAX rejects ``" strict "`` and
``"Strict"``), ``x64`` a boolean.

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
KEYS: Final = ("promotion", "x64", "explicit_x64_dtypes")
# JAX's ExplicitX64Mode values, as jaxtypes.config spells them (the plugin
# does not import the runtime); 'warn' is JAX's default.
EXPLICIT_X64_MODES: Final = ("allow", "warn", "error")
SHOWN_LIMIT: Final = 40
_INI_NAMES: Final = ("mypy.ini", ".mypy.ini", "setup.cfg")
_BOOL_WORDS: Final = {
    "1": True,
    "yes": True,
    "true": True,
    "on": True,
    "0": False,
    "no": False,
    "false": False,
    "off": False,
}


class ConfigError(Exception):
    """A setting the plugin cannot use; the message says where and what is allowed."""


def shown(value: object, limit: int = SHOWN_LIMIT) -> str:
    """``repr(value)``, cut to about ``limit`` characters with its full length
    said: a 10 MB value in a settings file is not echoed whole."""
    text = value if isinstance(value, str) else None
    if text is not None and len(text) > limit:
        return f"{text[:limit]!r}... ({len(text)} characters)"
    try:
        r = repr(value)
    except Exception:  # noqa: BLE001 - a repr that fails (or recurses) is not the user's fault
        r = f"<{type(value).__name__}>"
    return r if len(r) <= limit else f"{r[:limit]}... ({type(value).__name__}, {len(r)} characters as text)"


class Settings(NamedTuple):
    promotion: lattice.PromotionMode = "standard"
    x64: bool = False
    sources: tuple[str, ...] = ()  # the files the settings came from
    explicit_x64_dtypes: str = "warn"

    @property
    def variant(self) -> lattice.Variant:
        return lattice.Variant(self.promotion, self.x64)

    def config_data(self) -> dict[str, Any]:
        """What mypy stores with each module's cache entry (see report_config_data)."""
        return {
            "jaxtypes": {"promotion": self.promotion, "x64": self.x64, "explicit_x64_dtypes": self.explicit_x64_dtypes}
        }

    def unmodelled(self) -> str | None:
        """What JAX does under these settings that the plugin's answers do not
        follow, or None.  jax_explicit_x64_dtypes only matters with x64 off
        (JAX 0.10.2, run by hand): 'allow' keeps an explicitly requested
        64-bit dtype (``x.astype(jnp.float64)`` is float64, and promotes as
        with x64), 'error' raises ValueError for it; the plugin answers as
        'warn', JAX's default, does (truncated to 32 bits)."""
        if self.x64 or self.explicit_x64_dtypes == "warn":
            return None
        does = (
            "keeps explicitly requested 64-bit dtypes (x.astype(jnp.float64) is float64)"
            if self.explicit_x64_dtypes == "allow"
            else "raises ValueError where a 64-bit dtype is requested (x.astype(jnp.float64))"
        )
        return (
            f"explicit_x64_dtypes = {self.explicit_x64_dtypes!r} with x64 off: JAX {does}; "
            "the plugin types those requests as 'warn' does (truncated to 32 bits)"
        )


DEFAULT: Final = Settings()


def _cut(message: str, limit: int = 4 * SHOWN_LIMIT) -> str:
    """A parser's message, cut to about ``limit`` characters."""
    return message if len(message) <= limit else f"{message[:limit]}... ({len(message)} characters)"


def _allowed_keys() -> str:
    return ", ".join(KEYS)


def _check_choice(value: object, key: str, allowed: tuple[str, ...], where: str, *, ini: bool) -> str:
    # Exactly, as jax.config.update checks it (an enum's value): no stripping,
    # no case folding.  (configparser has already dropped the blanks around
    # an ini value; a TOML string keeps them.)
    if isinstance(value, str) and value in allowed:
        return value
    hint = ""
    if isinstance(value, str) and value.strip().strip("\"'").lower() in allowed:
        hint = " (written exactly, as JAX takes it" + ("; no quotes in an ini file)" if ini else ")")
    raise ConfigError(
        f"{where}: invalid value {shown(value)} for '{key}'; "
        f"expected one of: {', '.join(repr(m) for m in allowed)}{hint}"
    )


def _check_promotion(value: object, where: str, *, ini: bool = False) -> lattice.PromotionMode:
    text = _check_choice(value, "promotion", lattice.PROMOTION_MODES, where, ini=ini)
    return next(m for m in lattice.PROMOTION_MODES if m == text)


def _check_x64(value: object, where: str, *, ini: bool) -> bool:
    if isinstance(value, bool):
        return value
    if ini and isinstance(value, str) and value.lower() in _BOOL_WORDS:
        return _BOOL_WORDS[value.lower()]
    expected = "true or false" + (" (or yes/no, on/off, 1/0)" if ini else " (a TOML boolean)")
    raise ConfigError(f"{where}: invalid value {shown(value)} for 'x64'; expected {expected}")


def _parse_table(table: Any, where: str, *, ini: bool) -> dict[str, Any]:
    if not hasattr(table, "items"):
        raise ConfigError(f"{where}: expected a table of settings ({_allowed_keys()}), got {shown(table)}")
    out: dict[str, Any] = {}
    unknown = [k for k in table if k not in KEYS]
    if unknown:
        listed = ", ".join(shown(k) for k in unknown[:5]) + (
            f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        )
        raise ConfigError(
            f"{where}: unknown {'key' if len(unknown) == 1 else 'keys'} {listed}; allowed keys: {_allowed_keys()}"
        )
    for key, value in table.items():
        if key == "promotion":
            out[key] = _check_promotion(value, where, ini=ini)
        elif key == "explicit_x64_dtypes":
            out[key] = _check_choice(value, key, EXPLICIT_X64_MODES, where, ini=ini)
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
        raise ConfigError(f"{path}: cannot read {TOML_TABLE}: {_cut(str(err))}") from None
    except RecursionError:  # arrays nested thousands deep
        raise ConfigError(f"{path}: cannot read {TOML_TABLE}: values nested too deep to read") from None
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
    except configparser.Error as err:  # its message quotes the bad line: cut it
        raise ConfigError(f"{path}: cannot read {INI_SECTION}: {_cut(str(err))}") from None
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
                    f"{path}: '{key}' is {shown(value)} here but {shown(merged[key])} in {origin[key]}; "
                    "set it in one place"
                )
            merged[key] = value
            origin[key] = path
    return Settings(
        promotion=merged.get("promotion", DEFAULT.promotion),
        x64=merged.get("x64", DEFAULT.x64),
        sources=tuple(sources),
        explicit_x64_dtypes=merged.get("explicit_x64_dtypes", DEFAULT.explicit_x64_dtypes),
    )
