"""Lattice properties of ``jaxtypes.lattice``, over every node and every variant.

JAX's design (JEP 9407, "Design of Type Promotion Semantics for JAX",
https://docs.jax.dev/en/latest/jep/9407-type-promotion.html) asks of the promotion lattice: a join exists, is unique,
commutative and associative.  JAX's lattice is only a *partial* one: the
sub-byte integers and the small floats are deliberately left without most
joins.  Every expected answer here comes from facts written out by hand, never
from jaxtypes' own tables: the direct upper edges as JAX's documentation draws
them (tools/oracle/lattice_facts.py, walked by the test's own closure), and this
existence rule, worked out from those edges and checked against JAX 0.10.2:

standard mode (x64 on or off), for nodes a != b:
  * a sub-byte int n (int1/2/4, uint1/2/4) joins only bool and i*; the join is n;
  * a small float s (float4/6/8 kinds) joins only bool, i*, f* and every
    byte-or-wider int (uint8..uint64, int8..int64), since those all reach f*;
    the join is s;
  * two nodes from those 17 never join;
  * every other pair joins.
strict mode, for a != b: one of them must be weak and the other above it on
the strict edges: i* joins every int, f*, every float, c* and every complex
(so strict still gives i* with float32 -> float32, as JAX does); f* joins
every float, c* and every complex; c* joins complex64/complex128.  Nothing
else joins; in particular bool joins only itself.

Only ``join``/``join_all``/``upper_bounds`` of the lattice are under test
(``edges`` and ``upper_bounds`` are compared with the documented edges in
tests/test_seed_table.py).
"""

from __future__ import annotations

import functools
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jaxtypes import lattice
from jaxtypes.lattice import Variant
from tools.oracle import lattice_facts as facts

BOOL = facts.BOOL
SUB_BYTE_INTS = list(facts.SUB_BYTE_INTS)
BYTE_INTS = list(facts.BYTE_INTS)
SMALL_FLOATS = list(facts.SMALL_FLOATS)
COMPLEXES = list(facts.COMPLEXES)
WEAK = list(facts.WEAK_NODES)
ALL_INTS = list(facts.ALL_INTS)
ALL_FLOATS = list(facts.ALL_FLOATS)
ALL_NODES = list(facts.NODES)
NO_PROMOTION = set(facts.NO_PROMOTION)

VARIANTS = [Variant("standard", True), Variant("standard", False), Variant("strict", True), Variant("strict", False)]
STANDARD = [v for v in VARIANTS if v.mode == "standard"]
STRICT = [v for v in VARIANTS if v.mode == "strict"]


def documented_upper_bounds(v: Variant) -> dict[str, frozenset[str]]:
    """Each node's upper bounds by the documentation's edges (not jaxtypes')."""
    return facts.upper_bounds(facts.EDGES[v.mode, v.x64])


DOCUMENTED = {v: documented_upper_bounds(v) for v in VARIANTS}


def documented_join(nodes: list[str], v: Variant) -> str | None:
    return facts.least_upper_bound(nodes, DOCUMENTED[v])


nodes = st.sampled_from(ALL_NODES)
variants = st.sampled_from(VARIANTS)
standard_variants = st.sampled_from(STANDARD)
strict_variants = st.sampled_from(STRICT)
PROPS = settings(deadline=None, max_examples=300)


def expected_standard_join(a: str, b: str) -> str | None:
    """The written-out existence rule of standard mode (see the module docstring).

    For pairs outside the 17 no-promotion nodes this only says "some join";
    the value is then checked elsewhere (seed table, LUB property)."""
    if a == b:
        return a
    if a in NO_PROMOTION and b in NO_PROMOTION:
        return None
    for x, y in ((a, b), (b, a)):
        if x in SUB_BYTE_INTS:
            return x if y in (BOOL, "i*") else None
        if x in SMALL_FLOATS:
            return x if y in [BOOL, "i*", "f*"] + BYTE_INTS else None
    return "<some join>"


