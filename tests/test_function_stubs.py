"""JAX's functions with the stubs of `jaxtypes jax-stubs`, against JAX's answers.

``typecheck_cases/functions/*.py`` (made by tools/generate.py from the
function oracle's data, tools/data/jax_function_dtypes.json) holds calls of
JAX's functions as the oracle made them, each with JAX's answer in a comment.
Each set-up reveals every line's type with the stubs, configured as a user
does (``tools/checkers.py``), and:

* no answer may be wrong: a revealed ``Array[marker]`` must be JAX's dtype,
  and a call JAX refuses must not be given a dtype;
* an unknown answer (``Array[Any]``, a bare ``Array``) is allowed, but the
  count of right answers may not drop below the one measured when the stubs
  were made (``KNOWN``), so lost coverage fails too.

The default run checks a third of the functions (tests/case_sample.py) and
``pytest -m slow`` (which CI runs) the others; the x64 cases, with the mypy
plugin set to ``x64 = true``, are under ``pytest -m slow`` too.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools.checkers import MYPY_PLUGIN, command, execute, plugin_config, revealed, stage

import case_sample
import project_runs
from environments import mypy_in, user_env

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "typecheck_cases" / "functions"
ANSWER = re.compile(r"#\s*JAX:\s*(?P<answer>error\s+\w+|[\w,]+)\s*$")
ARRAY = re.compile(r"^(?:[\w.]+\.)?Array\[(?:[\w.]+\.)?(?P<marker>\w+)\]$")
MARKER = re.compile(r"Array\[(?:[\w.]+\.)?(\w+)\]")
FALLBACK = re.compile(r", fallback=.*\]$")
UNKNOWN = re.compile(r"^(?:[\w.]+\.)?Array(?:\[(?:Any|Unknown)\])?$|^Any$|^Unknown$")

SETUPS = ("mypy", MYPY_PLUGIN, "pyright", "basedpyright", "pyrefly", "ty")
# Right answers of standard-x32.py per set-up and part (the default run's
# sample of the functions, the rest) when the stubs were last measured: a
# drop means calls the stubs typed before are unknown now.
KNOWN = {
    "mypy": {"sampled": 900, "rest": 1976},
    MYPY_PLUGIN: {"sampled": 962, "rest": 2129},
    "pyright": {"sampled": 902, "rest": 1976},
    "basedpyright": {"sampled": 902, "rest": 1976},
    "pyrefly": {"sampled": 915, "rest": 1989},
    "ty": {"sampled": 933, "rest": 2005},
}
KNOWN_X64_PLUGIN = 3148


def answers(text: str) -> dict[int, str]:
    return {n: m.group("answer") for n, line in enumerate(text.splitlines(), 1) if (m := ANSWER.search(line))}


def verdict(revealed_type: str, answer: str) -> str:
    """'right', 'unknown' or 'wrong' for a checker's revealed type: every
    array in it with a known dtype must have JAX's (the oracle records a
    list's or tuple's of one dtype as that dtype); with none, the answer is
    unknown.  For results of different dtypes (``float32,int32``) each known
    one must be JAX's for its place."""
    # (mypy shows a NamedTuple of results as its items and, again, its class:
    # "tuple[Array[X], Array[Y], fallback=...Result[Array[X], Array[Y]]]")
    text = FALLBACK.sub("]", revealed_type.strip())
    if UNKNOWN.match(text):
        return "unknown"
    parts = answer.split(",")
    if len(parts) > 1:  # results of different dtypes (top_k): each known one must be JAX's
        found = MARKER.findall(text)
        known = [(got, want) for got, want in zip(found, parts) if got not in ("Any", "Unknown")]
        if not known:
            return "unknown"
        return "right" if len(found) == len(parts) and all(g == w for g, w in known) else "wrong"
    markers = [m for m in MARKER.findall(text) if m not in ("Any", "Unknown")]
    if not markers:  # JAX's own typing: Array, a NamedTuple of arrays, Any
        return "unknown"
    if not answer.startswith("error") and all(m == answer for m in markers):  # (every result, for one dtype)
        return "right"
    return "wrong"


