"""A function added to the table changes only its own generated cases.

The function cases (tools/cases/function_cases.py) and the matrix of every
function in every context (tools/cases/context_cases.py) are rendered from the
oracle's data as committed, and from the same data without one function (as
before its row was added to jaxtypes/functions.csv and probed): the second
rendering must be the first without that function's cases, every other case
named and written as before.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tools.cases import context_cases, function_cases

CONFIG = context_cases.EVERY_FUNCTION_CONFIG
# The first function of the files, one probed twice (with dtype= too), one of
# JAX's random functions, and the last one.
FUNCTIONS = ("jax.lax.abs", "jax.numpy.cumsum", "jax.random.normal", "jax.scipy.special.xlogy")
CONTEXT_CASE = "\n\n\n# "  # each case of the matrix opens with its expression's comment
FUNCTION_CASE = "\n\n\ndef case_"
KINDS = ["known", "return", "assign", "rebind", "argument", "attribute", "field", "default"]
CONTEXT_DEF = re.compile(rf"^def ({'|'.join(KINDS)})_(\w+)\(", re.M)


def _short(function: str) -> str:
    """How the cases spell a JAX function (``jnp.cumsum``)."""
    prefix = next(p for p in function_cases.MODULES if function.startswith(p))
    return function_cases.MODULES[prefix] + function[len(prefix) :]


def _without(data: dict[str, Any], function: str) -> dict[str, Any]:
    """The oracle's data without the probes of ``function``."""
    conf = data["configs"][CONFIG]
    results = {p: cells for p, cells in conf["results"].items() if p.split("(")[0] != function}
    assert len(results) < len(conf["results"]), f"{function}: not in the data"
    return {**data, "configs": {**data["configs"], CONFIG: {**conf, "results": results}}}


def _split(text: str, separator: str) -> tuple[str, list[str]]:
    """(the file's head, its cases), each case starting at ``separator``
    (the file's last newline is the head's, so that the last case is like the others)."""
    assert text.endswith("\n")
    head, *cases = text[:-1].split(separator)
    return head + "\n", [separator + case for case in cases]


def _calls(case: str, function: str) -> bool:
    """Whether a case of either file is one of ``function``'s: its first
    call (the matrix's comment, the function case's first reveal_type)."""
    first = case.split("# ", 1)[1] if case.startswith(CONTEXT_CASE) else case.split("reveal_type(", 1)[1]
    return first.startswith(_short(function) + "(")


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return function_cases.load()


@pytest.fixture(scope="module")
def rendered(data: dict[str, Any]) -> dict[str, str]:
    """{file: text} rendered from the committed data."""
    return {"functions": function_cases.render(CONFIG, data), "contexts": context_cases.render_every_function(data)}


@pytest.mark.parametrize("function", FUNCTIONS)
def test_a_function_changes_only_its_own_cases(function: str, data: dict[str, Any], rendered: dict[str, str]) -> None:
    less = _without(data, function)
    without = {"functions": function_cases.render(CONFIG, less), "contexts": context_cases.render_every_function(less)}
    for name, separator in (("functions", FUNCTION_CASE), ("contexts", CONTEXT_CASE)):
        head, cases = _split(rendered[name], separator)
        own = [case for case in cases if _calls(case, function)]
        assert own, f"{name}: no case of {function}"
        others = head[:-1] + "".join(case for case in cases if not _calls(case, function)) + "\n"
        assert without[name] == others, f"{name}: removing {function} changed other cases"


def test_context_cases_are_named_by_their_function(rendered: dict[str, str]) -> None:
    """Each case of the matrix has its eight functions named after the JAX
    function it calls (``known_jnp_cumsum_bfloat16``, ``return_...``)."""
    _, cases = _split(rendered["contexts"], CONTEXT_CASE)
    assert len(cases) > 500
    for case in cases:
        function = case.split("# ", 1)[1].split("(", 1)[0]
        defs = CONTEXT_DEF.findall(case)
        assert [kind for kind, _ in defs] == KINDS, case
        assert {name for _, name in defs} == {defs[0][1]}, case
        assert (defs[0][1] + "_").startswith(function.replace(".", "_") + "_"), case
