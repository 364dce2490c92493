"""`jaxtypes annotate -- COMMAND`: record a run under JAX, rewrite the annotations.

A small project in a scratch directory (``MODEL``: bare ``jax.Array``
annotations on plain functions, a norm called with float32 and bfloat16, a
function under ``jit``, one under ``vmap``, a ``lax.scan`` body, a method and
a field of a dataclass, a tuple result, a function whose calls disagree, one
that only ever sees weakly typed arrays, a jaxtyping annotation) and a driver
that calls it and writes down the dtype JAX gives at each place
(``truth.json``), which is what the rewritten annotations must say.  The
command runs as a user runs it, ``python -m jaxtypes annotate`` from the
project's directory.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from jaxtypes.annotation_rewriter import TYPEVAR, decide
from tools.checkers import MYPY_PLUGIN, execute, plugin_config, reported_errors, revealed, stage

import project_runs
from environments import mypy_in, printed_settings, user_command, user_env, write_printed_settings

REPO = Path(__file__).resolve().parent.parent

MODEL = '''\
"""A small model, annotated as JAX code usually is: bare jax.Array."""

import dataclasses

import jax
import jax.numpy as jnp
from jax import lax
from jaxtyping import Array, Float


def scale(x: jax.Array, factor: float) -> jax.Array:
    # a comment the rewrite keeps
    return x * factor


def rms_norm(x: jax.Array, eps: float = 1e-6) -> jax.Array:
    y = x.astype(jnp.float32)
    y = y * lax.rsqrt(jnp.mean(y * y, axis=-1, keepdims=True) + eps)
    return y.astype(x.dtype)  # back to the input's dtype


@jax.jit
def project(x: jax.Array, w: jax.Array) -> jax.Array:
    return x @ w


def row_sum(v: jax.Array) -> jax.Array:
    return jnp.sum(v)


def cumulative(xs: jax.Array) -> jax.Array:
    def step(carry: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        carry = carry + x
        return carry, carry * 2

    _, ys = lax.scan(step, jnp.zeros((), xs.dtype), xs)
    return ys


def split(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return x.astype(jnp.int32), x.astype(jnp.bfloat16)


def disagree(x: jax.Array) -> jax.Array:
    return x.astype(jnp.float32) if x.dtype == jnp.int32 else x.astype(jnp.int8)


def weak_only(x: jax.Array) -> jax.Array:
    return x


def shaped(x: Float[Array, "b n"]) -> Float[Array, "b n"]:
    return x * 2


def unannotated(x):
    return x


def first_key(key: jax.Array) -> jax.Array:
    return jax.random.split(key)[0]


@dataclasses.dataclass
class Dense:
    w: jax.Array

    def __call__(self, x: jax.Array) -> jax.Array:
        return x @ self.w
'''

# Calls the model and records the dtype JAX gives at each place.
DRIVER = '''\
import json
import sys

import jax
import jax.numpy as jnp

import model

truth = {}


def seen(name, place, array):
    truth.setdefault(name, {})[place] = str(array.dtype)
    return array


x = seen("scale", "x", jnp.ones((2, 3), jnp.float32))
seen("scale", "return", model.scale(x, 2.0))
for dtype in (jnp.float32, jnp.bfloat16):
    y = jnp.ones((2, 3), dtype)
    assert model.rms_norm(y).dtype == y.dtype
w = seen("project", "w", jnp.ones((3, 4), jnp.float32))
seen("project", "x", x)
seen("project", "return", model.project(x, w))
rows = seen("row_sum", "v", jnp.ones((4, 5), jnp.int8))
seen("row_sum", "return", jax.vmap(model.row_sum)(rows))
xs = seen("cumulative", "xs", jnp.arange(5, dtype=jnp.int16))
seen("cumulative", "return", model.cumulative(xs))
first, second = model.split(x)
seen("split", "return[0]", first)
seen("split", "return[1]", second)
model.disagree(jnp.ones(3, jnp.int32))
model.disagree(jnp.ones(3, jnp.float32))
seen("weak_only", "times_bfloat16", jnp.ones(2, jnp.bfloat16) * model.weak_only(jnp.asarray(1.0)))
seen("weak_only", "times_float32", jnp.ones(2, jnp.float32) * model.weak_only(jnp.asarray(1.0)))
seen("shaped", "return", model.shaped(x))
model.unannotated(x)
model.first_key(jax.random.key(0))
dense = model.Dense(seen("Dense", "w", jnp.ones((3, 2), jnp.bfloat16)))
seen("Dense.__call__", "return", dense(x.astype(jnp.bfloat16)))
if len(sys.argv) > 1:
    with open(sys.argv[1], "w") as f:
        json.dump(truth, f)
print("driver ok", file=sys.stderr)
'''

TESTS = '''\
import jax.numpy as jnp

import model


def test_scale():
    assert model.scale(jnp.ones(3, jnp.bfloat16), 2.0).dtype == jnp.bfloat16


def test_norm():
    for dtype in (jnp.float32, jnp.float16):
        assert model.rms_norm(jnp.ones((2, 3), dtype)).dtype == dtype
'''


def _project(root: Path) -> Path:
    (root / "model.py").write_text(MODEL)
    (root / "driver.py").write_text(DRIVER)
    return root


def _annotate(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jaxtypes", "annotate", *argv], cwd=root, capture_output=True, text=True, timeout=600
    )


def _jax_spelling(truth: dict[str, dict[str, str]]) -> Callable[[str, str], str]:
    """The annotation JAX's spelling gives the dtype JAX gave at (function, place)."""
    return lambda name, place: f"jax.Array[jnp.{truth[name][place]}]"


