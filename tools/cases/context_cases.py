"""The wrong-dtype context matrix: typed JAX expressions put where a user's
code declares another dtype, in every context a declared type reaches.

Each expression of ``EXPRESSIONS`` has the dtype JAX gives it (written out
here; tests/test_user_contexts.py runs every expression under JAX and checks
it).  For each one the generated file puts it, in each context of
``CONTEXTS``, where another dtype (``wrong_for``) is declared, marked
``# E: KIND``: a checker must report it on that very line and on no other
line (a re-bound name is used again on the next line, unmarked, so an error
reported there instead fails too).  A control line asserts the expression's
dtype, so that a checker that does not know it shows up as such.

A case's functions are named by its expression in words (``known_jnp_sqrt_float32``,
``return_jnp_sqrt_float32``, ...: ``case_name``), never by its place in the
list: a new expression, or a new function of the table in the matrix of
every function, adds its own cases and changes no other line.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

# (expression over the inputs of INPUTS, the marker of JAX's dtype for it).
EXPRESSIONS: Final[tuple[tuple[str, str], ...]] = (
    # Array's operators and methods
    ("x.astype(jnp.bfloat16)", "bfloat16"),
    ("b.astype(jnp.float32)", "float32"),
    ("b + x", "float32"),
    ("b * 2.0", "bfloat16"),
    ("b @ b", "bfloat16"),
    ("i8 + 1", "int8"),
    ("i / 2", "float32"),
    ("x > 0", "bool_"),
    ("b.sum()", "bfloat16"),
    ("i8.sum()", "int32"),
    ("x.mean(axis=-1)", "float32"),
    ("b.max()", "bfloat16"),
    ("x.argmax()", "int32"),
    ("b.reshape(-1)", "bfloat16"),
    ("b.T", "bfloat16"),
    ("b[0]", "bfloat16"),
    ("b.clip(0.0, 1.0)", "bfloat16"),
    # JAX's functions
    ("jax.nn.relu(b)", "bfloat16"),
    ("jax.nn.gelu(b)", "bfloat16"),
    ("jax.nn.softmax(b, axis=-1)", "bfloat16"),
    ("jax.nn.sigmoid(h)", "float16"),
    ("jnp.tanh(b)", "bfloat16"),
    ("jnp.exp(h)", "float16"),
    ("jnp.sqrt(x)", "float32"),
    ("lax.rsqrt(b)", "bfloat16"),
    ("jnp.abs(i8)", "int8"),
    ("jnp.square(u8)", "uint8"),
    ("jnp.zeros_like(b)", "bfloat16"),
    ("jnp.reshape(b, (-1,))", "bfloat16"),
    ("jnp.sum(b)", "bfloat16"),
    ("jnp.mean(i)", "float32"),
    ("jnp.max(x)", "float32"),
    ("jnp.argmax(x, axis=-1)", "int32"),
    ("jnp.asarray(x, dtype=jnp.bfloat16)", "bfloat16"),
    ("jnp.zeros(3, jnp.bfloat16)", "bfloat16"),
    ("jnp.ones((2, 3), dtype=jnp.int8)", "int8"),
    ("jnp.full((2,), 1.0, dtype=jnp.bfloat16)", "bfloat16"),
    ("jnp.arange(3)", "int32"),
    ("jnp.where(m, b, b)", "bfloat16"),
    ("jnp.concatenate([b, b])", "bfloat16"),
    ("jnp.stack([x, x])", "float32"),
    ("jnp.matmul(b, b)", "bfloat16"),
    ("jax.random.normal(key, (3,), jnp.bfloat16)", "bfloat16"),
)

# The inputs the expressions read: name -> marker.
INPUTS: Final = {
    "x": "float32",
    "b": "bfloat16",
    "h": "float16",
    "i": "int32",
    "i8": "int8",
    "u8": "uint8",
    "m": "bool_",
}
MARKERS: Final = ("bfloat16", "bool_", "float16", "float32", "int8", "int32", "uint8")


def wrong_for(marker: str) -> str:
    """The dtype declared where an expression of ``marker`` goes."""
    return "bfloat16" if marker == "float32" else "float32"


def _context_lines(n: str, expr: str, wrong: str) -> dict[str, list[str]]:
    """Each context's lines for the case named ``n`` (``case_name``): ``expr``
    where ``wrong`` is declared."""
    arr = f"jax.Array[{wrong}]"
    return {
        "return": [f"def return_{n}() -> {arr}:", f"    return {expr}  # E: return"],
        "annotated assignment": [f"def assign_{n}() -> None:", f"    y: {arr} = {expr}  # E: assignment", "    del y"],
        "re-binding": [
            f"def rebind_{n}(r: {arr}) -> None:",
            f"    r = {expr}  # E: assignment",
            f"    takes_{wrong}(r)",
        ],
        "argument": [f"def argument_{n}() -> None:", f"    takes_{wrong}({expr})  # E: argument"],
        "attribute": [
            f"def attribute_{n}(holder: Holder) -> None:",
            f"    holder.{wrong}_ = {expr}  # E: attribute-assignment",
        ],
        "dataclass field": [f"def field_{n}() -> None:", f"    Fields({wrong}_={expr})  # E: argument"],
        "default": [f"def default_{n}(v: {arr} = {expr}) -> None:  # E: default", "    del v"],
    }


CONTEXTS: Final = tuple(_context_lines("case", "e", "float32"))


# The function cases' inputs (tools/cases/function_cases.py names them so):
# name -> marker.  ``key`` is a typed PRNG key.
FUNCTION_INPUTS: Final = {
    "a_int8": "int8",
    "a_float32": "float32",
    "a_bfloat16": "bfloat16",
    "a_float16": "float16",
    "a_bool": "bool_",
    "a_uint32": "uint32",
    "a_complex64": "complex64",
    "raw_key": "uint32",
}
# The function cases' strong dtypes, and which input a case prefers (one that
# is not the default float or int, so that a default result differs from it).
_STRONG: Final = frozenset(
    ["bool_", "uint8", "uint16", "uint32", "int8", "int16", "int32", "bfloat16", "float16", "float32", "complex64"]
)
_PREFERRED: Final = ("a_bfloat16", "a_int8", "a_float16", "a_uint32", "a_bool", "a_complex64", "a_float32", "raw_key")
_CASE_LINE: Final = re.compile(r"\s*reveal_type\((?P<expr>.*)\)  # JAX: (?P<answer>\S+)$")


def function_expressions(function_cases: str) -> list[tuple[str, str]]:
    """(call, JAX's dtype) for each JAX function of the function cases (the
    text of typecheck_cases/functions/standard-x32.py): the call of one strong
    dtype on strong inputs, the preferred input first."""
    out: list[tuple[str, str]] = []
    for case in function_cases.split("\n\n\ndef case_")[1:]:
        best: tuple[int, str, str] | None = None
        for line in case.splitlines()[1:]:
            m = _CASE_LINE.match(line)
            answer = m and ("bool_" if m["answer"] == "bool" else m["answer"])
            if m is None or answer not in _STRONG or "weak_" in m["expr"]:
                continue
            rank = min((r for r, name in enumerate(_PREFERRED) if re.search(rf"\b{name}\b", m["expr"])), default=99)
            if best is None or rank < best[0]:
                best = (rank, m["expr"], str(answer))
        if best is not None:
            out.append((best[1], best[2]))
    return out


_OPERATOR_WORDS: Final[dict[type[ast.AST], str]] = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "truediv",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.Pow: "pow",
    ast.MatMult: "matmul",
    ast.BitAnd: "and",
    ast.BitOr: "or",
    ast.BitXor: "xor",
    ast.LShift: "lshift",
    ast.RShift: "rshift",
    ast.Lt: "lt",
    ast.LtE: "le",
    ast.Gt: "gt",
    ast.GtE: "ge",
    ast.Eq: "eq",
    ast.NotEq: "ne",
    ast.USub: "neg",
    ast.UAdd: "pos",
    ast.Invert: "invert",
    ast.Not: "not",
    ast.And: "and",
    ast.Or: "or",
}


def _words(node: ast.AST, inputs: Mapping[str, str]) -> list[str]:
    """``node`` spelled out in words: an input by its dtype, an operator by its name."""
    if isinstance(node, ast.Name):
        return [inputs.get(node.id, node.id)]
    if isinstance(node, ast.Attribute):
        return [*_words(node.value, inputs), node.attr]
    if isinstance(node, ast.Constant):
        return re.findall(r"[A-Za-z0-9]+", str(node.value))
    if isinstance(node, ast.BinOp):
        return [*_words(node.left, inputs), _OPERATOR_WORDS[type(node.op)], *_words(node.right, inputs)]
    if isinstance(node, ast.UnaryOp):
        return [_OPERATOR_WORDS[type(node.op)], *_words(node.operand, inputs)]
    if isinstance(node, ast.BoolOp):
        words = _words(node.values[0], inputs)
        for value in node.values[1:]:
            words += [_OPERATOR_WORDS[type(node.op)], *_words(value, inputs)]
        return words
    if isinstance(node, ast.Compare):
        words = _words(node.left, inputs)
        for op, right in zip(node.ops, node.comparators):
            words += [_OPERATOR_WORDS[type(op)], *_words(right, inputs)]
        return words
    if isinstance(node, ast.Subscript):
        return [*_words(node.value, inputs), "getitem", *_words(node.slice, inputs)]
    if isinstance(node, ast.keyword):
        return [node.arg or "kwargs", *_words(node.value, inputs)]
    return [word for child in ast.iter_child_nodes(node) for word in _words(child, inputs)]


def case_name(expr: str, inputs: Mapping[str, str]) -> str:
    """The name of the case of ``expr``: the expression in words, each input
    by its dtype (``jnp.sqrt(x)``: ``jnp_sqrt_float32``).  It depends on that
    case alone, never on its place among the others, so that adding or
    removing an expression (a function of the table) changes only its own
    case's lines."""
    words = _words(ast.parse(expr, mode="eval").body, inputs)
    name = re.sub(r"_+", "_", "_".join(words)).strip("_")
    if not name.isidentifier():
        raise ValueError(f"{expr}: no case name ({name!r})")
    return name


