"""JAX's dtype promotion lattice, as data: the single source of truth.

Every node is named by a string: the numpy name of a JAX dtype, or ``i*``,
``f*``, ``c*`` for the weak (Python scalar) types.  The runtime API, the CLI,
the generated stubs, the generated typecheck cases, the docs tables and the
mypy plugin all read this module.  It imports nothing outside the standard
library, so that the mypy plugin can load it cheaply.

The edges follow ``jax._src.dtypes._type_promotion_lattice`` (JAX 0.10): a
standard lattice (whose x64-off variant differs in one edge) and a strict one.
Joins are computed once per variant, at first use, into tables; nothing walks
the graph per call.
"""

from __future__ import annotations

import itertools
from typing import Callable, Final, Hashable, Iterable, Literal, NamedTuple

__all__ = [
    "BOOL",
    "UNSIGNED_INTS",
    "SIGNED_INTS",
    "INTN",
    "SMALL_FLOATS",
    "FLOAT8",
    "FLOAT6",
    "FLOAT4",
    "FLOATS",
    "COMPLEXES",
    "WEAK_INT",
    "WEAK_FLOAT",
    "WEAK_COMPLEX",
    "WEAK",
    "STRONG",
    "NODES",
    "SEED_NODES",
    "SEED_CODES",
    "Variant",
    "VARIANTS",
    "PromotionMode",
    "PROMOTION_MODES",
    "variant",
    "edges",
    "upper_bounds",
    "join",
    "join_all",
    "kind",
    "bits",
    "is_weak",
    "weak_node",
    "strong_counterpart",
    "default_dtype",
    "canonicalize",
    "no_join_reason",
    "NoJoinReason",
    "NoJoinText",
    "NO_JOIN_TEXT",
    "no_join_message",
    "explain",
    "CUSTOM_FLOATS",
    "jax_type",
    "lattice_result_type",
    "result_type",
    "NoJoin",
    "OutsideLattice",
    "MARKER_NAME",
    "NUMPY_DTYPES",
    "PythonScalar",
    "PYTHON_SCALARS",
    "PYTHON_SCALAR_OF_NODE",
]

BOOL: Final = "bool"
UNSIGNED_INTS: Final = ("uint1", "uint2", "uint4", "uint8", "uint16", "uint32", "uint64")
SIGNED_INTS: Final = ("int1", "int2", "int4", "int8", "int16", "int32", "int64")
# Sub-byte integers: no implicit promotion except from bool and i*.
INTN: Final = ("int2", "uint2", "int4", "uint4", "int1", "uint1")
FLOAT4: Final = ("float4_e2m1fn",)
FLOAT6: Final = ("float6_e2m3fn", "float6_e3m2fn")
FLOAT8: Final = (
    "float8_e3m4",
    "float8_e4m3",
    "float8_e8m0fnu",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
)
# JAX's order (ml_dtypes' small floats): these promote from f* and to nothing.
SMALL_FLOATS: Final = FLOAT4 + FLOAT6 + FLOAT8
FLOATS: Final = SMALL_FLOATS + ("bfloat16", "float16", "float32", "float64")
COMPLEXES: Final = ("complex64", "complex128")
WEAK_INT: Final = "i*"
WEAK_FLOAT: Final = "f*"
WEAK_COMPLEX: Final = "c*"
WEAK: Final = (WEAK_INT, WEAK_FLOAT, WEAK_COMPLEX)
STRONG: Final = (BOOL,) + UNSIGNED_INTS + SIGNED_INTS + FLOATS + COMPLEXES
NODES: Final = STRONG + WEAK

# The 18 nodes of the table in JAX's documentation, "Type promotion semantics" (https://docs.jax.dev/en/latest/type_promotion.html),
# in its order, with its short codes.
SEED_NODES: Final = (
    "bool",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "int8",
    "int16",
    "int32",
    "int64",
    "bfloat16",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "i*",
    "f*",
    "c*",
)
SEED_CODES: Final = {
    "bool": "b1",
    "uint8": "u1",
    "uint16": "u2",
    "uint32": "u4",
    "uint64": "u8",
    "int8": "i1",
    "int16": "i2",
    "int32": "i4",
    "int64": "i8",
    "bfloat16": "bf",
    "float16": "f2",
    "float32": "f4",
    "float64": "f8",
    "complex64": "c8",
    "complex128": "c16",
    "i*": "i*",
    "f*": "f*",
    "c*": "c*",
}