STRICT_ABOVE = {
    "i*": set(ALL_INTS) | {"f*"} | set(ALL_FLOATS) | {"c*"} | set(COMPLEXES),
    "f*": set(ALL_FLOATS) | {"c*"} | set(COMPLEXES),
    "c*": set(COMPLEXES),
}


def expected_strict_join(a: str, b: str) -> str | None:
    if a == b:
        return a
    if a in STRICT_ABOVE and b in STRICT_ABOVE[a]:
        return b
    if b in STRICT_ABOVE and a in STRICT_ABOVE[b]:
        return a
    return None


# ------------------------------------------------------------------ the nodes
def test_variants_are_the_four_combinations():
    assert set(lattice.VARIANTS) == set(VARIANTS)
    assert len(lattice.VARIANTS) == 4


def test_nodes_are_the_documented_35_in_order():
    assert len(ALL_NODES) == len(set(ALL_NODES)) == 35
    assert list(lattice.NODES) == ALL_NODES


# ------------------------------------------------------------------ existence
@PROPS
@given(a=nodes, b=nodes, v=standard_variants)
def test_standard_join_exists_exactly_by_the_rule(a, b, v):
    expected = expected_standard_join(a, b)
    got = lattice.join(a, b, v)
    if expected is None:
        assert got is None
    elif expected == "<some join>":
        assert got is not None
    else:
        assert got == expected


@pytest.mark.parametrize("v", STANDARD, ids=lambda v: v.label)
def test_standard_join_existence_rule_exhaustive(v):
    missing, unexpected = [], []
    for a, b in itertools.product(ALL_NODES, repeat=2):
        expected = expected_standard_join(a, b)
        got = lattice.join(a, b, v)
        if expected is None and got is not None:
            unexpected.append((a, b, got))
        elif expected is not None and got is None:
            missing.append((a, b))
        elif expected not in (None, "<some join>") and got != expected:
            unexpected.append((a, b, got))
    assert not missing and not unexpected


@pytest.mark.parametrize("v", STANDARD, ids=lambda v: v.label)
def test_standard_joins_are_total_outside_the_no_promotion_nodes(v):
    rest = [n for n in ALL_NODES if n not in NO_PROMOTION]
    assert len(rest) == 18  # exactly the documented table's 18 nodes
    assert all(lattice.join(a, b, v) is not None for a in rest for b in rest)


@PROPS
@given(a=nodes, b=nodes, v=strict_variants)
def test_strict_join_is_exactly_equal_or_weak_below(a, b, v):
    assert lattice.join(a, b, v) == expected_strict_join(a, b)


@pytest.mark.parametrize("v", STRICT, ids=lambda v: v.label)
def test_strict_join_rule_exhaustive(v):
    wrong = [
        (a, b, lattice.join(a, b, v), expected_strict_join(a, b))
        for a, b in itertools.product(ALL_NODES, repeat=2)
        if lattice.join(a, b, v) != expected_strict_join(a, b)
    ]
    assert not wrong


@pytest.mark.parametrize("v", STRICT, ids=lambda v: v.label)
def test_strict_two_distinct_strong_types_never_join(v):
    strong = [n for n in ALL_NODES if n not in WEAK]
    assert all(lattice.join(a, b, v) is None for a in strong for b in strong if a != b)


# ------------------------------------------------ commutative, idempotent, assoc.
@PROPS
@given(a=nodes, b=nodes, v=variants)
def test_join_is_commutative(a, b, v):
    assert lattice.join(a, b, v) == lattice.join(b, a, v)


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: v.label)
def test_join_is_idempotent(v):
    assert {n: lattice.join(n, n, v) for n in ALL_NODES} == {n: n for n in ALL_NODES}


