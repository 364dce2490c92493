"""The plugin on the oldest mypy it supports (pyproject.toml: the ``mypy`` extra).

The YAML cases next to this file run on the pinned, newest mypy.  Here the
same cases run on the oldest supported mypy, installed once into a cache
directory (``pip install --target``; ``JAXTYPES_OLDEST_MYPY_DIR`` overrides
where): cases with the same configuration are checked together, as modules
of one package, so that the whole set takes a handful of mypy runs.

mypy's own wording and its way of printing types changed between versions,
so the comparison is: the same lines have errors, the plugin's own errors
(``[jax-...]``) have the same text, and revealed types agree once
``builtins.`` prefixes, TypeVar ids and ``Union[...]`` spelling are
normalized.  A slice of the fuzz programs runs too (no crash).

Slow (``pytest -m slow``): its set-up installs mypy at test time.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
pytestmark = pytest.mark.slow


def oldest_supported_mypy() -> str:
    """The lower bound of the ``mypy`` extra in pyproject.toml for this Python."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    from packaging.requirements import Requirement

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["mypy"]
    for line in extra:
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate():
            (spec,) = [s for s in req.specifier if s.operator == ">="]
            return spec.version
    raise AssertionError("pyproject.toml states no oldest mypy for this Python")


@pytest.fixture(scope="session")
def oldest_mypy() -> tuple[str, Path]:
    version = oldest_supported_mypy()
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    base = Path(os.environ.get("JAXTYPES_OLDEST_MYPY_DIR") or Path(tempfile.gettempdir()) / "jaxtypes-test-mypy")
    target = base / f"mypy-{version}-{tag}"
    if not (target / "mypy" / "__init__.py").is_file():
        staging = target.with_name(target.name + f".partial-{os.getpid()}")
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-warn-conflicts",
                "--target",
                str(staging),
                f"mypy=={version}",
            ],
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert proc.returncode == 0, f"could not install mypy {version}: {proc.stderr[-2000:]}"
        if not target.exists():  # another session may have won the race
            staging.replace(target)
    return version, target


