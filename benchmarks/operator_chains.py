"""Times each type checker on generated mixed-dtype arithmetic, exact stubs vs untyped.

Run by hand, from the checkout's root: ``python -m benchmarks.operator_chains [--lines 2000] [--repeat 3]``.

The corpus (about 2,000 lines, each an ``assert_type`` of a chain of one to
three operators over arrays of every marker and Python scalars) is checked
twice per checker in the same run: against the installed jaxtypes stubs, and
against an untyped baseline stub (one signature per operator returning
``Array[Any]``) placed first on the checker's search path.  It prints the
median wall time of each, the ratio, and how many ``assert_type`` lines the
exact stubs got wrong (ty's reading of a ``float`` annotation as
``int | float`` is counted apart).  Expected answers come from
``jaxtypes.operation_rules``, whose rules the typecheck cases check against JAX.

``--methods F`` makes a fraction F of the lines call a dtype method on the
chain instead (``assert_type((x_int8 + 1).sum(), Array[int32])``: ``sum``,
``prod``, ``mean``, ``max``, ``min``, ``argmax``, ``argmin``, ``round``,
``clip``), which reads the methods' tables; the untyped baseline gives each
method one signature returning ``Array[Any]``.

Targets (issue 3): pyright and basedpyright within 1.3x of the baseline,
pyrefly within 1.5x, ty within 2x, all exact.

``mypy-plugin`` (issue 4) is mypy with ``plugins = jaxtypes.mypy_plugin``,
timed twice: cold (``--no-incremental``) and after an edit (each side keeps
its own cache; the corpus gets a new line, then both re-run).  It is compared
with the untyped baseline under the same conditions, and with a second
baseline, "untyped+deps": the same untyped stub importing what the jaxtypes
package makes mypy analyse besides itself (numpy), which isolates
the cost of the plugin and the stubs from that of their dependencies.  Times
are wall and CPU (user+sys of the checker process); ratios use CPU time, which
a loaded machine disturbs less.  Target: within 1.1x, exact.

``--instructions`` counts the instructions each run executes instead of
timing it (valgrind's cachegrind; about 30 times slower).  A count varies by
well under 1% from run to run where times on a shared machine vary by 20%, so
one run per side settles a ratio near a target.  It works for the checkers
that are native or Python programs (mypy, mypy-plugin, pyrefly, ty), not for
pyright and basedpyright, whose JIT-compiled JavaScript valgrind slows too much.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import statistics
import tempfile
from pathlib import Path
from typing import Callable

from jaxtypes import lattice, operation_rules
from jaxtypes.lattice import MARKER_NAME
from tools import checkers  # the one checker runner

OPS = {"+": "add", "-": "sub", "*": "mul", "/": "truediv"}
METHODS = ("sum", "prod", "mean", "max", "min", "argmax", "argmin", "round", "clip")
SCALARS = {
    "1": lattice.WEAK_INT,
    "1.5": lattice.WEAK_FLOAT,
    "2j": lattice.WEAK_COMPLEX,
    "True": "bool",
    "pi": lattice.WEAK_INT,
    "pf": lattice.WEAK_FLOAT,
    "pc": lattice.WEAK_COMPLEX,
    "pb": "bool",
}
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
        out = operation_rules.binary(OPS[op], ln, rn)
    else:
        out = operation_rules.binary(OPS[op], ln, rn, b_is_scalar=rscalar)
    return f"({ls} {op} {rs})", out.node, False


def make_corpus(lines: int, seed: int = 0, methods: float = 0.0) -> tuple[str, list[int]]:
    """The corpus text, and the line numbers that mention an annotated float/complex.
    A fraction ``methods`` of the lines call a dtype method on their chain."""
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
        if methods and rng.random() < methods:
            name = rng.choice(METHODS)
            node = operation_rules.method(name, node).node
            if node is None:  # JAX rejects it (argmax of complex, round of bool)
                continue
            src = f"({src}.{name}())"
        body.append(f"    assert_type({src[1:-1]}, Array[{MARKER_NAME[node]}])")
        if any(re.search(rf"\b{name}\b", src) for name in ANNOTATED_FLOATS):
            ty_lines.append(len(head) + len(body))
    return "\n".join(head + body) + "\n", ty_lines


BASELINE_ARRAY = (
    '''from typing import Any, Generic
from typing_extensions import TypeVar
DT = TypeVar("DT", default=Any)
class Array(Generic[DT]):
'''
    + "".join(
        f"    def __{name}__(self, other: Array[Any] | complex, /) -> Array[Any]: ...\n"
        f"    def __r{name}__(self, other: complex, /) -> Array[Any]: ...\n"
        for name in ("add", "sub", "mul", "truediv")
    )
    + "".join(f"    def {name}(self, *args: Any, **kwargs: Any) -> Array[Any]: ...\n" for name in METHODS)
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


def write_baseline_with_deps(root: Path) -> None:
    """The untyped baseline, importing the third-party modules jaxtypes' typing
    surface makes mypy analyse: numpy, for the dtype API.  (ml_dtypes is not
    among them: the promotion module's stub does not import it.)"""
    write_baseline(root)
    path = root / "jaxtypes" / "_array.pyi"
    path.write_text("import numpy as np\n" + path.read_text())


def write_untyped_package(root: Path) -> None:
    """The installed jaxtypes package with its promotion typing taken out: in
    ``_array.pyi`` each operator and dtype method of Array has the plain
    signature the mypy plugin gives it (jaxtypes.mypy_plugin.operator_signatures), and
    the marker classes of ``markers.pyi`` carry no tables.  Same modules, same
    dependencies: the difference from mypy+plugin is the plugin's own cost."""
    import ast

    import jaxtypes
    from jaxtypes.mypy_plugin.operator_signatures import SIGNATURES

    # The package as imported: an editable install's is the checkout's jaxtypes/.
    installed = Path(jaxtypes.__file__).resolve().parent
    pkg = root / "jaxtypes"
    shutil.copytree(installed, pkg, ignore=shutil.ignore_patterns("__pycache__", "mypy_plugin"))
    array = pkg / "_array.pyi"
    lines = array.read_text().splitlines()
    cls = next(n for n in ast.parse(array.read_text()).body if isinstance(n, ast.ClassDef) and n.name == "Array")
    spans: dict[str, list[tuple[int, int]]] = {}
    for node in cls.body:
        name = (
            node.target.id
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
            else getattr(node, "name", None)
        )
        if name in SIGNATURES:
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            spans.setdefault(name, []).append((first, node.end_lineno or node.lineno))
    for name, ranges in sorted(spans.items(), key=lambda kv: -kv[1][0][0]):
        for start, end in sorted(ranges, reverse=True)[:-1]:
            del lines[start - 1 : end]
        start, end = ranges[0]
        lines[start - 1 : end] = ["    " + part for part in SIGNATURES[name].splitlines()]
    array.write_text("\n".join(lines) + "\n")
    markers = pkg / "markers.pyi"
    out: list[str] = []
    in_class = False
    for line in markers.read_text().splitlines():
        if line.startswith("class ") and line.rstrip().endswith(":"):
            out += [line, "    ..."]
            in_class = True
            continue
        if in_class and (line.startswith(" ") or not line.strip()):
            continue
        in_class = False
        out.append(line)
    markers.write_text("\n".join(out) + "\n")


# The baselines are found through mypy_path, not site-packages: silence them as
# mypy silences the installed jaxtypes.
PLAIN_CONFIG = "[mypy]\n[mypy-jaxtypes.*]\nignore_errors = True\n"
CORPUS = "corpus.py"


def project(root: Path, corpus: str, baseline: Path | None = None) -> Path:
    """A scratch project holding the corpus and, if given, a baseline package
    (a directory holding ``jaxtypes/``) as its ``typings/``, laid out as
    ``jaxtypes jax-stubs --out typings`` lays out its stubs, so that
    ``checkers.command(..., stubs=True)`` puts it first on each checker's path."""
    shutil.rmtree(root, ignore_errors=True)  # from an earlier run with --keep
    root.mkdir(parents=True)
    (root / CORPUS).write_text(corpus)
    if baseline is not None:
        for layout in ("", ".mypy-path", ".search-path"):  # pyright and ty; mypy; pyrefly
            shutil.copytree(baseline / "jaxtypes", root / "typings" / layout / "jaxtypes")
    return root


def run_timed(checker: str, root: Path, cmd: list[str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the checker, output) of one checker run."""
    done = checkers.launch(checker, root, cmd)
    return done.wall, done.cpu, done.stdout


_VALGRIND_TOTAL = re.compile(r"^==\d+== I\s+refs:\s+([\d,]+)", re.M)


def run_counted(checker: str, root: Path, cmd: list[str]) -> tuple[int, str]:
    """(instructions executed, checker output) of one checker run under
    valgrind's cachegrind (``--cache-sim=no``: only instructions are counted)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("--instructions needs valgrind on PATH (apt install valgrind)")
    done = checkers.launch(
        checker, root, [valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *cmd]
    )
    found = _VALGRIND_TOTAL.findall(done.stderr)
    if not found:
        raise SystemExit(f"valgrind gave no instruction count for {cmd[0]}:\n{done.stderr[-2000:]}")
    return int(found[-1].replace(",", "")), done.stdout


def error_lines(checker: str, output: str, root: Path) -> set[int]:
    """The corpus lines with an error (each is an ``assert_type`` the checker got wrong)."""
    return {line for (path, line) in checkers.reported_errors(checker, output, root) if path == CORPUS}


def mypy_plugin_rows(
    work: Path, corpus: str, baselines: dict[str, Path], repeat: int, instructions: bool = False
) -> bool:
    """Time mypy with the plugin against the baselines, cold and after an edit
    (or count the instructions of one run each).  Returns whether any answer
    was wrong (a crash stops the run)."""
    roots = {
        "plugin": project(work / "mypy-plugin", corpus),
        **{name: project(work / f"mypy-{i}", corpus, path) for i, (name, path) in enumerate(baselines.items())},
    }
    failed = False
    for mode in ("cold", "edit"):
        walls: dict[str, list[float]] = {name: [] for name in roots}
        cpus: dict[str, list[float]] = {name: [] for name in roots}
        outputs: list[str] = []
        caches = {name: root / ".mypy_cache" for name, root in roots.items()}
        for cache in caches.values():
            shutil.rmtree(cache, ignore_errors=True)

        def cmd(name: str, caches: dict[str, Path] = caches, mode: str = mode) -> list[str]:
            cache = caches[name] if mode == "edit" else None
            if name == "plugin":
                return checkers.command(checkers.MYPY_PLUGIN, roots[name], [CORPUS], mypy_cache=cache)
            return checkers.command(
                "mypy", roots[name], [CORPUS], mypy_config=PLAIN_CONFIG, stubs=True, mypy_cache=cache
            )

        def edit(text: str) -> None:
            for root in roots.values():
                (root / CORPUS).write_text(text)

        if mode == "edit":  # fill each cache once
            for name in roots:
                run_timed("mypy", roots[name], cmd(name))
        if instructions:
            failed |= _counted_row(mode, cmd, roots, baselines, corpus, edit)
            continue
        # An edit run is short (about 0.4 s), so machine noise weighs more:
        # take at least 15 of them.
        for i in range(repeat if mode == "cold" else max(repeat, 15)):
            if mode == "edit":
                edit(corpus + f"# edit {i}\n")
            for name in roots:
                wall, cpu, out = run_timed("mypy", roots[name], cmd(name))
                walls[name].append(wall)
                cpus[name].append(cpu)
                if name == "plugin":
                    outputs.append(out)
        edit(corpus)
        wrong = set[int]().union(*(error_lines("mypy", out, roots["plugin"]) for out in outputs))
        plugin_cpu = statistics.median(cpus["plugin"])
        parts = [f"mypy-plugin {mode:4} {statistics.median(walls['plugin']):6.2f} s wall {plugin_cpu:6.2f} s cpu"]
        for name in baselines:
            base_cpu = statistics.median(cpus[name])
            parts.append(
                f"{name} {statistics.median(walls[name]):5.2f} s wall {base_cpu:5.2f} s cpu "
                f"{plugin_cpu / base_cpu:5.2f}x"
            )
        print(" | ".join(parts) + f" | wrong {len(wrong)}")
        failed |= bool(wrong)
    return failed


def _counted_row(
    mode: str,
    cmd: Callable[[str], list[str]],
    roots: dict[str, Path],
    baselines: dict[str, Path],
    corpus: str,
    edit: Callable[[str], None],
) -> bool:
    """One mypy-plugin row in instructions; whether an answer was wrong."""
    counts: dict[str, int] = {}
    output = ""
    if mode == "edit":
        edit(corpus + "# edit\n")
    for name in roots:
        counts[name], out = run_counted("mypy", roots[name], cmd(name))
        if name == "plugin":
            output = out
    edit(corpus)
    wrong = error_lines("mypy", output, roots["plugin"])
    parts = [f"mypy-plugin {mode:4} {counts['plugin'] / 1e9:6.3f} G instr"]
    parts += [f"{name} {counts[name] / 1e9:6.3f} G {counts['plugin'] / counts[name]:5.3f}x" for name in baselines]
    print(" | ".join(parts) + f" | wrong {len(wrong)}")
    return bool(wrong)


def run(checker: str, root: Path, stubs: bool, instructions: bool = False) -> tuple[float, str]:
    """(wall seconds, or instructions if counted; output) of one checker run
    over the corpus in ``root`` (with its ``typings/`` baseline when ``stubs``)."""
    cmd = checkers.command(checker, root, [CORPUS], stubs=stubs)
    if instructions:
        count, output = run_counted(checker, root, cmd)
        return float(count), output
    wall, _, output = run_timed(checker, root, cmd)
    return wall, output


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--checkers", default="pyright,basedpyright,pyrefly,ty,mypy,mypy-plugin")
    parser.add_argument("--keep", help="write the corpus and baseline here and keep them")
    parser.add_argument(
        "--methods",
        type=float,
        default=0.0,
        help="fraction of lines that call a dtype method (sum, mean, ...) on their chain",
    )
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions (valgrind) instead of timing; one run per side"
    )
    opts = parser.parse_args()
    if opts.instructions:
        node_based = {"pyright", "basedpyright"} & set(opts.checkers.split(","))
        if node_based:
            parser.error(
                f"--instructions does not work for {', '.join(sorted(node_based))} "
                "(JavaScript under valgrind); choose from mypy, mypy-plugin, pyrefly, ty"
            )
        opts.repeat = 1

    corpus, ty_lines = make_corpus(opts.lines, methods=opts.methods)
    work = Path(opts.keep or tempfile.mkdtemp(prefix="jaxtypes-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    (work / CORPUS).write_text(corpus)
    baseline = work / "baseline_stubs"
    shutil.rmtree(baseline, ignore_errors=True)
    write_baseline(baseline)
    asserts = corpus.count("assert_type(") - 1
    how = (
        "instructions of one run each (valgrind)"
        if opts.instructions
        else f"median of {opts.repeat}, the two stubs alternating"
    )
    print(f"corpus: {len(corpus.splitlines())} lines, {asserts} assert_type lines; {how}")
    failed = False
    for checker in opts.checkers.split(","):
        if checker == "mypy-plugin":
            with_deps = work / "baseline_deps_stubs"
            untyped_pkg = work / "baseline_untyped_package"
            for path in (with_deps, untyped_pkg):
                shutil.rmtree(path, ignore_errors=True)
            write_baseline_with_deps(with_deps)
            write_untyped_package(untyped_pkg)
            failed |= mypy_plugin_rows(
                work,
                corpus,
                {"untyped": baseline, "untyped+deps": with_deps, "untyped jaxtypes": untyped_pkg},
                opts.repeat,
                opts.instructions,
            )
            continue
        exact_root = project(work / f"{checker}-exact", corpus)
        base_root = project(work / f"{checker}-untyped", corpus, baseline)
        times_exact: list[float] = []
        times_base: list[float] = []
        out = ""
        for _ in range(opts.repeat):
            t, out = run(checker, exact_root, False, opts.instructions)
            times_exact.append(t)
            t, _ = run(checker, base_root, True, opts.instructions)
            times_base.append(t)
        wrong = error_lines(checker, out, exact_root)
        ty_known = wrong & set(ty_lines) if checker == "ty" else set[int]()
        exact, base = statistics.median(times_exact), statistics.median(times_base)
        ratio = exact / base
        unit, scale = ("G instr", 1e9) if opts.instructions else ("s", 1.0)
        print(
            f"{checker:13} exact {exact / scale:6.2f} {unit} | untyped {base / scale:6.2f} {unit} | {ratio:5.2f}x | "
            f"wrong {len(wrong - ty_known)}" + (f" (+{len(ty_known)} ty float reading)" if checker == "ty" else "")
        )
        failed |= bool(wrong - ty_known)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
