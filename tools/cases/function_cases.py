"""The typecheck cases of JAX's functions: JAX's own answers, as checker input.

Every probe of the function oracle (``tools/oracle/make_function_tables.py``,
whose answers are ``tools/data/jax_function_dtypes.json``) on a sample of its
inputs becomes a line ``reveal_type(<the call the oracle made>)  # JAX: <dtype>``
(or ``# JAX: error <class>``).  The call is the oracle's own: its ``call_as(...)``
lines are read with ``ast`` (never run), and each probe's lambda is written
out with typed variables for its array arguments.  Nothing here asks jaxtypes
what a function gives: ``tests/test_function_stubs.py`` compares what each
checker reveals with the comment.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import tools

REPO: Final = Path(__file__).resolve().parents[2]
ORACLE: Final = REPO / "tools" / "oracle" / "make_function_tables.py"
DATA: Final = tools.DATA / "jax_function_dtypes.json"

# The inputs sampled, per probe kind (the oracle probed many more).
ONE: Final = ("bool", "int8", "uint32", "bfloat16", "float32", "complex64", "f*", "i*")
PAIRS: Final = (
    ("int8", "int8"),
    ("bfloat16", "bfloat16"),
    ("float32", "float32"),
    ("bfloat16", "float32"),
    ("float32", "f*"),
    ("i*", "int8"),
    ("float32", "float64"),
)
CONDITIONS: Final = (
    ("bool", "bfloat16", "bfloat16"),
    ("bool", "float32", "f*"),
    ("bool", "int8", "f*"),
    ("bool", "float16", "bfloat16"),
)
DTYPES: Final = ("None", "bfloat16", "int32", "float64", "bool")
KEYS: Final = ("key<fry>", "uint32[2]")
PREFERRED_PAIRS: Final = (("bfloat16", "bfloat16"), ("int8", "int8"), ("bfloat16", "float32"))
PREFERRED: Final = ("float32", "int32", "bfloat16")  # (None: the xy probes)

MODULES: Final = {
    "jax.numpy.linalg.": "jnp.linalg.",
    "jax.numpy.fft.": "jnp.fft.",
    "jax.numpy.": "jnp.",
    "jax.nn.": "jax.nn.",
    "jax.random.": "jax.random.",
    "jax.lax.": "lax.",
    "jax.scipy.special.": "jax.scipy.special.",
    "jax.scipy.signal.": "jax.scipy.signal.",
    "jax.image.": "jax.image.",
}


def _marker(node: str) -> str:
    return {"bool": "bool_", "i*": "weak_int", "f*": "weak_float", "c*": "weak_complex"}.get(node, node)


def variable(node: str) -> str:
    """The case function's parameter holding an array of this marker node."""
    special = {"key<fry>": "key", "uint32[2]": "raw_key", "i*": "weak_i", "f*": "weak_f", "c*": "weak_c"}
    return special.get(node, "a_" + node)


def _annotation(node: str) -> str:
    if node == "key<fry>":
        return "jax.Array"
    if node == "uint32[2]":
        return "jax.Array[uint32]"
    return f"jax.Array[{_marker(node)}]"


def _dtype_expr(node: str) -> str:
    return "None" if node == "None" else f"jnp.{node}"


def expected(cell: str, x64: bool) -> str | None:
    """The comment's answer: a marker name, ``error <class>``, or None (no
    array); results of different dtypes, each one's (``float32,int32``)."""
    if "," in cell:
        parts = [expected(part, x64) for part in cell.split(",")]
        known = [p for p in parts if p is not None]
        return ",".join(known) if len(known) == len(parts) else None
    if cell.startswith("!"):
        return "error " + cell[1:]
    if cell.startswith(("py:", "key<")):
        return None
    if cell.endswith("*"):  # weakly typed, named as JAX's _jax_type names it
        return {"boo": "bool_", "int": "weak_int", "uin": "weak_int", "flo": "weak_float", "com": "weak_complex"}[
            cell[:3]
        ]
    return _marker(cell)


# ------------------------------------------------------------ oracle calls
class _Template:
    """A probe's call: the lambda's parameters and body (``f`` the function),
    and the defaults of its parameters (their source)."""

    def __init__(self, params: list[str], body: ast.expr | None, defaults: dict[str, str] | None = None) -> None:
        self.params, self.body = params, body
        self.defaults = defaults or {}

    def render(self, function: str, name: str, values: dict[str, str]) -> str | None:
        if self.body is None:  # the oracle calls the function itself
            return None
        tree = _Substitute(function, name, values).visit(ast.parse(ast.unparse(self.body), mode="eval"))
        tree = _FoldTests().visit(tree)
        return ast.unparse(tree)