def run_old(target: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    env["PYTHONPATH"] = str(target)
    env["JAXTYPES_MYPY_PLUGIN_DEBUG"] = "1"
    env["PYTHONWARNINGS"] = "ignore"
    return subprocess.run(
        [sys.executable, "-m", "mypy", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=900
    )


def load_cases() -> list[dict[str, Any]]:
    cases = []
    for path in sorted(HERE.glob("test_*.yml")):
        for case in yaml.safe_load(path.read_text()):
            case["file"] = path.name
            cases.append(case)
    return cases


_COMMENT = re.compile(r"\s#\s([EN]):\s(.*)$")


def expectations(main: str) -> dict[int, list[tuple[str, str]]]:
    """line -> [(E or N, text)] from ``# E: ...`` / ``# N: ...`` comments."""
    out: dict[int, list[tuple[str, str]]] = {}
    for number, line in enumerate(main.splitlines(), 1):
        parts = re.split(r"\s#\s(?=[EN]:\s)", line)
        for part in parts[1:]:
            kind, _, text = part.partition(": ")
            out.setdefault(number, []).append((kind, text.strip()))
    return out


def normalize(type_text: str) -> str:
    text = type_text.replace("builtins.", "")
    text = re.sub(r"`-?\d+", "", text)
    while "Union[" in text:  # Union[A, B] -> A | B, innermost first
        text = re.sub(
            r"Union\[([^\[\]]*(?:\[[^\[\]]*\])*[^\[\]]*)\]", lambda m: " | ".join(split_top(m.group(1))), text, count=1
        )
    return text


def split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += ch == "["
        depth -= ch == "]"
        cur += ch
    parts.append(cur.strip())
    return parts


def group_key(case: dict[str, Any]) -> str:
    files = tuple((f["path"], f["content"]) for f in case.get("files", []))
    return repr((case.get("mypy_config", ""), files))


# The configurations run on the oldest mypy: JAX's default one (most cases,
# and the fuzz programs), and one case each of x64 and strict promotion.  The
# settings files themselves are read by version-independent code, which the
# YAML cases test on the newest mypy.
OTHER_CASES = ("x64_from_pyproject", "strict_promotion")
FUZZ_PROGRAMS = 200


@pytest.fixture(scope="module")
def old_runs(oldest_mypy: tuple[str, Path], tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    """(cases, mypy's output) of each run on the oldest mypy."""
    _, target = oldest_mypy
    default_key = group_key({"mypy_config": "plugins = jaxtypes.mypy_plugin"})
    groups: dict[str, list[dict[str, Any]]] = {}
    for case in load_cases():
        key = group_key(case)
        if key == default_key or case["case"] in OTHER_CASES:
            groups.setdefault(key, []).append(case)
    runs = []
    for n, (key, cases) in enumerate(groups.items()):
        work = tmp_path_factory.mktemp(f"oldest{n}")
        pkg = work / "cases"
        pkg.mkdir()
        (pkg / "__init__.py").write_text("")
        config = cases[0].get("mypy_config", "")
        (work / "mypy.ini").write_text(config if "[mypy]" in config else "[mypy]\n" + config)
        for f in cases[0].get("files", []):
            (work / f["path"]).write_text(f["content"])
        for case in cases:
            (pkg / f"{case['case']}.py").write_text(case["main"])
        packages = ["-p", "cases"]
        if key == default_key:
            fuzz = load_fuzz()
            gen = fuzz.Gen(fuzz.random.Random(fuzz.SEED + 7))
            fuzz.write_package(work, [gen.program() for _ in range(FUZZ_PROGRAMS)])
            packages += ["-p", "fz"]
        proc = run_old(
            target,
            ["--no-incremental", "--config-file", "mypy.ini", "--hide-error-context", "--show-traceback", *packages],
            work,
        )
        runs.append((cases, proc))
    assert len(runs) == 1 + len(OTHER_CASES)
    return runs


def load_fuzz() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("_jaxtypes_fuzz", ROOT / "tests" / "test_mypy_plugin_fuzz.py")
    assert spec is not None and spec.loader is not None
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    return fuzz


def test_no_crash_on_the_oldest_mypy(old_runs: list[Any]) -> None:
    """The runs include 200 fuzz programs; the plugin ran (it answered with markers)."""
    for _, proc in old_runs:
        out = proc.stdout + proc.stderr
        assert "Traceback" not in out and "INTERNAL ERROR" not in out, out[-3000:]
        assert proc.returncode in (0, 1), out[-3000:]
    with_fuzz = [proc.stdout for _, proc in old_runs if "fz/p0" in proc.stdout]
    assert len(with_fuzz) == 1 and "jaxtypes.markers." in with_fuzz[0]


def test_yaml_cases_on_the_oldest_mypy(oldest_mypy: tuple[str, Path], old_runs: list[Any]) -> None:
    version, _ = oldest_mypy
    failures: list[str] = []
    checked = 0
    for cases, proc in old_runs:
        out = proc.stdout + proc.stderr
        actual: dict[tuple[str, int], list[tuple[str, str]]] = {}
        for m in re.finditer(r"^cases/(\w+)\.py:(\d+): (error|note): (.*)$", out, re.M):
            actual.setdefault((m.group(1), int(m.group(2))), []).append(
                ("E" if m.group(3) == "error" else "N", m.group(4))
            )
        for case in cases:
            checked += 1
            name = case["case"]
            expected = expectations(case["main"])
            lines = {line for (c, line) in actual if c == name} | set(expected)
            for line in sorted(lines):
                want = expected.get(line, [])
                got = [
                    g
                    for g in actual.get((name, line), [])
                    if not (g[0] == "N" and not g[1].startswith("Revealed type"))
                ]
                if sorted(k for k, _ in want) != sorted(k for k, _ in got):
                    failures.append(f"{case['file']}::{name}:{line}: expected {want}, got {got}")
                    continue
                for (kind, w), (_, g) in zip(sorted(want), sorted(got)):
                    if kind == "E" and "[jax-" in w and w != g:
                        failures.append(f"{case['file']}::{name}:{line}: {g!r} != {w!r}")
                    if kind == "N" and normalize(w) != normalize(g):
                        failures.append(f"{case['file']}::{name}:{line}: {g!r} != {w!r}")
    assert checked >= 20
    assert not failures, f"mypy {version}:\n" + "\n".join(failures)
