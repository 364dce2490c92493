"""Encodings: what each way of typing JAX's functions costs the checkers, beside what it knows.

Run by hand, from the checkout's root::

    python -m benchmarks.encodings --stubs DIR [--corpus model_corpus] [--checkers ...] [--repeat 3] [--instructions]

``DIR`` is made by ``jaxtypes jax-stubs --out DIR``.  From it this derives
candidate encodings of JAX's functions (``CANDIDATES``; Array's operators and
methods are the same in all of them) and measures, for each checker, on a
corpus of ``benchmarks.reach``:

- the CPU time of the checker without stubs (JAX's own declarations) and with
  each candidate, all alternated ``--repeat`` times in one run (medians; the
  ratio to plain JAX is what docs/costs.md reports);
- with ``--instructions``, one run of each under valgrind (as
  ``benchmarks.reach --instructions``), which a loaded machine does not move;
- each candidate's reach: array values whose dtype the checker knows, and how
  many of those are wrong (JAX's answers, as ``benchmarks.reach`` finds them).
  Without stubs a checker still knows the values of ``jaxtypes.Array``
  parameters and their operators (jaxtypes' own stubs): the "plain JAX" row.

The rows are the frontier of reach against time: an encoding that knows no
more than another but costs more is not worth shipping.
"""

from __future__ import annotations

import argparse
import ast
import copy
import shutil
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path

from benchmarks import reach
from tools.checkers import command, launch, stage

# A derived tree keeps the layout `jaxtypes jax-stubs --out` writes: the stub
# packages and the per-checker copies of their modules.
_JAX_TREES = ("jax-stubs", ".search-path/jax", ".mypy-path/jax")

# The first array parameter of the overloads that take NumPy values or one
# Python scalar kind (jaxtypes._stubgen.function_overloads, steps 3 and 4).
_SCALAR_ANNOTATIONS = frozenset(
    {"builtins.bool", "builtins.int", "builtins.float", "builtins.complex", "_np.generic | _np.ndarray[Any, Any]"}
)


def _takes_scalar(fn: ast.FunctionDef) -> bool:
    """An overload whose required positional parameters include a Python
    scalar or NumPy input."""
    args = fn.args
    positional = args.posonlyargs + args.args
    required = positional[: len(positional) - len(args.defaults)]
    return any(p.annotation is not None and ast.unparse(p.annotation) in _SCALAR_ANNOTATIONS for p in required)


def jax_declaration(overloads: list[ast.FunctionDef]) -> list[ast.FunctionDef]:
    """JAX's own declaration (each typed function's last overload) alone."""
    return [overloads[-1]]


def array_inputs(overloads: list[ast.FunctionDef]) -> list[ast.FunctionDef]:
    """The overloads for arrays and ``dtype=``, without those for NumPy values
    and Python scalars (which then get JAX's ``Array``)."""
    return [fn for fn in overloads[:-1] if not _takes_scalar(fn)] + overloads[-1:]


# A marker: not a cut of a function's overloads but one shared callable class
# per distinct list of overloads (``shared_callables``).
SHARED = "shared"

# name -> (what it is, which of a function's overloads it keeps); None: all.
CANDIDATES: dict[str, tuple[str, Callable[[list[ast.FunctionDef]], list[ast.FunctionDef]] | str | None]] = {
    "operators-only": ("JAX's declarations of its functions; Array's operators and methods typed", jax_declaration),
    "array-inputs": ("functions typed for arrays and dtype=, not for Python scalars or NumPy values", array_inputs),
    "shared-callables": (
        "the full overloads, in one callable class per distinct list of them, which its functions share",
        SHARED,
    ),
    "full": ("as `jaxtypes jax-stubs` generates them", None),
}


def _is_overload(node: ast.stmt) -> bool:
    return isinstance(node, ast.FunctionDef) and any(ast.unparse(d) == "overload" for d in node.decorator_list)


def _replace_overloads(text: str, replacement: Callable[[str, list[ast.FunctionDef]], str]) -> str:
    """A stub module's text with each module-level overloaded function's
    overloads replaced by ``replacement(name, overloads)``; every other line
    (comments included) as it was."""
    tree = ast.parse(text)
    groups: dict[str, list[ast.FunctionDef]] = {}
    for node in tree.body:
        if _is_overload(node):
            assert isinstance(node, ast.FunctionDef)
            groups.setdefault(node.name, []).append(node)
    lines = text.splitlines(keepends=True)
    replace: dict[int, str] = {}  # first line (0-based) of a function's overloads -> its new text
    dropped: set[int] = set()
    for name, fns in groups.items():
        first = fns[0].decorator_list[0].lineno - 1
        dropped.update(range(first, fns[-1].end_lineno or fns[-1].lineno))
        replace[first] = replacement(name, fns)
    out: list[str] = []
    for i, line in enumerate(lines):
        out.append(replace.get(i, ""))
        if i not in dropped:
            out.append(line)
    return "".join(out)


def derive_module(text: str, keep: Callable[[list[ast.FunctionDef]], list[ast.FunctionDef]]) -> str:
    """A stub module's text with each module-level overloaded function cut to
    the overloads ``keep`` returns (one left: a plain declaration)."""
    lines = text.splitlines(keepends=True)

    def cut(name: str, fns: list[ast.FunctionDef]) -> str:
        kept = keep(fns)
        if len(kept) == 1:  # no @overload on a lone declaration
            return "".join(lines[kept[0].lineno - 1 : kept[0].end_lineno]) + "\n"
        return "".join("".join(lines[fn.decorator_list[0].lineno - 1 : fn.end_lineno]) + "\n" for fn in kept)

    return _replace_overloads(text, cut)