# The name of each node's marker class (jaxtypes.float32, jaxtypes.weak_int):
# numpy's name of the dtype, bool_ as numpy spells it (bool is Python's).
MARKER_NAME: Final = {
    **{n: n for n in STRONG},
    BOOL: "bool_",
    WEAK_INT: "weak_int",
    WEAK_FLOAT: "weak_float",
    WEAK_COMPLEX: "weak_complex",
}


# The strong nodes numpy defines itself (their scalar types numpy.bool_,
# numpy.int8 ...); the others are ml_dtypes', which has no typed scalars.
NUMPY_DTYPES: Final = (
    BOOL,
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)


class PythonScalar(NamedTuple):
    """A Python scalar type as JAX reads it."""

    python_type: type
    node: str  # what JAX makes of a value of it: bool is strong, the others weak
    dtype: str  # what JAX (and numpy) make of the type itself: python_scalar_types_to_dtypes

    @property
    def name(self) -> str:
        return self.python_type.__name__


# In the order a checker must try them: a bool is an int, an int is accepted
# where a float is, a float where a complex is.
PYTHON_SCALARS: Final = (
    PythonScalar(bool, BOOL, BOOL),
    PythonScalar(int, WEAK_INT, "int64"),
    PythonScalar(float, WEAK_FLOAT, "float64"),
    PythonScalar(complex, WEAK_COMPLEX, "complex128"),
)
PYTHON_SCALAR_OF_NODE: Final = {s.node: s for s in PYTHON_SCALARS}

PromotionMode = Literal["standard", "strict"]
PROMOTION_MODES: Final[tuple[PromotionMode, ...]] = ("standard", "strict")


class Variant(NamedTuple):
    """One configuration of the lattice: promotion mode and x64 flag."""

    mode: PromotionMode
    x64: bool

    @property
    def label(self) -> str:
        return f"{self.mode}-{'x64' if self.x64 else 'x32'}"


VARIANTS: Final = tuple(Variant(m, x) for m in PROMOTION_MODES for x in (True, False))


def variant(mode: str = "standard", x64: bool = False) -> Variant:
    """The variant for a promotion mode and x64 flag, checking the mode."""
    if mode not in PROMOTION_MODES:
        raise ValueError(f"unknown promotion mode {mode!r}; expected one of {', '.join(PROMOTION_MODES)}")
    return Variant(mode, bool(x64))


def _kind(node: str) -> str:
    if node == BOOL:
        return "b"
    if node in WEAK:
        return node[0]
    if node in UNSIGNED_INTS:
        return "u"
    if node in SIGNED_INTS:
        return "i"
    if node in FLOATS:
        return "f"
    if node in COMPLEXES:
        return "c"
    raise ValueError(f"unknown lattice node {node!r}; expected one of {', '.join(NODES)}")


_KINDS: Final = {n: _kind(n) for n in NODES}


def kind(node: str) -> str:
    """numpy's kind letter of a node: b, u, i, f or c (weak nodes: i, f, c)."""
    try:
        return _KINDS[node]
    except KeyError:
        raise ValueError(f"unknown lattice node {node!r}; expected one of {', '.join(NODES)}") from None


def _bits(node: str) -> int | None:
    if node in WEAK:
        return None
    if node == BOOL:
        return 8
    if node in UNSIGNED_INTS or node in SIGNED_INTS:
        return int(node.lstrip("uint"))
    if node == "bfloat16":
        return 16
    if node.startswith("float") and "_" in node:  # float8_e4m3fn and friends
        return int(node[5 : node.index("_")])
    if node.startswith("float"):
        return int(node[5:])
    return int(node[7:])  # complex64, complex128


_BITS: Final = {n: _bits(n) for n in NODES}


def bits(node: str) -> int | None:
    """Storage width in bits (None for the weak nodes)."""
    kind(node)
    return _BITS[node]


def is_weak(node: str) -> bool:
    return node in WEAK


def weak_node(kind_letter: str) -> str:
    """The weak node of a kind: ``i``/``u`` -> i*, ``f`` -> f*, ``c`` -> c*."""
    return {"i": WEAK_INT, "u": WEAK_INT, "f": WEAK_FLOAT, "c": WEAK_COMPLEX}[kind_letter]


