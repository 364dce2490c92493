"""``jaxtypes.typing`` is an attribute of the package after ``import jaxtypes``,
at run time and for the type checkers (where a missing attribute would make
``jt.typing.ArrayLike`` silently ``Any``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tools import checkers

# Line 4 assigns a str, which no ArrayLike accepts: flagged only if the alias
# is really resolved (an Any would accept it).
PROGRAM = """\
import jaxtypes as jt

ok: jt.typing.ArrayLike = 1.0
bad: jt.typing.ArrayLike = "not an array"
"""


def test_attribute_at_runtime() -> None:
    # A fresh interpreter: no test has imported jaxtypes.typing beforehand.
    code = (
        "import jaxtypes as jt\n"
        "import jaxtypes.typing as T\n"
        "assert jt.typing is T and jt.typing.ArrayLike is T.ArrayLike\n"
        "assert 'typing' in dir(jt)\n"
        "ns = {}\n"
        "exec('from jaxtypes import *', ns)\n"
        "assert 'typing' not in ns  # the star import does not shadow the standard typing\n"
    )
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert fresh.returncode == 0, fresh.stderr
    lazy = subprocess.run(
        [sys.executable, "-c", "import jaxtypes as jt; print(jt.typing.ArrayLike)"], capture_output=True, text=True
    )
    assert lazy.returncode == 0, lazy.stderr
    assert "jaxtypes._array.Array" in lazy.stdout


@pytest.mark.parametrize("checker", ["pyright", "ty", "mypy"])
def test_checkers_resolve_the_attribute(checker: str, tmp_path: Path) -> None:
    paths = checkers.stage({"use_typing.py": PROGRAM}, tmp_path)
    errors = checkers.run(checker, tmp_path, paths)
    assert sorted(line for _, line in errors) == [4], errors


# A name jaxtypes does not export (the categories live in jaxtypes.typing):
# each checker must reject the import that fails at run time, so the module's
# lazy ``__getattr__`` may not be what they see.
MISSPELLED = """\
from jaxtypes import float32, promote_types
from jaxtypes import inexact
"""


@pytest.mark.parametrize("checker", checkers.CHECKERS)
def test_checkers_reject_a_name_jaxtypes_lacks(checker: str, tmp_path: Path) -> None:
    fresh = subprocess.run([sys.executable, "-c", MISSPELLED], capture_output=True, text=True)
    assert "cannot import name 'inexact'" in fresh.stderr, fresh.stderr
    paths = checkers.stage({"use_names.py": MISSPELLED}, tmp_path)
    errors = checkers.run(checker, tmp_path, paths)
    assert sorted(line for _, line in errors) == [2], errors
