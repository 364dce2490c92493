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
from jaxtypes import lattice
from jaxtypes._stubgen import basearray_stub
from jaxtypes.typing import floating, inexact, integer
from tools import checkers

import project_runs

# The expressions, over x: Array[D], y: Array[float32], b: Array[bfloat16].
EXPRESSIONS = (
    "x * 2.0",
    "2.0 * x",
    "x ** 2",
    "x + 1",
    "x * x",
    "-x",
    "x * y",
    "x * b",
    "x.astype(x.dtype)",
    "x.sum()",
    "jnp.mean(x)",
    "jnp.sqrt(x)",
    "jnp.tanh(x)",
    "jax.lax.rsqrt(x)",
    "jnp.maximum(x, 0.0)",
)
BOUNDS = {"floating": floating, "inexact": inexact, "integer": integer}


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
        results.append(out.dtype.name)
    if results == inputs:
        return "D"
    if len(set(results)) == 1:
        return lattice.MARKER_NAME["bool" if results[0] == "bool" else results[0]]
    return "Any"


def _case_file() -> tuple[str, dict[int, tuple[str, str]]]:
    lines = [
        "from typing import TypeVar",
        "import jax",
        "import jax.numpy as jnp",
        "from typing_extensions import reveal_type",
        "from jaxtypes import bfloat16, float32",
        "from jaxtypes.typing import floating, inexact, integer",
    ]
    where: dict[int, tuple[str, str]] = {}
    for name in BOUNDS:
        lines += [
            f'D_{name} = TypeVar("D_{name}", bound={name})',
            f"def f_{name}(x: jax.Array[D_{name}], y: jax.Array[float32], b: jax.Array[bfloat16]) -> None:",
        ]
        for expression in EXPRESSIONS:
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
