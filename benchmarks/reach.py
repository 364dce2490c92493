"""Reach: how many dtypes of real JAX code each type checker knows, and gets right.

Run by hand, from the checkout's root: ``python -m benchmarks.reach [--corpus NAME ...] [--checkers ...] [--stubs DIR] [--json]``;
``--stubs DIR --compare-times --repeat 5 [--instructions]`` compares each
checker with and without the stubs (below); ``--corpus-dir DIR ...`` measures
other code the same way (each file's ``main()`` run under ``jax.jit``).

Two corpora, measured and reported separately (``--corpus``, default both):
``benchmarks/reach_corpus/*.py``, dense mixed-dtype model and training code
written for jaxtypes, and ``benchmarks/model_corpus/*.py``, code in the style
of public JAX projects (Flax's examples, Gemma, Optax; its docstring in
``norms.py``).  Their array parameters are annotated with concrete dtypes,
with
``jaxtypes.Array[bfloat16]`` (not ``jax.Array[bfloat16]``): that is
subscriptable at runtime, so the corpus runs as it is, and it is the
dtype-generic class for the checkers both with jaxtypes' shipped stubs alone
and with the stubs ``jaxtypes jax-stubs`` generates (where ``jaxtypes.Array``
and ``jax.Array`` are one class); ``jax.Array[...]`` is generic only in the
latter.

1. The truth: every assignment to a name (``x = ...``, ``a, b = ...``,
   ``x: T = ...``, ``x += ...``) is found with ``ast``; each corpus file is
   executed from an instrumented copy that records, after each such statement,
   the dtype and weak flag of every assigned value that is a ``jax.Array``,
   then its ``main()`` runs under ``jax.jit``.  Values inside ``jit``,
   ``vmap``, ``grad`` and ``lax.scan`` are tracers, which carry the dtype JAX
   computes; a line whose dtype differed between calls is reported and not
   counted.  An array-valued intermediate is one (file, line, name) recorded
   with one lattice dtype.
2. Each checker checks a staged copy with ``reveal_type(name)`` after each
   recorded assignment.  A revealed type is *known* when it is
   ``Array[marker]`` for a marker of jaxtypes (``Any``, ``Unknown``, a bare
   ``Array``, a TypeVar or a union are unknown), and *correct* when the
   marker's lattice node is JAX's: ``weak_float`` is a float32 array with
   ``weak_type=True`` (x64 off), a concrete marker the strong dtype.
3. Each checker's wall time over the staged corpus (including the reveals;
   the median of ``--repeat`` runs; mypy runs with ``--no-incremental``).
4. ``--compare-times``: each checker's CPU time without and with the stubs,
   the two alternated ``--repeat`` times in the same run (the medians, and
   their ratio); with ``--instructions`` also the instructions of one run of
   each under valgrind's cachegrind, counted over the whole process tree
   (``--trace-children=yes``: node for pyright and basedpyright, whose JIT
   makes that run much slower than the others).

``--stubs DIR`` stages DIR (made by ``jaxtypes jax-stubs --out DIR``) as the
scratch project's ``typings/`` and configures each checker as docs/jax-stubs.md says.

A corpus file may import another by its name (``import ops``, as a project
run from its own directory does): it gets that file's instrumented module.
``--annotate SPELLING ...`` measures each corpus again after ``jaxtypes
annotate --spelling SPELLING -- DRIVER`` rewrote a copy of it (DRIVER: the
corpus's ``tests/`` under pytest, else a script calling each ``main()``);
the truth is recorded again on the copy, whose lines moved.
"""

from __future__ import annotations

import argparse
import ast
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, cast

HERE = Path(__file__).resolve().parent
CORPORA = {name: HERE / name for name in ("reach_corpus", "model_corpus")}

# Compile quickly: the corpus's programs are tiny, XLA's optimisations are not
# what is measured.  Only takes effect if JAX's CPU backend is not yet started.
os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true")

from jaxtypes import lattice  # noqa: E402
from jaxtypes.lattice import MARKER_NAME  # noqa: E402
from tools.checkers import MYPY_PLUGIN, Errors, command, execute, launch, reported_errors, revealed, stage  # noqa: E402

CHECKERS = ("mypy", MYPY_PLUGIN, "pyright", "basedpyright", "pyrefly", "ty")
NODE_OF_MARKER = {marker: node for node, marker in MARKER_NAME.items()}
RECORD = "__reach_record__"

