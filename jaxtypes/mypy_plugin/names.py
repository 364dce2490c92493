"""Every fully qualified name the plugin looks for, in one place.

The hooks of ``JaxtypesPlugin`` are dictionary look-ups on these names; a
rename in the stubs or the runtime shows up here and nowhere else.
"""

from __future__ import annotations

from typing import Final

from jaxtypes import array_surface, lattice, operation_table

PACKAGE: Final = "jaxtypes"
ARRAY: Final = "jaxtypes._array.Array"
# jax.Array as the stubs of `jaxtypes jax-stubs` declare it: the same class as
# jaxtypes.Array there (jaxtypes/_array.pyi re-exports it), so the plugin
# answers for it as for ARRAY.
JAX_ARRAY: Final = "jax._src.basearray.Array"
ARRAYS: Final = (ARRAY, JAX_ARRAY)
MARKERS_MODULE: Final = "jaxtypes.markers"
# The generated promotion tables of the markers: jaxtypes.markers._add_bool_, ...
# (subclasses of _Table, declared beside each Array class).
TABLE_PREFIX: Final = f"{MARKERS_MODULE}._"
TABLE_BASES: Final = ("jaxtypes._array._Table", "jax._src.basearray._Table")
# The descriptors that read those tables for jax.Array's operators and methods
# in the stubs of `jaxtypes jax-stubs`: jax._src.basearray._AddOp, ...
DESCRIPTOR_PREFIX: Final = "jax._src.basearray._"
DESCRIPTOR_BASE: Final = "jax._src.basearray._Descriptor"

# Equinox's layers in the stubs of `jaxtypes jax-stubs` (equinox.nn.Linear...),
# and the type argument of a layer made without dtype: JAX's default float.
EQUINOX_NN: Final = "equinox.nn."
EQUINOX_DEFAULT_FLOAT: Final = "jaxtypes.markers.DefaultFloat"
EQUINOX_NO_DTYPE: Final = "jaxtypes.markers.NoDtype"
# Flax's layers in those stubs (flax.linen.Dense, flax.nnx.Linear...), and the
# type argument of a layer made without a computation dtype.
FLAX_LAYERS: Final = ("flax.linen.", "flax.nnx.")
FLAX_POOLING: Final = "flax.linen.pooling"  # where Flax defines avg_pool, max_pool, min_pool
FLAX_NO_DTYPES: Final = ("jaxtypes.markers.NoDtype",)
# JAX's tree maps (jax.tree.map, jax.tree_util.tree_map).
TREE_MAPS: Final = ("jax.tree.map", "jax.tree_util.tree_map")
# JAX's grad and value_and_grad, and the types of what they return in the
# stubs of `jaxtypes jax-stubs` (declared in their jax/__init__.pyi).
JAX_GRAD: Final = "jax.grad"
JAX_VALUE_AND_GRAD: Final = "jax.value_and_grad"
GRADIENT_FUNCTION: Final = "jax.GradientFunction"
VALUE_AND_GRADIENT_FUNCTION: Final = "jax.ValueAndGradientFunction"
VALUE_AND_GRADIENT_WITH_AUX_FUNCTION: Final = "jax.ValueAndGradientWithAuxFunction"
# Linen's Module, its methods that run a module's __call__, and the
# decorators of a __call__ that return the method as it is.
FLAX_MODULE: Final = "flax.linen.module.Module"
FLAX_MODULE_APPLY: Final = f"{FLAX_MODULE}.apply"
FLAX_MODULE_INIT_WITH_OUTPUT: Final = f"{FLAX_MODULE}.init_with_output"
FLAX_MODULE_PARAM: Final = f"{FLAX_MODULE}.param"
FLAX_MODULE_VARIABLE: Final = f"{FLAX_MODULE}.variable"
# NNX's variables (nnx.Param is a subclass), whose [...] reads back what they hold.
NNX_VARIABLE: Final = "flax.nnx.variablelib.Variable"
NNX_VARIABLE_GETITEM: Final = f"{NNX_VARIABLE}.__getitem__"
# jax.nn.initializers as the stubs of `jaxtypes jax-stubs` type it: the
# functions whose result without dtype is JAX's default float (their aliases too).
JAX_INITIALIZERS: Final = "jax.nn.initializers"
# Flax's builders of JAX's zeros and ones, typed so by those stubs.
FLAX_CONSTANT_INITIALIZERS: Final = tuple(
    f"flax.{package}.initializers.{name}" for package in ("linen", "nnx.nn") for name in ("zeros_init", "ones_init")
)
JAX_INITIALIZER_FUNCTIONS: Final = (
    "zeros",
    "ones",
    "constant",
    "uniform",
    "normal",
    "truncated_normal",
    "variance_scaling",
    "glorot_uniform",
    "xavier_uniform",
    "glorot_normal",
    "xavier_normal",
    "lecun_uniform",
    "lecun_normal",
    "he_uniform",
    "kaiming_uniform",
    "he_normal",
    "kaiming_normal",
    "orthogonal",
    "delta_orthogonal",
)
# lax's control flow, where mypy finds it: jax.lax's stub declares cond and
# fori_loop (the typed overloads of `jaxtypes jax-stubs`) and re-exports
# switch from JAX's module.
LAX_COND: Final = ("jax.lax.cond", "jax._src.lax.control_flow.conditionals.cond")
LAX_SWITCH: Final = ("jax.lax.switch", "jax._src.lax.control_flow.conditionals.switch")
LAX_FORI_LOOP: Final = ("jax.lax.fori_loop", "jax._src.lax.control_flow.loops.fori_loop")
# x.at[i]: the reference whose set/add take a value JAX casts to x's dtype.
INDEX_UPDATE_REF: Final = "jax._src.basearray._IndexUpdateRef"
FLAX_IDENTITY_DECORATORS: Final = frozenset(
    {"flax.linen.module.compact", "flax.linen.module.nowrap", "flax.linen.compact", "flax.linen.nowrap"}
)
# The base class of Equinox's modules, whose layer fields the plugin reads from __init__.
EQUINOX_MODULE: Final = "equinox._module._module.Module"

