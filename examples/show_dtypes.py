"""Type-check examples/mixed_precision.py in six set-ups, run it under JAX, compare.

Each set-up checks the example in a temporary project holding the stubs
written by ``jaxtypes jax-stubs --out typings``, configured by the lines that
command prints: mypy, mypy with the plugin (examples/mypy.ini), pyright,
basedpyright, pyrefly and ty.  A seventh run is the baseline: pyright on the
same example annotated with plain ``jax.Array`` and no jaxtypes.  JAX gives
the truth: each function of the example runs on arrays of its parameters'
dtypes, recording the dtype of each revealed expression and what each line
marked ``# error`` does.  Each ``reveal_type()`` line and each ``# error``
line becomes a row of the table.

Run from a checkout after installing the project with its test extra, from its
root: ``python -m examples.show_dtypes`` (or ``python examples/show_dtypes.py``).
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if not __package__:  # run as a file (python examples/show_dtypes.py): the checkout's root, as with -m
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.checkers import MYPY_PLUGIN, STUBS, command, execute, reported_errors, revealed

HERE = Path(__file__).resolve().parent

EXAMPLE = "mixed_precision.py"
ERROR_COMMENT = re.compile(r"#\s*error:\s*(?P<reason>.*)$")
RECORD = "__show_dtypes_record__"
BASELINE = "plain jax.Array (pyright)"
# (column, checker, mypy.ini): the set-ups checked with the stubs.
SETUPS = (
    ("mypy", "mypy", "[mypy]\n"),
    ("mypy (plugin)", MYPY_PLUGIN, (HERE / "mypy.ini").read_text()),
    ("pyright", "pyright", None),
    ("basedpyright", "basedpyright", None),
    ("pyrefly", "pyrefly", None),
    ("ty", "ty", None),
)


@dataclass(frozen=True)
class Row:
    line: int
    text: str  # the expression revealed, or the erroneous statement
    error: str  # why the line is an error ("" for a reveal_type line)


@dataclass(frozen=True)
class Result:
    reveals: dict[int, str]
    errors: dict[int, list[str]]
    seconds: float


def rows(source: str) -> list[Row]:
    """The example's reveal_type() lines and the lines marked ``# error: why``."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "reveal_type":
            found.append(Row(node.lineno, ast.unparse(node.args[0]), ""))
        elif isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            m = ERROR_COMMENT.search(lines[node.lineno - 1])
            if m:
                found.append(Row(node.lineno, ast.unparse(node), m.group("reason")))
    return sorted(found, key=lambda r: r.line)


# ------------------------------------------------------------ JAX, the truth
class _Instrument(ast.NodeTransformer):
    """``reveal_type(e)`` becomes a recorded ``e``; so does the expression of
    each statement on an error line, whose exception is recorded, not raised."""

    def __init__(self, error_lines: set[int]) -> None:
        self.error_lines = error_lines

    def _record(self, node: ast.expr, line: int, kind: str) -> ast.expr:
        thunk = ast.Lambda(ast.arguments([], [], None, [], [], None, []), node)
        return ast.Call(ast.Name(RECORD, ast.Load()), [ast.Constant(line), thunk, ast.Constant(kind)], [])

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "reveal_type":
            return ast.copy_location(self._record(node.args[0], node.lineno, "value"), node)
        return node

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        self.generic_visit(node)
        if node.lineno in self.error_lines:
            node.value = ast.copy_location(self._record(node.value, node.lineno, "error"), node)
        return node

    def visit_Return(self, node: ast.Return) -> ast.AST:
        self.generic_visit(node)
        if node.lineno in self.error_lines and node.value is not None:
            node.value = ast.copy_location(self._record(node.value, node.lineno, "returns"), node)
        return node


def _argument(annotation: ast.expr | None, where: str) -> Any:
    """An array of the dtype a parameter is annotated with (``jax.Array[dt]``)."""
    import jax.numpy as jnp
    import numpy as np

    import jaxtypes

    if not (
        isinstance(annotation, ast.Subscript)
        and isinstance(annotation.slice, ast.Name)
        and hasattr(jaxtypes, annotation.slice.id)
    ):
        raise ValueError(
            f"{where}: annotate each parameter as jax.Array[<jaxtypes dtype>], "
            f"not {ast.unparse(annotation) if annotation else 'nothing'}"
        )
    return jnp.ones((4, 4), np.dtype(getattr(jaxtypes, annotation.slice.id)))


def run_under_jax(source: str, error_lines: set[int]) -> dict[int, str]:
    """Run each function of the example on arrays of its parameters' dtypes;
    what JAX computes on each recorded line (the dtype, weak or not; what a
    returned value is; the exception an error line raises)."""
    found: dict[int, str] = {}

    def record(line: int, thunk: Callable[[], Any], kind: str) -> Any:
        try:
            value = thunk()
        except Exception as exc:
            if kind == "value":
                raise
            found[line] = f"raises {type(exc).__name__}"
            return None
        dtype = f"{value.dtype}" + (" (weak)" if getattr(value, "weak_type", False) else "")
        found[line] = f"returns {dtype}" if kind == "returns" else dtype
        return value

    tree = ast.fix_missing_locations(_Instrument(error_lines).visit(ast.parse(source)))
    namespace: dict[str, Any] = {"__name__": "mixed_precision", RECORD: record}
    exec(compile(tree, str(HERE / EXAMPLE), "exec"), namespace)
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            args = [_argument(a.annotation, f"{EXAMPLE}:{node.lineno} {node.name}({a.arg})") for a in node.args.args]
            namespace[node.name](*args)
    return found