@PROPS
@given(a=nodes, b=nodes, c=nodes, v=variants)
def test_join_is_associative_and_undefinedness_is_consistent(a, b, c, v):
    ab = lattice.join(a, b, v)
    bc = lattice.join(b, c, v)
    left = None if ab is None else lattice.join(ab, c, v)
    right = None if bc is None else lattice.join(a, bc, v)
    assert left == right
    # And both equal the join of the set, whichever way it is grouped.
    ac = lattice.join(a, c, v)
    middle = None if ac is None else lattice.join(ac, b, v)
    assert middle == left


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: v.label)
def test_join_is_associative_exhaustive(v):
    join = functools.partial(lattice.join, v=v)
    bad = []
    for a, b, c in itertools.product(ALL_NODES, repeat=3):
        ab, bc = join(a, b), join(b, c)
        left = None if ab is None else join(ab, c)
        right = None if bc is None else join(a, bc)
        if left != right:
            bad.append((a, b, c, left, right))
    assert not bad


# ------------------------------------------------------ least upper bound
@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: v.label)
def test_join_is_the_least_upper_bound_on_the_documented_edges(v):
    wrong = [
        (a, b, lattice.join(a, b, v), documented_join([a, b], v))
        for a, b in itertools.product(ALL_NODES, repeat=2)
        if lattice.join(a, b, v) != documented_join([a, b], v)
    ]
    assert not wrong


def test_documented_edges_form_a_partial_order():
    # A check on the transcription: reflexive, transitive, antisymmetric.
    for v in VARIANTS:
        ub = DOCUMENTED[v]
        for a in ALL_NODES:
            assert a in ub[a]
            for b in ub[a]:
                assert ub[b] <= ub[a]
                if a in ub[b]:
                    assert a == b


# ---------------------------------------------------------------- bottom/top
@pytest.mark.parametrize("v", STANDARD, ids=lambda v: v.label)
def test_standard_bool_is_the_bottom(v):
    assert set(lattice.upper_bounds(BOOL, v)) == set(ALL_NODES)
    assert all(lattice.join(BOOL, n, v) == n for n in ALL_NODES)


@pytest.mark.parametrize("v", STANDARD, ids=lambda v: v.label)
def test_standard_weak_int_is_below_everything_but_bool(v):
    assert set(lattice.upper_bounds("i*", v)) == set(ALL_NODES) - {BOOL}
    assert all(lattice.join("i*", n, v) == n for n in ALL_NODES if n != BOOL)


@pytest.mark.parametrize("v", STANDARD, ids=lambda v: v.label)
def test_standard_weak_float_is_below_every_float_and_complex(v):
    assert set(lattice.upper_bounds("f*", v)) == ({"f*", "c*"} | set(ALL_FLOATS) | set(COMPLEXES))
    # ints and bool meet f* at f* itself
    for n in [BOOL, "i*"] + BYTE_INTS:
        assert lattice.join("f*", n, v) == "f*"


@pytest.mark.parametrize("v", STANDARD, ids=lambda v: v.label)
def test_standard_weak_complex_is_below_the_complexes_only(v):
    assert set(lattice.upper_bounds("c*", v)) == {"c*"} | set(COMPLEXES)


@pytest.mark.parametrize("v", STANDARD, ids=lambda v: v.label)
def test_standard_complex128_is_the_top_outside_the_no_promotion_nodes(v):
    rest = [n for n in ALL_NODES if n not in NO_PROMOTION]
    assert set(lattice.upper_bounds("complex128", v)) == {"complex128"}
    for n in rest:
        assert "complex128" in lattice.upper_bounds(n, v)
        assert lattice.join(n, "complex128", v) == "complex128"
    for n in NO_PROMOTION:
        assert lattice.join(n, "complex128", v) is None


@pytest.mark.parametrize("v", STANDARD, ids=lambda v: v.label)
def test_standard_maximal_nodes_are_complex128_and_the_no_promotion_nodes(v):
    maximal = {n for n in ALL_NODES if set(lattice.upper_bounds(n, v)) == {n}}
    assert maximal == {"complex128"} | NO_PROMOTION


@pytest.mark.parametrize("v", STANDARD, ids=lambda v: v.label)
def test_standard_no_promotion_nodes_have_no_upper_bound_but_themselves(v):
    for n in NO_PROMOTION:
        assert set(lattice.upper_bounds(n, v)) == {n}
        assert lattice.edges(v)[n] == ()