# Where a program sets JAX's configuration for itself: jax.config.update(name,
# value) and the environment variables JAX reads at import (os.environ[...] =,
# os.environ.setdefault(...)).  The plugin notes a value its settings disagree with.
JAX_CONFIG_UPDATE: Final = "jax._src.config.Config.update"
ENVIRON_SETTERS: Final = ("os._Environ.__setitem__", "os._Environ.setdefault")

# jaxtyping, whose dtype annotations (Float32[Array, "b n"]) the plugin reads.
JAXTYPING: Final = "jaxtyping"

# The functions the plugin types from the lattice.
RESULT_TYPE: Final = "jaxtypes.promotion.result_type"
PROMOTE_TYPES: Final = "jaxtypes.promotion.promote_types"
PROMOTE_DTYPE: Final = "jaxtypes.common_dtype.promote_dtype"
BUILTIN_ABS: Final = "builtins.abs"

# Python scalar types and what JAX makes of them (a value of the type).
PYTHON_SCALAR_NODE: Final = {f"builtins.{s.name}": s.node for s in lattice.PYTHON_SCALARS}
NONE_TYPE: Final = "builtins.None"
NUMPY_GENERIC: Final = "numpy.generic"
NUMPY_DTYPE: Final = "numpy.dtype"
NUMPY_NDARRAY: Final = "numpy.ndarray"
SEQUENCES: Final = ("typing.Sequence", "collections.abc.Sequence")
# x.dtype of an Array[DT]: DtypeValue[DT], declared beside each Array class.
DTYPE_VALUES: Final = ("jaxtypes._array.DtypeValue", "jax._src.basearray.DtypeValue")
# A dtype value's annotation (jaxtypes.typing.DType[D]): type[D] | DtypeValue[D],
# the DtypeValue jaxtypes.typing imports.
DTYPE_ANNOTATION: Final = "jaxtypes.typing.DType"
BUILTIN_STR: Final = "builtins.str"

