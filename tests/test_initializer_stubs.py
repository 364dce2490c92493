"""The stub of ``jax.nn.initializers`` (jaxtypes/_stubgen/initializer_stubs.py)
against JAX run with x64 off and on: the dtype an initializer returns
without a ``dtype`` (the stubs' float32 is JAX's default float with x64
off, float64 with it on, where the plugin's answer follows the project's
x64), and that every dtype the stubs type is returned as given, by a
builder's ``dtype=`` and by a call's ``dtype``, in both settings (as JAX
traces them, ``jax.eval_shape``), or refused by JAX."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from jaxtypes._stubgen import initializer_stubs

needs_jax = pytest.mark.skipif(sys.version_info < (3, 11), reason="the pinned JAX needs Python 3.11")

# Run in a process of its own per x64 setting (JAX reads it once): {initializer:
# {"default": dtype, "call:D": dtype or "error", "built:D": ...}}.
_PROBE = """
import json, sys
import jax
jax.config.update("jax_enable_x64", sys.argv[1] == "1")
import jax.numpy as jnp
from jax.nn import initializers as init

def builders():
    for name in NAMES:
        if name in ("zeros", "ones"):
            continue
        build = getattr(init, name)
        if name == "constant":
            yield name, lambda build=build, **k: build(-7, **k)
        elif name == "variance_scaling":
            yield name, lambda build=build, **k: build(2.0, "fan_in", "truncated_normal", **k)
        else:
            yield name, build

def dtype_of(make):
    try:
        return str(jax.eval_shape(make).dtype)  # traced, not compiled
    except Exception:
        return "error"

key, shape = jax.random.key(0), (2, 3, 4, 4)
out = {}
for name, build in builders():
    out[name] = {"default": dtype_of(lambda: build()(key, shape))}
    for d in DTYPES:
        out[name]["call:" + d] = dtype_of(lambda: build()(key, shape, jnp.dtype(d)))
        out[name]["built:" + d] = dtype_of(lambda: build(dtype=jnp.dtype(d))(key, shape))
for name in ("zeros", "ones"):
    fill = getattr(init, name)
    out[name] = {"default": dtype_of(lambda: fill(key, shape))}
    out[name].update({"call:" + d: dtype_of(lambda: fill(key, shape, jnp.dtype(d))) for d in DTYPES})
print(json.dumps(out))
"""

# Initializers JAX refuses a typed dtype to when traced: complex uniform and
# truncated draws.  (orthogonal and delta_orthogonal trace a low-precision
# float as given; XLA's QR refuses it when compiled, on CPU: not a dtype the
# stubs could know, and not reported.)
_REFUSED = {"uniform": {"complex64"}, "truncated_normal": {"complex64"}}


def _typed_names() -> set[str]:
    """The functions the generated stub declares with overloads (and its aliases)."""
    import jax

    stub = ast.parse(initializer_stubs.render(Path(jax.__file__).parent))
    defs = {n.name for n in stub.body if isinstance(n, ast.FunctionDef)}
    aliases = {t.id for n in stub.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    return defs | aliases


def _probe(names: set[str], x64: bool) -> dict[str, dict[str, str]]:
    code = f"NAMES = {sorted(names)!r}\nDTYPES = {list(initializer_stubs.FILL_DTYPES)!r}\n" + _PROBE
    out = subprocess.run(
        [sys.executable, "-c", code, "1" if x64 else "0"], capture_output=True, text=True, check=True, timeout=600
    )
    return json.loads(out.stdout)


@needs_jax
def test_the_stub_types_every_initializer_jax_exports_with_a_dtype() -> None:
    import inspect

    import jax.nn.initializers as init

    expected = {
        name
        for name in dir(init)
        if not name.startswith("_")
        and inspect.isfunction(getattr(init, name))
        and "dtype" in inspect.signature(getattr(init, name)).parameters
    }
    assert expected >= {"lecun_normal", "zeros", "ones", "constant", "orthogonal", "variance_scaling"}
    assert _typed_names() == expected


@needs_jax
@pytest.mark.parametrize("x64", [False, True], ids=["x64-off", "x64-on"])
def test_initializers_return_the_dtypes_the_stub_types(x64: bool) -> None:
    names = _typed_names()
    found = _probe(names, x64)
    assert set(found) == names
    default = "float64" if x64 else "float32"  # the stubs' float32: JAX's default float with x64 off
    for name, answers in found.items():
        assert answers["default"] == default, name
        typed = (
            initializer_stubs.FILL_DTYPES
            if name in ("zeros", "ones", "constant")
            else initializer_stubs.INITIALIZER_DTYPES
        )
        for how in ("call", "built"):
            for d in typed:
                got = answers.get(f"{how}:{d}")
                if got is None:  # zeros and ones have no builder
                    continue
                refused = d in _REFUSED.get(name, ()) and not (how == "built" and name == "constant")
                if how == "call" and name == "constant":
                    # constant's call types the initializers' common dtypes
                    refused = False
                    if d not in initializer_stubs.INITIALIZER_DTYPES:
                        continue
                assert got == ("error" if refused else d), f"{name} {how} {d}: {got}"


_PLUGIN_CASE = """
import jax
import jax.numpy as jnp
from flax import linen as nn
from typing_extensions import assert_type

from jaxtypes import {default}, bfloat16


def defaults(key: jax.Array) -> None:
    assert_type(jax.nn.initializers.lecun_normal()(key, (2, 2)), jax.Array[{default}])
    assert_type(nn.initializers.xavier_uniform()(key, (2, 2)), jax.Array[{default}])
    assert_type(jax.nn.initializers.zeros(key, (2,)), jax.Array[{default}])
    assert_type(jax.nn.initializers.normal(dtype=jnp.bfloat16)(key, (2,)), jax.Array[bfloat16])
    assert_type(jax.nn.initializers.ones(key, (2,), jnp.bfloat16), jax.Array[bfloat16])
"""


@needs_jax
@pytest.mark.parametrize("x64", [False, True], ids=["x64-off", "x64-on"])
def test_the_plugin_gives_the_default_float_of_the_projects_x64(x64: bool, tmp_path: Path) -> None:
    import project_runs

    default = _probe({"lecun_normal"}, x64)["lecun_normal"]["default"]  # JAX's answer
    errors = project_runs.mypy_with_plugin(tmp_path, {"case.py": _PLUGIN_CASE.format(default=default)}, x64=x64)
    assert errors == {}, errors
