"""Renderings of the promotion lattice: tables, graphs, and comparisons, as text.

Pure functions of ``jaxtypes.lattice``: the same variant always gives the same
text (no timestamps, no dict-order surprises: every ordering follows
``lattice.NODES`` or ``lattice.SEED_NODES``).  The CLI (``jaxtypes table``,
``jaxtypes lattice``, ``jaxtypes diff numpy``) and ``tools/generate.py`` (the
sections of docs/) print what these functions return.

Tables
    ``promotion_table(variant, fmt)`` lays the table out as JAX's documentation does: rows
    and columns are ``lattice.SEED_NODES`` (weak columns ``i*``, ``f*``, ``c*``
    included) labelled with ``lattice.SEED_CODES``; a cell is the join of its
    row and column, as ``jax.dtypes.result_type`` gives it (``result_node``:
    with x64 disabled, 64-bit dtypes count as their 32-bit counterparts).
    ``all_nodes=True`` uses every node of the lattice,
    labelled by full name (the seed codes count bytes, ``u1`` = uint8, which
    would clash with the bit-counted names ``uint1``, ``int4``, ...).  A pair
    with no join (strict mode, sub-byte ints, small floats) shows ``-``.

Graphs
    ``lattice_mermaid(variant)`` and ``lattice_dot(variant)`` draw the direct
    edges of ``lattice.edges(variant)``, bottom to top.

Comparisons
    ``numpy_differences(variant)``: where JAX's answer (the table's cell)
    differs from the installed numpy's (weak nodes given to numpy as Python
    scalars, so that numpy applies its own rule for them: NEP 50 in NumPy 2).
    ``variant_differences(a, b)``: where two variants' lattice joins differ.
"""

from __future__ import annotations

import csv as _csv
import html
import io
from typing import Any, Final, Iterable, Literal, NamedTuple, Sequence

from jaxtypes import lattice, operation_table
from jaxtypes.lattice import Variant

__all__ = [
    "NO_JOIN",
    "TABLE_FORMATS",
    "GRAPH_FORMATS",
    "DIFF_FORMATS",
    "label",
    "table_nodes",
    "result_node",
    "table_cells",
    "promotion_table",
    "markdown_table",
    "csv_table",
    "html_table",
    "legend",
    "lattice_mermaid",
    "lattice_dot",
    "lattice_graph",
    "mermaid_id",
    "Difference",
    "numpy_differences",
    "numpy_promote_node",
    "VariantDifference",
    "variant_differences",
    "differences_table",
    "variant_differences_table",
    "operations_table",
]

NO_JOIN: Final = "-"
"""The cell text of a pair of nodes with no join (promotion raises)."""

TableFormat = Literal["markdown", "csv", "html"]
GraphFormat = Literal["mermaid", "dot"]
DiffFormat = Literal["markdown", "csv", "text"]
TABLE_FORMATS: Final[tuple[TableFormat, ...]] = ("markdown", "csv", "html")
GRAPH_FORMATS: Final[tuple[GraphFormat, ...]] = ("mermaid", "dot")
DIFF_FORMATS: Final[tuple[DiffFormat, ...]] = ("markdown", "csv", "text")


def _check_format(fmt: str, allowed: Sequence[str]) -> None:
    if fmt not in allowed:
        raise ValueError(f"unknown format {fmt!r}; expected one of: {', '.join(allowed)}")


# ------------------------------------------------------------------ labels
def label(node: str, codes: bool = True) -> str:
    """The text of a node in a table: its seed code (``u1``, ``bf``, ``i*``)
    when it has one and ``codes`` is true, else its name."""
    lattice.kind(node)  # validates
    return lattice.SEED_CODES.get(node, node) if codes else node


def table_nodes(all_nodes: bool = False) -> tuple[str, ...]:
    """The rows (= columns) of the table: the 18 of JAX's documented table, or every node (35)."""
    return lattice.NODES if all_nodes else lattice.SEED_NODES