# ----------------------------------------------------------- the checkers
def plain_jax(source: str) -> str:
    """The example as plain JAX code: ``jax.Array`` without a dtype, JAX's
    own scalar types instead of jaxtypes' (line numbers kept)."""
    source = re.sub(r"\bjax\.Array\[\w+\]", "jax.Array", source)
    return re.sub(r"^from jaxtypes import ", "from jax.numpy import ", source, flags=re.M)


def check(checker: str, root: Path, mypy_config: str | None, stubs: bool) -> Result:
    start = time.perf_counter()
    out = execute(checker, root, command(checker, root, [EXAMPLE], mypy_config=mypy_config, stubs=stubs))
    reveals = {line: types[-1] for (path, line), types in revealed(checker, out, root).items() if path == EXAMPLE}
    errors = {line: msgs for (path, line), msgs in reported_errors(checker, out, root).items() if path == EXAMPLE}
    return Result(reveals, errors, time.perf_counter() - start)


def write_stubs(project: Path) -> tuple[str, float]:
    """``jaxtypes jax-stubs --out typings`` in ``project``; what it printed."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "jaxtypes", "jax-stubs", "--out", STUBS], cwd=project, capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise SystemExit(f"`jaxtypes jax-stubs --out {STUBS}` failed:\n{proc.stderr}")
    return proc.stdout, time.perf_counter() - start


# ----------------------------------------------------------------- output
def short(revealed_type: str) -> str:
    """A revealed type without module paths: ``Array[float32]``."""
    return re.sub(r"\b(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_])", "", revealed_type)


def error_code(message: str) -> str:
    """The checker's code at the end of one of its messages: ``[operator]``, ``(reportOperatorIssue)``."""
    m = re.search(r"[\[(]([\w-]+)[\])]$", message)
    return m.group(1) if m else "?"


def cell(result: Result, row: Row) -> str:
    errors = result.errors.get(row.line, [])
    if row.error:
        return f"error: {', '.join(dict.fromkeys(map(error_code, errors)))}" if errors else "missed"
    shown = short(result.reveals.get(row.line, "-"))
    return shown + (f" (error: {', '.join(map(error_code, errors))})" if errors else "")


def table(source: str, runtime: dict[int, str], results: dict[str, Result]) -> list[str]:
    columns = ["JAX (run time)", BASELINE] + [name for name, _, _ in SETUPS]
    out = ["| line | expression | " + " | ".join(columns) + " |", "|---" * (len(columns) + 2) + "|"]
    for row in rows(source):
        text = f"`{row.text}`" + (f" ({row.error})" if row.error else "")
        cells = [runtime.get(row.line, "-")] + [cell(results[c], row) for c in columns[1:]]
        out.append(f"| {row.line} | {text} | " + " | ".join(cells) + " |")
    return out


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main() -> int:
    source = (HERE / EXAMPLE).read_text()
    error_lines = {r.line for r in rows(source) if r.error}
    started = time.perf_counter()
    progress(
        f"examples/{EXAMPLE}: running it under JAX and checking it in {len(SETUPS)} set-ups "
        f"with the jax.Array stubs, and with plain jax.Array (2 at a time)"
    )
    results: dict[str, Result] = {}
    with tempfile.TemporaryDirectory(prefix="jaxtypes-example-") as tmp, ThreadPoolExecutor(max_workers=2) as pool:
        base = Path(tmp)
        jobs: dict[Future[Any], str] = {}
        project = base / "project"
        project.mkdir()
        stubs_job = pool.submit(write_stubs, project)
        jobs[pool.submit(run_under_jax, source, error_lines)] = "JAX"
        plain = base / "plain"
        plain.mkdir()
        (plain / EXAMPLE).write_text(plain_jax(source))
        jobs[pool.submit(check, "pyright", plain, None, False)] = BASELINE

        printed, seconds = stubs_job.result()
        progress(f"  jaxtypes jax-stubs --out {STUBS} ({seconds:.1f} s): " + printed.replace("\n", "\n  ").rstrip())
        for name, checker, mypy_config in SETUPS:
            root = base / re.sub(r"\W+", "-", name)
            shutil.copytree(project / STUBS, root / STUBS)
            (root / EXAMPLE).write_text(source)
            jobs[pool.submit(check, checker, root, mypy_config, True)] = name

        runtime: dict[int, str] = {}
        for job in as_completed(jobs):
            name = jobs[job]
            if name == "JAX":
                runtime = job.result()
                progress(f"  {'JAX':<26} ran the example: {len(runtime)} lines recorded")
                continue
            result = results[name] = job.result()
            caught = sum(1 for line in error_lines if line in result.errors)
            progress(
                f"  {name:<26} {len(result.reveals)} types, {caught} of {len(error_lines)} "
                f"errors caught ({result.seconds:.1f} s)"
            )
    progress(f"done in {time.perf_counter() - started:.1f} s\n")

    print(f"Dtypes in examples/{EXAMPLE}: what JAX computes, what each checker infers, and the errors each catches:\n")
    print("\n".join(table(source, runtime, results)))
    print(
        "\n(weak): a weakly typed array, Array[weak_float] to the checkers; missed: no error "
        "reported on a line marked # error."
    )
    silent = [name for name, result in results.items() if not result.reveals]
    if silent:
        print(f"\nno types revealed by: {', '.join(silent)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
