"""An Array[D], D a TypeVar bound to a category of dtypes (jaxtypes.typing's
``floating``, ``inexact``, ``integer``): mypy with the plugin answers each
operation as JAX does for every dtype D may take (with x64 off, the dtypes an
array can have): ``Array[D]`` where each dtype gives itself, the one dtype
where all give the same, else ``Array[Any]`` (also where JAX refuses one of
them: D may never take it, so no error either)."""

from __future__ import annotations

import shutil
import typing
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxtypes
from jaxtypes import int8, int32, lattice
from jaxtypes._stubgen import basearray_stub
from jaxtypes.typing import floating, inexact, integer
from tools import checkers

import project_runs

# The operators of an array and a Python scalar, a weakly typed array or an
# array of its own dtype: the JAX stubs answer them through the generic
# tables (package_stubs._generic_table) as the plugin does, in every set-up.
OPERATORS = (
    "x * 2.0",
    "2.0 * x",
    "x ** 2",
    "x + 1",
    "x * x",
    "-x",
    "x / 2",
    "x // 2",
    "x % 2",
    "1.0 - x",
    "x - jnp.asarray(1.0)",
    "x * 2",
    "x / x",
)
# The functions of one array: the JAX stubs answer them through an overload
# whose TypeVar is bound by the dtypes the function keeps, or by those it
# takes where it gives one dtype for all (function_overloads._kept_dtype_overloads,
# _one_result_overload), in every set-up.
FUNCTIONS = (
    "jnp.mean(x)",
    "jnp.mean(x, axis=-1, keepdims=True)",
    "jnp.sqrt(x)",
    "jnp.tanh(x)",
    "jnp.exp(x)",
    "jnp.abs(x)",
    "jnp.max(x, axis=0)",
    "jnp.argmax(x, axis=-1)",
    "jnp.all(x)",
    "jnp.isfinite(x)",
    "jax.lax.rsqrt(x)",
    "jax.nn.gelu(x)",
    "jax.nn.softmax(x, axis=-1)",
)
# The methods whose descriptor reads the marker's table: the JAX stubs keep
# D where every dtype of the bound gives itself back, else answer Array[Any]
# (a union's members solve the table's def one by one; basearray_stub's
# overload through _OneDtype takes one marker only).
METHODS = ("x.sum()", "x.mean()", "x.var()", "x.std()", "x.max()", "abs(x)")
# pyright and basedpyright match abs()'s SupportsAbs against Array.__abs__'s
# __call__, which refuses a TypeVar whose bound holds a dtype JAX refuses
# (int4: JAX's abs raises), where the plugin answers Array[Any].
PYRIGHT_REFUSES = {("integer", "abs(x)")}
PYRIGHTS = ("pyright", "basedpyright")
# The expressions, over x: Array[D], y: Array[float32], b: Array[bfloat16].
EXPRESSIONS = (*OPERATORS, *FUNCTIONS, *METHODS, "x * y", "x * b", "x.astype(x.dtype)", "jnp.maximum(x, 0.0)")
BOUNDS = {"floating": floating, "inexact": inexact, "integer": integer, "narrow": typing.Union[int8, int32]}
# How the case file writes each bound.
BOUND_SOURCES = {"floating": "floating", "inexact": "inexact", "integer": "integer", "narrow": "Union[int8, int32]"}
# Where the stubs answer unknown: an integer TypeVar's operator with a Python
# float is a weak float, with a Python int the TypeVar; the overload of a
# float also takes an int (the typing spec's promotion), so no one answer.
STUBS_UNKNOWN = {("narrow", "x * 2.0"), ("narrow", "2.0 * x"), ("narrow", "1.0 - x")}
# A function making integers float32 (jnp.mean, jnp.sqrt) of an integer
# TypeVar: its bound holds int64, which the stubs' overloads (x64 off) do not
# take, so JAX's declaration answers.
_FLOATING = ("jnp.mean", "jnp.sqrt", "jnp.tanh", "jnp.exp", "jax.lax.rsqrt", "jax.nn.gelu", "jax.nn.softmax")
STUBS_UNKNOWN |= {("integer", f) for f in FUNCTIONS if f.split("(")[0] in _FLOATING}
# ty solves a marker protocol's TypeVar over a union bound as Unknown where
# the others take the union of the members' answers (float32 | float32).
TY_UNKNOWN = {("narrow", f) for f in FUNCTIONS if f.split("(")[0] in _FLOATING}