Site = tuple[str, int, str]  # (corpus file name, line, assigned name)


# ---------------------------------------------------------------- corpus
@dataclass(frozen=True)
class Assignment:
    line: int  # first line of the statement
    end_line: int  # last line, after which the reveal goes
    indent: str  # the statement's indentation
    names: tuple[str, ...]


def _target_names(target: ast.expr) -> list[str] | None:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        names = [_target_names(t) for t in target.elts]
        return None if any(n is None for n in names) else [x for n in names for x in n or ()]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return None  # attributes and subscripts are not intermediates


def _assigned(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, ast.Assign):
        names = [_target_names(t) for t in stmt.targets]
        return [x for n in names if n for x in n]
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        return _target_names(stmt.target) or []
    if isinstance(stmt, ast.AugAssign):
        return _target_names(stmt.target) or []
    return []


def _statements(node: ast.AST, attr: str) -> list[ast.stmt] | None:
    """``node``'s body, orelse or finalbody when it is a list of statements."""
    body = getattr(node, attr, None)
    if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
        return cast("list[ast.stmt]", body)
    return None


def _statement_lists(tree: ast.AST) -> Iterator[list[ast.stmt]]:
    for node in ast.walk(tree):
        for attr in ("body", "orelse", "finalbody"):
            body = _statements(node, attr)
            if body is not None:
                yield body


def find_assignments(source: str) -> list[Assignment]:
    """Every statement of ``source`` that assigns names, on a line of its own."""
    lines = source.splitlines()
    found: list[Assignment] = []
    for body in _statement_lists(ast.parse(source)):
        for stmt in body:
            names = _assigned(stmt)
            indent = lines[stmt.lineno - 1][: stmt.col_offset]
            if names and not indent.strip():  # not `if c: x = 1`
                found.append(
                    Assignment(stmt.lineno, stmt.end_lineno or stmt.lineno, indent, tuple(dict.fromkeys(names)))
                )
    return sorted(found, key=lambda a: a.line)


class _Instrument(ast.NodeTransformer):
    """Adds ``__reach_record__(line, name, value)`` after each name assignment."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for attr in ("body", "orelse", "finalbody"):
            body = _statements(node, attr)
            if body is None:
                continue
            new: list[ast.stmt] = []
            for stmt in body:
                new.append(stmt)
                for name in dict.fromkeys(_assigned(stmt)):
                    call = ast.Expr(
                        ast.Call(
                            ast.Name(RECORD, ast.Load()),
                            [ast.Constant(stmt.lineno), ast.Constant(name), ast.Name(name, ast.Load())],
                            [],
                        )
                    )
                    new.append(ast.copy_location(call, stmt))
            setattr(node, attr, new)
        return node


def corpus_files(directory: Path = CORPORA["reach_corpus"]) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(directory.glob("*.py"))}


# ----------------------------------------------------------------- truth
@dataclass
class Truth:
    """What JAX computed: the lattice node of each array-valued intermediate."""

    nodes: dict[Site, str] = field(default_factory=dict[Site, str])
    varying: dict[Site, set[str]] = field(default_factory=dict[Site, set[str]])  # differed between calls
    non_lattice: dict[Site, str] = field(default_factory=dict[Site, str])  # e.g. typed PRNG keys
    run_seconds: float = 0.0


def node_of(dtype: Any, weak: bool) -> str | None:
    """The lattice node of a JAX (dtype, weak_type) pair; None outside the lattice."""
    name = getattr(dtype, "name", str(dtype))
    if name not in lattice.NODES:
        return None
    return lattice.jax_type(name, weak)


def collect_truth(files: dict[str, str], execute: bool = True, directory: Path = CORPORA["reach_corpus"]) -> Truth:
    """Run each corpus file's ``main()`` under ``jax.jit`` from an instrumented
    copy; record what JAX computes at every name assignment.  Without
    ``execute``, ``main`` is only traced (``jax.eval_shape``): the same dtypes,
    recorded at trace time in both cases, without XLA's compilation."""
    import jax

    truth = Truth()
    seen: dict[Site, set[str]] = {}
    loaded: dict[str, types.ModuleType] = {}

    def load(name: str) -> types.ModuleType:
        """The instrumented module of corpus file ``name``, executed once."""
        if name in loaded:
            return loaded[name]

        def record(line: int, target: str, value: object, _file: str = name) -> None:
            if not isinstance(value, jax.Array):
                return
            weak = bool(getattr(getattr(value, "aval", None), "weak_type", False))
            node = node_of(value.dtype, weak)
            if node is None:
                truth.non_lattice[_file, line, target] = str(value.dtype)
            else:
                seen.setdefault((_file, line, target), set()).add(node)

        tree = _Instrument().visit(ast.parse(files[name]))
        ast.fix_missing_locations(tree)
        # A module in sys.modules while it runs: a dataclass with string
        # annotations (``from __future__ import annotations``) looks its module up there.
        as_module = types.ModuleType(f"{directory.name}.{Path(name).stem}")
        as_module.__dict__.update({"__file__": str(directory / name), RECORD: record})
        sys.modules[as_module.__name__] = as_module
        loaded[name] = as_module
        # dont_inherit: the file's own __future__ imports, not this module's.
        exec(compile(tree, str(directory / name), "exec", dont_inherit=True), as_module.__dict__)
        return as_module

    # Files that import each other by name (``import ops``, as a project run
    # from its directory does) get the instrumented module of the other file.
    importer = _CorpusImporter({Path(name).stem: name for name in files}, load)
    sys.meta_path.insert(0, importer)
    start = time.perf_counter()
    try:
        _run_mains(files, load, execute)
    finally:
        sys.meta_path.remove(importer)
        for stem in importer.stems:
            sys.modules.pop(stem, None)
    truth.run_seconds = time.perf_counter() - start
    for site, nodes in seen.items():
        if len(nodes) == 1:
            truth.nodes[site] = next(iter(nodes))
        else:
            truth.varying[site] = nodes
    return truth