def default_dtype(kind_letter: str, x64: bool) -> str:
    """JAX's default dtype of a kind: int32/float32/complex64, or 64-bit with x64."""
    table = {
        "b": BOOL,
        "i": "int64" if x64 else "int32",
        "u": "uint64" if x64 else "uint32",
        "f": "float64" if x64 else "float32",
        "c": "complex128" if x64 else "complex64",
    }
    return table[kind_letter]


def strong_counterpart(node: str, x64: bool) -> str:
    """The dtype a weak node materialises as (the default of its kind)."""
    return default_dtype(node[0], x64) if node in WEAK else node


_TO_32: Final = {"int64": "int32", "uint64": "uint32", "float64": "float32", "complex128": "complex64"}


def canonicalize(node: str, x64: bool) -> str:
    """JAX's canonicalization: with x64 off, 64-bit dtypes become 32-bit."""
    kind(node)
    return node if x64 else _TO_32.get(node, node)


def edges(v: Variant) -> dict[str, tuple[str, ...]]:
    """Direct upper edges of the lattice of a variant (JAX's DAG)."""
    if v.mode == "strict":
        out: dict[str, tuple[str, ...]] = {n: () for n in NODES}
        out[WEAK_INT] = (WEAK_FLOAT,) + UNSIGNED_INTS + SIGNED_INTS
        out[WEAK_FLOAT] = (WEAK_COMPLEX,) + FLOATS
        out[WEAK_COMPLEX] = COMPLEXES
        return out
    out = {
        BOOL: (WEAK_INT,),
        WEAK_INT: ("uint8", "uint2", "uint4", "uint1", "int8", "int2", "int4", "int1"),
        "uint8": ("int16", "uint16"),
        "uint16": ("int32", "uint32"),
        # With x64 off JAX avoids forming a 64-bit type from 32-bit inputs.
        "uint32": ("int64", "uint64") if v.x64 else ("int32", "uint64"),
        "uint64": (WEAK_FLOAT,),
        "int8": ("int16",),
        "int16": ("int32",),
        "int32": ("int64",),
        "int64": (WEAK_FLOAT,),
        WEAK_FLOAT: SMALL_FLOATS + ("bfloat16", "float16", WEAK_COMPLEX),
        "bfloat16": ("float32",),
        "float16": ("float32",),
        "float32": ("float64", "complex64"),
        "float64": ("complex128",),
        WEAK_COMPLEX: ("complex64",),
        "complex64": ("complex128",),
        "complex128": (),
    }
    for n in INTN + SMALL_FLOATS:
        out[n] = ()
    return out


class _Tables(NamedTuple):
    upper: dict[str, frozenset[str]]
    pair: dict[tuple[str, str], str | None]


_TABLES: dict[Variant, _Tables] = {}


def _tables(v: Variant) -> _Tables:
    """The tables of a variant, computed on first use."""
    found = _TABLES.get(v)
    if found is None:
        found = _TABLES[v] = _compute_tables(v)
    return found


def _compute_tables(v: Variant) -> _Tables:
    graph = edges(v)
    upper: dict[str, set[str]] = {}
    for node in NODES:
        # Depth-first closure; the graph is a DAG of 35 nodes.
        seen = {node}
        stack = [node]
        while stack:
            for nxt in graph[stack.pop()]:
                if nxt == node:
                    raise ValueError(f"cycle in the promotion lattice through {node}")
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        upper[node] = seen
    frozen = {n: frozenset(s) for n, s in upper.items()}
    pair: dict[tuple[str, str], str | None] = {}
    for a, b in itertools.product(NODES, repeat=2):
        common = frozen[a] & frozen[b]
        least = [c for c in common if common <= frozen[c]]
        if len(least) > 1:
            raise ValueError(f"ill-formed lattice: {a} and {b} have joins {least}")
        pair[a, b] = least[0] if least else None
    return _Tables(frozen, pair)


def upper_bounds(node: str, v: Variant) -> frozenset[str]:
    """Every node at or above ``node`` in the lattice of ``v``."""
    kind(node)
    return _tables(v).upper[node]


def join(a: str, b: str, v: Variant) -> str | None:
    """The least upper bound of two nodes, or None where there is none."""
    try:
        return _tables(v).pair[a, b]
    except KeyError:
        kind(a)
        kind(b)
        raise


