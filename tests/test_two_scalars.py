"""Two Python scalars given to a two-array function (``jnp.maximum(t, 1e-6)``,
``jnp.where(mask, 0.0, -1e9)``), against JAX.

The function oracle probes weakly typed arrays, which JAX traces; a Python
scalar is a concrete value, and a few functions compute from it
(``jnp.power(2, 3)`` takes ``lax.integer_pow`` and stays weakly typed, where
two traced weak ints give a strong int32).  The table's ``two_scalars``
column (``function_rules.TWO_SCALARS_TYPED``) names the functions whose every pair
of Python scalars JAX answers as their rule does, eagerly and under
``jax.jit``; the stubs type those calls only.  Here JAX runs each pair.
"""

from __future__ import annotations

import importlib
import itertools
import warnings
from typing import Any, Callable

import jax
import numpy as np
import pytest

from jaxtypes import function_rules, lattice
from jaxtypes.operation_rules import DEFAULT

# One Python scalar of each kind, with the node JAX gives it (weakly typed
# but bool) per "Type promotion semantics",
# https://docs.jax.dev/en/latest/type_promotion.html
SCALARS = {"bool": True, "i*": 2, "f*": 0.5, "c*": 0.5 + 1j}
PAIR_FAMILIES = ("keeps", "operator", "inexact", "fixed", "mean", "equal")


def _function(name: str) -> Callable[..., Any]:
    module, _, short = name.rpartition(".")
    return getattr(importlib.import_module(module), short)


def _node(out: Any) -> str:
    """JAX's result as a marker node: a weakly typed int is ``i*``."""
    dtype = np.dtype(out.dtype)
    if dtype == np.bool_:
        return "bool"
    if getattr(out, "weak_type", False):
        return {"i": lattice.WEAK_INT, "u": lattice.WEAK_INT, "f": lattice.WEAK_FLOAT, "c": lattice.WEAK_COMPLEX}[
            dtype.kind
        ]
    return dtype.name


def _jax_answers(name: str, a: str, b: str) -> set[str]:
    """JAX's result node for ``name(a, b)`` eagerly and under jit ("!" when it raises)."""
    f = _function(name)
    args = ([True] if function_rules.ARGUMENTS[name] == "cxy" else []) + [SCALARS[a], SCALARS[b]]
    out: set[str] = set()
    for run in (lambda: f(*args), jax.jit(lambda: f(*args))):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out.add(_node(run()))
        except Exception:  # noqa: BLE001 - any refusal: a refused pair, or a function that needs arrays
            out.add("!")
    return out


def _rule_answer(name: str, a: str, b: str) -> str | None:
    inputs = ("bool", a, b) if function_rules.ARGUMENTS[name] == "cxy" else (a, b)
    return function_rules.result(name, inputs, DEFAULT).node


def _pair_functions() -> list[str]:
    return sorted(
        name
        for name, rule in function_rules.TABLE.items()
        if function_rules.ARGUMENTS.get(name) in ("xy", "cxy") and rule.family in PAIR_FAMILIES
    )


def _disagreements(name: str) -> list[str]:
    out = []
    for a, b in itertools.product(SCALARS, repeat=2):
        want = _rule_answer(name, a, b)
        got = _jax_answers(name, a, b)
        if want is not None and got != {want}:
            out.append(f"{name}({a}, {b}): rule {want}, JAX {sorted(got)}")
    return out


def test_the_column_names_two_array_functions() -> None:
    assert function_rules.TWO_SCALARS_TYPED <= set(_pair_functions())
    assert {"jax.numpy.maximum", "jax.numpy.where", "jax.numpy.arctan2"} <= function_rules.TWO_SCALARS_TYPED
    assert "jax.numpy.power" not in function_rules.TWO_SCALARS_TYPED


@pytest.mark.parametrize("name", sorted(function_rules.TWO_SCALARS_TYPED))
def test_typed_pairs_are_jax_s(name: str) -> None:
    """Every pair of Python scalars the rule answers, JAX answers alike."""
    assert not _disagreements(name)


@pytest.mark.slow  # every other two-array function under JAX: `pytest -m slow`, and CI
def test_the_others_differ_from_jax() -> None:
    """A function left out of the column has a pair JAX answers otherwise
    (or refuses): the column leaves out nothing it could type."""
    could = [n for n in _pair_functions() if n not in function_rules.TWO_SCALARS_TYPED and not _disagreements(n)]
    assert not could, f"two_scalars could be yes for: {could}"