def _jax_answer(expression: str, bound: object) -> str:
    """What JAX gives for every dtype of the bound an array can have with x64
    off: "D", one dtype's marker name, or "Any"."""
    results: list[str] = []
    inputs: list[str] = []
    for marker in typing.get_args(bound):
        dtype = np.dtype(marker)
        if jax.dtypes.canonicalize_dtype(dtype) != dtype:  # no array of it with x64 off
            continue

        def run(x: jax.Array, y: jax.Array, b: jax.Array) -> jax.Array:
            return eval(expression, {"jax": jax, "jnp": jnp}, {"x": x, "y": y, "b": b})  # type: ignore[no-any-return]

        # traced, not run: XLA's CPU backend has no kernels for some small floats
        shapes = [jax.ShapeDtypeStruct((3,), d) for d in (dtype, jnp.float32, jnp.bfloat16)]
        try:
            out = jax.eval_shape(run, *shapes)
        except (TypeError, ValueError):  # (JAX's TypePromotionError is a ValueError)
            return "Any"
        inputs.append(dtype.name)
        # (a weakly typed result, int8 * 2.0, is JAX's weak float: its own marker)
        results.append(_WEAK[out.dtype.kind] if out.weak_type else out.dtype.name)
    if results == inputs:
        return "D"
    if len(set(results)) == 1:
        return lattice.MARKER_NAME["bool" if results[0] == "bool" else results[0]]
    return "Any"


_WEAK = {"i": lattice.WEAK_INT, "f": lattice.WEAK_FLOAT, "c": lattice.WEAK_COMPLEX}


def _case_file(expressions: tuple[str, ...] = EXPRESSIONS) -> tuple[str, dict[int, tuple[str, str]]]:
    lines = [
        "from typing import TypeVar, Union",
        "import jax",
        "import jax.numpy as jnp",
        "from typing_extensions import reveal_type",
        "from jaxtypes import bfloat16, float32, int8, int32",
        "from jaxtypes.typing import floating, inexact, integer",
    ]
    where: dict[int, tuple[str, str]] = {}
    for name in BOUNDS:
        lines += [
            f'D_{name} = TypeVar("D_{name}", bound={BOUND_SOURCES[name]})',
            f"def f_{name}(x: jax.Array[D_{name}], y: jax.Array[float32], b: jax.Array[bfloat16]) -> None:",
        ]
        for expression in expressions:
            lines.append(f"    reveal_type({expression})")
            where[len(lines)] = (name, expression)
    return "\n".join(lines) + "\n", where


@pytest.fixture(scope="module")
def revealed(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[tuple[str, int], list[str]], dict, str]:
    root = tmp_path_factory.mktemp("bound-dtypes")
    shutil.copytree(project_runs.typings(), root / checkers.STUBS, symlinks=True)
    text, where = _case_file()
    (root / "bound_dtypes_case.py").write_text(text)
    cmd = checkers.command(checkers.MYPY_PLUGIN, root, ["bound_dtypes_case.py"], stubs=True, mypy_cache=root / "cache")
    out = checkers.launch(checkers.MYPY_PLUGIN, root, cmd, 600).stdout
    return checkers.revealed(checkers.MYPY_PLUGIN, out, root), where, out


def test_plugin_answers_each_dtype_of_the_bound_as_jax(
    revealed: tuple[dict[tuple[str, int], list[str]], dict, str],
) -> None:
    found, where, out = revealed
    assert not checkers.reported_errors(checkers.MYPY_PLUGIN, out, Path(".")), out
    wrong = []
    for line, (bound, expression) in where.items():
        answer = _jax_answer(expression, BOUNDS[bound])
        expected = (
            f"jax._src.basearray.Array[D_{bound}]"
            if answer == "D"
            else f"jax._src.basearray.Array[{'Any' if answer == 'Any' else 'jaxtypes.markers.' + answer}]"
        )
        got = found.get(("bound_dtypes_case.py", line))
        if got != [expected]:
            wrong.append(f"{bound}: {expression}: JAX {answer}, plugin {got}")
    assert not wrong, "\n".join(wrong)


def _stub_answer(checker: str, revealed: list[str] | None, bound: str) -> str | None:
    """A stub-only checker's revealed type as ``_jax_answer`` spells it."""
    if revealed is None or len(revealed) != 1:
        return None
    text = revealed[0].replace("jax._src.basearray.", "").replace("jaxtypes.markers.", "")
    if checker == "pyrefly" and text == "Array":  # (pyrefly prints Array[Any] so)
        return "Any"
    if text in ("Array[Unknown]", "Unknown"):  # (ty's and pyright's unknown)
        return "Any"
    inner = text.removeprefix("Array[").removesuffix("]").split("@")[0]
    return "D" if inner == f"D_{bound}" else inner


@pytest.mark.parametrize("checker", checkers.CHECKERS)
def test_stubs_answer_a_bound_as_jax(checker: str, tmp_path: Path) -> None:
    """The JAX stubs alone, in each checker: an operator of an Array[D] and a
    Python scalar, a weakly typed array or an Array[D], and a function of an
    Array[D], is JAX's answer for every dtype D may take, with no error (but
    PYRIGHT_REFUSES); a reduction or abs() whose answer is not D, Array[Any]."""
    shutil.copytree(project_runs.typings(), tmp_path / checkers.STUBS, symlinks=True)
    text, where = _case_file((*OPERATORS, *FUNCTIONS, *METHODS))
    (tmp_path / "bound_dtypes_case.py").write_text(text)
    cmd = checkers.command(checker, tmp_path, ["bound_dtypes_case.py"], stubs=True)
    out = checkers.launch(checker, tmp_path, cmd, 600).stdout
    refused = {line for line, key in where.items() if key in PYRIGHT_REFUSES} if checker in PYRIGHTS else set()
    errors = checkers.reported_errors(checker, out, tmp_path)
    assert {line for _, line in errors} == refused, out
    found = checkers.revealed(checker, out, tmp_path)
    wrong = []
    for line, (bound, expression) in where.items():
        if line in refused:
            continue
        answer = _jax_answer(expression, BOUNDS[bound])
        got = _stub_answer(checker, found.get(("bound_dtypes_case.py", line)), bound)
        unknown = STUBS_UNKNOWN | (TY_UNKNOWN if checker == "ty" else set())
        if expression in METHODS and answer != "D":
            unknown = {(bound, expression)}
        if got != ("Any" if (bound, expression) in unknown else answer):
            wrong.append(f"{bound}: {expression}: JAX {answer}, {checker} {got}")
    assert not wrong, "\n".join(wrong)


