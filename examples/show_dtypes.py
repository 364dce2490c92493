"""Type-check examples/mixed_precision.py with each checker; print the dtypes.

mypy runs with the jaxtypes plugin (examples/mypy.ini), the other checkers
with the shipped stubs; each reveal_type() line becomes a row of the table.
Run from a checkout after installing the project with its test extra.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLE = "mixed_precision.py"
BIN = Path(sys.executable).parent


def _short(t: str) -> str:
    t = re.sub(r"jaxtypes\.(_array|markers)\.", "", t)
    return t.replace("jaxtypes.", "")


def reveals(checker: str, work: Path) -> dict[int, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if checker == "mypy (plugin)":
        cmd = [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--no-incremental", EXAMPLE]
        pattern = r"^mixed_precision\.py:(\d+): note: Revealed type is \"(.*)\"$"
    elif checker in ("pyright", "basedpyright"):
        cmd = [str(BIN / checker), "--outputjson", "--pythonpath", sys.executable, EXAMPLE]
        out = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True).stdout
        return {d["range"]["start"]["line"] + 1: re.sub(r'^Type of ".*" is "(.*)"$', r"\1", d["message"])
                for d in json.loads(out)["generalDiagnostics"] if d["severity"] == "information"}
    elif checker == "pyrefly":
        # No walk-up search path: from the installed jaxtypes it would reach this
        # checkout's source tree (which has no stubs) through .venv's parents.
        cmd = [str(BIN / "pyrefly"), "check", "--preset", "default", "--python-interpreter-path",
               sys.executable, "--disable-search-path-heuristics", "--search-path", ".",
               "--output-format", "min-text", "--summary=none", EXAMPLE]
        pattern = r"^ INFO mixed_precision\.py:(\d+):[\d:-]+ revealed type: (.*) \[reveal-type\]$"
    else:
        cmd = [str(BIN / "ty"), "check", "--python", sys.prefix, "--output-format", "concise",
               "--color", "never", EXAMPLE]
        pattern = r"^mixed_precision\.py:(\d+):\d+: info\[revealed-type\] Revealed type: `(.*)`$"
    out = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True).stdout
    return {int(m.group(1)): m.group(2) for m in re.finditer(pattern, out, re.M)}


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="jaxtypes-example-"))
    shutil.copy(HERE / EXAMPLE, work / EXAMPLE)
    shutil.copy(HERE / "mypy.ini", work / "mypy.ini")
    checkers = ["mypy (plugin)", "pyright", "basedpyright", "pyrefly", "ty"]
    results = {c: reveals(c, work) for c in checkers}
    source = (HERE / EXAMPLE).read_text().splitlines()
    lines = sorted({n for r in results.values() for n in r})
    print(f"Inferred types in examples/{EXAMPLE}:\n")
    print("| expression | " + " | ".join(checkers) + " |")
    print("|---" * (len(checkers) + 1) + "|")
    for n in lines:
        expr = re.sub(r"^\s*reveal_type\((.*)\)\s*(#.*)?$", r"\1", source[n - 1]).strip()
        cells = [_short(results[c].get(n, "-")) for c in checkers]
        print(f"| `{expr}` | " + " | ".join(cells) + " |")
    missing = [c for c in checkers if not results[c]]
    if missing:
        print(f"\nno output from: {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