class _CorpusImporter(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports a corpus file by its name as its instrumented module."""

    def __init__(self, stems: dict[str, str], load: Callable[[str], types.ModuleType]) -> None:
        self.stems = stems
        self.load = load

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.stems:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return self.load(self.stems[spec.name])

    def exec_module(self, module: types.ModuleType) -> None:
        pass  # executed by load


def _run_mains(files: dict[str, str], load: Callable[[str], types.ModuleType], execute: bool) -> None:
    import jax

    for name in files:
        module: dict[str, Any] = load(name).__dict__
        if "main" not in module:
            continue  # a module of the corpus the others' main() use (--corpus-dir)
        # JAX leaves these partly unannotated (block_until_ready, jit's and
        # eval_shape's bare Callable).
        if execute:
            jitted = jax.jit(module["main"])  # pyright: ignore[reportUnknownMemberType]
            jax.block_until_ready(jitted())  # type: ignore[no-untyped-call]  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        else:
            jax.eval_shape(module["main"])  # pyright: ignore[reportUnknownMemberType]


# -------------------------------------------------------------- checkers
_REVEAL_IMPORT = "from typing_extensions import reveal_type"


def _reveal_import_after(source: str) -> int:
    """The line after which the staged copy imports reveal_type: the last
    ``from __future__`` import's, or 0 (the import comes first)."""
    tree = ast.parse(source)
    future = [n.end_lineno or n.lineno for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
    return max(future, default=0)


def stage_reveals(files: dict[str, str], sites: set[Site]) -> tuple[dict[str, str], dict[tuple[str, int], Site]]:
    """Copies of ``files`` with ``reveal_type(name)`` after each site's
    statement, and which site each staged line reveals."""
    staged: dict[str, str] = {}
    where: dict[tuple[str, int], Site] = {}
    for name, source in files.items():
        lines = source.splitlines()
        after: dict[int, list[tuple[str, Site]]] = {}
        for a in find_assignments(source):
            for target in a.names:
                if (name, a.line, target) in sites:
                    after.setdefault(a.end_line, []).append(
                        (f"{a.indent}reveal_type({target})", (name, a.line, target))
                    )
        import_after = _reveal_import_after(source)
        out: list[str] = []
        if import_after == 0:
            out.append(_REVEAL_IMPORT)
        for n, text in enumerate(lines, 1):
            out.append(text)
            if n == import_after:
                out.append(_REVEAL_IMPORT)
            for reveal, site in after.get(n, ()):
                out.append(reveal)
                where[name, len(out)] = site
        staged[name] = "\n".join(out) + "\n"
    return staged, where


_QUALIFIER = re.compile(r"\b(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_])")


def marker_of(revealed_type: str) -> str | None:
    """The lattice node a checker's revealed type names, or None when the
    dtype is unknown to it: ``Array[float32]`` (any module prefix) -> float32,
    ``Array[weak_float]`` -> f*, ``Array[Any]``/``Array``/unions -> None."""
    text = _QUALIFIER.sub("", revealed_type.strip())
    m = re.fullmatch(r"Array\[(\w+)\]", text)
    if not m:
        return None
    return NODE_OF_MARKER.get(m.group(1))


@dataclass
class CheckerReach:
    checker: str
    intermediates: int
    known: int
    correct: int
    wrong: list[tuple[str, int, str, str, str]]  # (file, line, name, checker's answer, JAX's)
    missing: int  # sites the checker printed no reveal for
    seconds: float
    unknown: dict[str, int] = field(default_factory=dict[str, int])  # revealed text -> count
    unknown_sites: list[tuple[str, int, str, str]] = field(  # (file, line, name, revealed)
        default_factory=list[tuple[str, int, str, str]]
    )
    errors: list[tuple[str, int, str]] = field(  # (file, line of the corpus, the checker's message)
        default_factory=list[tuple[str, int, str]]
    )

    def as_dict(self) -> dict[str, Any]:
        return {
            "checker": self.checker,
            "intermediates": self.intermediates,
            "known": self.known,
            "known_pct": round(100 * self.known / max(self.intermediates, 1), 1),
            "correct_of_known": self.correct,
            "missing": self.missing,
            "seconds": round(self.seconds, 2),
            "unknown": dict(sorted(self.unknown.items(), key=lambda kv: -kv[1])),
            "unknown_sites": [{"file": f, "line": n, "name": x, "checker": c} for f, n, x, c in self.unknown_sites],
            "wrong": [{"file": f, "line": n, "name": x, "checker": c, "jax": j} for f, n, x, c, j in self.wrong],
            "errors": [{"file": f, "line": n, "message": m} for f, n, m in self.errors],
        }


def score(
    checker: str,
    truth: Truth,
    reveals: dict[tuple[str, int], list[str]],
    where: dict[tuple[str, int], Site],
    seconds: float,
) -> CheckerReach:
    known = correct = missing = 0
    wrong: list[tuple[str, int, str, str, str]] = []
    unknown: dict[str, int] = {}
    unknown_sites: list[tuple[str, int, str, str]] = []
    answered = {site: reveals.get(key) for key, site in where.items()}
    for site, jax_node in sorted(truth.nodes.items()):
        types = answered.get(site)
        if not types:
            missing += 1
            continue
        node = marker_of(types[0])
        if node is None:
            unknown[types[0]] = unknown.get(types[0], 0) + 1
            unknown_sites.append((*site, types[0]))
            continue
        known += 1
        if node == jax_node:
            correct += 1
        else:
            wrong.append((*site, types[0], MARKER_NAME[jax_node]))
    return CheckerReach(checker, len(truth.nodes), known, correct, wrong, missing, seconds, unknown, unknown_sites)


def check(checker: str, truth: Truth, files: dict[str, str], stubs: Path | None, repeat: int = 1) -> CheckerReach:
    """One checker's reach; its time is the median wall time of ``repeat`` runs."""
    staged, where = stage_reveals(files, set(truth.nodes))
    with tempfile.TemporaryDirectory(prefix=f"reach-{checker}-") as tmp:
        root = Path(tmp)
        paths = stage(staged, root)
        if stubs is not None:
            shutil.copytree(stubs, root / "typings")
        cmd = command(checker, root, paths, stubs=stubs is not None)
        times: list[float] = []
        out = ""
        for _ in range(repeat):
            start = time.perf_counter()
            out = execute(checker, root, cmd)
            times.append(time.perf_counter() - start)
        seconds = statistics.median(times)
        reveals = revealed(checker, out, root)
        errors = reported_errors(checker, out, root)
    result = score(checker, truth, reveals, where, seconds)
    result.errors = corpus_errors(files, staged, where, errors)
    return result


def corpus_errors(
    files: dict[str, str], staged: dict[str, str], where: dict[tuple[str, int], Site], errors: Errors
) -> list[tuple[str, int, str]]:
    """The errors reported on the staged copies of ``files``, at the files' own
    lines (a copy has a reveal_type line after each site and one import)."""
    out: list[tuple[str, int, str]] = []
    for name, text in staged.items():
        inserted_import = _reveal_import_after(files[name]) + 1  # its line in the copy
        original = 0
        line_of: dict[int, int] = {}
        for n in range(1, len(text.splitlines()) + 1):
            if (name, n) in where or n == inserted_import:
                continue
            original += 1
            line_of[n] = original
        for (path, n), found in sorted(errors.items()):
            if path == name and n in line_of:
                out += [(name, line_of[n], str(e)) for e in found]
    return out


def compare_times(checker: str, truth: Truth, files: dict[str, str], stubs: Path, repeat: int) -> tuple[float, float]:
    """(CPU seconds without the stubs, with them): each checker's median over
    ``repeat`` runs of each, the two kinds alternated so that the machine's
    load falls on both alike.  CPU time of the checker's processes, which a
    loaded machine inflates less than wall time."""
    staged, _ = stage_reveals(files, set(truth.nodes))
    times: dict[bool, list[float]] = {False: [], True: []}
    with tempfile.TemporaryDirectory(prefix=f"reach-time-{checker}-") as tmp:
        roots = _with_and_without(checker, staged, stubs, Path(tmp))
        for _ in range(repeat):
            for with_stubs in (False, True):
                root, cmd = roots[with_stubs]
                times[with_stubs].append(launch(checker, root, cmd).cpu)
    return statistics.median(times[False]), statistics.median(times[True])


def _with_and_without(
    checker: str, staged: dict[str, str], stubs: Path, tmp: Path
) -> dict[bool, tuple[Path, list[str]]]:
    """Two projects of the staged files, without the stubs and with them in
    typings/: {with the stubs: (root, the checker's command there)}."""
    roots: dict[bool, tuple[Path, list[str]]] = {}
    for with_stubs in (False, True):
        root = tmp / ("with" if with_stubs else "without")
        root.mkdir()
        paths = stage(staged, root)
        if with_stubs:
            shutil.copytree(stubs, root / "typings")
        roots[with_stubs] = (root, command(checker, root, paths, stubs=with_stubs))
    return roots


_VALGRIND_TOTAL = re.compile(r"^==\d+== I\s+refs:\s+([\d,]+)", re.M)


def count_instructions(checker: str, root: Path, cmd: list[str]) -> int:
    """Instructions executed by one run of ``cmd`` and every process it starts
    (valgrind's cachegrind, ``--cache-sim=no``; each process reports its own
    total, summed here)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("--instructions needs valgrind on PATH (apt install valgrind)")
    # --smc-check: node's JIT rewrites code in place, which valgrind must notice.
    done = launch(
        checker,
        root,
        [
            valgrind,
            "--tool=cachegrind",
            "--cache-sim=no",
            "--trace-children=yes",
            "--smc-check=all-non-file",
            "--cachegrind-out-file=/dev/null",
            *cmd,
        ],
        timeout=7200,
    )
    found = _VALGRIND_TOTAL.findall(done.stderr)
    if not found:
        raise SystemExit(f"valgrind gave no instruction count for {cmd[0]}:\n{done.stderr[-2000:]}")
    return sum(int(n.replace(",", "")) for n in found)


def compare_instructions(checker: str, truth: Truth, files: dict[str, str], stubs: Path) -> tuple[int, int]:
    """(instructions without the stubs, with them): one run of each."""
    staged, _ = stage_reveals(files, set(truth.nodes))
    counts: dict[bool, int] = {}
    with tempfile.TemporaryDirectory(prefix=f"reach-instr-{checker}-") as tmp:
        for with_stubs, (root, cmd) in _with_and_without(checker, staged, stubs, Path(tmp)).items():
            counts[with_stubs] = count_instructions(checker, root, cmd)
    return counts[False], counts[True]


# ------------------------------------------------------------- annotate
SPELLINGS = ("jaxtypes", "jax")

# Runs each file's main() when the corpus has no test suite of its own.
_MAINS_DRIVER = """\
import importlib

for name in {modules!r}:
    importlib.import_module(name).main()
"""


def driver_command(directory: Path) -> list[str]:
    """What ``jaxtypes annotate`` runs in a copy of ``directory``: the
    corpus's own test suite (``tests/``) under pytest, else a script calling
    each file's ``main()`` (written into the copy as ``run_mains.py``)."""
    if (directory / "tests").is_dir():
        return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
    modules = sorted(p.stem for p in directory.glob("*.py") if "\ndef main(" in p.read_text(encoding="utf-8"))
    (directory / "run_mains.py").write_text(_MAINS_DRIVER.format(modules=modules), encoding="utf-8")
    return [sys.executable, "run_mains.py"]


@dataclass
class Annotated:
    """A copy of a corpus rewritten by ``jaxtypes annotate``."""

    spelling: str
    directory: Path
    summary: str  # the command's first summary line
    seconds: float  # the recorded run and the rewrite


def annotate_copy(directory: Path, spelling: str, scratch: Path) -> Annotated:
    """Copy ``directory`` into ``scratch`` (under the same name, so that its
    modules keep theirs) and run ``jaxtypes annotate --spelling SPELLING --
    DRIVER`` there; a failing run (the suite failing after nothing was
    rewritten, or the command's error) stops the benchmark."""
    copy = scratch / spelling / directory.name
    shutil.copytree(directory, copy, ignore=shutil.ignore_patterns("__pycache__"))
    driver = driver_command(copy)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "jaxtypes", "annotate", "--spelling", spelling, "--", *driver],
        cwd=copy,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"jaxtypes annotate --spelling {spelling} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    run_mains = copy / "run_mains.py"
    if run_mains.exists():
        run_mains.unlink()  # the driver, not the corpus
    return Annotated(spelling, copy, done.stdout.splitlines()[0] if done.stdout else "", seconds)


# ------------------------------------------------------------------ main
def table_head(columns: list[str], more: tuple[str, ...] = ()) -> str:
    """A Markdown table's header row and rule: ``columns``, then ``more``."""
    names = [*columns, *more]
    return "| " + " | ".join(names) + " |\n|" + "---|" * len(names)


def table(results: list[CheckerReach]) -> str:
    rows = [
        "| checker | intermediates | known | known % | correct of known | error lines | seconds |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        rows.append(
            f"| {r.checker} | {r.intermediates} | {r.known} | "
            f"{100 * r.known / max(r.intermediates, 1):.1f}% | {r.correct}/{r.known} | "
            f"{len({(f, n) for f, n, _ in r.errors})} | {r.seconds:.1f} |"
        )
    for r in results:
        if r.missing:
            rows.append(f"\n{r.checker}: no reveal printed for {r.missing} intermediates")
        if r.wrong:
            rows.append(f"\n{r.checker} wrong ({len(r.wrong)}):")
            rows += [f"  {f}:{n} {x}: checker {c}, JAX {j}" for f, n, x, c, j in r.wrong]
        if r.errors:
            rows.append(f"\n{r.checker} errors ({len(r.errors)}):")
            rows += [f"  {f}:{n}: {m}" for f, n, m in r.errors]
    return "\n".join(rows)


def report(
    corpus: str, files: dict[str, str], truth: Truth, results: list[CheckerReach], stubs: Path | None
) -> dict[str, Any]:
    return {
        "corpus": corpus,
        "corpus_lines": sum(len(t.splitlines()) for t in files.values()),
        "jax_seconds": round(truth.run_seconds, 2),
        "stubs": str(stubs) if stubs else None,
        "varying": [f"{f}:{n} {x}" for f, n, x in sorted(truth.varying)],
        "non_lattice": len(truth.non_lattice),
        "checkers": [r.as_dict() for r in results],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--corpus",
        nargs="+",
        default=list(CORPORA),
        choices=list(CORPORA),
        help="which corpora to measure, each reported apart (default: both)",
    )
    parser.add_argument(
        "--corpus-dir",
        nargs="+",
        type=Path,
        default=[],
        metavar="DIR",
        help="measure these directories of code instead (each .py file's main() runs under jax.jit; "
        "a file without main() is left unrun)",
    )
    parser.add_argument(
        "--annotate",
        nargs="+",
        default=[],
        choices=SPELLINGS,
        metavar="SPELLING",
        help="also measure each corpus after `jaxtypes annotate --spelling SPELLING -- DRIVER` on a copy "
        f"({', '.join(SPELLINGS)}); DRIVER is the corpus's tests/ under pytest, else each file's main()",
    )
    parser.add_argument("--checkers", nargs="+", default=list(CHECKERS), choices=CHECKERS)
    parser.add_argument(
        "--stubs", type=Path, metavar="DIR", help="stubs made by `jaxtypes jax-stubs --out DIR`, staged as typings/"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--repeat", type=int, default=1, help="time each checker this many times (median); default 1")
    parser.add_argument(
        "--compare-times",
        action="store_true",
        help="with --stubs: each checker's CPU time without and with the stubs, "
        "alternated --repeat times, and their ratio",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="with --compare-times: also count the instructions of one run of each (valgrind, whole process tree)",
    )
    args = parser.parse_args(argv)
    if args.compare_times and args.stubs is None:
        parser.error("--compare-times needs --stubs DIR")
    if args.instructions and not args.compare_times:
        parser.error("--instructions needs --compare-times")
    if args.stubs is not None and not (args.stubs / ".search-path").is_dir():
        parser.error(
            f"--stubs {args.stubs}: not a directory made by `jaxtypes jax-stubs --out DIR` (no .search-path inside)"
        )
    if args.repeat < 1:
        parser.error(f"--repeat {args.repeat}: must be at least 1")
    for directory in args.corpus_dir:
        if not any(directory.glob("*.py")):
            parser.error(f"--corpus-dir {directory}: no .py files there")
    if args.annotate and args.compare_times:
        parser.error("--annotate measures reach; time the checkers without it")
    corpora = {d.name: d for d in args.corpus_dir} if args.corpus_dir else {c: CORPORA[c] for c in args.corpus}
    with tempfile.TemporaryDirectory(prefix="reach-annotated-") as scratch:
        variants: dict[str, Path] = {}
        notes: dict[str, str] = {}
        for corpus, directory in corpora.items():
            variants[corpus] = directory
            for spelling in args.annotate:
                done = annotate_copy(directory, spelling, Path(scratch))
                label = f"{corpus}, after jaxtypes annotate --spelling {spelling}"
                variants[label] = done.directory
                notes[label] = f"{done.summary} ({done.seconds:.0f} s)"
        return _measure(args, variants, notes)


def _measure(args: argparse.Namespace, corpora: dict[str, Path], notes: dict[str, str]) -> int:
    several = len(corpora) > 1
    reports: list[dict[str, Any]] = []
    for corpus, directory in corpora.items():
        files = corpus_files(directory)
        truth = collect_truth(files, directory=directory)
        if several and not args.json:
            print(f"\n## {corpus}\n")
        if corpus in notes and not args.json:
            print(notes[corpus])
        if args.compare_times:
            assert args.stubs is not None
            print(
                table_head(
                    ["checker", "CPU s without the stubs", "CPU s with them", "ratio"],
                    ("G instructions without", "with", "ratio") if args.instructions else (),
                ),
                flush=True,
            )
            for c in args.checkers:
                without, with_ = compare_times(c, truth, files, args.stubs, args.repeat)
                row = f"| {c} | {without:.2f} | {with_:.2f} | {with_ / without:.2f}x |"
                if args.instructions:
                    i_without, i_with = compare_instructions(c, truth, files, args.stubs)
                    row += f" {i_without / 1e9:.2f} | {i_with / 1e9:.2f} | {i_with / i_without:.2f}x |"
                print(row, flush=True)
            continue
        results = [check(c, truth, files, args.stubs, args.repeat) for c in args.checkers]
        if args.json:
            reports.append(report(corpus, files, truth, results, args.stubs) | {"annotate": notes.get(corpus)})
            continue
        print(
            f"corpus: {len(files)} files, {sum(len(t.splitlines()) for t in files.values())} lines; "
            f"{len(truth.nodes)} array-valued intermediates (JAX ran in {truth.run_seconds:.1f} s)"
            + (f"; stubs: {args.stubs}" if args.stubs else "")
        )
        if truth.varying:
            print(
                "not counted, dtype differed between calls: "
                + ", ".join(f"{f}:{n} {x}" for f, n, x in sorted(truth.varying))
            )
        print(table(results), flush=True)
    if reports:  # one corpus: its object as before; several: a list of them
        print(json.dumps(reports if several else reports[0], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
