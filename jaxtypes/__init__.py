"""jaxtypes: JAX's dtype promotion, for type checkers and at runtime.

The runtime API gives the answers JAX gives (``promote_types``,
``result_type``, strict-mode errors, canonicalization) from one shared lattice
(``jaxtypes.lattice``), without importing JAX.
"""

from jaxtypes.config import config, enable_x64, numpy_dtype_promotion
from jaxtypes.promotion import (
    TypePromotionError,
    canonicalize_dtype,
    dtype,
    is_weakly_typed,
    promote_types,
    result_type,
)

__version__ = "0.1.0"

__all__ = [
    "TypePromotionError",
    "canonicalize_dtype",
    "config",
    "dtype",
    "enable_x64",
    "is_weakly_typed",
    "numpy_dtype_promotion",
    "promote_types",
    "result_type",
]