def _as_method(fn: ast.FunctionDef) -> ast.FunctionDef:
    """An overload of a function as an overload of ``__call__``."""
    method = copy.deepcopy(fn)
    method.name = "__call__"
    args = method.args
    if args.posonlyargs:
        args.posonlyargs.insert(0, ast.arg("self"))
    else:
        args.args.insert(0, ast.arg("self"))
    method.decorator_list = [ast.Name("overload")]
    return ast.fix_missing_locations(method)


def shared_callables(text: str) -> str:
    """A stub module's text with each overloaded function declared as an
    instance of a callable class whose ``__call__`` has its overloads, one
    class for all the functions whose overloads are the same (as the
    operators share their tables): a checker evaluates each class once."""
    classes: dict[str, str] = {}  # the overloads' text -> class name
    methods: dict[str, list[ast.FunctionDef]] = {}  # class name -> its overloads

    def declare(name: str, fns: list[ast.FunctionDef]) -> str:
        key = "\n".join(f"{ast.unparse(fn.args)} -> {ast.unparse(fn.returns or ast.Constant(None))}" for fn in fns)
        cls = classes.setdefault(key, f"_SharedCallable{len(classes)}")
        methods.setdefault(cls, fns)
        return f"{name}: {cls}\n\n"

    out = _replace_overloads(text, declare)
    for cls, fns in methods.items():
        out += f"\nclass {cls}:\n" + "".join(
            "\n".join("    " + line for line in ast.unparse(_as_method(fn)).splitlines()) + "\n" for fn in fns
        )
    return out


def derive(stubs: Path, out: Path, candidate: str) -> Path:
    """``out``: a copy of the stubs tree ``stubs`` in the given candidate encoding."""
    keep = CANDIDATES[candidate][1]
    shutil.copytree(stubs, out)
    if keep is not None:
        for tree in _JAX_TREES:
            for path in sorted((out / tree).rglob("*.pyi")):
                text = path.read_text()
                path.write_text(shared_callables(text) if isinstance(keep, str) else derive_module(text, keep))
    return out


def measure(
    checker: str,
    truth: reach.Truth,
    files: dict[str, str],
    candidates: dict[str, Path],
    repeat: int,
    instructions: bool,
) -> dict[str | None, tuple[float, int | None]]:
    """{candidate (None: no stubs): (median CPU seconds, instructions or None)}."""
    staged, _ = reach.stage_reveals(files, set(truth.nodes))
    times: dict[str | None, list[float]] = {None: [], **{name: [] for name in candidates}}
    counts: dict[str | None, int | None] = dict.fromkeys(times)
    with tempfile.TemporaryDirectory(prefix=f"encodings-{checker}-") as tmp:
        roots: dict[str | None, tuple[Path, list[str]]] = {}
        for name in times:
            root = Path(tmp) / (name or "jax")
            root.mkdir()
            paths = stage(staged, root)
            if name is not None:
                shutil.copytree(candidates[name], root / "typings")
            roots[name] = (root, command(checker, root, paths, stubs=name is not None))
        for _ in range(repeat):
            for name, (root, cmd) in roots.items():
                times[name].append(launch(checker, root, cmd).cpu)
        if instructions:
            for name, (root, cmd) in roots.items():
                counts[name] = reach.count_instructions(checker, root, cmd)
    return {name: (statistics.median(t), counts[name]) for name, t in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--stubs", type=Path, metavar="DIR", required=True, help="stubs made by `jaxtypes jax-stubs --out DIR`"
    )
    parser.add_argument("--corpus", default="model_corpus", choices=list(reach.CORPORA))
    parser.add_argument("--checkers", nargs="+", default=list(reach.CHECKERS), choices=reach.CHECKERS)
    parser.add_argument(
        "--candidates", nargs="+", default=list(CANDIDATES), choices=list(CANDIDATES), help="default: all"
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each (median); default 3")
    parser.add_argument("--instructions", action="store_true", help="also count one run's instructions (valgrind)")
    args = parser.parse_args(argv)
    if not (args.stubs / ".search-path").is_dir():
        parser.error(
            f"--stubs {args.stubs}: not a directory made by `jaxtypes jax-stubs --out DIR` (no .search-path inside)"
        )
    if args.repeat < 1:
        parser.error(f"--repeat {args.repeat}: must be at least 1")
    files = reach.corpus_files(reach.CORPORA[args.corpus])
    truth = reach.collect_truth(files, execute=False, directory=reach.CORPORA[args.corpus])
    print(f"{args.corpus}: {sum(len(t.splitlines()) for t in files.values())} lines, {len(truth.nodes)} array values")
    for name in args.candidates:
        print(f"- {name}: {CANDIDATES[name][0]}")
    columns = ["checker", "encoding", "known", "wrong", "CPU s", "CPU ratio"]
    more = ("G instructions", "instructions ratio") if args.instructions else ()
    print("\n" + reach.table_head(columns, more), flush=True)
    with tempfile.TemporaryDirectory(prefix="encodings-") as tmp:
        candidates = {name: derive(args.stubs, Path(tmp) / name, name) for name in args.candidates}
        for checker in args.checkers:
            measured = measure(checker, truth, files, candidates, args.repeat, args.instructions)
            base_cpu, base_count = measured[None]
            rows: list[tuple[str, str, str]] = []
            for name, path in [("plain JAX", None), *candidates.items()]:
                found = reach.check(checker, truth, files, path)
                rows.append((name, str(found.known), str(len(found.wrong))))
            for (label, known, wrong), (cpu, count) in zip(rows, measured.values()):
                row = f"| {checker} | {label} | {known} | {wrong} | {cpu:.2f} | {cpu / base_cpu:.2f}x |"
                if count is not None and base_count:
                    row += f" {count / 1e9:.2f} | {count / base_count:.2f}x |"
                print(row, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