# JAX's typed ufuncs (jnp.add, jnp.maximum: BinaryUfunc in JAX's stubs) in the
# stubs of `jaxtypes jax-stubs`: each of a class of the markers stub
# (jaxtypes.markers.AddUfunc, LogicalAndUfunc) whose __call__ is typed.
UFUNC_MODULE: Final = "jax.numpy"


def ufunc_call(function: str) -> str | None:
    """The fully qualified name of a typed ufunc's ``__call__``
    (``jax.numpy.logical_and``: ``jaxtypes.markers.LogicalAndUfunc.__call__``);
    None for a function outside UFUNC_MODULE."""
    module, _, short = function.rpartition(".")
    if module != UFUNC_MODULE:
        return None
    return f"{MARKERS_MODULE}.{''.join(w[:1].upper() + w[1:] for w in short.split('_'))}Ufunc.__call__"


# The marker class of each lattice node.
MARKER_FULLNAME: Final = {n: f"{MARKERS_MODULE}.{m}" for n, m in lattice.MARKER_NAME.items()}
NODE_OF_MARKER: Final = {f: n for n, f in MARKER_FULLNAME.items()}

# numpy's scalar type of each strong node that numpy itself defines (the
# others come from ml_dtypes, which has no type information).
NUMPY_SCALAR: Final[dict[str, tuple[str, ...]]] = {
    lattice.BOOL: ("numpy.bool", "numpy.bool_"),
    **{
        n: (f"numpy.{n}",)
        for n in (
            "uint8",
            "uint16",
            "uint32",
            "uint64",
            "int8",
            "int16",
            "int32",
            "int64",
            "float16",
            "float32",
            "float64",
            "complex64",
            "complex128",
        )
    },
}

# Array's members (jaxtypes.operation_table), by what the plugin does with them.
BINARY_METHODS: Final = {op.member: op.name for op in operation_table.of_kind("binary", "comparison")}
REFLECTED_METHODS: Final = {
    op.reflected_member: op.name for op in operation_table.of_kind("binary") if op.reflected_member
}
UNARY_METHODS: Final = {op.member: op.name for op in operation_table.of_kind("unary")}
# ``x == s`` with a Python scalar ``s``: mypy also tries ``s.__eq__(x)``, and
# a scalar's __eq__ takes any object, so these are hooked too (equalities.py).
SCALAR_EQUALITIES: Final = {
    f"builtins.{scalar.name}.__{op}__": op for scalar in lattice.PYTHON_SCALARS for op in ("eq", "ne")
}
# Methods whose result the stubs' generic signatures cannot give: the ones
# with a dtype= (sum and prod with promote_integers=; mean), and the others.
REDUCTIONS: Final = tuple(op.name for op in operation_table.with_rule("reduce"))
DTYPE_METHODS: Final = tuple(op.name for op in operation_table.with_rule("mean"))
VARIANCES: Final = tuple(op.name for op in operation_table.with_rule("variance"))
PLAIN_METHODS: Final = tuple(op.name for op in operation_table.with_rule("extremum", "arg_extremum", "clip", "round"))
PROPERTIES: Final = tuple(op.name for op in operation_table.with_rule("component"))
# Methods whose result is JAX's default integer whatever the array's dtype (argsort).
DEFAULT_INT_METHODS: Final = tuple(sorted(array_surface.DEFAULT_INT))
ITEM: Final = "item"
ASTYPE: Final = "astype"


def member(name: str, array: str = ARRAY) -> str:
    """The fully qualified name of a member of Array (or of ``array``)."""
    return f"{array}.{name}"
