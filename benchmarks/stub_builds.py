"""Two builds of the JAX stubs compared on calls of JAX's functions of one array.

Run by hand, from the checkout's root::

    python -m benchmarks.stub_builds --before DIR --after DIR [--calls 400] [--repeat 5] [--checkers ...] [--methods]

Each ``DIR`` is made by ``jaxtypes jax-stubs --out DIR``, typically at two
revisions of jaxtypes (``git stash``, or a worktree of the earlier commit).
The file checked is generated (``calls_file``): functions of twenty calls
each of ``jnp.sqrt``, ``jnp.mean``, ``jax.nn.gelu``, ``jnp.argmax`` ... on
float32, bfloat16 and int32 arrays (two in five of an integer array, which
reaches a typed overload after the first), as model code calls them. Each
checker checks it with either build, the two alternated ``--repeat`` times
in one run; the table gives the median CPU seconds of each (the checker's
process tree) and their ratio, which includes reading the stubs. mypy runs
cold (``--no-incremental``).  With ``--methods`` the calls are the array's
own reductions (``x.sum()``, ``x.var()`` ...), which read its dtype's table
through a descriptor.  docs/costs.md quotes the figures.
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import statistics
import tempfile
from pathlib import Path

from tools import checkers

# The functions of one array called, as model code writes them.
CALLS = (
    "jnp.sqrt({})",
    "jnp.exp({})",
    "jnp.tanh({})",
    "jnp.log({})",
    "jnp.square({})",
    "jnp.abs({})",
    "jnp.mean({}, axis=-1)",
    "jnp.max({}, axis=0)",
    "jnp.argmax({}, axis=-1)",
    "jax.nn.gelu({})",
    "jax.nn.relu({})",
    "jax.nn.softmax({}, axis=-1)",
)
# The array's own reductions (``--methods``), as model code writes them.
METHOD_CALLS = ("{}.sum()", "{}.mean(axis=-1)", "{}.var()", "{}.std(axis=0)", "{}.max(axis=0)", "{}.argmax(axis=-1)")
# The arguments: a float32, a bfloat16 and an int32 array (x, b, i).
ARGUMENTS = ("x", "b", "i", "x", "b")
PER_FUNCTION = 20


def calls_file(calls: int, seed: int = 0, methods: bool = False) -> str:
    """The checked file: ``calls`` calls (rounded up to functions of
    ``PER_FUNCTION``) of ``CALLS`` (``METHOD_CALLS``), each assigned to a name."""
    chosen = METHOD_CALLS if methods else CALLS
    rng = random.Random(seed)
    lines = ["import jax", "import jax.numpy as jnp", "from jaxtypes import bfloat16, float32, int32", ""]
    for k in range(-(-calls // PER_FUNCTION)):
        lines.append(f"def f{k}(x: jax.Array[float32], b: jax.Array[bfloat16], i: jax.Array[int32]) -> None:")
        lines += [f"    y{j} = {rng.choice(chosen).format(rng.choice(ARGUMENTS))}" for j in range(PER_FUNCTION)]
        lines.append("")
    return "\n".join(lines) + "\n"


def _cpu_seconds(checker: str, root: Path) -> float:
    """The CPU seconds of one check of ``calls.py`` in ``root`` (cold, for mypy)."""
    shutil.rmtree(root / ".mypy_cache", ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    checkers.execute(checker, root, checkers.command(checker, root, ["calls.py"], stubs=True))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, metavar="DIR", help="the earlier build's stubs")
    parser.add_argument("--after", type=Path, required=True, metavar="DIR", help="the later build's stubs")
    parser.add_argument("--calls", type=int, default=400, help="calls in the checked file (default 400)")
    parser.add_argument("--repeat", type=int, default=5, help="alternated runs per build (default 5)")
    parser.add_argument("--checkers", nargs="+", default=list(checkers.CHECKERS), choices=checkers.CHECKERS)
    parser.add_argument("--methods", action="store_true", help="call the array's reductions, not JAX's functions")
    args = parser.parse_args(argv)
    for name in ("before", "after"):
        if not (getattr(args, name) / ".search-path").is_dir():
            parser.error(f"--{name} {getattr(args, name)}: not a directory made by `jaxtypes jax-stubs --out DIR`")
    if args.calls < 1 or args.repeat < 1:
        parser.error(f"--calls {args.calls}, --repeat {args.repeat}: each must be at least 1")
    with tempfile.TemporaryDirectory(prefix="stub-builds-") as scratch:
        roots: dict[str, Path] = {}
        for name in ("before", "after"):
            root = roots[name] = Path(scratch) / name
            root.mkdir()
            (root / "calls.py").write_text(calls_file(args.calls, methods=args.methods), encoding="utf-8")
            shutil.copytree(getattr(args, name), root / checkers.STUBS, symlinks=True)
        print("| checker | CPU s before | CPU s after | ratio |\n|---|---|---|---|", flush=True)
        for checker in args.checkers:
            times: dict[str, list[float]] = {"before": [], "after": []}
            for _ in range(args.repeat):
                for name, root in roots.items():
                    times[name].append(_cpu_seconds(checker, root))
            before, after = statistics.median(times["before"]), statistics.median(times["after"])
            print(f"| {checker} | {before:.2f} | {after:.2f} | {after / before:.2f}x |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
