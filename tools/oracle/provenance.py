"""What JAX's answers in ``tools/data`` were recorded with: the versions of
JAX and of what decides its dtypes, the script, the day."""

from __future__ import annotations

import datetime
import sys
from typing import Any

import jax
import jaxlib
import ml_dtypes
import numpy as np


def provenance(script: str) -> dict[str, Any]:
    """The provenance fields of a data file written by ``script`` (its path
    from the repository's root)."""
    return {
        "jax_version": jax.__version__,
        "jaxlib_version": jaxlib.__version__,
        "numpy_version": np.__version__,
        "ml_dtypes_version": ml_dtypes.__version__,
        "python_version": sys.version.split()[0],
        "generated_by": script,
        "generated_on": datetime.date.today().isoformat(),
    }