def join_all(nodes: Iterable[str], v: Variant) -> str | None:
    """The least upper bound of one or more nodes, or None where there is none.

    The lattice is a (partial) join-semilattice, so folding pairwise is exact:
    a set has a join exactly when every prefix does.
    """
    pair = _tables(v).pair
    it = iter(nodes)
    try:
        acc: str = next(it)
    except StopIteration:
        raise ValueError("join of no nodes") from None
    kind(acc)
    for node in it:
        try:
            joined = pair[acc, node]
        except KeyError:
            kind(node)
            raise
        if joined is None:
            return None
        acc = joined
    return acc


NoJoinReason = Literal["strict", "float8", "float6", "float4", "intn", "none"]


def no_join_reason(nodes: Iterable[str], v: Variant) -> NoJoinReason:
    """Which of JAX's error messages applies to a set of nodes with no join."""
    nodes = tuple(nodes)
    if v.mode == "strict":
        return "strict"
    groups: tuple[tuple[tuple[str, ...], NoJoinReason], ...] = (
        (FLOAT8, "float8"),
        (FLOAT6, "float6"),
        (FLOAT4, "float4"),
        (INTN, "intn"),
    )
    for group, reason in groups:
        if any(n in group for n in nodes):
            return reason
    return "none"


class NoJoinText(NamedTuple):
    """JAX's words for a reason: why (a clause of its message), and the dtype its
    message suggests casting to (None: it names none)."""

    why: str
    cast_to: str | None


NO_JOIN_TEXT: Final[dict[NoJoinReason, NoJoinText]] = {
    "strict": NoJoinText("there is no implicit promotion path under jax_numpy_dtype_promotion=strict", None),
    "float8": NoJoinText("8-bit floats do not support implicit promotion", "float32"),
    "float6": NoJoinText("6-bit floats do not support implicit promotion", "float32"),
    "float4": NoJoinText("4-bit floats do not support implicit promotion", "float32"),
    "intn": NoJoinText("1-bit, 2-bit and 4-bit integers do not support implicit promotion", "int32"),
    "none": NoJoinText("there is no implicit promotion path", None),
}


def no_join_message(shown: Iterable[str], reason: NoJoinReason) -> str:
    """JAX's TypePromotionError message for operands (as JAX prints them) whose
    dtypes have no join, for a reason of ``no_join_reason``."""
    head = f"Input dtypes {tuple(shown)} have no available implicit dtype promotion path"
    why, cast_to = NO_JOIN_TEXT[reason]
    if reason == "strict":
        return (
            f"{head} when jax_numpy_dtype_promotion=strict. Try explicitly casting "
            "inputs to the desired output type, or set jax_numpy_dtype_promotion=standard."
        )
    if cast_to is not None:
        return (
            f"{head}. To avoid unintended promotion, {why}. If you'd like your inputs "
            "to be promoted to another type, you can do so explicitly using e.g. "
            f"x.astype('{cast_to}')"
        )
    return f"{head}. Try explicitly casting inputs to the desired output type."


# bfloat16 and the small floats: a weakly typed one stands for f*.
CUSTOM_FLOATS: Final = frozenset(SMALL_FLOATS + ("bfloat16",))


def jax_type(node: str, weak: bool) -> str:
    """JAX's ``_jax_type``: the lattice node of a (dtype, weak) pair."""
    if not weak or node == BOOL or node in WEAK:
        return node
    if node in CUSTOM_FLOATS:
        return WEAK_FLOAT
    return weak_node(kind(node))


class NoJoin(ValueError):
    """Raised where operands have no join; ``nodes`` are the ones JAX joined, in
    argument order, so that callers can word JAX's error."""

    def __init__(self, nodes: Iterable[str], v: Variant) -> None:
        self.nodes: tuple[str, ...] = tuple(nodes)
        self.variant = v
        super().__init__(f"no join of {', '.join(self.nodes)} ({v.label})")


class OutsideLattice(ValueError):
    """Raised where ``lattice_result_type`` would join an operand that is not a
    node (a dtype JAX takes as a value but not in promotion: float0, strings);
    ``nodes`` are the ones JAX joined, in argument order."""

    def __init__(self, nodes: Iterable[Hashable]) -> None:
        self.nodes: tuple[Hashable, ...] = tuple(nodes)
        super().__init__(f"not in the lattice: {[n for n in self.nodes if n not in _KINDS]}")