def test_categories_are_the_lattices() -> None:
    """Each category holds exactly the markers of its lattice nodes."""

    def of(nodes: tuple[str, ...]) -> tuple[object, ...]:
        return tuple(getattr(jaxtypes, lattice.MARKER_NAME[n]) for n in nodes)

    assert typing.get_args(floating) == of(lattice.FLOATS)
    assert typing.get_args(inexact) == of(lattice.FLOATS + lattice.COMPLEXES)
    assert typing.get_args(integer) == of(lattice.UNSIGNED_INTS + lattice.SIGNED_INTS)


def _gives_back(method: str, dtype: np.dtype) -> bool:
    """Whether JAX's ``x.<method>()`` of an array of ``dtype`` (x64 off) has
    that dtype; False where JAX refuses the dtype."""
    try:  # traced, not run, as above
        out = jax.eval_shape(lambda x: getattr(x, method)(), jax.ShapeDtypeStruct((3,), dtype))
    except (TypeError, ValueError):
        return False
    return bool(out.dtype == dtype)


@pytest.mark.parametrize("method", sorted(basearray_stub.kept_dtypes()))
def test_kept_dtypes_of_a_method_are_jaxs(method: str) -> None:
    """The dtypes whose ``x.<method>()`` the JAX stubs answer ``Array[D]`` for
    D bound within them: exactly those JAX gives back; a 64-bit one only where
    JAX gives back its 32-bit one (the dtype an array of it has with x64 off)."""
    stubs = set(basearray_stub.kept_dtypes()[method])
    own: set[str] = set()
    narrowed: set[str] = set()
    for node in lattice.STRONG:
        dtype = np.dtype(getattr(jaxtypes, lattice.MARKER_NAME[node]))
        canonical = np.dtype(jax.dtypes.canonicalize_dtype(dtype))
        if _gives_back(method, canonical):
            (own if canonical == dtype else narrowed).add(node)
    assert own <= stubs, f"JAX gives back {sorted(own - stubs)} too"
    assert stubs - narrowed <= own, f"JAX does not give back {sorted(stubs - own - narrowed)}"


def test_kept_dtypes_cover_the_reductions() -> None:
    """The methods whose dtypes the stubs keep for a TypeVar include the
    reductions JAX answers in the array's own dtype for floats."""
    assert {"sum", "prod", "mean", "var", "std", "max", "min", "round"} <= set(basearray_stub.kept_dtypes())


# Functions of one result dtype, of an array of unknown dtype (``jax.Array``):
# the plugin answers that dtype in its configuration.
ONE_RESULT_CALLS = ("jnp.argmax(a, axis=-1)", "jnp.argmin(a)", "jnp.all(a)", "jnp.isfinite(a)")


@pytest.mark.parametrize("x64", [False, True], ids=["x64-off", "x64-on"])
def test_plugin_answers_a_one_result_function_of_an_unknown_dtype(x64: bool, tmp_path: Path) -> None:
    shutil.copytree(project_runs.typings(), tmp_path / checkers.STUBS, symlinks=True)
    lines = [
        "import jax",
        "import jax.numpy as jnp",
        "from typing_extensions import reveal_type",
        "def f(a: jax.Array) -> None:",
        *(f"    reveal_type({call})" for call in ONE_RESULT_CALLS),
    ]
    (tmp_path / "one_result_case.py").write_text("\n".join(lines) + "\n")
    cmd = checkers.command(
        checkers.MYPY_PLUGIN, tmp_path, ["one_result_case.py"], stubs=True, mypy_config=checkers.plugin_config(x64=x64)
    )
    out = checkers.launch(checkers.MYPY_PLUGIN, tmp_path, cmd, 600).stdout
    found = checkers.revealed(checkers.MYPY_PLUGIN, out, tmp_path)
    with jax.enable_x64(x64):
        x = jax.ShapeDtypeStruct((2, 3), jnp.float32)
        for n, call in enumerate(ONE_RESULT_CALLS, start=5):
            result = jax.eval_shape(lambda a, call=call: eval(call, {"jnp": jnp}, {"a": a}), x)
            marker = lattice.MARKER_NAME["bool" if result.dtype == np.bool_ else result.dtype.name]
            assert found.get(("one_result_case.py", n)) == [f"jax._src.basearray.Array[jaxtypes.markers.{marker}]"], (
                call,
                out,
            )