@pytest.fixture(scope="module")
def typings() -> Path:
    return project_runs.typings()


def _reveals(
    setup: str, case: str, text: str, typings: Path, root: Path, mypy_config: str | None = None
) -> dict[tuple[str, int], list[str]]:
    """A run of its own over one case file, with the stubs in ``root/typings``."""
    shutil.copytree(typings, root / "typings")
    paths = stage({case: text}, root)
    return revealed(setup, execute(setup, root, command(setup, root, paths, mypy_config=mypy_config, stubs=True)), root)


def _check(setup: str, case: str, typings: Path, root: Path, mypy_config: str | None = None) -> dict[str, list[str]]:
    text = (CASES / case).read_text()
    return _verdicts(case, text, _reveals(setup, case, text, typings, root, mypy_config))


def _verdicts(case: str, text: str, reveals: dict[tuple[str, int], list[str]]) -> dict[str, list[str]]:
    lines = text.splitlines()
    result: dict[str, list[str]] = {"right": [], "unknown": [], "wrong": [], "missing": []}
    for n, answer in answers(text).items():
        got = reveals.get((case, n))
        if not got:
            result["missing"].append(f"{case}:{n}: {lines[n - 1].strip()}")
            continue
        result[verdict(got[0], answer)].append(f"{case}:{n}: {got[0]} for {lines[n - 1].strip()}")
    return result


# JAX's default configuration's cases: a sample of the functions joins the
# session's one run per set-up with the stubs (tests/project_runs.py); the
# rest (`pytest -m slow`, and CI) is a run of its own per set-up.
DEFAULT_CASES = "functions/standard-x32.py"


def _default_cases(part: str) -> str:
    return case_sample.function_cases_part((CASES / "standard-x32.py").read_text(), part)


project_runs.register(stubs=True, files=lambda setup: {DEFAULT_CASES: _default_cases("sampled")})


def test_results_of_varying_dtypes_keep_jax_s_return(typings: Path) -> None:
    """The functions whose several results no rule gives each a dtype
    (function_rules.SEVERAL_RESULT_DTYPES) return what JAX declares; one whose
    others the rule gives (top_k) returns them."""
    from jaxtypes import function_rules

    def returns(name: str) -> list[str]:
        module, _, short = name.rpartition(".")
        rel = module.split(".")[1:]
        for path in (
            (typings / "jax-stubs").joinpath(*rel).with_suffix(".pyi"),
            (typings / "jax-stubs").joinpath(*rel, "__init__.pyi"),
        ):
            if path.is_file():
                tree = ast.parse(path.read_text())
                return [
                    ast.unparse(f.returns)
                    for f in tree.body
                    if isinstance(f, ast.FunctionDef) and f.name == short and f.returns is not None
                ]
        return []

    for name in function_rules.SEVERAL_RESULT_DTYPES:
        assert not [r for r in returns(name) if "_jaxtypes_markers" in r], name
    assert "tuple[Array[_JaxtypesV], Array[_JaxtypesW]]" in returns("jax.lax.top_k")


def test_cases_are_generated() -> None:
    text = (CASES / "standard-x32.py").read_text()
    assert len(answers(text)) > 3000


PARTS = [pytest.param(p, marks=pytest.mark.slow) if p == "rest" else p for p in case_sample.PARTS]


@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("setup", SETUPS)
def test_no_wrong_answer_with_the_stubs(setup: str, part: str, typings: Path, tmp_path: Path) -> None:
    text = _default_cases(part)
    if part == "sampled":
        reveals = project_runs.project_run(setup, True).reveals("functions")
    else:
        reveals = _reveals(setup, DEFAULT_CASES, text, typings, tmp_path)
    result = _verdicts(DEFAULT_CASES, text, reveals)
    counts = {k: len(v) for k, v in result.items()}
    print(f"{setup} ({part}): {counts}")
    assert not result["wrong"], f"{setup}: {len(result['wrong'])} wrong\n" + "\n".join(result["wrong"][:40])
    # (pyright prints no reveal after lax.optimization_barrier's first calls: unknown)
    assert len(result["missing"]) <= 4, result["missing"][:5]
    known = KNOWN[setup][part]
    assert counts["right"] >= known, f"{setup}: {counts['right']} right, {known} before"


