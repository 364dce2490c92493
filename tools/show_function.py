"""What one row of jaxtypes/functions.csv produces, for the installed JAX.

    python -m tools.show_function jnp.sqrt [NAME ...]
    python -m tools.show_function lax.add --checkers mypy-plugin,pyright,pyrefly

For each function (named as the table names it, ``jax.numpy.sqrt``, or as
the case files do, ``jnp.sqrt``, ``lax.add``, ``jax.nn.relu``) it prints:

1. its row of the table (the cells that are set) and the rule read from it;
2. JAX's declaration of it as the stub generator read it, and the call plan
   (``jaxtypes.call_plans.call_plan``) the generator and the mypy plugin
   both follow: operands, ``dtype=``, neutral and pinned parameters, flags;
3. the overloads the generator writes for it, as the generated stub has
   them (for a ufunc of ``jax.numpy``, its class's ``__call__``), and what
   the protocols and constrained types they use map each marker to;
4. the oracle's own calls of it (``typecheck_cases/functions/standard-x32.py``)
   with JAX's answer and what each checker (``--checkers``; default the mypy
   plugin and pyright) reveals for them with those stubs: one run per checker.

Nothing here computes a dtype or writes an overload: the stubs are
``jaxtypes._stubgen.jax_stubs.render``'s, rendered in memory, and the
declarations are those its ``_typed`` is handed while it renders.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import difflib
import re
import sys
import tempfile
import textwrap
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Final

from jaxtypes import call_plans, function_rules
from jaxtypes._stubgen import function_overloads, jax_stubs
from jaxtypes._stubgen.syntax import stub_def
from tools import checkers
from tools.cases import function_cases
from tools.classify_functions import describe

PROG: Final = "python -m tools.show_function"
CASES: Final = Path("typecheck_cases") / "functions" / "standard-x32.py"
DEFAULT_CHECKERS: Final = (checkers.MYPY_PLUGIN, "pyright")
# A function's second probes, each a case function of its own (``case_jnp_sum_dtype``).
PROBE_SUFFIXES: Final = ("", function_rules.DTYPE_PROBE[0], function_rules.PREFERRED_PROBE[0])
CASE_LINE: Final = re.compile(r"^\s*reveal_type\((?P<expr>.*)\)\s+#\s*JAX:\s*(?P<answer>.*?)\s*$")
_QUALIFIER: Final = re.compile(r"\b(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_])")
# (mypy shows a NamedTuple of results as its items and, again, its class)
_FALLBACK: Final = re.compile(r", fallback=.*\]$")
_MARKER_REF: Final = re.compile(rf"\b{function_overloads.MARKERS}\.(\w+)")


class UnknownFunction(ValueError):
    """A name that is no row of the table (the message names close ones)."""


def table_name(name: str) -> str:
    """The table's name of ``name``: itself, or its long spelling (``jnp.sqrt``
    -> ``jax.numpy.sqrt``); ``UnknownFunction`` when the table has no such row."""
    shorts = {short: long for long, short in function_cases.MODULES.items()}
    spellings = [name, *(long + name[len(short) :] for short, long in shorts.items() if name.startswith(short))]
    found = next((s for s in spellings if s in function_rules.TABLE), None)
    if found is not None:
        return found
    known: dict[str, str] = {}
    for full in function_rules.TABLE:
        known[full] = full
        prefix = next((p for p in function_cases.MODULES if full.startswith(p)), None)
        if prefix is not None:
            known[function_cases.MODULES[prefix] + full[len(prefix) :]] = full
    close = list(dict.fromkeys(known[s] for s in difflib.get_close_matches(name, known, n=8, cutoff=0.75)))
    hint = (
        f"; close matches: {', '.join(close[:5])}"
        if close
        else "; name it as the table does (jax.numpy.sqrt) or as the case files do (jnp.sqrt, lax.add)"
    )
    raise UnknownFunction(f"{name!r} is not a function of jaxtypes/{function_rules.TABLE_FILE}{hint}")


# ------------------------------------------------------------------ the row
def row(name: str) -> dict[str, str]:
    """The cells of ``name``'s row that are set."""
    text = resources.files("jaxtypes").joinpath(function_rules.TABLE_FILE).read_text(encoding="utf-8")
    (found,) = [r for r in function_rules.read_rows(text) if r["name"] == name]
    return {column: cell for column, cell in found.items() if cell and column != "name"}


