"""Times each type checker on generated mixed-dtype arithmetic, exact stubs vs untyped.

Run by hand: ``python benchmarks/checkers.py [--lines 2000] [--repeat 3]``.

The corpus (about 2,000 lines, each an ``assert_type`` of a chain of one to
three operators over arrays of every marker and Python scalars) is checked
twice per checker in the same run: against the installed jaxtypes stubs, and
against an untyped baseline stub (one signature per operator returning
``Array[Any]``) placed first on the checker's search path.  It prints the
median wall time of each, the ratio, and how many ``assert_type`` lines the
exact stubs got wrong (ty's reading of a ``float`` annotation as
``int | float`` is counted apart).  Expected answers come from
``jaxtypes.ops``, whose rules the typecheck cases check against JAX.

Targets (issue 3): pyright and basedpyright within 1.3x of the baseline,
pyrefly within 1.5x, ty within 2x, all exact.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from jaxtypes import lattice, ops
from jaxtypes.stubgen import MARKER_NAME

OPS = {"+": "add", "-": "sub", "*": "mul", "/": "truediv"}
SCALARS = {"1": lattice.WEAK_INT, "1.5": lattice.WEAK_FLOAT, "2j": lattice.WEAK_COMPLEX,
           "True": "bool", "pi": lattice.WEAK_INT, "pf": lattice.WEAK_FLOAT,
           "pc": lattice.WEAK_COMPLEX, "pb": "bool"}
ANNOTATED_FLOATS = ("pf", "pc")  # ty reads `float` as `int | float`


def _operand(rng: random.Random) -> tuple[str, str, bool]:
    """(source, node, is_python_scalar)."""
    if rng.random() < 0.65:
        node = rng.choice(lattice.NODES)
        return f"x_{MARKER_NAME[node]}", node, False
    src = rng.choice(list(SCALARS))
    return src, SCALARS[src], True


def _expression(rng: random.Random, depth: int) -> tuple[str, str | None, bool]:
    """A random expression, its expected node (None if JAX rejects it), and
    whether it is a bare Python scalar."""
    if depth == 0:
        return _operand(rng)
    left = _expression(rng, depth - 1)
    right = _operand(rng)
    if rng.random() < 0.5:
        left, right = right, left
    (ls, ln, lscalar), (rs, rn, rscalar) = left, right
    if lscalar and rscalar:
        return _expression(rng, depth)
    op = rng.choice(list(OPS))
    if ln is None or rn is None:
        return f"({ls} {op} {rs})", None, False
    if lscalar:  # scalar op array: the array's reflected operator
        out = ops.binary(OPS[op], ln, rn)
    else:
        out = ops.binary(OPS[op], ln, rn, b_is_scalar=rscalar)
    return f"({ls} {op} {rs})", out.node, False


def make_corpus(lines: int, seed: int = 0) -> tuple[str, list[int]]:
    """The corpus text, and the line numbers that mention an annotated float/complex."""
    rng = random.Random(seed)
    params = ", ".join(f"x_{MARKER_NAME[n]}: Array[{MARKER_NAME[n]}]" for n in lattice.NODES)
    head = [
        "from typing_extensions import assert_type",
        "from jaxtypes import Array, " + ", ".join(MARKER_NAME[n] for n in lattice.NODES),
        "",
    ]
    body: list[str] = []
    ty_lines: list[int] = []
    per_function = 200
    while len(body) < lines:
        if len(body) % (per_function + 1) == 0:
            body.append(f"def f{len(body)}({params}, pi: int, pf: float, pc: complex, pb: bool) -> None:")
            continue
        src, node, _ = _expression(rng, rng.randint(1, 3))
        if node is None or src.startswith("(") is False:
            continue
        body.append(f"    assert_type({src[1:-1]}, Array[{MARKER_NAME[node]}])")
        if any(re.search(rf"\b{name}\b", src) for name in ANNOTATED_FLOATS):
            ty_lines.append(len(head) + len(body))
    return "\n".join(head + body) + "\n", ty_lines


BASELINE_ARRAY = '''from typing import Any, Generic
from typing_extensions import TypeVar
DT = TypeVar("DT", default=Any)
class Array(Generic[DT]):
''' + "".join(
    f"    def __{name}__(self, other: Array[Any] | complex, /) -> Array[Any]: ...\n"
    f"    def __r{name}__(self, other: complex, /) -> Array[Any]: ...\n"
    for name in ("add", "sub", "mul", "truediv")
)


def write_baseline(root: Path) -> None:
    """An untyped jaxtypes stub package: markers, and Array with one signature per operator."""
    pkg = root / "jaxtypes"
    pkg.mkdir(parents=True)
    (pkg / "__init__.pyi").write_text(
        "from jaxtypes._array import Array as Array\n"
        + "".join(f"class {MARKER_NAME[n]}: ...\n" for n in lattice.NODES)
    )
    (pkg / "_array.pyi").write_text(BASELINE_ARRAY)
    (pkg / "py.typed").write_text("")


def checker_commands(python: str, stubs: Path | None) -> dict[str, list[str]]:
    bindir = Path(python).parent
    cmds = {
        "mypy": [str(bindir / "mypy"), "--no-incremental", "--no-error-summary",
                 "--hide-error-context", "--python-executable", python],
        "pyright": [str(bindir / "pyright"), "--pythonpath", python, "-p", "pyrightconfig.json"],
        "basedpyright": [str(bindir / "basedpyright"), "--pythonpath", python, "-p", "pyrightconfig.json"],
        "pyrefly": [str(bindir / "pyrefly"), "check", "--preset", "default",
                    "--python-interpreter-path", python, "--output-format", "min-text",
                    "--summary=none"] + (["--search-path", str(stubs)] if stubs else []),
        "ty": [str(bindir / "ty"), "check", "--python", str(Path(python).parent.parent),
               "--output-format", "concise"] + (["--extra-search-path", str(stubs)] if stubs else []),
    }
    return cmds


def error_lines(checker: str, output: str) -> set[int]:
    pattern = {
        "mypy": r"^corpus\.py:(\d+): error",
        "pyright": r"corpus\.py:(\d+):\d+ - error",
        "basedpyright": r"corpus\.py:(\d+):\d+ - error",
        "pyrefly": r"^ERROR corpus\.py:(\d+):",
        "ty": r"^corpus\.py:(\d+):\d+: error",
    }[checker]
    return {int(m.group(1)) for m in re.finditer(pattern, output, re.M)}


def run(checker: str, cmd: list[str], workdir: Path, stubs: Path | None) -> tuple[float, str]:
    # The checkers must see the installed jaxtypes (with its stubs), not a
    # source checkout that PYTHONPATH may point at.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    if checker == "mypy" and stubs:
        env["MYPYPATH"] = str(stubs)
    (workdir / "pyrightconfig.json").write_text(
        '{"typeCheckingMode": "standard", "reportUnusedExpression": false'
        + (f', "stubPath": "{stubs}"' if stubs else ', "stubPath": "no-stubs-here"') + "}"
    )
    start = time.perf_counter()
    proc = subprocess.run(cmd + ["corpus.py"], cwd=workdir, capture_output=True, text=True, env=env)
    return time.perf_counter() - start, proc.stdout + proc.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--checkers", default="pyright,basedpyright,pyrefly,ty,mypy")
    parser.add_argument("--keep", help="write the corpus and baseline here and keep them")
    opts = parser.parse_args()

    corpus, ty_lines = make_corpus(opts.lines)
    work = Path(opts.keep or tempfile.mkdtemp(prefix="jaxtypes-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    (work / "corpus.py").write_text(corpus)
    baseline = work / "baseline_stubs"
    shutil.rmtree(baseline, ignore_errors=True)
    write_baseline(baseline)
    asserts = corpus.count("assert_type(") - 1
    print(f"corpus: {len(corpus.splitlines())} lines, {asserts} assert_type lines; "
          f"median of {opts.repeat}, the two stubs alternating")
    failed = False
    for checker in opts.checkers.split(","):
        exact_cmd = checker_commands(sys.executable, None)[checker]
        base_cmd = checker_commands(sys.executable, baseline)[checker]
        times_exact, times_base = [], []
        out = ""
        for _ in range(opts.repeat):
            t, out = run(checker, exact_cmd, work, None)
            times_exact.append(t)
            t, _ = run(checker, base_cmd, work, baseline)
            times_base.append(t)
        wrong = error_lines(checker, out)
        ty_known = wrong & set(ty_lines) if checker == "ty" else set()
        exact, base = statistics.median(times_exact), statistics.median(times_base)
        ratio = exact / base
        print(f"{checker:13} exact {exact:6.2f} s | untyped {base:6.2f} s | {ratio:5.2f}x | "
              f"wrong {len(wrong - ty_known)}" + (f" (+{len(ty_known)} ty float reading)" if checker == "ty" else ""))
        failed |= bool(wrong - ty_known)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
