"""jaxtypes: JAX's dtype promotion, for type checkers and at runtime.

The runtime API gives the answers JAX gives (``promote_types``,
``result_type``, strict-mode errors, canonicalization) from one shared lattice
(``jaxtypes.lattice``), without importing JAX.
"""

from typing import TYPE_CHECKING, Any, Final

# Eager: jaxtypes.config is the Config object (as jax.config is), and the
# module needs only the standard library and jaxtypes.lattice.
try:
    from jaxtypes.config import config, enable_x64, explicit_x64_dtypes, numpy_dtype_promotion
except ValueError as _environment_error:
    # A JAX_ENABLE_X64 / JAX_NUMPY_DTYPE_PROMOTION value JAX rejects raises here,
    # as ``import jax`` does; run as the command line, it is one line and exit 2.
    from jaxtypes._bad_environment import exit_on_environment_error

    exit_on_environment_error(_environment_error)
    raise

# ``jax.Array[float32]`` at run time, as the JAX stubs type it (once JAX is imported).
from jaxtypes import _generic_jax_array as _generic_jax_array

if TYPE_CHECKING:  # the names, for type checkers; at runtime they load on first use
    from jaxtypes import typing as typing
    from jaxtypes._array import Array
    from jaxtypes.common_dtype import promote_dtype
    from jaxtypes.dtype_check import DtypeCheckError, check_dtypes
    from jaxtypes.markers import *  # noqa: F403  (the markers: bool_, float32, weak_int ...)
    from jaxtypes.promotion import (
        TypePromotionError,
        canonicalize_dtype,
        dtype,
        is_weakly_typed,
        promote_types,
        result_type,
    )

from jaxtypes.lattice import MARKER_NAME as _MARKER_NAME

# Each public name -> the submodule that defines it.  Loading lazily keeps
# ``import jaxtypes.lattice`` (the mypy plugin's import) free of numpy.
_SUBMODULE_OF: Final = {
    "Array": "jaxtypes._array",
    "DtypeCheckError": "jaxtypes.dtype_check",
    "check_dtypes": "jaxtypes.dtype_check",
    **dict.fromkeys(
        ("TypePromotionError", "canonicalize_dtype", "dtype", "is_weakly_typed", "promote_types", "result_type"),
        "jaxtypes.promotion",
    ),
    "promote_dtype": "jaxtypes.common_dtype",
    **dict.fromkeys(_MARKER_NAME.values(), "jaxtypes.markers"),
}


# Submodules reachable as attributes after ``import jaxtypes`` (``jt.typing.ArrayLike``).
# Not in __all__: ``from jaxtypes import *`` must not shadow the standard ``typing``.
_SUBMODULES: Final = ("typing",)


# Hidden from type checkers: a module ``__getattr__`` would make every name
# importable for them (``from jaxtypes import inexact`` passing, then failing
# at run time); the names they see are those imported above.
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        import importlib

        if name in _SUBMODULES:
            return importlib.import_module(f"jaxtypes.{name}")  # the import binds the attribute
        module = _SUBMODULE_OF.get(name)
        if module is None:
            raise AttributeError(f"module 'jaxtypes' has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | set(_SUBMODULES))


from jaxtypes._version import __version__ as __version__  # noqa: E402

__all__ = [
    "Array",
    "DtypeCheckError",
    "TypePromotionError",
    "bfloat16",
    "bool_",
    "complex64",
    "complex128",
    "float4_e2m1fn",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float16",
    "float32",
    "float64",
    "int1",
    "int2",
    "int4",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint1",
    "uint2",
    "uint4",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "weak_complex",
    "weak_float",
    "weak_int",
    "canonicalize_dtype",
    "check_dtypes",
    "config",
    "dtype",
    "enable_x64",
    "explicit_x64_dtypes",
    "is_weakly_typed",
    "numpy_dtype_promotion",
    "promote_dtype",
    "promote_types",
    "result_type",
]
