"""The stub generator and the mypy plugin read each JAX function by one plan.

``jaxtypes.call_plans`` answers, from a row of the function table and the
parameters of the function's declaration, which parameters are operands,
which is ``dtype=``, which are neutral or pinned.  The generator describes the
parameters from JAX's stub syntax, the plugin from mypy's types of the
generated stubs: these tests run both on the installed JAX and check that
they hand ``call_plan`` the same description, so that the overloads the stubs
write and the calls the plugin reads cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from jaxtypes import call_plans, function_rules
from jaxtypes._stubgen import function_overloads, jax_stubs
from jaxtypes.call_plans import ANY, ARRAY_LIKE, INT, OTHER, SEQUENCE, CallPlan, Parameter
from tools.checkers import checker_env

# JAX declares einsum three times; the generator types from the first that
# has a plan (``einsum(subscripts, /, *operands)``), the plugin cannot tell
# JAX's declarations from the typed overloads before them and reads the last
# with a plan (the interleaved ``einsum(arr, axes, /, *operands)``).  Both
# read the operands as ``*operands``; they differ in the positional
# parameters before them, which the plugin never reads as operands.
_POSITIONAL_BEFORE_OPERANDS = frozenset({"jax.numpy.einsum"})

_DUMP_PLUGIN = """\
import dataclasses, json, os
from pathlib import Path

from mypy.plugin import Plugin

from jaxtypes.mypy_plugin import function_calls, plugin_stubs
from jaxtypes.mypy_plugin.type_nodes import Builder


class DumpPlans(Plugin):
    def __init__(self, options):
        # JAX's declarations as the plugin reads them: its own modules, where
        # the stubs narrow a declaration (lax's equal-dtype functions).
        plugin_stubs.read_plugin_modules(options)
        super().__init__(options)

    def get_function_hook(self, fullname):
        return self._dump if fullname == "probe.dump" else None

    def _dump(self, ctx):
        builder = Builder(self.lookup_fully_qualified, ctx.api.named_generic_type)
        plans = {}
        for name in sorted(set(function_calls.typed_functions().values())):
            plan = function_calls._call_plan(name, builder)
            plans[name] = None if plan is None else {
                k: sorted(v) if isinstance(v, (tuple, frozenset)) else v
                for k, v in dataclasses.asdict(plan).items() if k != "rule"
            }
        Path(os.environ["PLANS_OUT"]).write_text(json.dumps(plans))
        return ctx.default_return_type


def plugin(version):
    return DumpPlans
"""

_PROBE = """\
import jax
import jax.image
import jax.lax
import jax.nn
import jax.numpy
import jax.numpy.fft
import jax.numpy.linalg
import jax.random
import jax.scipy.signal
import jax.scipy.special


def dump() -> None: ...


dump()
"""


def _fields(plan: CallPlan) -> dict[str, Any]:
    return {
        k: sorted(v) if isinstance(v, (tuple, frozenset)) else v
        for k, v in dataclasses.asdict(plan).items()
        if k != "rule"
    }


@pytest.fixture(scope="module")
def plans(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the generator's plans, the plugin's plans) of the installed JAX."""
    root = tmp_path_factory.mktemp("plans")
    generated: dict[str, Any] = {}
    original = call_plans.call_plan

    def recording(name: str, params: Any, vararg: Parameter | None = None) -> CallPlan | None:
        plan = original(name, params, vararg)
        if plan is not None and (plan.overloads or name not in generated):
            # (positional-only parameters named by position, as the plugin sees them)
            generated[name] = _fields(original(name, call_plans.anonymous(params), vararg))  # type: ignore[arg-type]
        return plan

    typed: set[str] = set()
    write_overloads = function_overloads._typed

    def recording_typed(name: str, *args: Any, **kwargs: Any) -> list[Any]:
        overloads = write_overloads(name, *args, **kwargs)
        if overloads:
            typed.add(name)
        return overloads

    call_plans.call_plan = recording
    function_overloads._typed = recording_typed
    try:
        jax_stubs.generate(root / "typings")
    finally:
        call_plans.call_plan = original
        function_overloads._typed = write_overloads
    for name, fields in generated.items():
        fields["stubs_type_it"] = name in typed
    (root / "probe.py").write_text(_PROBE)
    (root / "dump_plans.py").write_text(_DUMP_PLUGIN)
    (root / "mypy.ini").write_text(
        textwrap.dedent("""\
            [mypy]
            mypy_path = typings/.mypy-path
            plugins = dump_plans.py
            follow_imports = silent
            """)
    )
    out = root / "plans.json"
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--show-traceback", "probe.py"],
        cwd=root,
        capture_output=True,
        text=True,
        env=checker_env(PLANS_OUT=str(out)),
        timeout=1200,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return generated, json.loads(out.read_text())


