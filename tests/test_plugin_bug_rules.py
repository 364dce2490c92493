"""mypy with the plugin (and the JAX stubs installed) on the calls whose
dtype rules the real-bug benchmark (benchmarks/real_bugs) needed:
``lax.select``/``select_n`` and ``lax.dynamic_update_slice`` of cases of
different dtypes, a conditional ``dtype=``, a Python int that does not fit
the int JAX makes of it, ``jnp.array``/``jnp.asarray`` of a list of Python
scalars or with ``dtype=``.

Each case is run twice: under JAX (in a subprocess, x64 as the case says),
which gives the answer, the dtype or the exception; and under mypy with the
plugin, which must reveal that dtype (the union of both branches' for a
conditional ``dtype=``) or report an error on the line where JAX raises.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tools.checkers import MYPY_PLUGIN, launch, plugin_config, reported_errors, revealed

import environments
import project_runs

# name -> (x64, expression); the arrays: p (bool), n (int32), f (float32),
# h (float16), b (bfloat16), i (int8), wf (a weak float), q (a Python bool),
# x (a Python float)
CASES: dict[str, tuple[bool, str]] = {
    "select_one_dtype": (False, "lax.select(p, f, f)"),
    "select_weak_float_with_float32": (False, "lax.select(p, f, wf)"),
    "select_weak_float_with_int8": (False, "lax.select(p, i, wf)"),
    "select_weak_float_with_bfloat16": (False, "lax.select(p, b, wf)"),
    "select_float32_bfloat16": (False, "lax.select(p, f, b)"),
    "select_n_one_dtype": (False, "lax.select_n(n, f, f, f)"),
    "select_n_three_cases": (False, "lax.select_n(n, f, f, b)"),
    "dynamic_update_slice_mixed": (False, "lax.dynamic_update_slice(h, f, (0,))"),
    "conditional_dtype": (False, "jnp.zeros((2,), dtype=jnp.int8 if q else jnp.bfloat16)"),
    "int_too_large_for_int32": (False, "lax.neg(1 << 32)"),
    "int_fits_int32": (False, "lax.neg(2**31 - 1)"),
    "int_too_large_x64": (True, "lax.neg(1 << 32)"),
    "conditional_dtype_x64": (True, "jnp.zeros((2,), dtype=jnp.float64 if q else jnp.int8)"),
    "array_of_floats": (False, "jnp.array([1.0, 2.0])"),
    "array_of_floats_x64": (True, "jnp.array([1.0, 2.0])"),
    "array_of_bools_and_ints": (False, "jnp.asarray([True, 1])"),
    "array_of_bools_and_ints_x64": (True, "jnp.asarray([True, 1])"),
    "array_of_complex_x64": (True, "jnp.array((1.0, 2j))"),
    "nested_array_of_ints": (False, "jnp.array([[1], [2]])"),
    "array_with_dtype": (False, "jnp.array([x, x], dtype=jnp.int32)"),
    "array_with_dtype_x64": (True, "jnp.array([x, x], dtype=jnp.float32)"),
}
ARRAYS = {
    "p": ("bool_", "jnp.array([True, False])"),
    "n": ("int32", "jnp.array([0, 2], dtype=jnp.int32)"),
    "f": ("float32", "jnp.ones(2, jnp.float32)"),
    "h": ("float16", "jnp.ones(2, jnp.float16)"),
    "b": ("bfloat16", "jnp.ones(2, jnp.bfloat16)"),
    "i": ("int8", "jnp.ones(2, jnp.int8)"),
    "wf": ("weak_float", "lax.neg(jnp.full((2,), 1.0))"),  # (jnp.full of a Python float: weakly typed)
}
MARKERS = {  # JAX's dtype -> the marker mypy reveals (weak: its weak marker)
    ("float32", False): "float32",
    ("float32", True): "weak_float",
    ("int32", True): "weak_int",
    ("int64", True): "weak_int",
    ("bfloat16", False): "bfloat16",
    ("int8", False): "int8",
    ("int32", False): "int32",
    ("int64", False): "int64",
    ("float64", False): "float64",
    ("complex64", False): "complex64",
    ("complex128", False): "complex128",
}

JAX_PROGRAM = """
import json, sys
import jax.numpy as jnp
from jax import lax
arrays = {arrays}
out = {{}}
for name, expr in {cases}.items():
    results = []
    for q in (True, False):
        scope = {{"jnp": jnp, "lax": lax, "q": q, "x": 0.5, **{{k: eval(v) for k, v in arrays.items()}}}}
        try:
            r = eval(expr, scope)
            results.append([str(r.dtype), bool(r.aval.weak_type)])
        except Exception as e:
            results.append(["!" + type(e).__name__, False])
    out[name] = results
