"""Installing the jax.Array stubs into site-packages without pip, as
``installer`` and uv do: the files, then a ``.dist-info`` of their own.

``jaxtypes jax-stubs install`` writes the stub packages (``jax-stubs/``,
``jaxtypes-stubs/``) straight into the running interpreter's
``sysconfig.get_paths()["purelib"]``, with a distribution record
(``jaxtypes_jax_stubs-VERSION.dist-info``) that ``pip uninstall
jaxtypes-jax-stubs``, ``uv pip uninstall`` and ``pip list`` read, and lists
the same files in jaxtypes' own ``RECORD`` (when jaxtypes is installed in that
directory), so that ``pip uninstall jaxtypes`` removes them with it: stubs
that import jaxtypes' markers must not outlive jaxtypes.  (pip removes the
paths a distribution's RECORD lists: "Recording installed files", PEP 376 and
the Python Packaging User Guide's "Recording installed projects",
https://packaging.python.org/en/latest/specifications/recording-installed-packages/.)

Safety: one install at a time per directory (a lock file there: ``fcntl`` on
POSIX, ``msvcrt`` on Windows); every file is written whole to a staging
directory beside the packages and moved into place with ``os.replace``
(atomic per file); the record, with a SHA-256 per file, is written before the
files move, so ``verify`` finds any file a kill left behind, changed, missing
or stray, and the next install repairs it.  Leftovers of interrupted installs
(this module's staging directories, pip's ``~ax-stubs``-style renamed
directories) are removed by the next install.
"""

from __future__ import annotations

import base64
import contextlib
import csv
import hashlib
import io
import os
import re
import shutil
import sys
import sysconfig
import tempfile
from collections.abc import Generator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from jaxtypes._stubgen.record import DISTRIBUTION, STUB_PACKAGES

__all__ = [
    "PACKAGES",
    "LOCK",
    "DIST_PREFIX",
    "InstallError",
    "Installed",
    "site_packages",
    "locked",
    "install_files",
    "uninstall",
    "verify",
    "leftovers",
    "dist_infos",
]

PACKAGES: Final = STUB_PACKAGES  # the top-level directories (the layer libraries' when installed)
DIST_PREFIX: Final = DISTRIBUTION.replace("-", "_") + "-"  # of its .dist-info directory
LOCK: Final = ".jaxtypes-jax-stubs.lock"
STAGING_PREFIX: Final = ".jaxtypes-jax-stubs-staging-"
SHOWN_PROBLEMS: Final = 8
# pip's AdjacentTempDirectory renames a directory it uninstalls to its name
# with the first characters replaced by "~" and these (pip/_internal/utils/
# temp_dir.py, "LEADING_CHARS"); a kill leaves it, and pip then warns about
# "invalid distribution ~ax-stubs" on every command.
_PIP_LEADING: Final = "-~.=%0123456789"


class InstallError(Exception):
    """The stubs cannot be installed or removed; the message names the path."""


@dataclass(frozen=True)
class Installed:
    site: Path
    version: str  # the stub distribution's version
    files: int
    owner_record: Path | None  # jaxtypes' RECORD the files were added to (None: not in this directory)


def site_packages() -> Path:
    """Where this interpreter's pure-Python packages go (what pip would use)."""
    return Path(sysconfig.get_paths()["purelib"])


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _cannot(action: str, err: OSError, fallback: Path) -> InstallError:
    path = err.filename if err.filename is not None else fallback
    return InstallError(f"cannot {action} {path}: {err.strerror or err}")


def _acquire(fd: int) -> None:
    if sys.platform == "win32":
        import msvcrt
        import time

        while True:  # LK_LOCK itself gives up after ten one-second tries
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
                return
            except OSError:
                time.sleep(0.1)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)


def _release(fd: int) -> None:
    if sys.platform == "win32":
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_UN)


@contextlib.contextmanager
def locked(site: Path, create: bool = True) -> Generator[None, None, None]:
    """Hold ``site/LOCK`` exclusively: concurrent installs run one after
    another.  ``uninstall`` removes the file while holding it, so a lock won
    on a file no longer at that path is given up and taken again.  Without
    ``create`` (a reader), no lock file means no install to wait for."""
    path = site / LOCK
    while True:
        try:
            if create:
                site.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o644)
        except OSError as err:
            if not create:  # none there, or not ours to open: read unlocked
                yield
                return
            raise _cannot("write", err, path) from None
        try:
            _acquire(fd)
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path))
            except OSError:
                same = False
            if same:
                try:
                    yield
                finally:
                    _release(fd)
                return
            _release(fd)
        finally:
            os.close(fd)