@pytest.mark.parametrize("v", STRICT, ids=lambda v: v.label)
def test_strict_upper_bounds(v):
    for n in ALL_NODES:
        expected = {n} | STRICT_ABOVE.get(n, set())
        assert set(lattice.upper_bounds(n, v)) == expected, n
    # strict has no bottom: bool is below nothing but itself
    assert set(lattice.upper_bounds(BOOL, v)) == {BOOL}


def test_x64_and_x32_differ_only_where_uint32_meets_a_small_signed_int():
    x64, x32 = STANDARD
    differ = {
        (a, b): (lattice.join(a, b, x64), lattice.join(a, b, x32))
        for a, b in itertools.product(ALL_NODES, repeat=2)
        if lattice.join(a, b, x64) != lattice.join(a, b, x32)
    }
    assert differ == {
        ("uint32", "int8"): ("int64", "int32"),
        ("int8", "uint32"): ("int64", "int32"),
        ("uint32", "int16"): ("int64", "int32"),
        ("int16", "uint32"): ("int64", "int32"),
        ("uint32", "int32"): ("int64", "int32"),
        ("int32", "uint32"): ("int64", "int32"),
    }


def test_strict_lattice_does_not_depend_on_x64():
    x64, x32 = STRICT
    assert all(lattice.join(a, b, x64) == lattice.join(a, b, x32) for a, b in itertools.product(ALL_NODES, repeat=2))


# ------------------------------------------------------------------ join_all
@PROPS
@given(items=st.lists(nodes, min_size=1, max_size=8), v=variants)
def test_join_all_is_the_documented_least_upper_bound(items, v):
    assert lattice.join_all(items, v) == documented_join(items, v)


@PROPS
@given(data=st.data(), items=st.lists(nodes, min_size=1, max_size=8), v=variants)
def test_join_all_does_not_depend_on_order_or_repetition(data, items, v):
    shuffled = data.draw(st.permutations(items))
    assert lattice.join_all(shuffled, v) == lattice.join_all(items, v)
    assert lattice.join_all(items + items, v) == lattice.join_all(items, v)
    assert lattice.join_all(iter(items), v) == lattice.join_all(items, v)


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: v.label)
def test_join_all_of_one_node_is_the_node(v):
    assert all(lattice.join_all([n], v) == n for n in ALL_NODES)


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: v.label)
def test_join_all_of_nothing_raises(v):
    with pytest.raises(ValueError, match="join of no nodes"):
        lattice.join_all([], v)


def test_join_all_example_sets():
    std64, std32, strict = Variant("standard", True), Variant("standard", False), Variant("strict", True)
    assert lattice.join_all(["bool", "uint8", "int8"], std64) == "int16"
    assert lattice.join_all(["uint32", "int8", "i*"], std64) == "int64"
    assert lattice.join_all(["uint32", "int8", "i*"], std32) == "int32"
    assert lattice.join_all(["uint64", "int8", "bfloat16"], std64) == "bfloat16"
    assert lattice.join_all(["int8", "float8_e5m2", "i*", "f*"], std64) == "float8_e5m2"
    assert lattice.join_all(["int8", "float8_e5m2", "c*"], std64) is None
    assert lattice.join_all(["i*", "f*", "float16"], strict) == "float16"
    assert lattice.join_all(["i*", "int8", "float16"], strict) is None


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: v.label)
def test_unknown_nodes_are_rejected(v):
    with pytest.raises(ValueError, match="nonsense"):
        lattice.join("nonsense", "int8", v)
    with pytest.raises(ValueError, match="nonsense"):
        lattice.join("int8", "nonsense", v)
    with pytest.raises(ValueError, match="nonsense"):
        lattice.join_all(["int8", "nonsense"], v)
    with pytest.raises(ValueError, match="nonsense"):
        lattice.upper_bounds("nonsense", v)
