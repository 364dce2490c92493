"""What the README tells users who re-bind a parameter to another dtype
(``x = x.astype(jnp.float32)`` on ``x: Array[bfloat16]``): the re-binding is an
error where it is written (typecheck_cases/scenarios/rebinding.py, in the six
set-ups), and mypy's ``allow_redefinition`` setting lets the name take the new
dtype with the plugin; without the plugin mypy solves ``astype`` against the
declared type, so the name becomes a union with ``Array[Any]``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.checkers import plugin_config, run, stage

REBOUND = '''\
from typing_extensions import assert_type

from jaxtypes import Array, bfloat16, float32


def rms_norm(x: Array[bfloat16]) -> Array[float32]:
    x = x.astype(float32)
    assert_type(x, Array[float32])
    return x
'''
SETTING = "allow_redefinition = True\n"


@pytest.mark.parametrize("checker", ["mypy", "mypy-plugin"])
def test_allow_redefinition(tmp_path: Path, checker: str) -> None:
    base = plugin_config() if checker == "mypy-plugin" else "[mypy]\n"
    errors = run(
        checker,
        tmp_path,
        stage({"rebound.py": REBOUND}, tmp_path),
        mypy_config=base.replace("[mypy]\n", "[mypy]\n" + SETTING, 1),
    )
    if checker == "mypy-plugin":
        assert dict(errors) == {}
    else:
        assert sorted(errors) == [("rebound.py", 8), ("rebound.py", 9)]
        assert "Array[bfloat16] | Array[Any]" in errors["rebound.py", 8][0]