DEFAULT: Final = _Template([], None)  # the function called with the probe's arrays (and dtype=)


class _Substitute(ast.NodeTransformer):
    def __init__(self, function: str, name: str, values: dict[str, str]) -> None:
        self.function, self.name, self.values = function, name, values

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if isinstance(node.value, ast.Name) and node.value.id == "f" and node.attr == "__name__":
            return ast.Constant(self.name)
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id == "f":
            return ast.parse(self.function, mode="eval").body
        if node.id in self.values:
            return ast.parse(self.values[node.id], mode="eval").body
        return node


class _FoldTests(ast.NodeTransformer):
    """``a if <constant test> else b`` -> the branch taken (tests on the
    function's name or on whether a dtype was given)."""

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        try:
            test = ast.fix_missing_locations(ast.Expression(node.test))
            taken = eval(compile(test, "<test>", "eval"), {"jnp": _Truthy()}, {})
        except Exception:  # noqa: BLE001 - not a constant test
            return node
        return node.body if taken else node.orelse


class _Truthy:
    def __getattr__(self, name: str) -> Any:
        return True


def templates() -> dict[str, _Template | None]:
    """The call of each probe the oracle script calls its own way (its
    ``call_as(...)`` lines, read with ``ast``): None where it is not a simple
    call (a dict of lambdas).  A probe not here is called with its arrays
    (and dtype=) alone: ``DEFAULT``."""
    out: dict[str, _Template | None] = {}
    tree = ast.parse(ORACLE.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "call_as"):
            continue
        args = list(node.args)
        kwargs = {k.arg: k.value for k in node.keywords}
        names = ast.literal_eval(args[0])
        call = args[1] if len(args) > 1 else kwargs.get("call")
        prefix = ast.literal_eval(kwargs["prefix"]) if "prefix" in kwargs else "jax.numpy."
        suffix = ast.literal_eval(kwargs["suffix"]) if "suffix" in kwargs else ""
        template: _Template | None
        if call is None:
            template = DEFAULT
        elif isinstance(call, ast.Lambda) and isinstance(call.body, ast.Lambda):
            inner = call.body
            positional = inner.args.args
            with_default = positional[len(positional) - len(inner.args.defaults) :]
            defaults = {a.arg: ast.unparse(d) for a, d in zip(with_default, inner.args.defaults)}
            template = _Template([a.arg for a in positional], inner.body, defaults)
        else:
            template = None
        for name in names.split():
            out[prefix + name + suffix] = template
    return out


def _default_call(function: str, kind: str, values: list[str], dtype: str | None) -> str:
    args = ", ".join(values)
    if dtype is not None:
        args = f"{args}, dtype={dtype}" if args else f"dtype={dtype}"
    return f"{function}({args})"


def _inputs(kind: str) -> list[tuple[tuple[str, ...], str | None]]:
    """(input nodes, dtype node or None for no dtype=) sampled for a kind."""
    if kind == "x":
        return [((n,), None) for n in ONE]
    if kind == "xy":
        return [(p, None) for p in PAIRS]
    if kind == "cxy":
        return [(c, None) for c in CONDITIONS]
    if kind == "d":
        return [((), d) for d in DTYPES]
    inputs: list[tuple[tuple[str, ...], str | None]]
    if kind == "xd":
        inputs = [((n,), None) for n in ("int8", "bfloat16", "f*")]
        return inputs + [(("float32",), d) for d in DTYPES]
    if kind == "xyd":  # (the dtype is preferred_element_type=)
        return [(p, d) for p in PREFERRED_PAIRS for d in PREFERRED]
    if kind == "kd":
        inputs = [((k,), None) for k in KEYS]
        return inputs + [(("key<fry>",), d) for d in DTYPES[1:]]
    if kind == "k":
        return [((k,), None) for k in KEYS]
    return [((), None)]


def _key(nodes: tuple[str, ...], dtype: str | None) -> str:
    parts = list(nodes)
    if dtype is not None:
        parts.append(f"dtype={dtype}")
    return ",".join(parts)


def load() -> dict[str, Any]:
    """The function oracle's answers (tools/data/jax_function_dtypes.json)."""
    data: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return data


def _choice(probe: str) -> tuple[str, str] | None:
    """(parameter, value) of a choice's probe (``jax.image.resize(method=nearest)``);
    None for any other (``jax.numpy.sum(dtype=)``)."""
    match = re.fullmatch(r"[\w.]+\((\w+)=([^()]+)\)", probe)
    return (match.group(1), match.group(2)) if match else None


