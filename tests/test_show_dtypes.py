"""examples/show_dtypes.py, the README's first run, end to end.

It runs as a user runs it (a subprocess, from an empty directory, with its own
TMPDIR); its table must have JAX's run-time dtypes, the plain-JAX baseline,
each set-up's inferred dtypes and the error rows caught, and it must leave no
temporary folder behind.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MODULE = "examples.show_dtypes"  # run from the checkout's root, as the README says
SETUPS = ("mypy", "mypy (plugin)", "pyright", "basedpyright", "pyrefly", "ty")
BASELINE = "plain jax.Array (pyright)"

# Per row of the example (its expression or statement): what JAX 0.10.2
# computes, x64 off (jnp.ones((4, 4), dtype) for each parameter), and the type
# that is right for it.
REVEALS = {
    "x @ kernel": ("float32", "Array[float32]"),
    "x @ kernel.astype(bfloat16)": ("bfloat16", "Array[bfloat16]"),
    "q * 2 + 1": ("int8", "Array[int8]"),
    "q * 0.5": ("float32 (weak)", "Array[weak_float]"),
    "q / 2": ("float32", "Array[float32]"),
    "q + u": ("int16", "Array[int16]"),
    "q.sum()": ("int32", "Array[int32]"),
    "q.mean()": ("float32", "Array[float32]"),
    "z * w": ("complex64", "Array[complex64]"),
    "abs(z)": ("float32", "Array[float32]"),
    "(z * w).real": ("float32", "Array[float32]"),
}
# Per error row: what JAX does, and the plugin's error code.
ERRORS = {
    "return x @ kernel": ("returns float32", "return-value"),
    "q & 0.5": ("raises TypeError", "jax-unsupported"),
    "q4 * scale": ("raises TypePromotionError", "jax-promotion"),
}


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _untracked() -> set[str]:
    """The checkout's files git neither tracks nor ignores."""
    out = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    return set(out.splitlines())


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path, set[str]]:
    """The script's run, its TMPDIR, and the names seen in TMPDIR while it ran."""
    base = tmp_path_factory.mktemp("first-run")
    tmpdir = base / "tmp"
    tmpdir.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    env["TMPDIR"] = str(tmpdir)
    seen: set[str] = set()
    untracked = _untracked()
    with open(base / "stdout", "w+") as stdout, open(base / "stderr", "w+") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", MODULE], cwd=REPO, env=env, stdout=stdout, stderr=stderr, text=True
        )
        deadline = time.monotonic() + 900
        while proc.poll() is None:
            seen.update(p.name for p in tmpdir.iterdir())
            if time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"{MODULE} took more than 15 minutes")
            time.sleep(0.2)
        stdout.seek(0)
        stderr.seek(0)
        done = subprocess.CompletedProcess(proc.args, proc.returncode, stdout.read(), stderr.read())
    assert _untracked() == untracked, "the first run wrote into the checkout it was run from"
    return done, tmpdir, seen


@pytest.fixture(scope="module")
def table(first_run: tuple[subprocess.CompletedProcess[str], Path, set[str]]) -> dict[str, dict[str, str]]:
    """The printed table: {expression: {column: cell}}."""
    proc = first_run[0]
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("|")]
    header = _cells(lines[0])
    assert set(_cells(lines[1])) == {"---"}
    rows = {}
    for line in lines[2:]:
        cells = dict(zip(header, _cells(line)))
        expression = cells["expression"].split("`")[1]
        rows[expression] = cells
    return rows


def test_columns(table: dict[str, dict[str, str]]) -> None:
    columns = list(next(iter(table.values())))
    assert columns == ["line", "expression", "JAX (run time)", BASELINE, *SETUPS]


def test_rows_are_the_examples_reveals_and_errors(table: dict[str, dict[str, str]]) -> None:
    assert set(table) == set(REVEALS) | set(ERRORS)
    source = (REPO / "examples" / "mixed_precision.py").read_text().splitlines()
    for expression, cells in table.items():
        assert expression in source[int(cells["line"]) - 1], (expression, cells["line"])


def test_runtime_column_is_what_jax_computes(table: dict[str, dict[str, str]]) -> None:
    for expression, (jax_result, _) in REVEALS.items():
        assert table[expression]["JAX (run time)"] == jax_result, expression
    for expression, (jax_result, _) in ERRORS.items():
        assert table[expression]["JAX (run time)"] == jax_result, expression


def test_plain_jax_knows_no_dtype_and_catches_no_error(table: dict[str, dict[str, str]]) -> None:
    for expression in REVEALS:
        assert table[expression][BASELINE] == "Array", expression
    for expression in ERRORS:
        assert table[expression][BASELINE] == "missed", expression


@pytest.mark.parametrize("setup", SETUPS)
def test_each_setup_infers_jaxs_dtypes(table: dict[str, dict[str, str]], setup: str) -> None:
    for expression, (_, right) in REVEALS.items():
        assert table[expression][setup] == right, (expression, table[expression][setup])


@pytest.mark.parametrize("setup", SETUPS)
def test_each_setup_catches_the_errors(table: dict[str, dict[str, str]], setup: str) -> None:
    for expression in ERRORS:
        assert table[expression][setup].startswith("error: "), (expression, table[expression][setup])


def test_plugin_column_uses_the_plugin(table: dict[str, dict[str, str]]) -> None:
    """Its codes are the plugin's own, where mypy alone gives others."""
    for expression, (_, code) in ERRORS.items():
        assert table[expression]["mypy (plugin)"] == f"error: {code}", expression
    assert table["q & 0.5"]["mypy"] != table["q & 0.5"]["mypy (plugin)"]


def test_progress_line_per_checker(first_run: tuple[subprocess.CompletedProcess[str], Path, set[str]]) -> None:
    progress = first_run[0].stderr.splitlines()
    assert any(line.strip().startswith("jaxtypes jax-stubs --out typings") for line in progress)
    for name in ("JAX", BASELINE, *SETUPS):  # the name, then the padding of its column
        assert [line for line in progress if line.strip().startswith(name + "  ")], name


def test_no_temporary_folder_left(first_run: tuple[subprocess.CompletedProcess[str], Path, set[str]]) -> None:
    _, tmpdir, seen = first_run
    assert any(name.startswith("jaxtypes-example-") for name in seen), seen  # it did use TMPDIR
    assert not list(tmpdir.iterdir())


def test_readme_first_command_runs_this_script() -> None:
    """The README's set-up command 1 installs the checkout and runs the script tested here."""
    readme = (REPO / "README.md").read_text()
    setup = readme[readme.index("## Set-up") :]
    start = setup.index("```bash\n") + len("```bash\n")
    block = setup[start : setup.index("\n```", start)]
    commands = [line for line in block.splitlines() if line and not line.startswith("#")]
    steps = [step.strip() for step in commands[0].split("&&")]
    assert steps == ["python3 -m venv .venv", '.venv/bin/pip install -e ".[test]"', f".venv/bin/python -m {MODULE}"]


def test_the_script_runs_as_a_file_too(tmp_path: Path) -> None:
    """``python examples/show_dtypes.py`` (as the example's docstring once said)
    finds the checkout's tools/ as ``-m`` does: loaded as a file from elsewhere,
    it imports."""
    code = f"import runpy; runpy.run_path({str(REPO / 'examples' / 'show_dtypes.py')!r}, run_name='loaded')"
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