def _operand(node: str, x64: bool) -> tuple[str, bool]:
    """The (dtype, weak) JAX reads from an operand of a node: a strong node is
    its dtype (canonicalized, as ``jax.dtypes.dtype`` does with x64 disabled),
    a weak one a Python scalar (the default dtype of its kind, weakly typed)."""
    if lattice.is_weak(node):
        return lattice.default_dtype(lattice.kind(node), x64), True
    return lattice.canonicalize(node, x64), False


def result_node(a: str, b: str, v: Variant) -> str | None:
    """``jax.dtypes.result_type`` of an operand of each node, as a node: the
    weak node of its kind where the answer is weakly typed, else its dtype
    (None where JAX raises).  With x64 enabled this is the lattice join; with
    x64 disabled the 64-bit dtypes have become 32-bit first, as in JAX."""
    try:
        out, weak = lattice.lattice_result_type([_operand(a, v.x64), _operand(b, v.x64)], v)
    except lattice.NoJoin:
        return None
    return lattice.weak_node(lattice.kind(out)) if weak else out


def table_cells(v: Variant, nodes: Sequence[str] = lattice.SEED_NODES) -> list[list[str | None]]:
    """``result_node`` of every (row, column) pair (None: JAX raises)."""
    return [[result_node(a, b, v) for b in nodes] for a in nodes]


def _labelled(v: Variant, all_nodes: bool) -> tuple[list[str], list[list[str]]]:
    nodes = table_nodes(all_nodes)
    codes = not all_nodes
    heads = [label(n, codes) for n in nodes]
    rows = [
        [label(a, codes)] + [NO_JOIN if c is None else label(c, codes) for c in row]
        for a, row in zip(nodes, table_cells(v, nodes))
    ]
    return heads, rows


