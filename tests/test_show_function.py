"""``python -m tools.show_function``: what it prints is the stubs', the call
plans' and the oracle's.

One run of the command (so one mypy run, the plugin's) over four functions:
one input (``jax.numpy.sqrt``), a pair that JAX declares as a ufunc
(``jnp.add``, by its short name), ``dtype=`` alone (``jnp.zeros``) and an
untyped one (``jnp.rint``).  Each part of its output is compared with what
this module reads itself: the overloads from the stubs ``jaxtypes jax-stubs
--out typings`` writes, the plan from JAX's declaration there (the last
overload), JAX's answers from the case file.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from jaxtypes import call_plans
from jaxtypes._stubgen import function_overloads, jax_stubs

import project_runs

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "typecheck_cases" / "functions" / "standard-x32.py"
NUMPY_STUB = Path("jax-stubs") / "numpy" / "__init__.pyi"
MARKERS_STUB = Path("jaxtypes-stubs") / "markers.pyi"
# The class of a typed ufunc, which the markers stub declares (jnp.add: AddUfunc).
UFUNC_CLASSES = {"add": "AddUfunc"}
NAMES = ("jax.numpy.sqrt", "jnp.add", "jnp.zeros", "jnp.rint")
SECTION = re.compile(r"^(?P<name>jax\.[\w.]+)\n=+\n", re.M)

# The module's tests read one run of the command.
pytestmark = pytest.mark.xdist_group("test_show_function")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tools.show_function", *args], cwd=REPO, capture_output=True, text=True, timeout=900
    )


@pytest.fixture(scope="module")
def shown() -> dict[str, str]:
    """{the table's name: its part of the output}."""
    proc = _run(*NAMES, "--checkers", "mypy-plugin")
    assert proc.returncode == 0, proc.stderr[-4000:]
    starts = list(SECTION.finditer(proc.stdout))
    return {
        m["name"]: proc.stdout[m.start() : starts[i + 1].start() if i + 1 < len(starts) else len(proc.stdout)]
        for i, m in enumerate(starts)
    }


@pytest.fixture(scope="module")
def numpy_stub() -> str:
    return (project_runs.typings() / NUMPY_STUB).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def markers_stub() -> str:
    return (project_runs.typings() / MARKERS_STUB).read_text(encoding="utf-8")


def _block(section: str, heading: str) -> list[str]:
    """The indented lines under the line of ``section`` starting with ``heading``."""
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    out: list[str] = []
    for line in lines[start + 1 :]:
        if not line.startswith("  "):
            break
        out.append(line)
    return out


def _heading(section: str, heading: str) -> str:
    return next(line for line in section.splitlines() if line.startswith(heading))


def _stub_signatures(stub: str, name: str, markers: str) -> list[str]:
    """The ``def`` lines of ``name`` in a generated stub, read as text: a
    module's, or for a ufunc its class's ``__call__`` in the markers stub."""
    own = [line for line in stub.splitlines() if line.startswith(f"def {name}(")]
    if own:
        return own
    lines = markers.splitlines()
    start = lines.index(next(line for line in lines if line.startswith(f"class {UFUNC_CLASSES[name]}(")))
    body: list[str] = []
    for line in lines[start + 1 :]:
        if line and not line.startswith(" "):
            break
        body.append(line)
    return [line.strip() for line in body if line.strip().startswith("def __call__(")]


def _jax_declarations(name: str) -> int:
    """How many declarations of ``name`` JAX's own numpy stub has (a ufunc: its protocol's one ``__call__``)."""
    tree = ast.parse((jax_stubs.locate_jax().root / "numpy" / "__init__.pyi").read_text(encoding="utf-8"))
    return sum(isinstance(n, ast.FunctionDef) and n.name == name for n in tree.body) or 1


def _last_declaration(stub: str, name: str, markers: str = "") -> ast.FunctionDef:
    """The last overload of ``name`` in a generated stub: JAX's own
    declaration (a ufunc's, in its class in the markers stub)."""
    tree = ast.parse(stub)
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    if not defs:
        classes = ast.parse(markers).body
        (cls,) = [n for n in classes if isinstance(n, ast.ClassDef) and n.name == UFUNC_CLASSES[name]]
        defs = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__call__"]
    return defs[-1]


def _case_calls(case: str) -> list[tuple[str, str]]:
    """(call, JAX's answer) of a case function of the case file."""
    lines = CASES.read_text(encoding="utf-8").splitlines()
    start = lines.index(next(line for line in lines if line.startswith(f"def {case}(")))
    calls: list[tuple[str, str]] = []
    for line in lines[start + 1 :]:
        m = re.fullmatch(r"    reveal_type\((.*)\)  # JAX: (.*)", line)
        if m is None:
            break
        calls.append((m[1], m[2]))
    return calls


def _table(section: str) -> list[list[str]]:
    """The rows of the calls' table (its header first), cell by cell."""
    return [[c.strip() for c in line.split(" | ")] for line in _block(section, "the oracle's calls")]


def test_each_name_is_shown_by_the_table_s_name(shown: dict[str, str]) -> None:
    assert list(shown) == ["jax.numpy.sqrt", "jax.numpy.add", "jax.numpy.zeros", "jax.numpy.rint"]


@pytest.mark.parametrize("name", ["sqrt", "add", "zeros", "rint"])
def test_overloads_are_the_generated_stub_s(
    name: str, shown: dict[str, str], numpy_stub: str, markers_stub: str
) -> None:
    section = shown[f"jax.numpy.{name}"]
    printed = [line.strip() for line in _block(section, "overloads in the generated") if "def " in line]
    expected = _stub_signatures(numpy_stub, name, markers_stub)
    assert printed == expected
    own = _jax_declarations(name)
    assert f"{len(expected) - own} typed, then {own} of JAX's own" in _heading(section, "overloads in the generated")
    if name == "rint":
        assert len(expected) == own  # untyped: JAX's declaration alone
    else:
        assert len(expected) > own


@pytest.mark.parametrize("name", ["sqrt", "add", "zeros"])
def test_plan_is_call_plans_for_jax_s_declaration(
    name: str, shown: dict[str, str], numpy_stub: str, markers_stub: str
) -> None:
    params, vararg = function_overloads.parameters(_last_declaration(numpy_stub, name, markers_stub))
    plan = call_plans.call_plan(f"jax.numpy.{name}", params, vararg)
    assert plan is not None and plan.overloads
    printed = dict(line.strip().split(": ", 1) for line in _block(shown[f"jax.numpy.{name}"], "call plan"))
    assert printed["kind"] == plan.kind
    assert printed["operands"] == (", ".join(plan.operands) or "-")
    assert printed["dtype parameter"].split(" ")[0] == (plan.dtype_param or "-")
    assert printed["dtype parameter"].endswith("(decides the result)") == plan.takes_dtype
    assert printed["neutral"] == (", ".join(p.name for p in params if p.name in plan.neutral) or "-")
    assert printed["typed by the stubs"].startswith("yes")
    if name == "zeros":
        assert printed["dtype parameter"] == "dtype (decides the result)"
        assert printed["operands"] == "-"
    elif name == "add":
        assert printed["operands"] == "x, y"
        assert "two_scalars" in printed["flags"]
    else:
        assert printed["operands"] == "x"


def test_untyped_function_has_no_plan(shown: dict[str, str], numpy_stub: str) -> None:
    params, vararg = function_overloads.parameters(_last_declaration(numpy_stub, "rint"))
    assert call_plans.call_plan("jax.numpy.rint", params, vararg) is None
    section = shown["jax.numpy.rint"]
    assert "family: untyped" in _block(section, "row of jaxtypes/functions.csv")[1]
    plan = [line.strip() for line in _block(section, "call plan")]
    assert plan[0].startswith("none: family untyped")
    assert plan[-1] == "typed by the stubs: no: JAX's declaration alone"


@pytest.mark.parametrize(
    ("name", "cases"),
    [
        ("sqrt", ["case_jnp_sqrt"]),
        ("add", ["case_jnp_add"]),
        ("zeros", ["case_jnp_zeros"]),
        ("rint", ["case_jnp_rint"]),
    ],
)
def test_jax_s_answers_are_the_case_file_s(name: str, cases: list[str], shown: dict[str, str]) -> None:
    rows = _table(shown[f"jax.numpy.{name}"])
    assert rows[0] == ["call", "JAX", "mypy-plugin"]
    expected = [call for case in cases for call in _case_calls(case)]
    assert expected
    assert [(row[0], row[1]) for row in rows[1:]] == expected


@pytest.mark.parametrize("name", ["sqrt", "add"])
def test_plugin_answers_are_jax_s(name: str, shown: dict[str, str]) -> None:
    rows = _table(shown[f"jax.numpy.{name}"])[1:]
    assert rows
    assert [row[2] for row in rows] == [f"Array[{row[1]}]" for row in rows]


def test_unknown_name_fails_naming_it_and_close_ones() -> None:
    proc = _run("jnp.sqr")
    assert proc.returncode == 2
    assert proc.stdout == ""
    message = proc.stderr.strip()
    assert "'jnp.sqr' is not a function of jaxtypes/functions.csv" in message
    assert "jax.numpy.sqrt" in message.split("close matches:")[1]