# ---------------------------------------------------- the generator's output
@dataclass(frozen=True)
class Declaration:
    """A declaration of JAX's the generator typed a function from."""

    fn: ast.FunctionDef
    typed: int  # the overloads it wrote from it


@dataclass(frozen=True)
class Rendered:
    """The stubs for the installed JAX, and the declarations behind them."""

    files: dict[str, str]
    declarations: dict[str, list[Declaration]]  # {name: each one the generator was handed, in order}
    jax_version: str


@contextlib.contextmanager
def _recording() -> Generator[dict[str, list[Declaration]], None, None]:
    """The declarations ``function_overloads._typed`` is handed meanwhile: the
    generator's own lookup (its modules, re-exports and overloads), not a
    second one."""
    seen: dict[str, list[Declaration]] = {}
    typed = function_overloads._typed  # pyright: ignore[reportPrivateUsage]

    def recording(
        name: str,
        fn: ast.FunctionDef,
        tables: function_overloads.FunctionTables,
        named: Mapping[str, Sequence[str]] | None = None,
    ) -> list[ast.FunctionDef]:
        out = typed(name, fn, tables, named)
        seen.setdefault(name, []).append(Declaration(fn, len(out)))
        return out

    function_overloads._typed = recording  # pyright: ignore[reportPrivateUsage]
    try:
        yield seen
    finally:
        function_overloads._typed = typed  # pyright: ignore[reportPrivateUsage]


def render() -> Rendered:
    """The stubs ``jaxtypes jax-stubs`` writes for the installed JAX, in memory."""
    jax = jax_stubs.locate_jax()
    with _recording() as seen:
        files = jax_stubs.render(jax)
    return Rendered(files, seen, jax.version)


def declaration(rendered: Rendered, name: str) -> Declaration | None:
    """The declaration the generator typed ``name`` from (of JAX's several,
    the first it wrote overloads from), or the first it read."""
    found = rendered.declarations.get(name, [])
    return next((d for d in found if d.typed), found[0] if found else None)


def stub_path(rendered: Rendered, module: str) -> str | None:
    """The generated stub of ``module`` (``jax.numpy``) in the partial stub package."""
    base = "jax-stubs/" + "/".join(module.split(".")[1:])
    return next((p for p in (base + ".pyi", base + "/__init__.pyi") if p in rendered.files), None)


def _source(text: str, fn: ast.FunctionDef) -> str:
    """``fn``'s declaration as ``text`` writes it, decorators included."""
    start = min([fn.lineno, *(d.lineno for d in fn.decorator_list)])
    assert fn.end_lineno is not None
    return textwrap.dedent("\n".join(text.splitlines()[start - 1 : fn.end_lineno]))


def overloads(text: str, short: str, markers: str = "") -> tuple[str, list[str]]:
    """(where, each declaration's text as the stub writes it) of function
    ``short`` in a stub: its defs, or a ufunc's class's ``__call__`` (a class
    the stub imports from the markers stub, whose text is ``markers``)."""
    tree = ast.parse(text)
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == short]
    if defs:
        return f"def {short}", [_source(text, fn) for fn in defs]
    annotation = next(
        (
            ast.unparse(n.annotation)
            for n in tree.body
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.target.id == short
        ),
        None,
    )
    imported = {
        alias.asname or alias.name: alias.name
        for n in tree.body
        if isinstance(n, ast.ImportFrom) and n.module == "jaxtypes.markers"
        for alias in n.names
    }
    where, name = (markers, imported[annotation]) if annotation in imported else (text, annotation)
    cls = next((n for n in ast.parse(where).body if isinstance(n, ast.ClassDef) and n.name == name), None)
    if cls is not None:
        calls = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__call__"]
        return f"{short}: {name}, whose __call__", [_source(where, fn) for fn in calls]
    return "", []


