"""jaxtypes.operation_table, the one table of Array's operations, against Python, JAX
and the classes and modules that read it."""

from __future__ import annotations

import inspect

import jax
import numpy as np
import pytest

import jaxtypes
from jaxtypes import lattice, operation_rules, operation_table
from jaxtypes._array import Array

OPERATORS = operation_table.of_kind("binary", "comparison", "unary")


@pytest.mark.parametrize("op", operation_table.of_kind("binary", "comparison"), ids=lambda o: o.name)
def test_binary_symbol_is_the_member_python_calls(op: operation_table.Operation) -> None:
    """``a <symbol> b`` is ``a.<member>(b)`` and ``b <symbol> a`` is
    ``a.<reflected member>(b)``, on numpy arrays whose values tell every
    operator apart."""
    a, b = np.array([6, 3]), np.array([2, 5])
    np.testing.assert_array_equal(eval(f"a {op.symbol} b"), getattr(a, op.member)(b))
    if op.reflected_member is not None:
        np.testing.assert_array_equal(eval(f"b {op.symbol} a"), getattr(a, op.reflected_member)(b))


@pytest.mark.parametrize("op", operation_table.of_kind("unary"), ids=lambda o: o.name)
def test_unary_symbol_is_the_member_python_calls(op: operation_table.Operation) -> None:
    a = np.array([6, -3])
    expr = f"{op.symbol}(a)" if op.symbol.isalpha() else f"{op.symbol}a"
    np.testing.assert_array_equal(eval(expr), getattr(a, op.member)())


@pytest.mark.parametrize("op", operation_table.OPERATIONS, ids=lambda o: o.name)
def test_each_operation_is_a_member_of_jax_array(op: operation_table.Operation) -> None:
    """JAX's own array class has the member, a property where the table says so."""
    for member in filter(None, (op.member, op.reflected_member)):
        found = inspect.getattr_static(jax.Array, member, None)
        assert found is not None, f"jax.Array has no {member}"
        assert isinstance(found, property) == (op.kind == "property"), member


def test_runtime_array_has_every_operator() -> None:
    for op in OPERATORS:
        for member in filter(None, (op.member, op.reflected_member)):
            method = inspect.getattr_static(Array, member)
            assert method.__qualname__ == f"Array.{member}"
            with pytest.raises(NotImplementedError):  # JAX's arrays provide them
                method(object(), *([] if op.kind == "unary" else [1]))


def test_ops_answers_exactly_the_table() -> None:
    """Every operation of the table has an answer in ops (for float32), and ops
    refuses a name the table does not have."""
    for op in OPERATORS:
        answer = (
            operation_rules.unary(op.name, "float32")
            if op.kind == "unary"
            else operation_rules.binary(op.name, "float32", "float32")
        )
        assert answer.ok or answer.error == "unsupported", op.name
    for name in operation_table.METHODS:
        assert operation_rules.method(name, "float32").ok, name
    for bad in (
        lambda: operation_rules.binary("neg", "int8", "int8"),
        lambda: operation_rules.unary("add", "int8"),
        lambda: operation_rules.method("add", "int8"),
    ):
        with pytest.raises(ValueError, match="expected one of"):
            bad()


def test_stub_families_share_answers() -> None:
    """Operators of one family (one table in the stubs) answer alike for every
    pair of markers: the stubs could not tell them apart."""
    for family in {op.family for op in operation_table.of_kind("binary", "comparison")}:
        members = [op.name for op in operation_table.of_kind("binary", "comparison") if op.family == family]
        for a in lattice.NODES:
            for b in lattice.NODES:
                answers = {operation_rules.binary(name, a, b).node for name in members}
                assert len(answers) == 1, (family, a, b, members)


def test_rules_are_described_and_used() -> None:
    assert {op.rule for op in operation_table.OPERATIONS} == set(operation_table.RULES)
    with pytest.raises(ValueError, match="unknown rule 'joins'"):
        operation_table.with_rule("joins")


def test_every_public_name_loads() -> None:
    """Each name of ``jaxtypes.__all__`` is an attribute at run time, every
    marker of the lattice among them, as the one of jaxtypes.markers."""
    from jaxtypes import markers

    for name in jaxtypes.__all__:
        assert getattr(jaxtypes, name) is not None, name
    exported_markers = [
        n for n in jaxtypes.__all__ if hasattr(markers, n) and n not in ("MARKER_OF_NODE", "NODE_OF_MARKER")
    ]
    assert sorted(exported_markers) == sorted(lattice.MARKER_NAME.values())
    for node, name in lattice.MARKER_NAME.items():
        assert getattr(jaxtypes, name) is markers.MARKER_OF_NODE[node]