def _driver(root: Path) -> dict[str, dict[str, str]]:
    """Run the driver plainly; the dtypes JAX gave at each place."""
    proc = subprocess.run(
        [sys.executable, "driver.py", "truth.json"], cwd=root, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    truth: dict[str, dict[str, str]] = json.loads((root / "truth.json").read_text())
    return truth


def _annotated(root: Path, model: str, driver: str) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A project of ``model.py`` and ``driver.py`` after `jaxtypes annotate -- python driver.py`."""
    (root / "model.py").write_text(model)
    (root / "driver.py").write_text(driver)
    proc = _annotate(root, "--", sys.executable, "driver.py")
    assert proc.returncode == 0, proc.stderr
    return root, proc


def _second_run_changes_nothing(root: Path) -> subprocess.CompletedProcess[str]:
    """The driver still runs after the rewrite, and annotating again changes nothing."""
    _driver(root)  # asserts its exit code
    before = (root / "model.py").read_text()
    again = _annotate(root, "--", sys.executable, "driver.py")
    assert again.returncode == 0, again.stderr
    assert (root / "model.py").read_text() == before
    assert again.stdout.startswith("jaxtypes annotate: annotated 0 functions"), again.stdout
    return again


def _checked(checker: str, root: Path, check: str, tmp_path: Path) -> list[str]:
    """The annotated module and ``check`` type-checked as a user set them up
    (the line `jaxtypes jax-stubs install` printed; mypy's plugin by its
    configuration): what each reveal_type of ``check`` shows, in order; the
    module gets no error (but basedpyright's own rule against Equinox's
    idiom, an __init__ without super().__init__(), with or without the stubs)."""
    shutil.copy(root / "model.py", tmp_path / "model.py")
    venv, printed = project_runs.installed()
    paths = [*stage({"check.py": check}, tmp_path), "model.py"]
    if checker == MYPY_PLUGIN:
        cmd = mypy_in(venv, tmp_path, plugin_config(), paths)
    else:
        write_printed_settings(tmp_path, checker, printed_settings(printed))
        cmd = user_command(checker, venv, tmp_path, paths)
    out = execute(checker, tmp_path, cmd, env=user_env(venv))
    errors = reported_errors(checker, out, tmp_path)
    errors = {k: [m for m in v if "reportMissingSuperCall" not in m] for k, v in errors.items()}
    assert not any(errors.values()), errors
    reveals = revealed(checker, out, tmp_path)
    lines = sorted(line for path, line in reveals if path == "check.py")
    return [shown for line in lines for shown in reveals["check.py", line]]


@pytest.fixture(scope="module")
def annotated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The project after `jaxtypes annotate -- python driver.py`."""
    root = _project(tmp_path_factory.mktemp("annotated"))
    proc = _annotate(root, "--", sys.executable, "driver.py")
    assert proc.returncode == 0, proc.stderr
    return root, proc


def test_annotations_are_the_dtypes_jax_gives(annotated: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    root, _ = annotated
    t = _driver(root)
    source = (root / "model.py").read_text()

    a = _jax_spelling(t)

    assert f"def scale(x: {a('scale', 'x')}, factor: float) -> {a('scale', 'return')}:" in source
    assert f"def project(x: {a('project', 'x')}, w: {a('project', 'w')}) -> {a('project', 'return')}:" in source
    # under vmap: each row's dtype, and the sum JAX gives an int8 row (int32)
    assert f"def row_sum(v: {a('row_sum', 'v')}) -> {a('row_sum', 'return')}:" in source
    assert t["row_sum"] == {"v": "int8", "return": "int32"}
    # the scan's body sees the carry and the items as tracers of the input's dtype
    xs = a("cumulative", "xs")
    assert f"def cumulative(xs: {xs}) -> {a('cumulative', 'return')}:" in source
    assert f"def step(carry: {xs}, x: {xs}) -> tuple[{xs}, {xs}]:" in source
    assert f"def split(x: {a('scale', 'x')}) -> tuple[{a('split', 'return[0]')}, {a('split', 'return[1]')}]:" in source
    assert f"    w: {a('Dense', 'w')}\n" in source
    dense = a("Dense.__call__", "return")
    assert f"def __call__(self, x: {dense}) -> {dense}:" in source
    # jaxtyping's category and shape stay; the array in it gets its dtype
    shaped = t["shaped"]["return"]
    assert f'def shaped(x: Float[Array[jnp.{shaped}], "b n"]) -> Float[Array[jnp.{shaped}], "b n"]:' in source


def test_weakly_typed_arrays_get_the_weak_marker(annotated: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    """JAX's float32 made from Python scalars (``jnp.asarray(1.0)``) promotes
    as a Python float does: jax.numpy has no name for it, jaxtypes' weak
    marker is written, and jaxtypes imported for it."""
    root, _ = annotated
    source = (root / "model.py").read_text()
    weak = "jax.Array[jaxtypes.weak_float]"
    assert f"def weak_only(x: {weak}) -> {weak}:" in source
    assert re.search(r"^import jaxtypes$", source, re.M)


def test_a_result_following_a_parameter_gets_a_dtype_variable(
    annotated: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    root, proc = annotated
    source = (root / "model.py").read_text()
    assert "def rms_norm(x: jax.Array[DT], eps: float = 1e-6) -> jax.Array[DT]:" in source
    assert source.count('DT = TypeVar("DT")') == 1
    assert "from typing import TypeVar" in source
    assert "rms_norm: x: jax.Array[DT], return: jax.Array[DT]" in proc.stdout


def test_disagreeing_and_unannotated_places_are_left_and_reported(
    annotated: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    root, proc = annotated
    source = (root / "model.py").read_text()
    assert "def disagree(x: jax.Array) -> jax.Array:" in source
    assert "def unannotated(x):" in source
    left = proc.stdout.split("left as written:\n", 1)[1]
    assert re.search(r"model\.py:\d+ disagree, x: called with several dtypes \(float32, int32\)", left)
    assert re.search(r"model\.py:\d+ disagree, return: results of several dtypes \(float32, int8\)", left)
    assert re.search(r"model\.py:\d+ unannotated, x: not annotated \(saw float32\)", left)
    # a typed PRNG key's dtype has no marker
    assert "def first_key(key: jax.Array) -> jax.Array:" in source
    assert re.search(r"model\.py:\d+ first_key, key: key<fry> seen, which no dtype annotation names", left)


@pytest.mark.parametrize(
    ("calls", "dtypes", "left"),
    [
        # one dtype, weakly typed calls of that dtype aside
        ([{"x": "float32"}, {"x": "float32:weak"}], {"x": "float32"}, {}),
        # only weakly typed arrays of JAX's default dtype of a kind (x64 off or on): its weak marker
        ([{"x": "float32:weak"}, {"x": "float32:weak"}], {"x": "weak_float"}, {}),
        ([{"x": "int64:weak", "return": "int64:weak"}], {"x": "weak_int", "return": "weak_int"}, {}),
        ([{"x": "complex64:weak"}], {"x": "weak_complex"}, {}),
        # a weakly typed bfloat16 array, or weak arrays of two kinds: no weak marker names them
        ([{"x": "bfloat16:weak"}], {}, {"x": "only weakly typed arrays seen (bfloat16)"}),
        ([{"x": "float32:weak"}, {"x": "int32:weak"}], {}, {"x": "only weakly typed arrays seen (float32, int32)"}),
        # the result follows x, not y; y has one dtype
        (
            [{"x": "float32", "y": "int8", "return": "float32"}, {"x": "bfloat16", "y": "int8", "return": "bfloat16"}],
            {"x": TYPEVAR, "y": "int8", "return": TYPEVAR},
            {},
        ),
        # a weakly typed call breaks the following
        (
            [{"x": "float32", "return": "float32"}, {"x": "bfloat16:weak", "return": "bfloat16"}],
            {},
            {"x": "called with several", "return": "results of several"},
        ),
    ],
)
def test_decide(calls: list[dict[str, str]], dtypes: dict[str, str], left: dict[str, str]) -> None:
    decision = decide([*{place for call in calls for place in call}], calls)
    assert decision.dtypes == dtypes
    assert set(decision.left) == set(left)
    for place, start in left.items():
        assert decision.left[place].startswith(start), decision.left[place]


def test_comments_formatting_and_the_rest_survive(annotated: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    root, _ = annotated
    source = (root / "model.py").read_text()
    assert "    # a comment the rewrite keeps\n" in source
    assert "    return y.astype(x.dtype)  # back to the input's dtype\n" in source
    assert source.startswith('"""A small model, annotated as JAX code usually is: bare jax.Array."""\n')
    # nothing but annotations and the added header lines changed
    added = {
        "import jaxtypes",  # a weak marker names it
        "from typing import TypeVar",
        'DT = TypeVar("DT")',
    }
    before = [line for line in MODEL.splitlines() if line and "Array" not in line]
    after = [line for line in source.splitlines() if line and "Array" not in line and line not in added]
    assert before == after


def test_the_driver_still_runs_and_a_second_run_changes_nothing(
    annotated: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    root, _ = annotated
    again = _second_run_changes_nothing(root)
    assert "driver ok" in again.stderr  # the command's own output, on standard error


def test_diff_writes_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path)
    proc = _annotate(root, "--diff", "--", sys.executable, "driver.py")
    assert proc.returncode == 0, proc.stderr
    assert (root / "model.py").read_text() == MODEL
    assert proc.stdout.startswith("--- a/model.py\n+++ b/model.py\n")
    assert "\n-def scale(x: jax.Array, factor: float) -> jax.Array:\n" in proc.stdout
    assert "\n+def scale(x: jax.Array[jnp.float32], factor: float) -> jax.Array[jnp.float32]:\n" in proc.stdout
    assert "jaxtypes annotate: would annotate" in proc.stderr


def test_jaxtypes_spelling(tmp_path: Path) -> None:
    root = _project(tmp_path)
    proc = _annotate(root, "--spelling", "jaxtypes", "--", sys.executable, "driver.py")
    assert proc.returncode == 0, proc.stderr
    t = _driver(root)
    source = (root / "model.py").read_text()
    x, result = (f"jaxtypes.Array[jaxtypes.{t['scale'][p]}]" for p in ("x", "return"))
    assert f"def scale(x: {x}, factor: float) -> {result}:" in source
    assert "def rms_norm(x: jaxtypes.Array[DT], eps: float = 1e-6) -> jaxtypes.Array[DT]:" in source
    assert "\nimport jaxtypes\n" in source


def test_jaxtyping_spelling_keeps_the_shape(tmp_path: Path) -> None:
    root = _project(tmp_path)
    proc = _annotate(root, "--spelling", "jaxtyping", "--", sys.executable, "driver.py")
    assert proc.returncode == 0, proc.stderr
    t = _driver(root)
    source = (root / "model.py").read_text()
    names = {"float32": "Float32", "int32": "Int32", "int8": "Int8", "bfloat16": "BFloat16"}
    assert t["shaped"]["return"] == "float32"
    assert 'def shaped(x: Float32[Array, "b n"]) -> Float32[Array, "b n"]:' in source
    x, result = (names[t["scale"][p]] for p in ("x", "return"))
    assert f'def scale(x: {x}[jax.Array, "..."], factor: float) -> {result}[jax.Array, "..."]:' in source
    assert re.search(r"^from jaxtyping import .*Float32", source, re.M)
    # a dtype variable has no jaxtyping spelling: the norm is left, and said so
    assert "def rms_norm(x: jax.Array, eps: float = 1e-6) -> jax.Array:" in source
    assert "rms_norm, x: jaxtyping's annotations cannot name a dtype variable" in proc.stdout


def test_a_pytest_run(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "test_model.py").write_text(TESTS)
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "test_model.py"]
    proc = _annotate(root, "--", *argv)
    assert proc.returncode == 0, proc.stderr
    source = (root / "model.py").read_text()
    assert "def scale(x: jax.Array[jnp.bfloat16], factor: float) -> jax.Array[jnp.bfloat16]:" in source
    assert "def rms_norm(x: jax.Array[DT], eps: float = 1e-6) -> jax.Array[DT]:" in source
    assert "2 passed" in proc.stderr
    rerun = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr


def test_path_filter(tmp_path: Path) -> None:
    root = _project(tmp_path)
    proc = _annotate(root, "--path", "driver.py", "--", sys.executable, "driver.py")
    assert proc.returncode == 0, proc.stderr
    assert (root / "model.py").read_text() == MODEL
    proc = _annotate(root, "--path", "mod*.py", "--diff", "--", sys.executable, "driver.py")
    assert "+def scale(x: jax.Array[jnp.float32]" in proc.stdout


def test_a_failing_command_rewrites_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "driver.py").write_text(DRIVER + "raise SystemExit(3)\n")
    proc = _annotate(root, "--", sys.executable, "driver.py")
    assert proc.returncode == 3
    assert "the command exited with code 3; nothing was rewritten" in proc.stderr
    assert (root / "model.py").read_text() == MODEL


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        ([], ["annotate: give the command to run after --"]),
        (["--"], ["annotate: give the command to run after --"]),
        (["--spelling", "numpy", "--", "python", "x.py"], ["'numpy'", "'jax', 'jaxtypes', 'jaxtyping'"]),
        (["--", "no-such-command-here"], ["cannot run 'no-such-command-here': no such command"]),
        (["--", "true"], ["started no Python process that recorded"]),
    ],
)
def test_bad_input_is_one_line_naming_it(tmp_path: Path, argv: list[str], fragments: list[str]) -> None:
    proc = _annotate(tmp_path, *argv)
    assert proc.returncode == 2, proc.stderr
    error = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert len(error) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for fragment in fragments:
        assert fragment in error[0]


def test_without_libcst_the_command_says_what_to_install(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['libcst'] = None\n"
        "from jaxtypes.cli import main\n"
        "sys.exit(main(['annotate', '--', 'python', 'x.py']))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "annotate needs libcst" in proc.stderr and "jaxtypes[annotate]" in proc.stderr


def test_importing_jaxtypes_imports_no_libcst() -> None:
    code = "import sys, jaxtypes, jaxtypes.cli; print('libcst' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "False", proc.stderr


# ------------------------------------------------------------ type checking
CHECK = '''\
import jax
import jax.numpy as jnp
from typing_extensions import reveal_type

import model


def check(f32: jax.Array[jnp.float32], bf16: jax.Array[jnp.bfloat16], i8: jax.Array[jnp.int8],
          i16: jax.Array[jnp.int16]) -> None:
    reveal_type(model.scale(f32, 2.0))
    reveal_type(model.rms_norm(f32))
    reveal_type(model.rms_norm(bf16))
    reveal_type(model.project(f32, f32))
    reveal_type(model.row_sum(i8))
    reveal_type(model.cumulative(i16))
    reveal_type(model.split(f32)[0])
    reveal_type(model.split(f32)[1])
    reveal_type(model.Dense(bf16).w)
    reveal_type(model.Dense(bf16)(bf16))
    reveal_type(bf16 * model.weak_only(jnp.asarray(1.0)))
    reveal_type(f32 * model.weak_only(jnp.asarray(1.0)))
'''
# What each reveal_type line shows, as the driver's record of JAX names it.
CHECKED = [
    ("scale", "return"),
    ("scale", "x"),  # the norm of a float32 array is float32...
    ("Dense", "w"),  # ...and of a bfloat16 one, bfloat16
    ("project", "return"),
    ("row_sum", "return"),
    ("cumulative", "return"),
    ("split", "return[0]"),
    ("split", "return[1]"),
    ("Dense", "w"),
    ("Dense.__call__", "return"),
    ("weak_only", "times_bfloat16"),  # a weak float promotes to the other side's dtype
    ("weak_only", "times_float32"),
]
MARKER = re.compile(r"Array\[(?:[\w.]+\.)?(\w+)\]")


@pytest.mark.parametrize("checker", [MYPY_PLUGIN, "pyright"])
def test_checkers_read_the_dtypes_jax_gives(
    checker: str, annotated: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    """The annotated module, type-checked with the JAX stubs installed as the
    README sets them up: each call's revealed dtype is the one JAX gave, and
    the module itself gets no error."""
    root, _ = annotated
    truth = _driver(root)
    shown = _checked(checker, root, CHECK, tmp_path)
    assert len(shown) == len(CHECKED), shown
    for one, (name, place) in zip(shown, CHECKED):
        assert MARKER.findall(one) == [truth[name][place]], (name, place, one)


# ------------------------------------------------- containers and fields
CONTAINERS = '''\
"""Arrays in dicts, lists and tuples, and in the fields of the project's own
dataclasses, NamedTuples and Flax struct dataclasses."""

import dataclasses
from collections.abc import Mapping, Sequence
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
from flax import struct
from flax.training import train_state


class AdamState(NamedTuple):
    count: jax.Array
    scale: Optional[jax.Array]  # None until the first step


@struct.dataclass
class Batch:
    inputs: jax.Array
    weights: jax.Array | None


@dataclasses.dataclass
class Stats:
    history: list[jax.Array]
    by_name: dict[str, jax.Array]


class State(train_state.TrainState):
    loss_scale: jax.Array


def init_params(n: int, dtype: jnp.dtype) -> dict[str, jax.Array]:
    return {"w": jnp.ones((n, n), dtype), "b": jnp.zeros((n,), dtype)}


def init_cache(n: int) -> dict[str, jax.Array]:
    # keys and values in float32, the write index in int32
    return {"k": jnp.zeros((n,)), "index": jnp.array(0, jnp.int32)}


def apply(params: Mapping[str, jax.Array], xs: Sequence[jax.Array]) -> list[jax.Array]:
    return [x @ params["w"] for x in xs]


def stack(xs: tuple[jax.Array, ...], mask: jax.Array | None = None) -> tuple[jax.Array, dict[str, jax.Array]]:
    stacked = jnp.stack(xs)
    if mask is not None:
        stacked = jnp.where(mask, stacked, 0)
    return stacked, {"total": jnp.sum(stacked)}


def same(tree: dict[str, jax.Array]) -> dict[str, jax.Array]:
    return {k: v * 2 for k, v in tree.items()}


def advance(state: AdamState, batch: Batch) -> AdamState:
    return AdamState(state.count + 1, batch.inputs.sum().astype(jnp.float32))


def summarise(xs: list[jax.Array]) -> Stats:
    return Stats(xs, {"last": xs[-1]})


def rescale(state: State) -> State:
    return state.replace(loss_scale=state.loss_scale / 2)
'''

CONTAINERS_DRIVER = '''\
import json
import sys

import jax
import jax.numpy as jnp
import optax

import model

truth = {}


def seen(name, place, array):
    truth.setdefault(name, {})[place] = str(array.dtype)
    return array


def seen_all(name, place, arrays):
    dtypes = {str(a.dtype) for a in arrays}
    assert len(dtypes) == 1, dtypes
    truth.setdefault(name, {})[place] = dtypes.pop()
    return arrays


params = model.init_params(3, jnp.bfloat16)
seen_all("init_params", "return[*]", params.values())
cache = model.init_cache(3)
assert {str(v.dtype) for v in cache.values()} == {"float32", "int32"}
xs = [jnp.ones((2, 3), jnp.bfloat16), jnp.ones((4, 3), jnp.bfloat16)]
seen_all("apply", "xs[*]", xs)
seen_all("apply", "return[*]", model.apply(params, xs))
pair = (jnp.ones(2, jnp.int16), jnp.ones(2, jnp.int16))
seen_all("stack", "xs[*]", pair)
stacked, totals = model.stack(pair, seen("stack", "mask", jnp.array([True, False])))
seen("stack", "return[0]", stacked)
seen_all("stack", "return[1][*]", totals.values())
model.stack(pair[:1])
for dtype in (jnp.float32, jnp.bfloat16):
    model.same({"a": jnp.ones(2, dtype)})
state = model.AdamState(seen("AdamState", "count", jnp.zeros((), jnp.int32)), None)
batch = model.Batch(seen("Batch", "inputs", jnp.ones((2,), jnp.int8)), seen("Batch", "weights", jnp.ones(2)))
state = jax.jit(model.advance)(state, batch)
seen("AdamState", "scale", state.scale)
model.advance(state, model.Batch(batch.inputs, None))
stats = model.summarise([seen("Stats", "history[*]", jnp.zeros(2, jnp.uint8))])
seen_all("Stats", "by_name[*]", stats.by_name.values())
train = model.State.create(
    apply_fn=lambda p, x: x, params=params, tx=optax.sgd(0.1), loss_scale=seen("State", "loss_scale", jnp.ones(()))
)
jax.jit(model.rescale)(train)
if len(sys.argv) > 1:
    with open(sys.argv[1], "w") as f:
        json.dump(truth, f)
print("driver ok", file=sys.stderr)
'''


@pytest.fixture(scope="module")
def containers(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The containers project after `jaxtypes annotate -- python driver.py`."""
    return _annotated(tmp_path_factory.mktemp("containers"), CONTAINERS, CONTAINERS_DRIVER)


def test_arrays_in_containers_get_the_dtype_jax_gives(
    containers: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    root, _ = containers
    t = _driver(root)
    source = (root / "model.py").read_text()

    def a(name: str, place: str) -> str:
        dtype = t[name][place]
        return f"jax.Array[jnp.{'bool_' if dtype == 'bool' else dtype}]"

    assert t["init_params"]["return[*]"] == "bfloat16"
    assert f"def init_params(n: int, dtype: jnp.dtype) -> dict[str, {a('init_params', 'return[*]')}]:" in source
    assert (
        f"def apply(params: Mapping[str, {a('init_params', 'return[*]')}], xs: Sequence[{a('apply', 'xs[*]')}])"
        f" -> list[{a('apply', 'return[*]')}]:" in source
    )
    # a homogeneous tuple, an optional array, a tuple holding a dict
    assert (
        f"def stack(xs: tuple[{a('stack', 'xs[*]')}, ...], mask: {a('stack', 'mask')} | None = None)"
        f" -> tuple[{a('stack', 'return[0]')}, dict[str, {a('stack', 'return[1][*]')}]]:" in source
    )
    # the result's items follow the argument's: a dtype variable
    assert "def same(tree: dict[str, jax.Array[DT]]) -> dict[str, jax.Array[DT]]:" in source


def test_fields_of_dataclasses_namedtuples_and_train_states(
    containers: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    root, _ = containers
    t = _driver(root)
    source = (root / "model.py").read_text()

    a = _jax_spelling(t)

    assert f"    count: {a('AdamState', 'count')}\n" in source
    assert f"    scale: Optional[{a('AdamState', 'scale')}]  # None until the first step\n" in source
    assert f"    inputs: {a('Batch', 'inputs')}\n    weights: {a('Batch', 'weights')} | None\n" in source
    assert f"    history: list[{a('Stats', 'history[*]')}]\n" in source
    assert f"    by_name: dict[str, {a('Stats', 'by_name[*]')}]\n" in source
    assert f"    loss_scale: {a('State', 'loss_scale')}\n" in source


def test_a_dict_of_several_dtypes_is_left_and_reported(
    containers: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    root, proc = containers
    source = (root / "model.py").read_text()
    assert "def init_cache(n: int) -> dict[str, jax.Array]:\n    # keys and values in float32" in source
    left = proc.stdout.split("left as written:\n", 1)[1]
    assert re.search(
        r"model\.py:\d+ init_cache, return\[\*\]: held arrays of several dtypes at once \(float32, int32\)", left
    )


def test_containers_the_driver_still_runs_and_a_second_run_changes_nothing(
    containers: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    root, _ = containers
    before = (root / "model.py").read_text()
    # nothing but annotations and the added header lines changed
    added = {"import jaxtypes  # noqa: F401 - makes jax.Array[...] subscriptable at run time", 'DT = TypeVar("DT")'}
    kept = [line for line in CONTAINERS.splitlines() if line and "Array" not in line]
    after = [line.replace("import TypeVar, ", "import ") for line in before.splitlines()]
    assert [line for line in after if line and "Array" not in line and line not in added] == kept
    _second_run_changes_nothing(root)


# ------------------------------------------------------ aliases of dicts
ALIASES = '''\
"""Parameters and a decoding cache as dicts behind aliases, as hand-written
inference code keeps them."""

from __future__ import annotations

import jax
import jax.numpy as jnp

Params = dict[str, jax.Array]
Cache = dict[str, jax.Array]
Mixed = dict[str, jax.Array]


def init_params(n: int) -> Params:
    return {"w": jnp.ones((n, n), jnp.bfloat16), "b": jnp.zeros((n,), jnp.bfloat16)}


def init_cache(n: int) -> Cache:
    return {"k": jnp.zeros((n, 2)), "v": jnp.zeros((n, 2)), "index": jnp.array(0, jnp.int32)}


def update(cache: Cache, k: jax.Array) -> tuple[jax.Array, Cache]:
    index = cache["index"]
    new_k = jax.lax.dynamic_update_slice(cache["k"], k, (index, 0))
    return new_k, {"k": new_k, "v": cache["v"], "index": index + 1}


def mixed(m: Mixed) -> Mixed:
    return m
'''

ALIASES_DRIVER = '''\
import json
import sys

import jax.numpy as jnp

import model

truth = {}
params = model.init_params(3)
cache = model.init_cache(3)
new_k, cache = model.update(cache, jnp.ones((1, 2), jnp.float32))
truth["params"] = {k: str(v.dtype) for k, v in params.items()}
truth["cache"] = {k: str(v.dtype) for k, v in cache.items()}
truth["new_k"] = str(new_k.dtype)
model.mixed({"a": jnp.ones(2, jnp.float32)})
model.mixed({"a": jnp.ones(2, jnp.int8)})
if len(sys.argv) > 1:
    with open(sys.argv[1], "w") as f:
        json.dump(truth, f)
print("driver ok", file=sys.stderr)
'''

ALIASES_CHECK = '''\
import jax
import jax.numpy as jnp
from typing_extensions import reveal_type

import model


def check(f32: jax.Array[jnp.float32]) -> None:
    cache = model.init_cache(3)
    reveal_type(model.init_params(3)["w"])
    reveal_type(cache["k"])
    reveal_type(cache["index"])
    reveal_type(model.update(cache, f32)[0])
'''


@pytest.fixture(scope="module")
def aliases(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The aliases project after `jaxtypes annotate -- python driver.py`."""
    return _annotated(tmp_path_factory.mktemp("aliases"), ALIASES, ALIASES_DRIVER)


def test_an_alias_of_a_dict_gets_its_dtype_or_a_typed_dict(
    aliases: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    """A dict alias whose every key held one dtype says it; one whose keys
    each held a dtype of their own becomes a TypedDict; one whose key held
    two dtypes is left and reported."""
    root, proc = aliases
    t = _driver(root)
    source = (root / "model.py").read_text()
    (param_dtype,) = set(t["params"].values())
    assert f"Params = dict[str, jax.Array[jnp.{param_dtype}]]\n" in source
    fields = "".join(f"    {key}: jax.Array[jnp.{dtype}]\n" for key, dtype in sorted(t["cache"].items()))
    assert f"\n\n\nclass Cache(TypedDict):\n{fields}\n\nMixed = " in source
    assert len(set(t["cache"].values())) == 2
    assert "from typing import TypedDict" in source
    assert "Mixed = dict[str, jax.Array]\n" in source
    left = proc.stdout.split("left as written:\n", 1)[1]
    assert re.search(r"model\.py:\d+ Mixed, alias: key 'a' held several dtypes \(float32, int8\)", left)
    # the alias is evaluated at import, future annotations or not: jaxtypes is imported
    assert "\nimport jaxtypes  # noqa: F401" in source


def test_aliases_the_driver_still_runs_and_a_second_run_changes_nothing(
    aliases: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    _second_run_changes_nothing(aliases[0])


@pytest.mark.parametrize("checker", [MYPY_PLUGIN, "pyright"])
def test_checkers_read_the_typed_dict(
    checker: str, aliases: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    """Each key of the rewritten cache reads back as the dtype JAX gave it,
    and the module (dict literals returned as the TypedDict) has no error."""
    root, _ = aliases
    truth = _driver(root)
    shown = _checked(checker, root, ALIASES_CHECK, tmp_path)
    expected = [truth["params"]["w"], truth["cache"]["k"], truth["cache"]["index"], truth["new_k"]]
    assert [MARKER.findall(one) for one in shown] == [[e] for e in expected], shown


# ------------------------------------------------- Equinox layers in fields
EQUINOX_MODEL = '''\
"""An Equinox model whose layers are held in fields declared by their
class, as Equinox's examples declare them."""

from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp


class Block(eqx.Module):
    linear: eqx.nn.Linear
    norm: eqx.nn.LayerNorm
    layers: list
    half: eqx.nn.Linear
    dropout: eqx.nn.Dropout

    def __init__(self, key: jax.Array) -> None:
        self.linear = eqx.nn.Linear(4, 4, key=key)
        self.norm = eqx.nn.LayerNorm(4)
        self.layers = [eqx.nn.Linear(4, 4, key=key), eqx.nn.Linear(4, 4, key=key)]
        self.half = eqx.nn.Linear(4, 4, dtype=jnp.bfloat16, key=key)
        self.dropout = eqx.nn.Dropout(0.1)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.norm(self.layers[-1](self.linear(x)))


class Parts(eqx.Module):
    mixed: list[Any]
    parts: list[Any]

    def __init__(self, key: jax.Array, half: bool) -> None:
        self.mixed = [eqx.nn.Linear(4, 4, dtype=jnp.bfloat16 if half else jnp.float32, key=key)]
        self.parts = [jnp.ones(4, jnp.float32)] if half else [eqx.nn.Linear(4, 4, key=key)]

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.mixed[0](x)
'''

EQUINOX_DRIVER = '''\
import json
import sys

import jax
import jax.numpy as jnp

import model

block = model.Block(jax.random.key(0))
x, h = jnp.ones(4, jnp.float32), jnp.ones(4, jnp.bfloat16)
block(x)
model.Parts(jax.random.key(0), half=False)(x)
model.Parts(jax.random.key(0), half=True)(h)
truth = {
    "linear": str(block.linear(x).dtype),
    "half": str(block.half(h).dtype),
    "layers": str(block.layers[0](x).dtype),
    "norm": str(block.norm(h).dtype),
    "params": {name: str(getattr(block, name).weight.dtype) for name in ("linear", "half", "norm")},
}
if len(sys.argv) > 1:
    with open(sys.argv[1], "w") as f:
        json.dump(truth, f)
print("driver ok", file=sys.stderr)
'''

EQUINOX_CHECK = '''\
import jax
import jax.numpy as jnp
from typing_extensions import reveal_type

import model


def check(key: jax.Array, x: jax.Array[jnp.float32], h: jax.Array[jnp.bfloat16]) -> None:
    block = model.Block(key)
    reveal_type(block.linear(x))
    reveal_type(block.half(h))
    reveal_type(block.layers[0](x))
    reveal_type(block.norm(h))
'''


@pytest.fixture(scope="module")
def equinox_fields(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The Equinox project after `jaxtypes annotate -- python driver.py`."""
    return _annotated(tmp_path_factory.mktemp("equinox"), EQUINOX_MODEL, EQUINOX_DRIVER)


def test_equinox_layer_fields_get_their_parameters_dtype(
    equinox_fields: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    """A field declared by its layer's class (or a bare list of layers) gets
    the class's type arguments, the parameters' dtype JAX gave; quoted, as
    Equinox's classes do not subscript at run time; a layer without
    parameters (Dropout) is left as it is."""
    root, _ = equinox_fields
    t = _driver(root)
    source = (root / "model.py").read_text()
    params = t["params"]
    assert f'    linear: "eqx.nn.Linear[NoDtype, jnp.{params["linear"]}]"\n' in source
    assert f'    norm: "eqx.nn.LayerNorm[NoDtype, jnp.{params["norm"]}]"\n' in source
    assert f'    layers: "list[eqx.nn.Linear[NoDtype, jnp.{params["linear"]}]]"\n' in source
    assert f'    half: "eqx.nn.Linear[NoDtype, jnp.{params["half"]}]"\n' in source
    assert "    dropout: eqx.nn.Dropout\n" in source
    assert "from jaxtypes.typing import NoDtype" in source


def test_equinox_fields_of_several_layers_are_left_and_reported(
    equinox_fields: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    """A field holding lists of layers of two dtypes over the run, or a list
    of layers and then one of arrays, keeps its annotation, and the report
    says what it held."""
    root, proc = equinox_fields
    source = (root / "model.py").read_text()
    assert "    mixed: list[Any]\n" in source and "    parts: list[Any]\n" in source
    assert (
        "Parts, mixed: held layers of several classes or dtypes (Linear of bfloat16, Linear of float32)" in proc.stdout
    ), proc.stdout
    assert "Parts, parts: held a layer (Linear of float32) and other values (float32)" in proc.stdout, proc.stdout


def test_equinox_the_driver_still_runs_and_a_second_run_changes_nothing(
    equinox_fields: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    again = _second_run_changes_nothing(equinox_fields[0])
    assert " Block, " not in again.stdout, again.stdout  # the class's written fields are not reported


@pytest.mark.parametrize("checker", [MYPY_PLUGIN, "mypy", "pyright", "basedpyright", "pyrefly", "ty"])
def test_checkers_read_the_layer_fields(
    checker: str, equinox_fields: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    """Each layer field's call is the dtype Equinox gave, in the six set-ups,
    and the rewritten module (a layer made without dtype in a field declared
    of float32 parameters) has no error."""
    root, _ = equinox_fields
    truth = _driver(root)
    shown = _checked(checker, root, EQUINOX_CHECK, tmp_path)
    expected = [truth["linear"], truth["half"], truth["layers"], truth["norm"]]
    assert [MARKER.findall(one) for one in shown] == [[e] for e in expected], shown


# ------------------------------------------------ the project's own example
EXAMPLE_DRIVER = '''\
import json
import sys

import jax
import jax.numpy as jnp

import model

# Each function of the example, called with arrays of the dtypes its original
# annotations name (the functions whose lines JAX refuses raise: caught).
truth = {}
for name, dtypes in json.loads(sys.argv[1]).items():
    args = [jnp.ones((2, 2), getattr(jnp, dtype)) for dtype in dtypes]
    try:
        result = getattr(model, name)(*args)
    except (TypeError, jax.dtypes.TypePromotionError):
        result = None
    truth[name] = str(result.dtype) if result is not None else None
if len(sys.argv) > 2:
    with open(sys.argv[2], "w") as f:
        json.dump(truth, f)
print("driver ok", file=sys.stderr)
'''


def test_the_projects_example_stripped_of_its_dtypes_gets_them_back(tmp_path: Path) -> None:
    """examples/mixed_precision.py as plain JAX code (``jax.Array`` without a
    dtype, as examples/show_dtypes.py makes its baseline), run on arrays of
    the dtypes its annotations name: annotate writes each parameter's dtype
    and each result's as JAX gives it (dense_bf16's float32, where the example
    marks its own annotation as the error), and a second run changes nothing."""
    original = (REPO / "examples" / "mixed_precision.py").read_text()
    functions = {
        node.name: [ast.unparse(a.annotation.slice) for a in node.args.args if isinstance(a.annotation, ast.Subscript)]
        for node in ast.parse(original).body
        if isinstance(node, ast.FunctionDef)
    }
    plain = re.sub(r"\bjax\.Array\[\w+\]", "jax.Array", original)
    (tmp_path / "model.py").write_text(plain)
    (tmp_path / "driver.py").write_text(EXAMPLE_DRIVER)
    argv = [sys.executable, "driver.py", json.dumps(functions)]
    proc = _annotate(tmp_path, "--", *argv)
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run([*argv, "truth.json"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    truth: dict[str, str | None] = json.loads((tmp_path / "truth.json").read_text())
    source = (tmp_path / "model.py").read_text()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            written = [ast.unparse(a.annotation) for a in node.args.args]
            assert written == [f"jax.Array[jnp.{d}]" for d in functions[node.name]], (node.name, written)
            returned = ast.unparse(node.returns) if node.returns else None
            assert returned == (f"jax.Array[jnp.{truth[node.name]}]" if truth[node.name] else "None"), node.name
    assert truth["dense_bf16"] == "float32"
    again = _annotate(tmp_path, "--", *argv)
    assert again.returncode == 0 and (tmp_path / "model.py").read_text() == source, again.stdout