@pytest.mark.slow  # a sweep of every function in another configuration: `pytest -m slow`, and CI
def test_plugin_gives_x64_answers(typings: Path, tmp_path: Path) -> None:
    result = _check(MYPY_PLUGIN, "standard-x64.py", typings, tmp_path, plugin_config(x64=True))
    counts = {k: len(v) for k, v in result.items()}
    print(f"mypy-plugin x64: {counts}")
    assert not result["wrong"], f"{len(result['wrong'])} wrong\n" + "\n".join(result["wrong"][:40])
    assert counts["right"] >= KNOWN_X64_PLUGIN


# ------------------------------------------------------- strict promotion
STRICT_CALLS = {
    "jnp.maximum(b, f)": None,
    "jnp.where(m, b, f)": None,
    "jnp.concatenate([b, f])": None,
    "jnp.einsum('ij,jk->ik', b, f)": None,
    "jnp.maximum(f, 1.0)": "float32",
    "jnp.where(m, f, f)": "float32",
    "jnp.sqrt(i)": "float32",
    "jnp.dot(b, b)": "bfloat16",
    "jnp.add(i, 2)": "int8",
}


def _jax_under_strict() -> dict[str, str | None]:
    """What JAX gives for each call with strict promotion and x64 (None: it raises)."""
    code = (
        "import json, jax\n"
        "jax.config.update('jax_enable_x64', True)\n"
        "import jax.numpy as jnp\n"
        "b = jnp.ones((2, 2), jnp.bfloat16); f = jnp.ones((2, 2), jnp.float32)\n"
        "i = jnp.ones((2, 2), jnp.int8); m = f > 0\n"
        "out = {}\n"
        f"for call in {list(STRICT_CALLS)!r}:\n"
        "    with jax.numpy_dtype_promotion('strict'):\n"
        "        try:\n"
        "            out[call] = str(eval(call).dtype)\n"
        "        except jax.errors.JaxRuntimeError:\n"
        "            raise\n"
        "        except Exception:\n"
        "            out[call] = None\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    import json

    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_plugin_strict_promotion_in_functions(tmp_path: Path) -> None:
    """With promotion = "strict" (and x64: the configuration
    tests/test_jax_stubs.py checks the installed stubs in, so that the two
    share one cold mypy analysis of JAX), a function whose arrays JAX will not
    promote implicitly is a jax-promotion error, and the only error of its
    line (not with a [type-var] of an overload mypy tried), the others give
    JAX's dtype."""
    truth = _jax_under_strict()
    assert truth == STRICT_CALLS  # (the written-out answers are JAX's)
    body = "\n".join(f"    reveal_type({call})" for call in STRICT_CALLS)
    text = (
        "from __future__ import annotations\nimport jax, jax.numpy as jnp\n"
        "from typing_extensions import reveal_type\n"
        "from jaxtypes import bfloat16, bool_, float32, int8\n\n"
        "def f_(b: jax.Array[bfloat16], f: jax.Array[float32], i: jax.Array[int8], m: jax.Array[bool_]) -> None:\n"
        f"{body}\n"
    )
    venv = project_runs.installed()[0]
    paths = stage({"strict.py": text}, tmp_path)
    config = plugin_config("strict", x64=True)
    out = execute(MYPY_PLUGIN, tmp_path, mypy_in(venv, tmp_path, config, paths), env=user_env(venv))
    reveals = revealed(MYPY_PLUGIN, out, tmp_path)
    for n, (call, dtype) in enumerate(STRICT_CALLS.items(), 7):
        line_out = [line for line in out.splitlines() if line.startswith(f"strict.py:{n}:")]
        if dtype is None:
            errors = [line for line in line_out if ": error:" in line]
            assert len(errors) == 1 and errors[0].endswith("[jax-promotion]"), (call, line_out)
        else:
            assert verdict(reveals[("strict.py", n)][0], dtype) == "right", (call, reveals.get(("strict.py", n)))
            assert not any(": error:" in line for line in line_out), (call, line_out)
