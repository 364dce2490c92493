"""JAX's promotion lattice as JAX's documentation writes it, written out once.

The 35 nodes (in the order of ``jaxtypes.lattice.NODES``) and the direct
upper edges of each configuration, copied from JAX's documentation, "Type promotion semantics"
(https://docs.jax.dev/en/latest/type_promotion.html), and checked against JAX 0.10.2.
Nothing here is computed from jaxtypes, and nothing imports jaxtypes or JAX:
the JAX oracle scripts (whose data must come from JAX alone) take the node
list from here, and the tests check jaxtypes against these facts instead of
against tables built by the code under test.

``upper_bounds`` and ``least_upper_bound`` walk the edges written here (the
tests' own walk, independent of ``jaxtypes.lattice``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

BOOL = "bool"
SUB_BYTE_INTS = ("uint1", "uint2", "uint4", "int1", "int2", "int4")
UNSIGNED = ("uint1", "uint2", "uint4", "uint8", "uint16", "uint32", "uint64")
SIGNED = ("int1", "int2", "int4", "int8", "int16", "int32", "int64")
BYTE_INTS = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64")
SMALL_FLOATS = (
    "float4_e2m1fn",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e8m0fnu",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
)
WIDE_FLOATS = ("bfloat16", "float16", "float32", "float64")
COMPLEXES = ("complex64", "complex128")
# The strong nodes, in jaxtypes.lattice.NODES order, then the weak ones:
# i* (Python int or a weakly typed int), f* (float), c* (complex).
STRONG_NODES = (BOOL, *UNSIGNED, *SIGNED, *SMALL_FLOATS, *WIDE_FLOATS, *COMPLEXES)
WEAK_NODES = ("i*", "f*", "c*")
NODES = STRONG_NODES + WEAK_NODES
# With x64 off JAX makes no array of these (it canonicalizes them to 32 bits).
BIT64 = ("uint64", "int64", "float64", "complex128")

ALL_INTS = UNSIGNED + SIGNED
ALL_FLOATS = SMALL_FLOATS + WIDE_FLOATS
# No implicit promotion: they join only what lies below them.
NO_PROMOTION = frozenset(SUB_BYTE_INTS) | frozenset(SMALL_FLOATS)

Edges = Mapping[str, frozenset[str]]

# "Direct upper edges, standard mode, x64 enabled".
STANDARD_X64_EDGES: Edges = {
    "bool": frozenset({"i*"}),
    "i*": frozenset({"uint8", "uint2", "uint4", "uint1", "int8", "int2", "int4", "int1"}),
    **{n: frozenset() for n in SUB_BYTE_INTS},
    "uint8": frozenset({"uint16", "int16"}),
    "uint16": frozenset({"uint32", "int32"}),
    "uint32": frozenset({"uint64", "int64"}),
    "uint64": frozenset({"f*"}),
    "int8": frozenset({"int16"}),
    "int16": frozenset({"int32"}),
    "int32": frozenset({"int64"}),
    "int64": frozenset({"f*"}),
    "f*": frozenset({*SMALL_FLOATS, "bfloat16", "float16", "c*"}),
    **{f: frozenset() for f in SMALL_FLOATS},
    "bfloat16": frozenset({"float32"}),
    "float16": frozenset({"float32"}),
    "float32": frozenset({"float64", "complex64"}),
    "float64": frozenset({"complex128"}),
    "c*": frozenset({"complex64"}),
    "complex64": frozenset({"complex128"}),
    "complex128": frozenset(),
}
# x64 disabled differs in one edge: uint32 -> int32, uint64.
STANDARD_X32_EDGES: Edges = {**STANDARD_X64_EDGES, "uint32": frozenset({"int32", "uint64"})}
# Strict: i* -> f* and every int, f* -> c* and every float, c* -> both
# complexes; every other node (bool included) has no edge.
STRICT_EDGES: Edges = {
    **{n: frozenset() for n in NODES},
    "i*": frozenset({"f*", *ALL_INTS}),
    "f*": frozenset({"c*", *ALL_FLOATS}),
    "c*": frozenset(COMPLEXES),
}
# (promotion mode, x64) -> the direct upper edges.
EDGES: Mapping[tuple[str, bool], Edges] = {
    ("standard", True): STANDARD_X64_EDGES,
    ("standard", False): STANDARD_X32_EDGES,
    ("strict", True): STRICT_EDGES,
    ("strict", False): STRICT_EDGES,
}


def upper_bounds(edges: Edges) -> dict[str, frozenset[str]]:
    """Each node's upper bounds: the reflexive-transitive closure of ``edges``."""
    out = {}
    for start in edges:
        seen, todo = {start}, [start]
        while todo:
            for nxt in edges[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        out[start] = frozenset(seen)
    return out


def least_upper_bound(nodes: Iterable[str], above: Mapping[str, frozenset[str]]) -> str | None:
    """The join of ``nodes``: the common upper bound below every other one
    (``above``: ``upper_bounds(edges)``), None when there is none."""
    nodes = list(nodes)
    common = frozenset(above)
    for n in nodes:
        common &= above[n]
    least = [c for c in common if common <= above[c]]
    assert len(least) <= 1, f"two least upper bounds of {sorted(nodes)}: {least}"
    return least[0] if least else None