def dist_infos(site: Path) -> list[Path]:
    """The stub distribution's ``.dist-info`` directories in ``site`` (one when whole)."""
    try:
        return sorted(p for p in site.glob(DIST_PREFIX + "*.dist-info") if p.is_dir())
    except OSError:
        return []


def _is_pip_leftover(name: str) -> bool:
    """Whether ``name`` is one of ours as pip renames it while uninstalling."""
    if not name.startswith("~"):
        return False
    targets = [*PACKAGES, DIST_PREFIX]
    for i in range(1, len(name)):
        if not all(c in _PIP_LEADING for c in name[1:i]):
            break
        tail = name[i:]
        for target in targets:
            if target == DIST_PREFIX:
                m = re.fullmatch(r"(?P<head>[A-Za-z_]*-).+\.dist-info", tail)
                if m and DIST_PREFIX.endswith(m["head"]) and i + len(m["head"]) == len(DIST_PREFIX):
                    return True
            elif len(name) == len(target) and target.endswith(tail):
                return True
    return False


def leftovers(site: Path) -> list[Path]:
    """What interrupted installs left in ``site``: staging directories, pip's renamed ones."""
    try:
        names = sorted(os.listdir(site))
    except OSError:
        return []
    return [site / n for n in names if n.startswith(STAGING_PREFIX) or _is_pip_leftover(n)]


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _read_record(info: Path) -> list[list[str]]:
    with (info / "RECORD").open(encoding="utf-8", newline="") as f:
        return [row for row in csv.reader(f) if row]


def _record_text(rows: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows(rows)
    return out.getvalue()


def _write_atomic(path: Path, data: bytes) -> None:
    """``data`` into ``path``: a whole new file or the old one, never half of one."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _ours(rel: str) -> bool:
    """Whether a RECORD path is one this module puts in jaxtypes' RECORD."""
    top = rel.split("/", 1)[0]
    return top in PACKAGES or top.startswith(DIST_PREFIX)


def _owner_info(site: Path) -> Path | None:
    """jaxtypes' own ``.dist-info`` when jaxtypes is installed in ``site``."""
    try:
        found = [p for p in site.glob("jaxtypes-*.dist-info") if (p / "RECORD").is_file()]
    except OSError:
        return None
    return found[0] if len(found) == 1 else None


def _update_owner_record(site: Path, entries: list[list[str]]) -> Path | None:
    """jaxtypes' RECORD with this module's earlier lines replaced by ``entries``
    (the lock file's line kept): what ``pip uninstall jaxtypes`` removes."""
    info = _owner_info(site)
    if info is None:
        return None
    record = info / "RECORD"
    rows = _read_record(info)
    kept = [row for row in rows if not _ours(row[0]) and row[0] != LOCK]
    own = [row for row in kept if row[0].endswith("/RECORD") and row[0].split("/", 1)[0] == info.name]
    # The lock file goes with jaxtypes too; RECORD's own line stays last, as pip writes it.
    body = [row for row in kept if row not in own] + entries + [[LOCK, "", ""]] + own
    _write_atomic(record, _record_text(body).encode("utf-8"))
    return record


def install_files(files: Mapping[str, str], version: str, summary: str, site: Path | None = None) -> Installed:
    """Install ``files`` (paths under ``PACKAGES``) as distribution
    ``DISTRIBUTION`` ``version`` into ``site`` (default: ``site_packages()``)."""
    site = site or site_packages()
    info_name = f"{DIST_PREFIX}{version}.dist-info"
    payload = {rel: text.encode("utf-8") for rel, text in files.items()}
    meta = {
        f"{info_name}/METADATA": (
            f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: {version}\nSummary: {summary}\n"
        ).encode(),
        f"{info_name}/INSTALLER": b"jaxtypes\n",
        f"{info_name}/WHEEL": b"Wheel-Version: 1.0\nGenerator: jaxtypes\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    rows = [[rel, _digest(data), str(len(data))] for rel, data in {**payload, **meta}.items()]
    record_rows = rows + [[f"{info_name}/RECORD", "", ""]]
    with locked(site):
        step = "write"
        current = site
        try:
            for old in leftovers(site):
                current = old
                _remove(old)
            current = site
            staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=site))
            try:
                for rel, data in {**payload, **meta}.items():
                    current = staging / rel
                    current.parent.mkdir(parents=True, exist_ok=True)
                    current.write_bytes(data)
                # The record first: from here on, verify() knows what every file must be.
                current = site / info_name
                current.mkdir(exist_ok=True)
                for rel in meta:
                    current = site / rel
                    os.replace(staging / rel, current)
                current = site / info_name / "RECORD"
                _write_atomic(current, _record_text(record_rows).encode("utf-8"))
                for rel in sorted(payload):
                    current = site / rel
                    current.parent.mkdir(parents=True, exist_ok=True)
                    if current.is_dir() and not current.is_symlink():
                        shutil.rmtree(current)
                    os.replace(staging / rel, current)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
            step = "remove"
            for top in PACKAGES:  # what earlier installs left that this one does not write
                for path in sorted((site / top).rglob("*"), reverse=True) if (site / top).is_dir() else []:
                    current = path
                    rel = path.relative_to(site).as_posix()
                    if path.is_dir() and not path.is_symlink():
                        if not any(path.iterdir()):
                            path.rmdir()
                    elif rel not in payload:
                        path.unlink()
            for info in dist_infos(site):
                if info.name != info_name:
                    current = info
                    shutil.rmtree(info)
                else:  # what an earlier installer (pip) put there besides
                    for path in info.iterdir():
                        if f"{info_name}/{path.name}" not in meta and path.name != "RECORD":
                            current = path
                            _remove(path)
            step = "update"
            current = site
            owner = _update_owner_record(site, [row[:] for row in record_rows])
        except OSError as err:
            raise _cannot(step, err, current) from None
    return Installed(site, version, len(payload), owner)


