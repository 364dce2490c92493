"""Every fully qualified name the plugin looks for, in one place.

The hooks of ``JaxtypesPlugin`` are dictionary look-ups on these names; a
rename in the stubs or the runtime shows up here and nowhere else.
"""

from __future__ import annotations

from typing import Final

from jaxtypes import lattice, ops

PACKAGE: Final = "jaxtypes"
ARRAY: Final = "jaxtypes._array.Array"
# jax.Array as the stubs of `jaxtypes jax-stubs` declare it: the same class as
# jaxtypes.Array there (jaxtypes/_array.pyi re-exports it), so the plugin
# answers for it as for ARRAY.
JAX_ARRAY: Final = "jax._src.basearray.Array"
ARRAYS: Final = (ARRAY, JAX_ARRAY)
MARKERS_MODULE: Final = "jaxtypes.markers"
# The generated promotion tables of the markers: jaxtypes.markers._add_bool_, ...
TABLE_PREFIX: Final = f"{MARKERS_MODULE}._"

# The functions the plugin types from the lattice.
RESULT_TYPE: Final = "jaxtypes.promotion.result_type"
PROMOTE_TYPES: Final = "jaxtypes.promotion.promote_types"
PROMOTE_DTYPE: Final = "jaxtypes.promote.promote_dtype"
BUILTIN_ABS: Final = "builtins.abs"

# Python scalar types and what JAX makes of them (a value of the type).
PYTHON_SCALAR_NODE: Final = {
    "builtins.bool": lattice.BOOL,
    "builtins.int": lattice.WEAK_INT,
    "builtins.float": lattice.WEAK_FLOAT,
    "builtins.complex": lattice.WEAK_COMPLEX,
}
NONE_TYPE: Final = "builtins.None"
NUMPY_GENERIC: Final = "numpy.generic"
NUMPY_DTYPE: Final = "numpy.dtype"
NUMPY_NDARRAY: Final = "numpy.ndarray"
# JAX's scalar types (jnp.float32) in the stubs of `jaxtypes jax-stubs`:
# DtypeOf[dtype marker, the marker it canonicalizes to].
DTYPE_OF: Final = f"{MARKERS_MODULE}.DtypeOf"

# The marker class of each lattice node (as stubgen names them).
MARKER_NAME: Final = {
    **{n: n for n in lattice.STRONG},
    lattice.BOOL: "bool_",
    lattice.WEAK_INT: "weak_int",
    lattice.WEAK_FLOAT: "weak_float",
    lattice.WEAK_COMPLEX: "weak_complex",
}
MARKER_FULLNAME: Final = {n: f"{MARKERS_MODULE}.{m}" for n, m in MARKER_NAME.items()}
NODE_OF_MARKER: Final = {f: n for n, f in MARKER_FULLNAME.items()}

# numpy's scalar type of each strong node that numpy itself defines (the
# others come from ml_dtypes, which has no type information).
NUMPY_SCALAR: Final[dict[str, tuple[str, ...]]] = {
    lattice.BOOL: ("numpy.bool", "numpy.bool_"),
    **{n: (f"numpy.{n}",) for n in (
        "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
        "float16", "float32", "float64", "complex64", "complex128",
    )},
}

# Array's members, by what the plugin does with them.
BINARY_METHODS: Final = {f"__{op}__": op for op in (*ops.BINARY_OPERATORS, *ops.COMPARISONS)}
REFLECTED_METHODS: Final = {f"__r{op}__": op for op in ops.BINARY_OPERATORS}
UNARY_METHODS: Final = {f"__{op}__": op for op in ops.UNARY_OPERATORS}
# ``x == s`` with a Python scalar ``s``: mypy also tries ``s.__eq__(x)``, and
# a scalar's __eq__ takes any object, so these are hooked too (equalities.py).
SCALAR_EQUALITIES: Final = {
    f"builtins.{scalar}.__{op}__": op
    for scalar in ("bool", "int", "float", "complex") for op in ("eq", "ne")
}
REDUCTIONS: Final = ("sum", "prod")
DTYPE_METHODS: Final = ("mean",)  # take a dtype= but never promote integers
PLAIN_METHODS: Final = ("max", "min", "argmax", "argmin", "clip", "round")
PROPERTIES: Final = ("real", "imag")
ITEM: Final = "item"
ASTYPE: Final = "astype"


def member(name: str, array: str = ARRAY) -> str:
    """The fully qualified name of a member of Array (or of ``array``)."""
    return f"{array}.{name}"
