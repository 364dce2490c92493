"""The answers written out in the YAML cases are JAX's.

Every ``assert_type(EXPR, Array[M])`` of the YAML cases (M a marker) is
evaluated by JAX itself, in the configuration the case sets for the plugin
(``[jaxtypes]`` in its mypy.ini or ``[tool.jaxtypes]`` in its pyproject.toml;
JAX's default otherwise): each of the function's ``Array[M]`` parameters is a
JAX array of M's dtype (a weakly typed one for the weak markers, one made with
x64 on for a 64-bit marker with x64 off), each ``int``/``float``/``complex``/
``bool`` one a Python scalar, each ``np.<scalar type>`` one a numpy scalar.
The result's dtype and weak flag must be M's, so a YAML answer cannot be
"what jaxtypes computes" unless that is what JAX does.  Expressions over
other parameters, and expected types that are not one marker (``Array[Any]``,
unions, ``np.dtype[...]``), are not checked here.
"""

from __future__ import annotations

import ast
import configparser
import functools
import re
import sys
import warnings
from pathlib import Path
from typing import Any, Iterator

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import yaml

import jaxtypes
from tools.oracle.lattice_facts import STRONG_NODES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
MARKERS = ("bool_", *STRONG_NODES[1:], "weak_int", "weak_float", "weak_complex")
WEAK = {"weak_int": 1, "weak_float": 1.0, "weak_complex": 1j}
BIT64 = ("int64", "uint64", "float64", "complex128")
PYTHON_SCALARS = {"int": 1, "float": 1.5, "complex": 1j, "bool": True}
ARRAY_OF = re.compile(r"Array\[(\w+)\]")
# Lines whose written-out answer is not JAX's, {(file, case, expression):
# (the YAML's answer, JAX's)}: each must still differ, so a fix shows up.
NOT_JAX_S: dict[tuple[str, str, str], tuple[str, str]] = {}


def _truthy(value: str) -> bool:
    return value.strip().strip('"').lower() in ("true", "yes", "1", "on")


def settings(case: dict[str, Any]) -> tuple[str, bool]:
    """(promotion, x64) the case gives the plugin."""
    promotion, x64 = "standard", False
    for file in case.get("files", []):
        if file["path"] == "pyproject.toml":
            section = tomllib.loads(file["content"]).get("tool", {}).get("jaxtypes", {})
            promotion, x64 = section.get("promotion", promotion), bool(section.get("x64", x64))
    ini = configparser.ConfigParser(strict=False)
    text = case.get("mypy_config", "")
    ini.read_string(text if text.lstrip().startswith("[") else "[mypy]\n" + text)
    if ini.has_section("jaxtypes"):
        promotion = ini.get("jaxtypes", "promotion", fallback=promotion).strip('"')
        x64 = _truthy(ini.get("jaxtypes", "x64", fallback=str(x64)))
    return promotion, x64


@functools.lru_cache(maxsize=1)
def cases() -> tuple[tuple[str, str, dict[str, Any]], ...]:
    """(file, case name, case) of every YAML case."""
    return tuple(
        (path.name, case["case"], case)
        for path in sorted(HERE.glob("*.yml"))
        for case in yaml.safe_load(path.read_text())
    )


def is_marker(name: str) -> bool:
    return name in MARKERS


def array(marker: str, x64: bool) -> Any:
    """A JAX array that the marker types, in the configuration with ``x64``."""
    if marker in WEAK:
        return jnp.broadcast_to(jnp.asarray(WEAK[marker]), (6,))
    dtype = np.dtype(getattr(jaxtypes, marker))
    if marker in BIT64 and not x64:
        with jax.enable_x64(True):  # the array keeps its dtype afterwards
            return jnp.ones((6,), dtype)
    return jnp.ones((6,), dtype)


def buildable(annotation: str) -> bool:
    m = ARRAY_OF.fullmatch(annotation)
    return (
        bool(m and is_marker(m.group(1)))
        or annotation in PYTHON_SCALARS
        or (annotation.startswith("np.") and isinstance(getattr(np, annotation[3:], None), type))
    )


def parameter(annotation: str, x64: bool) -> Any:
    """A value of the annotation's type (None where this test builds none)."""
    if not buildable(annotation):
        return None
    m = ARRAY_OF.fullmatch(annotation)
    if m:
        return array(m.group(1), x64)
    if annotation in PYTHON_SCALARS:
        return PYTHON_SCALARS[annotation]
    return getattr(np, annotation[3:])(1)


def jax_answer(value: Any) -> str:
    """The marker typing a JAX result: its dtype's, or a weak one."""
    if value.weak_type and value.dtype != np.dtype(bool):
        return {"i": "weak_int", "u": "weak_int", "f": "weak_float", "c": "weak_complex"}[value.dtype.kind]
    return "bool_" if value.dtype == np.dtype(bool) else value.dtype.name


def checked_lines() -> Iterator[tuple[str, str, str, str, str, bool]]:
    """(file, case, expression, expected marker, promotion, x64) of every
    assert_type over parameters this test can build."""
    for file, name, case in cases():
        promotion, x64 = settings(case)
        tree = ast.parse(case["main"])
        for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
            params = {a.arg: ast.unparse(a.annotation) for a in fn.args.args if a.annotation}
            for node in ast.walk(fn):
                if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "assert_type"):
                    continue
                expr, want = node.args
                m = ARRAY_OF.fullmatch(ast.unparse(want))
                names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
                if not (m and is_marker(m.group(1))):
                    continue
                if any(n in params and not buildable(params[n]) for n in names):
                    continue
                yield file, name, ast.unparse(expr), m.group(1), promotion, x64


def evaluate(file: str, name: str, expr: str, promotion: str, x64: bool) -> str:
    case = next(c for f, n, c in cases() if (f, n) == (file, name))
    fn = next(
        n
        for n in ast.walk(ast.parse(case["main"]))
        if isinstance(n, ast.FunctionDef)
        and expr
        in {
            ast.unparse(c.args[0])
            for c in ast.walk(n)
            if isinstance(c, ast.Call) and getattr(c.func, "id", None) == "assert_type"
        }
    )
    with jax.enable_x64(x64), jax.numpy_dtype_promotion(promotion), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # JAX's warning when it truncates a 64-bit dtype
        env: dict[str, Any] = {"jaxtypes": jaxtypes, "np": np}
        env.update({a.arg: parameter(ast.unparse(a.annotation), x64) for a in fn.args.args if a.annotation})
        return jax_answer(eval(expr, env))


LINES = list(checked_lines())


def test_enough_lines_are_checked() -> None:
    assert len(LINES) >= 130
    assert {f for f, *_ in LINES} >= {"test_operators.yml", "test_methods.yml", "test_settings.yml"}
    assert {(p, x) for *_, p, x in LINES} == {
        ("standard", False),
        ("standard", True),
        ("strict", False),
        ("strict", True),
    }


@pytest.mark.parametrize(
    ("file", "case", "expr", "marker", "promotion", "x64"), LINES, ids=[f"{f}::{c}::{e}" for f, c, e, *_ in LINES]
)
def test_the_written_answer_is_jax_s(file: str, case: str, expr: str, marker: str, promotion: str, x64: bool) -> None:
    got = evaluate(file, case, expr, promotion, x64)
    listed = NOT_JAX_S.get((file, case, expr))
    if listed is not None:
        assert (marker, got) == listed, "a listed difference from JAX no longer holds: update NOT_JAX_S"
    else:
        assert got == marker, f"{expr}: the YAML says Array[{marker}], JAX gives {got}"