def test_both_readers_plan_every_typed_function_alike(plans: tuple[dict[str, Any], dict[str, Any]]) -> None:
    generated, read = plans
    typed = sorted(n for n, p in generated.items() if p.pop("stubs_type_it"))
    assert len(typed) > 400  # the stubs type most of the table
    differ = {}
    for name in typed:
        mine, theirs = dict(generated[name]), read.get(name)
        if theirs is None:
            differ[name] = "the plugin finds no plan"
            continue
        theirs = dict(theirs)
        if name in _POSITIONAL_BEFORE_OPERANDS:
            for fields in (mine, theirs):
                fields["keep"] = []
                fields["neutral"] = [n for n in fields["neutral"] if not n.startswith("#")]
        if mine != theirs:
            differ[name] = {k: (mine[k], theirs.get(k)) for k in mine if mine[k] != theirs.get(k)}
    assert differ == {}


def test_the_plugin_reads_the_functions_the_stubs_leave_untyped(plans: tuple[dict[str, Any], dict[str, Any]]) -> None:
    """A function with a rule whose declaration the stubs do not type from
    (tril_indices(n): counts; stop_gradient(x: T) -> T) still has a plan the
    plugin reads its calls by, the same as the generator's."""
    generated, read = plans
    generated = {n: {k: v for k, v in p.items() if k != "stubs_type_it"} for n, p in generated.items()}
    untyped = sorted(n for n, p in generated.items() if not p["overloads"] and read.get(n) is not None)
    assert {"jax.numpy.tril_indices", "jax.lax.stop_gradient"} <= set(untyped)
    assert {n: generated[n] for n in untyped} == {n: read[n] for n in untyped}


def _plan(name: str, *params: Parameter, vararg: Parameter | None = None) -> CallPlan:
    plan = call_plans.call_plan(name, params, vararg)
    assert plan is not None
    return plan


def test_a_parameter_jax_declares_no_array_is_neutral() -> None:
    """top_k's ``k: int`` never changes the result; polyint's ``k`` (its
    constants of integration, ArrayLike) does, though the plugin once took
    every ``k`` for a count."""
    top_k = _plan("jax.lax.top_k", Parameter("operand", ARRAY_LIKE), Parameter("k", INT))
    assert "k" in top_k.neutral
    polyint = _plan(
        "jax.numpy.polyint",
        Parameter("p", ARRAY_LIKE),
        Parameter("m", INT, default=True),
        Parameter("k", ARRAY_LIKE, default=True, allows_none=True),
    )
    assert polyint.input_param == "p"
    assert "k" not in polyint.neutral and "m" in polyint.neutral
    assert "shape" in _plan("jax.numpy.zeros", Parameter("shape", ANY), Parameter("dtype", OTHER)).neutral


def test_pairs_sequences_and_varargs() -> None:
    add = _plan("jax.numpy.add", Parameter("x", ARRAY_LIKE), Parameter("y", ARRAY_LIKE))
    assert (add.input_param, add.second, add.overloads) == ("x", "y", True)
    concatenate = _plan("jax.numpy.concatenate", Parameter("arrays", SEQUENCE), Parameter("axis", OTHER))
    assert concatenate.sequence and concatenate.input_param == "arrays"
    # lax.concatenate(operands: Sequence[Array], dimension): not typed, read as a sequence
    lax_concatenate = _plan("jax.lax.concatenate", Parameter("operands", OTHER), Parameter("dimension", INT))
    assert lax_concatenate.sequence and not lax_concatenate.overloads
    einsum = _plan("jax.numpy.einsum", Parameter("subscripts", OTHER), vararg=Parameter("operands", ARRAY_LIKE))
    assert einsum.varargs and einsum.preferred
    where = _plan("jax.numpy.where", *(Parameter(n, ARRAY_LIKE) for n in ("condition", "x", "y")))
    assert where.operands == ("condition", "x", "y")


def test_no_plan_for_untyped_rows_or_unknown_names() -> None:
    untyped = next(n for n, r in function_rules.TABLE.items() if r.family == "untyped")
    assert call_plans.call_plan(untyped, [Parameter("x", ARRAY_LIKE)]) is None
    assert call_plans.call_plan("jax.numpy.no_such_function", [Parameter("x", ARRAY_LIKE)]) is None
