"""The wheel's build hook (hatch_build.py): with a C compiler the wheel carries
jaxtypes._speedups and is tagged for the interpreter; without one it is a pure
Python wheel (the runtime then uses its Python paths, same answers), unless
JAXTYPES_REQUIRE_SPEEDUPS=1 asks for the error.

Each case builds a wheel from this checkout with pip (build isolation fetches
hatchling and setuptools from the package index, as a user's pip would).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def build_wheel(out: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )


def wheel_files(out: Path) -> tuple[str, list[str]]:
    (wheel,) = out.glob("jaxtypes-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        return wheel.name, zf.namelist()


@pytest.mark.parametrize("compiler", ["gcc", "false"])
def test_wheel_with_and_without_a_compiler(tmp_path: Path, compiler: str) -> None:
    proc = build_wheel(tmp_path, CC=compiler)
    assert proc.returncode == 0, proc.stderr
    name, files = wheel_files(tmp_path)
    speedups = [f for f in files if f.startswith("jaxtypes/_speedups")]
    assert "jaxtypes/promotion.py" in files and "jaxtypes/_speedups.c" not in files
    if compiler == "gcc":
        assert len(speedups) == 1 and speedups[0].endswith((".so", ".pyd")), speedups
        assert not name.endswith("-none-any.whl"), name  # tagged for this interpreter
    else:
        assert speedups == [] and name.endswith("-py3-none-any.whl"), (name, speedups)
    # The plugin and the generated stubs are shipped as they are in the
    # checkout's jaxtypes/; nothing else of the checkout is.
    (wheel,) = tmp_path.glob("jaxtypes-*.whl")
    shipped = {
        **{f"jaxtypes/mypy_plugin/{p.name}": p for p in (ROOT / "jaxtypes" / "mypy_plugin").glob("*.py")},
        **{f"jaxtypes/{p.name}": p for p in (ROOT / "jaxtypes").glob("*.pyi")},
    }
    with zipfile.ZipFile(wheel) as zf:
        for member, source in shipped.items():
            assert zf.read(member) == source.read_bytes(), member
    # The table of JAX's functions, which jaxtypes.function_rules reads at import.
    with zipfile.ZipFile(wheel) as zf:
        assert zf.read("jaxtypes/functions.csv") == (ROOT / "jaxtypes" / "functions.csv").read_bytes()
    tops = {f.split("/", 1)[0] for f in files}
    assert tops == {"jaxtypes", name.split("-")[0] + "-" + name.split("-")[1] + ".dist-info"}, tops


def test_a_required_c_build_that_fails_fails_the_build(tmp_path: Path) -> None:
    proc = build_wheel(tmp_path, CC="false", JAXTYPES_REQUIRE_SPEEDUPS="1")
    assert proc.returncode != 0
    assert not list(tmp_path.glob("*.whl"))


def test_sdist_leaves_out_the_recorded_jax_answers(tmp_path: Path) -> None:
    """The sdist builds the wheel; JAX's recorded answers (tools/data) are the
    tests', not the build's, and are most of the repository's size."""
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--outdir", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (sdist,) = tmp_path.glob("jaxtypes-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
    assert any(n.endswith("/jaxtypes/lattice.py") for n in names), names[:20]
    assert not [n for n in names if "/tools/data/" in n]
    assert sdist.stat().st_size < 5_000_000, sdist.stat().st_size
