"""The names the plugin reads as dtypes are the dtypes JAX reads them as.

``jnp.zeros(3, "f4")``, ``DType[int8] = "byte"`` and ``cast(x, "bfloat16")``
are read through one table of names (the plugin imports no numpy); each
name it reads must be JAX's dtype of that name, and every name numpy has for
a dtype of the lattice must be read, but for the one-letter type codes
(``"f"``) and the names of C's ``long``, whose width is the platform's.
"""

from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np
import pytest

from jaxtypes import lattice
from jaxtypes.mypy_plugin.type_nodes import dtype_name, names_of_dtype

# numpy's names whose width is the platform's C long (32-bit on Windows).
PLATFORM_WIDTH = {"long", "ulong", "l", "L"}


def _numpy_names() -> list[str]:
    names = {k for k in np.sctypeDict if isinstance(k, str)} | set(np.typecodes["All"])
    return sorted(names)


def _jax_dtype(name: str) -> str | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # numpy's old aliases ("a")
        try:
            return jnp.dtype(name).name
        except TypeError:
            return None


@pytest.mark.parametrize("name", _numpy_names())
def test_a_name_is_read_as_jax_reads_it(name: str) -> None:
    jax_s = _jax_dtype(name)
    ours = dtype_name(name)
    if ours is not None:
        assert ours == jax_s, f"{name!r}: the plugin reads {ours}, JAX {jax_s}"
    elif jax_s in lattice.STRONG and name not in PLATFORM_WIDTH and len(name) > 1:
        pytest.fail(f"{name!r} is JAX's {jax_s}, which the plugin does not read")


def test_each_dtype_s_names_start_with_its_own() -> None:
    for node in lattice.STRONG:
        names = names_of_dtype(node)
        assert names[0] == node and all(_jax_dtype(n) == node for n in names), node