@dataclass(frozen=True)
class MarkerTypes:
    """What the typed overloads' protocols and constrained TypeVars mean, from
    the generated markers stub: each protocol's attributes, each marker's
    value of them, each TypeVar's constraints."""

    protocols: dict[str, list[str]]
    values: dict[str, dict[str, str]]  # {attribute: {marker: its value}}
    constraints: dict[str, list[str]]

    @classmethod
    def of(cls, text: str) -> MarkerTypes:
        protocols: dict[str, list[str]] = {}
        values: dict[str, dict[str, str]] = {}
        constraints: dict[str, list[str]] = {}
        for node in ast.parse(text).body:
            if isinstance(node, ast.ClassDef) and any(ast.unparse(b).startswith("Protocol") for b in node.bases):
                protocols[node.name] = [f.name for f in node.body if isinstance(f, ast.FunctionDef)]
            elif isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                        if stmt.target.id.startswith("_fn_"):
                            values.setdefault(stmt.target.id, {})[node.name] = ast.unparse(stmt.annotation)
            elif (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and ast.unparse(node.value.func) == "TypeVar"
                and len(node.value.args) > 2
                and isinstance(node.targets[0], ast.Name)
            ):
                constraints[node.targets[0].id] = [ast.unparse(a) for a in node.value.args[1:]]
        return cls(protocols, values, constraints)

    def explain(self, name: str) -> str | None:
        """One line on what ``name`` (of the markers module) accepts and gives."""
        if name in self.constraints:
            return f"{name}: any one of {', '.join(self.constraints[name])} (the same on every side)"
        attributes = self.protocols.get(name)
        if not attributes or not all(a in self.values for a in attributes):
            return None
        markers = [m for m in self.values[attributes[0]] if all(m in self.values[a] for a in attributes)]
        by_result: dict[str, list[str]] = {}
        for m in markers:
            result = ", ".join(self.values[a][m] for a in attributes)
            by_result.setdefault("itself" if result == m else result, []).append(m)
        groups = [f"{result} <- {', '.join(ms)}" for result, ms in by_result.items()]
        return f"{name} ({', '.join(attributes)}): {'; '.join(groups)}"


# -------------------------------------------------------------- the oracle's calls
@dataclass(frozen=True)
class Call:
    expr: str
    answer: str  # JAX's: a marker, ``error <class>``, or each result's marker
    line: int  # in the scratch file


def case_functions(name: str) -> list[str]:
    """The case functions of ``name``'s probes (``case_jnp_sum``, ``case_jnp_sum_dtype``)."""
    return [function_cases.case_name(name + suffix) for suffix in PROBE_SUFFIXES]


def scratch_cases(text: str, names: Sequence[str]) -> tuple[str, dict[str, list[Call]]]:
    """A file of the case file's imports and the case functions of ``names``,
    and the calls in it, by name."""
    tree = ast.parse(text)
    lines = text.splitlines()
    first = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    out = lines[: first.lineno - 1]
    calls: dict[str, list[Call]] = {}
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    for name in names:
        calls[name] = []
        for case in case_functions(name):
            fn = defs.get(case)
            if fn is None:
                continue
            assert fn.end_lineno is not None
            out += ["", ""]
            for source in lines[fn.lineno - 1 : fn.end_lineno]:
                out.append(source)
                m = CASE_LINE.match(source)
                if m:
                    calls[name].append(Call(m["expr"], m["answer"], len(out)))
    return "\n".join(out) + "\n", calls


@dataclass(frozen=True)
class Answer:
    revealed: str  # "" when the checker revealed nothing there
    errors: list[str]  # the codes of its errors on the line


SCRATCH_MODULE: Final = "show_function_cases.py"