def render(
    expressions: Sequence[tuple[str, str]] = EXPRESSIONS,
    inputs: Mapping[str, str] = INPUTS,
    source: str = "tools/cases/context_cases.py",
) -> str:
    """typecheck_cases/contexts/wrong_dtypes.py, or, given the function cases'
    expressions and inputs, the matrix of every JAX function."""
    markers = sorted({*MARKERS, *inputs.values(), *(m for _, m in expressions), *map(wrong_for, MARKERS)})
    header = [
        f"# Generated by tools/generate.py from {source}: do not edit.",
        '"""Wrong dtypes in every context a declared type reaches: each marked line',
        "must get its error there, and no other line any (tests/test_user_contexts.py).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "import dataclasses",
        "",
        "import jax",
        "import jax.numpy as jnp",
        "from jax import lax",
        "from typing_extensions import assert_type",
        "",
        f"from jaxtypes import {', '.join(markers)}",
        "",
    ]
    body: list[str] = []
    for marker in markers:
        body += ["", f"def _{marker}() -> jax.Array[{marker}]:", "    raise NotImplementedError"]
    body += [""]
    body += [f"{name} = _{marker}()" for name, marker in inputs.items()]
    body += ["key = jax.random.key(0)", ""]
    for marker in markers:
        body += ["", f"def takes_{marker}(v: jax.Array[{marker}]) -> None:", "    del v"]
    body += ["", "", "class Holder:"]
    body += [f"    {marker}_: jax.Array[{marker}]" for marker in markers]
    body += ["", "", "@dataclasses.dataclass", "class Fields:"]
    body += [f"    {marker}_: jax.Array[{marker}] | None = None" for marker in markers]
    names = [case_name(expr, inputs) for expr, _ in expressions]
    repeated = sorted(name for name, count in Counter(names).items() if count > 1)
    if repeated:
        raise ValueError(f"expressions of one case name: {', '.join(repeated)}")
    for n, (expr, marker) in zip(names, expressions):
        body += [
            "",
            "",
            f"# {expr}: {marker} in JAX",
            f"def known_{n}() -> None:",
            f"    assert_type({expr}, jax.Array[{marker}])",
        ]
        for lines in _context_lines(n, expr, wrong_for(marker)).values():
            body += ["", "", *lines]
    return "\n".join(header + body) + "\n"


EVERY_FUNCTION_CONFIG: Final = "standard-x32"


def render_every_function(data: Mapping[str, Any] | None = None) -> str:
    """typecheck_cases/contexts/every_function/standard-x32.py: the matrix of
    the function cases of ``data`` (tools/data/jax_function_dtypes.json's
    content; None: that file)."""
    from tools.cases import function_cases

    config = EVERY_FUNCTION_CONFIG
    expressions = function_expressions(function_cases.render(config, data))
    return render(expressions, FUNCTION_INPUTS, f"typecheck_cases/functions/{config}.py")
