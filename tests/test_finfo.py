"""jnp.finfo's values, as the stubs type them (``function_rules.finfo_node``),
against what JAX makes of them: for every dtype and x64 setting, the dtype and
weak flag JAX gives each value of ``jnp.finfo(dtype)`` (traced, so that the
small floats XLA's CPU backend cannot hold are answered too)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jax
import jax.numpy as jnp
import pytest

from jaxtypes import function_rules, lattice

# The values the stubs type with the dtype (the others are Python ints).
VALUES = ("min", "max", "eps", "epsneg", "tiny", "resolution", "smallest_normal", "smallest_subnormal")


@pytest.fixture(autouse=True)
def _x64_restored() -> Iterator[None]:
    before = jax.config.jax_enable_x64
    yield
    assert jax.config.jax_enable_x64 == before


def jax_finfo_nodes(node: str) -> set[str] | None:
    """The lattice nodes of the values of ``jnp.finfo`` of this dtype (a weak
    value as its weak node), or None when finfo refuses the dtype."""
    try:
        info = jnp.finfo(jnp.dtype("bool" if node == lattice.BOOL else node))
    except ValueError:
        return None
    nodes: set[str] = set()
    for name in VALUES:
        value: Any = getattr(info, name)
        traced = jax.eval_shape(lambda v=value: jnp.asarray(v))  # type: ignore[no-untyped-call]  # pyright: ignore[reportUnknownMemberType, reportUnknownLambdaType, reportUnknownArgumentType]
        dtype, weak = str(traced.dtype), bool(traced.weak_type)  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        nodes.add(lattice.weak_node(lattice.kind(dtype)) if weak else dtype)
    return nodes


@pytest.mark.parametrize("x64", [False, True])
def test_finfo_values_have_the_dtype_the_stubs_give(x64: bool) -> None:
    wrong: list[str] = []
    with jax.enable_x64(x64):
        for node in lattice.STRONG:
            typed = function_rules.finfo_node(node, lattice.variant(x64=x64))
            found = jax_finfo_nodes(node)
            if typed is None:
                # untyped only where JAX refuses the dtype or its values are of several dtypes
                if found is not None and len(found) == 1:
                    wrong.append(f"{node}: untyped, JAX gives {found}")
            elif found != {typed}:
                wrong.append(f"{node}: typed {typed}, JAX gives {found}")
    assert not wrong, "\n".join(wrong)


def test_finfo_is_typed_for_the_common_floats() -> None:
    """Written out (JAX 0.10.2, x64 off): the dtypes model code takes finfo of."""
    expected = {
        "bfloat16": "bfloat16",
        "float16": "float16",
        "float32": "float32",
        "float64": "float32",
        "complex64": "float32",
        "complex128": "float32",
        "float8_e4m3fn": "float8_e4m3fn",
        "int8": None,
        "bool": None,
        "float4_e2m1fn": None,  # its eps is a Python float
    }
    assert {node: function_rules.finfo_node(node) for node in expected} == expected
