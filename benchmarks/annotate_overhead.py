"""What `jaxtypes annotate` costs a run: its time against the plain run's.

Copies a corpus of model code (``benchmarks/flax_corpus``, Flax models
written as public Flax projects write them, by default) into a scratch
directory with a driver that imports each file and calls its ``main()``
(each initialises and applies a model, some take a training step), then
times the driver run plainly (``python driver.py``) and under
``jaxtypes annotate --diff -- python driver.py`` (recording, then the
rewrite shown as a diff, nothing written), alternately, each the best of
``--repeat`` runs, and prints both and their ratio: in CPU time (user and
system, of the processes run), which other work on the machine changes
little, and in wall time.  The issue that asked for the command allows at
most 2x.

    python -m benchmarks.annotate_overhead [--corpus flax_corpus|model_corpus|user_corpus] [--repeat N]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPORA = ("flax_corpus", "model_corpus", "user_corpus")

DRIVER = '''\
import importlib
import sys

for name in {modules!r}:
    module = importlib.import_module(name)
    module.main()
print("ran", len({modules!r}), "main() functions", file=sys.stderr)
'''


def _timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.annotate_overhead", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument(
        "--corpus", choices=CORPORA, default="flax_corpus", help="the code to run (default: flax_corpus)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, the best counts (default: 3)")
    args = parser.parse_args(argv)
    source = HERE / args.corpus
    modules = sorted(p.stem for p in source.glob("*.py") if "\ndef main(" in p.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="annotate-overhead-") as scratch:
        project = Path(scratch)
        for path in source.glob("*.py"):
            shutil.copy(path, project / path.name)
        (project / "driver.py").write_text(DRIVER.format(modules=modules), encoding="utf-8")
        plain_command = [sys.executable, "driver.py"]
        annotate_command = [sys.executable, "-m", "jaxtypes", "annotate", "--diff", "--", *plain_command]
        plain: list[tuple[float, float]] = []
        recorded: list[tuple[float, float]] = []
        for _ in range(args.repeat):  # alternately: a change of load hits both
            plain.append(_timed(plain_command, project))
            recorded.append(_timed(annotate_command, project))
    print(f"corpus: benchmarks/{args.corpus} ({len(modules)} main() functions), best of {args.repeat}")
    for what, index in (("CPU", 0), ("wall", 1)):
        best_plain = min(t[index] for t in plain)
        best_recorded = min(t[index] for t in recorded)
        print(
            f"{what:>4}: plain {best_plain:.1f} s, under jaxtypes annotate {best_recorded:.1f} s: "
            f"{best_recorded / best_plain:.2f}x (at most 2x asked)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