def uninstall(site: Path | None = None) -> list[Path]:
    """Remove the installed stubs (their packages, record and leftovers) from
    ``site``; the paths removed (empty when there were none)."""
    site = site or site_packages()
    removed: list[Path] = []
    current = site
    with locked(site):
        try:
            for path in [*(site / top for top in PACKAGES), *dist_infos(site), *leftovers(site)]:
                if path.exists() or path.is_symlink():
                    current = path
                    _remove(path)
                    removed.append(path)
            if _owner_info(site) is not None:
                current = site
                _update_owner_record(site, [])
            # A waiting install sees it gone and locks afresh; Windows cannot
            # remove an open file, where it stays (pip uninstall jaxtypes removes it).
            with contextlib.suppress(OSError):
                (site / LOCK).unlink()
        except OSError as err:
            raise _cannot("remove", err, current) from None
    return removed


def verify(site: Path | None = None) -> list[str]:
    """Every way the installed stubs in ``site`` differ from what the install
    wrote, one line each naming the file; empty when whole (or absent: see
    ``dist_infos``)."""
    site = site or site_packages()
    with locked(site, create=False):  # not halfway through an install
        return _problems(site)


def _problems(site: Path) -> list[str]:
    problems: list[str] = []
    infos = dist_infos(site)
    present = [top for top in PACKAGES if (site / top).exists()]
    for old in leftovers(site):
        problems.append(f"{old.name}: left by an interrupted install or uninstall")
    if not infos:
        problems += [f"{top}/: installed without its record ({DIST_PREFIX}*.dist-info is missing)" for top in present]
        return problems
    if len(infos) > 1:
        problems.append("two records: " + ", ".join(i.name for i in infos) + " (an install was interrupted)")
    expected: dict[str, tuple[str, str]] = {}
    for info in infos:
        try:
            rows = _read_record(info)
        except (OSError, UnicodeDecodeError, csv.Error) as err:
            problems.append(f"{info.name}/RECORD: unreadable ({err})")
            continue
        if not rows or rows[-1][0] != f"{info.name}/RECORD":
            problems.append(f"{info.name}/RECORD: truncated (its own line, which ends it, is missing)")
        for row in rows:
            if len(row) >= 3 and row[1]:
                expected[row[0]] = (row[1], row[2])
    for rel, (digest, size) in sorted(expected.items()):
        path = site / rel
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            problems.append(f"{rel}: missing")
            continue
        except OSError as err:
            problems.append(f"{rel}: unreadable ({err.strerror or err})")
            continue
        if str(len(data)) != size:
            problems.append(f"{rel}: {len(data)} bytes, {size} installed (truncated or changed)")
        elif _digest(data) != digest:
            problems.append(f"{rel}: changed since it was installed (its SHA-256 differs)")
    for top in present:
        for path in sorted((site / top).rglob("*")):
            rel = path.relative_to(site).as_posix()
            if not path.is_dir() and rel not in expected:
                problems.append(f"{rel}: not written by the install")
    return problems


def summary(problems: list[str]) -> str:
    """``problems`` for one message: the first few, then how many more."""
    shown = problems[:SHOWN_PROBLEMS]
    more = len(problems) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more else "")