def lattice_result_type(
    operands: Iterable[tuple[str, bool]], v: Variant, explicit: Callable[[str], str] | None = None
) -> tuple[str, bool]:
    """JAX's ``lattice_result_type`` on (dtype node, weak) operands.

    Gives the (dtype node, weak) JAX computes in, before ``result_type`` turns a
    weak answer into its kind's default dtype; raises ``NoJoin`` where there is
    no join.  The dtype is canonicalized where JAX calls ``dtype()`` on a join,
    by ``explicit`` when given (the runtime's reading of JAX's
    jax_explicit_x64_dtypes setting), else as that setting's default does.

    An operand outside the lattice (the runtime's dtype objects JAX takes as
    values) passes where JAX needs no join: alone, or repeated with a strong
    operand; any join of one raises ``OutsideLattice``.
    """
    ops = list(operands)
    nodes = [n for n, _ in ops]
    weaks = [w for _, w in ops]
    if len(ops) == 1:
        out, weak = ops[0]
    elif len(set(nodes)) == 1 and not all(weaks):
        out, weak = nodes[0], False
    else:
        # All weak (standard mode): JAX joins the dtypes themselves, then marks
        # the result weak.  Otherwise a weak operand stands for its weak node.
        all_weak = all(weaks) and v.mode != "strict"
        joined_nodes = nodes if all_weak else [jax_type(n, w) if n in _KINDS else n for n, w in ops]
        if any(n not in _KINDS for n in joined_nodes):
            raise OutsideLattice(joined_nodes)
        joined = join_all(dict.fromkeys(joined_nodes), v)
        if joined is None:
            raise NoJoin(joined_nodes, v)
        weak = all_weak or joined in WEAK
        if joined in WEAK:
            out = strong_counterpart(joined, v.x64)
        else:
            out = explicit(joined) if explicit is not None else canonicalize(joined, v.x64)
    return out, weak and out != BOOL


def result_type(operands: Iterable[tuple[str, bool]], v: Variant) -> tuple[str, bool]:
    """JAX's ``result_type`` on (dtype node, weak) operands: a weak answer is
    the default dtype of its kind.  Raises ``NoJoin`` where there is no join.

    (JAX finds that default by numpy's kind letter, which ml_dtypes' sub-byte
    ints lack; a weak sub-byte answer is a ValueError here, a KeyError in JAX.)
    """
    out, weak = lattice_result_type(operands, v)
    if weak:
        if out in INTN:
            raise ValueError(f"a weakly typed {out} has no default dtype in JAX")
        out = default_dtype("f" if out in CUSTOM_FLOATS else kind(out), v.x64)
    return out, weak


def explain(a: str, b: str, v: Variant) -> list[str]:
    """A shortest upward path from each node to their join, as lines of text."""
    graph = edges(v)
    target = join(a, b, v)

    def path(src: str, dst: str) -> list[str]:
        prev: dict[str, str | None] = {src: None}
        queue = [src]
        for node in queue:
            if node == dst:
                break
            for nxt in graph[node]:
                if nxt not in prev:
                    prev[nxt] = node
                    queue.append(nxt)
        out = [dst]
        while (step := prev[out[-1]]) is not None:
            out.append(step)
        return out[::-1]

    if target is None:
        common = upper_bounds(a, v) & upper_bounds(b, v)
        lines = [
            f"{a} is below: {', '.join(sorted(upper_bounds(a, v) - {a}, key=NODES.index)) or '(nothing)'}",
            f"{b} is below: {', '.join(sorted(upper_bounds(b, v) - {b}, key=NODES.index)) or '(nothing)'}",
        ]
        if common:  # pragma: no cover - the lattice is well formed
            lines.append(f"common upper bounds without a least one: {sorted(common)}")
        else:
            lines.append(f"no common upper bound: {a} and {b} do not promote ({v.label})")
        return lines
    return [
        f"{a}: {' -> '.join(path(a, target))}",
        f"{b}: {' -> '.join(path(b, target))}",
        f"join: {target} ({v.label}); every other common upper bound lies above it: "
        + (", ".join(sorted((upper_bounds(a, v) & upper_bounds(b, v)) - {target}, key=NODES.index)) or "(none)"),
    ]