def _choice_value(value: str, function: str) -> str:
    """A choice's value as the call writes it: a string, or a member of an enum
    of the function's module (``ResizeMethod.NEAREST``: ``jax.image.ResizeMethod.NEAREST``)."""
    if re.fullmatch(r"[A-Z]\w*\.\w+", value):
        return f"{function.rpartition('.')[0]}.{value}"
    return repr(value)


def case_name(probe: str) -> str:
    """The case function of a probe: the JAX function, and the keyword a probe
    of it passes too (``jax.numpy.cumsum(dtype=)``: ``case_jnp_cumsum_dtype``).
    Never a number, so that a new function leaves every other name as it was."""
    name, _, keyword = probe.partition("(")
    prefix = next(p for p in MODULES if name.startswith(p))
    words = [*(MODULES[prefix] + name[len(prefix) :]).split("."), *re.findall(r"\w+", keyword)]
    return "case_" + "_".join(words)


def case_groups(config: str, data: Mapping[str, Any] | None = None) -> list[tuple[str, list[str], set[str]]]:
    """(the case function's name, its case lines, the nodes their variables
    use), one group per probe, for one configuration of ``data`` (None: ``load()``)."""
    if data is None:
        data = load()
    conf = data["configs"][config]
    forms = templates()
    groups: list[tuple[str, list[str], set[str]]] = []
    # (a function probed per choice, whose bare probe is one of them, its default: written once)
    chosen = {p.split("(")[0] for p in conf["results"] if _choice(p)}
    for probe, cells in sorted(conf["results"].items()):
        name = probe.split("(")[0]
        kind = data["probes"][probe]["kind"]
        choice = _choice(probe)
        if probe in chosen:
            continue
        # (a choice's probe, jax.image.resize(method=nearest): the function's call, given the choice)
        template = forms.get(name if choice else probe, DEFAULT)
        if template is None:
            continue
        prefix = next(p for p in MODULES if name.startswith(p))
        function = MODULES[prefix] + name[len(prefix) :]
        short = name.rpartition(".")[2]
        lines: list[str] = []
        used: set[str] = set()
        for nodes, dtype in _inputs(kind):
            cell = cells.get(_key(nodes, dtype))
            if cell is None:
                continue
            answer = expected(cell, conf["x64"])
            if answer is None:
                continue
            values = [variable(n) for n in nodes]
            dtype_text = _dtype_expr(dtype) if dtype is not None else None
            if template.body is None:
                call = _default_call(function, kind, values, dtype_text)
            else:
                mapping = {**template.defaults, **dict(zip(template.params, values))}
                if choice is not None:
                    mapping[choice[0]] = _choice_value(choice[1], name)
                if "dtype" in template.params:
                    mapping["dtype"] = dtype_text or "None"
                elif dtype is not None:
                    continue
                rendered = template.render(function, short, mapping)
                if rendered is None:
                    continue
                call = rendered
            used.update(nodes)
            lines.append(f"    reveal_type({call})  # JAX: {answer}")
        if lines:
            groups.append((case_name(probe), lines, used))
    return groups


def render(config: str, data: Mapping[str, Any] | None = None) -> str:
    """typecheck_cases/functions/{config}.py, from ``data`` (None: ``load()``)."""
    groups = case_groups(config, data)
    used = {node for _, _, nodes in groups for node in nodes}
    markers = sorted({_marker(n) for n in used if n not in KEYS} | {"uint32"})
    out = [
        f"# Generated by tools/generate.py from {DATA.relative_to(REPO)} ({config}): do not edit.",
        '"""What JAX gives for its functions (the comments), as checker input.',
        "",
        "tests/test_function_stubs.py reveals each line's type with the stubs of",
        "`jaxtypes jax-stubs` and compares it with the comment: JAX's answer (a marker)",
        "or `error` (JAX raises).  A checker may answer unknown; it may not answer",
        "anything else.  One function per JAX function: pyright's time grows with",
        'the square of the calls in one function body."""',
        "",
        "from __future__ import annotations",
        "",
        "import jax",
        "import jax.numpy as jnp",
        "from jax import lax",
        "import jax.image",
        "import jax.scipy.signal",
        "import jax.scipy.special",
        "from typing_extensions import reveal_type",
        "",
        f"from jaxtypes import {', '.join(markers)}",
    ]
    repeated = sorted(name for name, count in Counter(name for name, _, _ in groups).items() if count > 1)
    if repeated:
        raise ValueError(f"probes of one case name: {', '.join(repeated)}")
    for name, lines, nodes in groups:
        params = ", ".join(f"{variable(v)}: {_annotation(v)}" for v in sorted(nodes))
        out += ["", "", f"def {name}({params}) -> None:", *lines]
    return "\n".join(out) + "\n"