def markdown_table(v: Variant, all_nodes: bool = False) -> str:
    """The promotion table as a GitHub markdown table (empty top-left cell)."""
    heads, rows = _labelled(v, all_nodes)
    lines = ["|  | " + " | ".join(heads) + " |", "|---|" + "---|" * len(heads)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def csv_table(v: Variant, all_nodes: bool = False) -> str:
    """The promotion table as CSV: a header row ``"", codes...``, then one row per node."""
    heads, rows = _labelled(v, all_nodes)
    buf = io.StringIO()
    writer = _csv.writer(buf, lineterminator="\n")
    writer.writerow([""] + heads)
    writer.writerows(rows)
    return buf.getvalue()


def html_table(v: Variant, all_nodes: bool = False) -> str:
    """The promotion table as an HTML ``<table>``, one ``<tr>`` per line.

    As in JAX's 2020 table (docs/type_promotion.rst of JAX at commit 2dfc5f9,
    https://github.com/google/jax), cells where JAX differs from
    ``numpy.promote_types`` have ``class="d"``; cells with no join have
    ``class="none"``.
    """
    nodes = table_nodes(all_nodes)
    codes = not all_nodes
    differ = {(d.a, d.b) for d in numpy_differences(v, nodes)}
    esc = html.escape
    out = [f'<table class="jaxtypes-promotion" data-variant="{esc(v.label)}">']
    out.append("<tr><th></th>" + "".join(f"<th>{esc(label(n, codes))}</th>" for n in nodes) + "</tr>")
    for a, row in zip(nodes, table_cells(v, nodes)):
        cells: list[str] = []
        for b, c in zip(nodes, row):
            classes: list[str] = []
            if (a, b) in differ or (b, a) in differ:
                classes.append("d")
            if c is None:
                classes.append("none")
            attr = f' class="{" ".join(classes)}"' if classes else ""
            text = NO_JOIN if c is None else label(c, codes)
            cells.append(f"<td{attr}>{esc(text)}</td>")
        out.append(f"<tr><th>{esc(label(a, codes))}</th>{''.join(cells)}</tr>")
    out.append("</table>")
    return "\n".join(out) + "\n"


def promotion_table(v: Variant, fmt: str = "markdown", all_nodes: bool = False) -> str:
    """The promotion table of a variant in ``fmt`` (markdown, csv or html)."""
    _check_format(fmt, TABLE_FORMATS)
    return {"markdown": markdown_table, "csv": csv_table, "html": html_table}[fmt](v, all_nodes)


def legend(nodes: Iterable[str] = lattice.SEED_NODES) -> str:
    """One line naming what each seed code stands for."""
    parts: list[str] = []
    for n in nodes:
        code = label(n)
        if lattice.is_weak(n):
            name = {"i": "weak int", "f": "weak float", "c": "weak complex"}[lattice.kind(n)]
        else:
            name = n
        parts.append(f"`{code}` {name}" if code != name else f"`{code}`")
    return ", ".join(parts)


# ------------------------------------------------------------------ graphs
def mermaid_id(node: str) -> str:
    """A mermaid-safe node id: the name, with ``*`` spelt ``_weak``."""
    lattice.kind(node)
    return node.replace("*", "_weak")


def _graph_edges(v: Variant) -> list[tuple[str, str]]:
    graph = lattice.edges(v)
    return [(a, b) for a in lattice.NODES for b in graph[a]]


def lattice_mermaid(v: Variant) -> str:
    """The lattice of a variant as a mermaid flowchart, bottom to top.

    Every node is declared with a quoted label (``i_weak["i*"]``), so nodes
    without edges (strict mode) still show; weak nodes are drawn dashed.
    """
    lines = ["graph BT", f"    %% jaxtypes promotion lattice ({v.label})"]
    for n in lattice.NODES:
        lines.append(f'    {mermaid_id(n)}["{n}"]')
    for a, b in _graph_edges(v):
        lines.append(f"    {mermaid_id(a)} --> {mermaid_id(b)}")
    lines.append("    classDef weak stroke-dasharray: 5 5")
    lines.append("    class " + ",".join(mermaid_id(n) for n in lattice.WEAK) + " weak")
    return "\n".join(lines) + "\n"


def lattice_dot(v: Variant) -> str:
    """The lattice of a variant as a graphviz digraph, bottom to top."""
    lines = [f'digraph "jaxtypes {v.label}" {{', "    rankdir=BT;", "    node [shape=box];"]
    for n in lattice.NODES:
        style = " [style=dashed]" if lattice.is_weak(n) else ""
        lines.append(f'    "{n}"{style};')
    for a, b in _graph_edges(v):
        lines.append(f'    "{a}" -> "{b}";')
    lines.append("}")
    return "\n".join(lines) + "\n"


def lattice_graph(v: Variant, fmt: str = "mermaid") -> str:
    """The lattice of a variant in ``fmt`` (mermaid or dot)."""
    _check_format(fmt, GRAPH_FORMATS)
    return lattice_mermaid(v) if fmt == "mermaid" else lattice_dot(v)


# ------------------------------------------------------------- comparisons
DifferenceKind = Literal["dtype", "weak", "jax-error", "numpy-error"]


class Difference(NamedTuple):
    """One cell (an unordered pair ``a``, ``b``) where JAX and numpy disagree.

    ``jax`` is JAX's answer (``result_node``; None: JAX raises); ``numpy`` is
    numpy's (``numpy_promote_node``; None: numpy raises).  ``kind``:

    * ``"weak"``: JAX's result is weakly typed and its dtype (the default of
      its kind in the variant) is numpy's;
    * ``"dtype"``: the dtypes differ;
    * ``"jax-error"`` / ``"numpy-error"``: only one side promotes.
    """

    a: str
    b: str
    jax: str | None
    numpy: str | None
    kind: DifferenceKind


# Python scalars standing for the weak nodes when numpy is asked (0, 0.0, 0j).
_PYTHON_SCALAR: Final[dict[str, object]] = {
    s.node: s.python_type(0) for s in lattice.PYTHON_SCALARS if s.node in lattice.WEAK
}


def numpy_promote_node(a: str, b: str) -> str | None:
    """What the installed numpy promotes an operand of each node to, as a node
    (None where numpy raises or answers outside the lattice).

    A strong node is its dtype; a weak node a Python scalar (``0``, ``0.0``,
    ``0j``), given to ``numpy.result_type`` as is, so numpy applies its own
    rule for Python scalars: NEP 50 in NumPy 2 (the scalar is weak, as in JAX:
    ``int16`` with a Python int stays ``int16``), value-based casting in NumPy 1.
    """
    import numpy as np

    from jaxtypes.promotion import dtype_of_node, node_of

    operands: list[Any] = [_PYTHON_SCALAR[n] if lattice.is_weak(n) else dtype_of_node(n) for n in (a, b)]
    try:
        dt = np.result_type(*operands)
    except TypeError:  # numpy's DTypePromotionError is a TypeError
        return None
    except ValueError:  # a dtype this ml_dtypes release lacks (int1, uint1)
        return None
    return node_of(dt)


def numpy_differences(v: Variant, nodes: Sequence[str] = lattice.SEED_NODES) -> tuple[Difference, ...]:
    """Every unordered pair of ``nodes`` (in their order, ``a`` first, pairs
    with ``a == b`` included) where JAX's answer (``result_node`` in ``v``)
    differs from numpy's (``numpy_promote_node``).  Both are symmetric, so
    each pair appears once."""
    out: list[Difference] = []
    for i, a in enumerate(nodes):
        for b in nodes[i:]:
            jax = result_node(a, b, v)
            npy = numpy_promote_node(a, b)
            if jax == npy:
                continue
            if jax is None:
                kind: DifferenceKind = "jax-error"
            elif npy is None:
                kind = "numpy-error"
            elif lattice.is_weak(jax) and lattice.default_dtype(lattice.kind(jax), v.x64) == npy:
                kind = "weak"
            else:
                kind = "dtype"
            out.append(Difference(a, b, jax, npy, kind))
    return tuple(out)


class VariantDifference(NamedTuple):
    """One unordered pair whose join differs between two variants (None: no join)."""

    a: str
    b: str
    first: str | None
    second: str | None


def variant_differences(
    first: Variant, second: Variant, nodes: Sequence[str] = lattice.SEED_NODES
) -> tuple[VariantDifference, ...]:
    """Every unordered pair of ``nodes`` whose join differs between two variants."""
    out: list[VariantDifference] = []
    for i, a in enumerate(nodes):
        for b in nodes[i:]:
            x, y = lattice.join(a, b, first), lattice.join(a, b, second)
            if x != y:
                out.append(VariantDifference(a, b, x, y))
    return tuple(out)


def _node_text(node: str | None) -> str:
    return NO_JOIN if node is None else node


def _rows_out(header: list[str], rows: list[list[str]], fmt: str) -> str:
    if fmt == "csv":
        buf = io.StringIO()
        writer = _csv.writer(buf, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        return buf.getvalue()
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines) + "\n"
    # text: aligned columns
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header] + rows]
    return "\n".join(lines) + "\n"


