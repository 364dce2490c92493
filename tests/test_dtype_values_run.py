"""typecheck_cases/jax_interop/scenarios/dtype_values.py (checked in the six
set-ups by tests/test_jax_stubs.py), run with JAX: each ``assert_type`` of the
functions run here is JAX's answer."""

from __future__ import annotations

import importlib.util
import inspect
import sys
import typing
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typing_extensions

SCENARIO = Path(__file__).resolve().parent.parent / "typecheck_cases" / "jax_interop" / "scenarios" / "dtype_values.py"


def test_dtype_values_hold_when_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import jax
    import jax.numpy as jnp

    checked: list[str] = []
    bound: dict[Any, Any] = {}  # {TypeVar: the dtype of the arrays given for it}

    def check(value: Any, typ: Any) -> Any:
        (arg,) = typing.get_args(typ)
        expected = bound[arg] if isinstance(arg, typing.TypeVar) else np.dtype(arg)
        assert value.dtype == expected, f"assert_type({value.dtype}, {typ})"
        checked.append(str(value.dtype))
        return value

    monkeypatch.setattr(typing_extensions, "assert_type", check)
    spec = importlib.util.spec_from_file_location("dtype_values_scenario", SCENARIO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # (dataclasses look their module up)
    spec.loader.exec_module(module)

    key = jax.random.key(0)
    x = jnp.ones((2, 2), jnp.float32)
    module.read_back(x, key, jnp.bfloat16)
    module.preferred(jnp.ones((2, 2), jnp.bfloat16), jnp.ones((2, 2), jnp.int8), x, jnp.float32)
    module.configs(x)
    module.named_dtypes(x, jnp.ones(2, jnp.int8))
    bound.update({module.F: jnp.bfloat16, module.C: jnp.complex64, module.Narrow: jnp.int8})
    module.generic_functions(
        jnp.ones((2, 2), jnp.bfloat16), jnp.ones((2, 2), jnp.complex64), jnp.ones((2, 2), jnp.int8), x
    )
    run = (module.read_back, module.preferred, module.configs, module.named_dtypes, module.generic_functions)
    assert len(checked) == sum(inspect.getsource(f).count("assert_type(") for f in run)