print(json.dumps(out))
"""


def _jax(x64: bool) -> dict[str, list[tuple[str, bool]]]:
    cases = {name: expr for name, (c64, expr) in CASES.items() if c64 == x64}
    program = JAX_PROGRAM.format(arrays={k: v for k, (_, v) in ARRAYS.items()}, cases=cases)
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "JAX_ENABLE_X64": "1" if x64 else "0"}
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {name: [(d, w) for d, w in got] for name, got in json.loads(proc.stdout.splitlines()[-1]).items()}


def _case_file(x64: bool) -> tuple[str, dict[str, int]]:
    names = [n for n, (c64, _) in CASES.items() if c64 == x64]
    params = ", ".join(f"{k}: jax.Array[{marker}]" for k, (marker, _) in ARRAYS.items())
    lines = [
        "import jax",
        "import jax.numpy as jnp",
        "from jax import lax",
        "from jaxtypes import bfloat16, bool_, float16, float32, int8, int32, weak_float",
        f"def f({params}, q: bool, x: float) -> None:",
    ]
    where: dict[str, int] = {}
    for name in names:
        lines.append(f"    reveal_type({CASES[name][1]})")
        where[name] = len(lines)
    return "\n".join(lines) + "\n", where


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
def test_plugin_answers_these_calls_as_jax_does(x64: bool) -> None:
    truth = _jax(x64)
    text, where = _case_file(x64)
    venv = project_runs.installed()[0]
    with tempfile.TemporaryDirectory(prefix="plugin-bug-rules-") as tmp:
        root = Path(tmp)
        (root / "case.py").write_text(text)
        cmd = environments.mypy_in(venv, root, plugin_config("standard", x64=x64), ["case.py"])
        run = launch("mypy", root, cmd, 600, environments.user_env(venv))
        errors = reported_errors(MYPY_PLUGIN, run.stdout, root)
        types = revealed(MYPY_PLUGIN, run.stdout, root)
    wrong: list[str] = []
    for name, line in where.items():
        answers = set(truth[name])
        errs = errors.get(("case.py", line), [])
        got = types.get(("case.py", line), ["?"])[0]
        if any(d.startswith("!") for d, _ in answers):
            if not errs:
                wrong.append(f"{name}: JAX raises {answers}, the plugin reports nothing ({got})")
            continue
        if errs:
            wrong.append(f"{name}: JAX gives {answers}, the plugin reports {errs}")
        want = {MARKERS[a] for a in answers}
        shown = {part.rpartition(".")[2].rstrip("]") for part in got.split(" | ")}
        if shown != want:
            wrong.append(f"{name}: JAX gives {sorted(want)}, the plugin reveals {got}")
    assert not wrong, "\n".join(wrong)


def test_the_messages_name_both_dtypes_and_the_fix() -> None:
    text, where = _case_file(False)
    venv = project_runs.installed()[0]
    with tempfile.TemporaryDirectory(prefix="plugin-bug-rules-") as tmp:
        root = Path(tmp)
        (root / "case.py").write_text(text)
        cmd = environments.mypy_in(venv, root, plugin_config("standard"), ["case.py"])
        errors = reported_errors(MYPY_PLUGIN, launch("mypy", root, cmd, 600, environments.user_env(venv)).stdout, root)
    select = " ".join(e.message for e in errors[("case.py", where["select_float32_bfloat16"])])
    assert "float32 and bfloat16" in select and "astype" in select and "jnp.where" in select, select
    update = " ".join(e.message for e in errors[("case.py", where["dynamic_update_slice_mixed"])])
    assert "float16 and float32" in update and "astype" in update, update
    overflow = " ".join(e.message for e in errors[("case.py", where["int_too_large_for_int32"])])
    assert "4294967296" in overflow and "int32" in overflow and "OverflowError" in overflow, overflow


def test_a_declared_type_does_not_decide_the_dtype_argument() -> None:
    """mypy solves the stubs' dtype variable from the declared type a call is
    assigned to; the plugin reads ``dtype=`` itself: int32, as JAX says."""
    truth = _jax_expression("jnp.zeros(3, dtype=jnp.int32)")
    assert truth == "int32"
    venv = project_runs.installed()[0]
    text = (
        "import jax\nimport jax.numpy as jnp\nfrom jaxtypes import float32\n"
        "def f(t: float) -> None:\n"
        "    a: jax.Array[float32] = jnp.zeros(3, dtype=jnp.int32)\n"
        "    b: jax.Array[float32] = jnp.array([t], dtype=jnp.int32)\n"
    )
    with tempfile.TemporaryDirectory(prefix="plugin-bug-rules-") as tmp:
        root = Path(tmp)
        (root / "case.py").write_text(text)
        cmd = environments.mypy_in(venv, root, plugin_config("standard"), ["case.py"])
        errors = reported_errors(MYPY_PLUGIN, launch("mypy", root, cmd, 600, environments.user_env(venv)).stdout, root)
    for line in (5, 6):
        messages = " ".join(e.message for e in errors.get(("case.py", line), []))
        assert "Array[int32]" in messages, (line, errors)


def _jax_expression(expr: str) -> str:
    program = f"import jax.numpy as jnp\nprint(({expr}).dtype)"
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "JAX_ENABLE_X64": "0"}
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.split()[-1]