def differences_table(diffs: Iterable[Difference], fmt: str = "markdown") -> str:
    """``numpy_differences`` as a table (markdown, csv or text):
    columns a, b, jax, numpy, kind; ``-`` where a side raises."""
    _check_format(fmt, DIFF_FORMATS)
    rows = [[d.a, d.b, _node_text(d.jax), _node_text(d.numpy), d.kind] for d in diffs]
    return _rows_out(["a", "b", "jax", "numpy", "kind"], rows, fmt)


def variant_differences_table(
    diffs: Iterable[VariantDifference], first: Variant, second: Variant, fmt: str = "markdown"
) -> str:
    """``variant_differences`` as a table: columns a, b, then each variant's join."""
    _check_format(fmt, DIFF_FORMATS)
    rows = [[d.a, d.b, _node_text(d.first), _node_text(d.second)] for d in diffs]
    return _rows_out(["a", "b", first.label, second.label], rows, fmt)


# ------------------------------------------------------------- operations
def operations_table() -> str:
    """Array's typed operations (``jaxtypes.operation_table``) and the rule that
    gives each result's dtype, as a markdown table, a row per rule."""
    by_rule: dict[str, list[str]] = {}
    for op in operation_table.OPERATIONS:
        # A pipe inside a cell, code included, is escaped in GitHub's tables.
        by_rule.setdefault(op.rule, []).append(f"`{op.written}`".replace("|", "\\|"))
    lines = ["| operation | result dtype |", "|---|---|"]
    lines += [f"| {', '.join(written)} | {operation_table.RULES[rule]} |" for rule, written in by_rule.items()]
    return "\n".join(lines) + "\n"