def checker_answers(
    rendered: Rendered, text: str, lines: Sequence[int], names: Sequence[str]
) -> dict[str, dict[int, Answer]]:
    """{checker: {line: its answer}} for the scratch file ``text``, each
    checker run once over it with the stubs in ``typings/``, configured as
    ``jaxtypes jax-stubs --out typings`` prints (tools/checkers.py)."""
    out: dict[str, dict[int, Answer]] = {}
    with tempfile.TemporaryDirectory(prefix="show-function-") as scratch:
        root = Path(scratch)
        checkers.stage({f"{checkers.STUBS}/{rel}": body for rel, body in rendered.files.items()}, root)
        paths = checkers.stage({SCRATCH_MODULE: text}, root)
        for checker in names:
            stdout = checkers.execute(checker, root, checkers.command(checker, root, paths, stubs=True))
            reveals = checkers.revealed(checker, stdout, root)
            errors = checkers.reported_errors(checker, stdout, root)
            out[checker] = {
                n: Answer(
                    _short(reveals.get((SCRATCH_MODULE, n), [""])[0]),
                    [e.code or "error" for e in errors.get((SCRATCH_MODULE, n), [])],
                )
                for n in lines
            }
    return out


def _short(revealed: str) -> str:
    """A revealed type without module qualifiers (``Array[float32]``) or
    mypy's repetition of a NamedTuple's items."""
    return _FALLBACK.sub("]", _QUALIFIER.sub("", revealed))


# ------------------------------------------------------------------ printing
def _plan_lines(plan: call_plans.CallPlan, params: Sequence[call_plans.Parameter]) -> list[str]:
    pinned = [f"{p.name} (to {call_plans.PINNED[p.name]})" for p in params if p.name in call_plans.PINNED]
    flags = [
        f
        for f, on in (
            ("sequence", plan.sequence),
            ("varargs", plan.varargs),
            ("arrays_only", plan.arrays_only),
            ("float_bounds", plan.float_bounds),
            ("preferred", plan.preferred),
            ("two_scalars", plan.two_scalars),
            ("inputs_alone", plan.inputs_alone),
        )
        if on
    ]
    flags.append(f"scalar_inputs={plan.scalar_inputs}")
    if plan.array_params:
        flags.append(f"array_params=({', '.join(plan.array_params)})")
    if plan.input_param is not None and plan.kind in call_plans.ONE_INPUT_KINDS:
        flags.append(f"input_position={plan.input_position}")
    if plan.dtype_position is not None:
        flags.append(f"dtype_position={plan.dtype_position}")
    if plan.varargs:
        operands = f"*{plan.input_param} (typed as {', '.join(call_plans.VARARG_OPERANDS)})"
    elif plan.sequence:
        operands = f"{plan.input_param} (a sequence of arrays)"
    else:
        operands = ", ".join(plan.operands) or "-"
    return [
        f"  kind: {plan.kind}",
        f"  operands: {operands}",
        f"  dtype parameter: {plan.dtype_param or '-'}" + (" (decides the result)" if plan.takes_dtype else ""),
        f"  neutral: {', '.join(p.name for p in params if p.name in plan.neutral) or '-'}",
        f"  pinned: {', '.join(pinned) or '-'}",
        f"  kept as JAX declares them: {', '.join(plan.keep) or '-'}",
        f"  flags: {', '.join(flags)}",
    ]


def _parameter_text(p: call_plans.Parameter) -> str:
    how = "positional-only" if p.positional_only else "positional" if p.positional else "keyword-only"
    extra = [how] + (["has a default"] if p.default else []) + (["allows None"] if p.allows_none else [])
    return f"{p.name}: {p.declared} ({', '.join(extra)})"


