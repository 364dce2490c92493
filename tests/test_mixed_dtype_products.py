"""jnp.matmul and jnp.dot of two arrays of different dtypes, the second a
quantized weight's (function_overloads.MIXED_DTYPE_FUNCTIONS and
QUANTIZED_DTYPES): what the JAX stubs give for every dtype of the first
array is JAX's dtype (or unknown where JAX refuses the pair)."""

from __future__ import annotations

import shutil
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxtypes
from jaxtypes import lattice
from jaxtypes._stubgen import function_overloads
from tools import checkers

import project_runs

# The dtypes an array can have with x64 off (the stubs' configuration).
STRONG = [
    n
    for n in lattice.STRONG
    if jax.dtypes.canonicalize_dtype(np.dtype(getattr(jaxtypes, lattice.MARKER_NAME[n])))
    == np.dtype(getattr(jaxtypes, lattice.MARKER_NAME[n]))
]


def _jax_answer(function: str, first: str, second: str) -> str:
    """JAX's result dtype's marker name, traced (XLA's CPU backend has no
    kernels for some small floats); "Any" where JAX refuses the pair."""
    fn = getattr(jnp, function.rsplit(".", 1)[1])
    shapes = [
        jax.ShapeDtypeStruct((2, 2), np.dtype(getattr(jaxtypes, lattice.MARKER_NAME[n]))) for n in (first, second)
    ]
    try:
        out = jax.eval_shape(fn, *shapes)
    except (TypeError, ValueError):
        return "Any"
    return lattice.MARKER_NAME["bool" if out.dtype.name == "bool" else out.dtype.name]


@pytest.mark.parametrize("function", sorted(function_overloads.MIXED_DTYPE_FUNCTIONS))
def test_mixed_dtype_products_are_jaxs(function: str, tmp_path: Path) -> None:
    shutil.copytree(project_runs.typings(), tmp_path / checkers.STUBS, symlinks=True)
    names = sorted({lattice.MARKER_NAME[n] for n in STRONG})
    lines = ["import jax", "from typing_extensions import reveal_type", f"from jaxtypes import {', '.join(names)}"]
    where: dict[int, tuple[str, str]] = {}
    for second in function_overloads.QUANTIZED_DTYPES:
        for first in STRONG:
            if first == second:
                continue
            a, b = lattice.MARKER_NAME[first], lattice.MARKER_NAME[second]
            lines.append(f"def f_{a}_{b}(x: jax.Array[{a}], w: jax.Array[{b}]) -> None:")
            lines.append(f"    reveal_type({function}(x, w))")
            where[len(lines)] = (first, second)
    (tmp_path / "mixed_case.py").write_text("\n".join(lines) + "\n")
    cmd = checkers.command("pyright", tmp_path, ["mixed_case.py"], stubs=True)
    out = checkers.launch("pyright", tmp_path, cmd, 600).stdout
    found = checkers.revealed("pyright", out, tmp_path)
    wrong = []
    for line, (first, second) in where.items():
        answer = _jax_answer(function, first, second)
        got = found.get(("mixed_case.py", line))
        if got != [f"Array[{answer}]"]:
            wrong.append(f"{function}({first}, {second}): JAX {answer}, stubs {got}")
    assert not wrong, "\n".join(wrong)
