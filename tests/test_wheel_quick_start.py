"""The Quick start from a built wheel, away from the checkout.

Until jaxtypes is on the package index, a user installs the wheel built from
a checkout.  This builds the sdist and, from it, the wheel (``python -m
build``, as PyPA's front end does), checks both as the index would (``twine
check --strict``), installs the wheel into a fresh venv beside the pinned JAX
and checkers (nothing of the checkout on the path), and runs the Quick start
there from a project directory: ``jaxtypes jax-stubs install``, each checker
family configured by exactly the line the command printed for it (mypy with
the plugin, pyright, pyrefly, ty), on a small model file whose dtypes and
error JAX decides, and the runtime API against JAX.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tools.checkers import MYPY_FLAGS, reported_errors, revealed

from environments import pinned_requirement, printed_settings, write_printed_settings

REPO = Path(__file__).resolve().parent.parent
# One checker of each family (pyright's covers basedpyright).
CHECKERS = ("mypy", "pyright", "pyrefly", "ty")

MODEL = """\
import jax
import jax.numpy as jnp
from typing_extensions import reveal_type

from jaxtypes import bfloat16, float32, int8


def step(x: jax.Array[bfloat16], w: jax.Array[float32], q: jax.Array[int8]) -> None:
    reveal_type(x @ w)
    reveal_type(q * 2)
    reveal_type(jnp.tanh(x))
    q & 1.5
"""
# The lines JAX runs: each revealed expression, and the error line.
REVEALED = {9: "x @ w", 10: "q * 2", 11: "jnp.tanh(x)"}
ERROR_LINE = 12


def _run(cmd: list[str], cwd: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=1200, **kwargs)  # type: ignore[call-overload, no-any-return]


def _jax_truth(python: str, cwd: Path) -> tuple[dict[int, str], str]:
    """{line: dtype} of the revealed expressions, and what the error line does, in JAX."""
    code = (
        "import jax.numpy as jnp\n"
        "x, w, q = jnp.ones((2, 2), jnp.bfloat16), jnp.ones((2, 2), jnp.float32), jnp.ones((2, 2), jnp.int8)\n"
        f"print(' '.join(str(e.dtype) for e in ({', '.join(REVEALED.values())})))\n"
        "try:\n    q & 1.5\n    print('runs')\nexcept TypeError as e:\n    print('TypeError')\n"
    )
    proc = _run([python, "-c", code], cwd)
    assert proc.returncode == 0, proc.stderr[-3000:]
    dtypes, outcome = proc.stdout.splitlines()
    return dict(zip(REVEALED, dtypes.split())), outcome


@pytest.mark.slow
def test_quick_start_from_a_built_wheel(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    built = _run([sys.executable, "-m", "build", "--outdir", str(dist), str(REPO)], tmp_path)
    assert built.returncode == 0, built.stderr[-4000:]
    (wheel,) = dist.glob("jaxtypes-*.whl")
    (sdist,) = dist.glob("jaxtypes-*.tar.gz")
    checked = _run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)], tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    # The pinned JAX and checkers, and the numpy and ml_dtypes the recorded data was made with.
    requirements = [
        pinned_requirement(n) for n in ("jax", "jaxlib", "numpy", "ml_dtypes", "mypy", "pyright", "pyrefly", "ty")
    ]
    install = _run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel), *requirements], tmp_path)  # fmt: skip
    assert install.returncode == 0, install.stderr[-4000:]

    project = tmp_path / "project"
    project.mkdir()
    where = _run([python, "-c", "import jaxtypes; print(jaxtypes.__file__)"], project).stdout.strip()
    assert where.startswith(str(venv)), f"jaxtypes imported from {where}, not the installed wheel"
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "VIRTUAL_ENV": str(venv), "HOME": str(Path.home())}
    stubs = _run([str(venv / "bin" / "jaxtypes"), "jax-stubs", "install"], project, env=env)
    assert stubs.returncode == 0, stubs.stderr[-3000:]
    printed = printed_settings(stubs.stdout)
    assert set(CHECKERS) <= set(printed), stubs.stdout

    (project / "model.py").write_text(MODEL)
    truth, outcome = _jax_truth(python, project)
    assert outcome == "TypeError"
    for checker in CHECKERS:
        for leftover in ("mypy.ini", "pyproject.toml"):
            (project / leftover).unlink(missing_ok=True)
        setups = ["mypy", "mypy-plugin"] if checker == "mypy" else [checker]
        setup = setups[-1]
        write_printed_settings(project, setup, printed)
        if setup == "mypy-plugin":  # the printed line is the plugin's: "plugins = jaxtypes.mypy_plugin"
            assert (project / "mypy.ini").read_text() == "[mypy]\nplugins = jaxtypes.mypy_plugin\n"
        # The output formats tools/checkers.py reads; the venv's own checkers.
        cmd = {
            "mypy-plugin": [python, "-m", "mypy", "--no-incremental", *MYPY_FLAGS, "model.py"],
            "pyright": [str(venv / "bin" / "pyright"), "--outputjson", "model.py"],
            "pyrefly": [str(venv / "bin" / "pyrefly"), "check", "--output-format", "json", "--summary=none"],
            "ty": [str(venv / "bin" / "ty"), "check", "--output-format", "concise", "--color", "never", "model.py"],
        }[setup]
        proc = _run(cmd, project, env=env)
        output = proc.stdout
        reveals = revealed("mypy" if setup == "mypy-plugin" else setup, output, project)
        for line, dtype in truth.items():
            types = reveals.get(("model.py", line), [])
            assert any(re.search(rf"Array\[(?:[\w.]+\.)?{dtype}\]", t) for t in types), (
                setup,
                line,
                dtype,
                types,
                output[-3000:],
            )
        errors = reported_errors("mypy" if setup == "mypy-plugin" else setup, output, project)
        assert set(line for _, line in errors) == {ERROR_LINE}, (setup, output[-3000:])

    # The runtime API: JAX's answers, without importing JAX.
    code = (
        "import sys, jaxtypes\n"
        "print(jaxtypes.promote_types('bfloat16', 'float16'), jaxtypes.result_type('int8', 1.0), 'jax' in sys.modules)\n"
    )
    ours = _run([python, "-c", code], project)
    theirs = _run([python, "-c", "import jax.numpy as jnp; print(jnp.promote_types('bfloat16', 'float16'), "
                   "jnp.result_type('int8', 1.0), False)"], project)  # fmt: skip
    assert ours.returncode == 0 and ours.stdout == theirs.stdout, (ours.stdout, ours.stderr, theirs.stdout)