def report(name: str, rendered: Rendered, markers: MarkerTypes) -> list[str]:
    """Sections 1 to 3 of ``name``: its row, plan and overloads."""
    rule = function_rules.TABLE[name]
    out = [name, "=" * len(name), f"row of jaxtypes/{function_rules.TABLE_FILE}:"]
    out += [f"  {column}: {cell}" for column, cell in row(name).items()]
    out += [f"rule: {describe(rule)}", ""]
    found = declaration(rendered, name)
    module, _, short = name.rpartition(".")
    if found is None:
        out += [f"declaration: the generator read no declaration of {name} in JAX {rendered.jax_version}", ""]
    else:
        params, vararg = function_overloads.parameters(found.fn)
        signature = ast.unparse(stub_def(found.fn)).splitlines()[0]
        out += [f"declaration (JAX {rendered.jax_version}), as the generator read it:", f"  {signature}"]
        out += [f"    {_parameter_text(p)}" for p in params]
        if vararg is not None:
            out.append(f"    *{vararg.name}: {vararg.declared}")
        plan = call_plans.call_plan(name, params, vararg)
        out.append("call plan (jaxtypes.call_plans.call_plan):")
        if plan is None:
            out.append(f"  none: family {rule.family}" + (f" ({rule.reason})" if rule.reason else ""))
            if name in function_rules.PREFERRED_TYPED:
                out.append("  (typed for preferred_element_type= alone: its row's preferred column)")
        else:
            out += _plan_lines(plan, params)
        typed = f"yes, {found.typed} typed overloads" if found.typed else "no: JAX's declaration alone"
        if plan is not None and not plan.overloads:
            typed += " (the plan has none: the mypy plugin reads its calls)"
        out += [f"  typed by the stubs: {typed}", ""]
    path = stub_path(rendered, module)
    markers_stub = rendered.files["jaxtypes-stubs/markers.pyi"]
    where, texts = overloads(rendered.files[path], short, markers_stub) if path is not None else ("", [])
    if not texts:
        out += [f"overloads: the stubs declare no {short} in {module}: it is JAX's own", ""]
        return out
    typed_count = found.typed if found is not None else 0
    out.append(
        f"overloads in the generated {path} ({where}): "
        f"{typed_count} typed, then {len(texts) - typed_count} of JAX's own"
    )
    for text in texts:
        out += ["  " + line for line in text.splitlines()]
    # (a ufunc's class, in the markers stub, names them without the module)
    ref = _MARKER_REF if not where.endswith("whose __call__") else re.compile(r"\b(\w+)")
    used = list(dict.fromkeys(m for text in texts[:typed_count] for m in ref.findall(text)))
    explained = [line for m in used if (line := markers.explain(m)) is not None]
    if explained:
        out.append("what their protocols and constrained types map each marker to (jaxtypes-stubs/markers.pyi):")
        out += [textwrap.fill(line, 118, initial_indent="  ", subsequent_indent="      ") for line in explained]
    out.append("")
    return out


def table(calls: Sequence[Call], answers: Mapping[str, Mapping[int, Answer]]) -> list[str]:
    """The calls, JAX's answers and each checker's, in columns."""
    header = ["call", "JAX", *answers]
    rows = [header]
    for call in calls:
        cells = [call.expr, call.answer]
        for by_line in answers.values():
            got = by_line[call.line]
            cells.append((got.revealed or "-") + "".join(f" !{code}" for code in got.errors))
        rows.append(cells)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    return ["  " + " | ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=(__doc__ or "").split("\n")[0])
    parser.add_argument("names", nargs="+", metavar="NAME", help="jax.numpy.sqrt, jnp.sqrt, lax.add, jax.nn.relu")
    parser.add_argument(
        "--checkers",
        default=",".join(DEFAULT_CHECKERS),
        help=f"comma-separated, of {', '.join(checkers.ALL_CHECKERS)}; 'none' runs none "
        f"(default: {','.join(DEFAULT_CHECKERS)})",
    )
    args = parser.parse_args(argv)
    chosen = [] if args.checkers == "none" else [c for c in args.checkers.split(",") if c]
    unknown = [c for c in chosen if c not in checkers.ALL_CHECKERS]
    if unknown:
        parser.error(f"unknown checker {unknown[0]!r}; expected one of {', '.join(checkers.ALL_CHECKERS)} or none")
    try:
        names = list(dict.fromkeys(table_name(n) for n in args.names))
    except UnknownFunction as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return 2
    rendered = render()
    markers = MarkerTypes.of(rendered.files["jaxtypes-stubs/markers.pyi"])
    repo = Path(function_cases.REPO)
    text, calls = scratch_cases((repo / CASES).read_text(encoding="utf-8"), names)
    every_line = [c.line for cs in calls.values() for c in cs]
    answers = checker_answers(rendered, text, every_line, chosen) if every_line and chosen else {}
    for name in names:
        lines = report(name, rendered, markers)
        if calls[name]:
            lines.append(f"the oracle's calls ({CASES.as_posix()}), JAX's answer and each checker's (!: its errors):")
            lines += table(calls[name], {c: answers[c] for c in chosen})
        else:
            lines.append(f"the oracle's calls: none in {CASES.as_posix()}")
        print("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
