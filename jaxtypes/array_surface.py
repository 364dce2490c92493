"""The rest of ``jax.Array``'s members (JAX's ``basearray.pyi``), for
``jaxtypes.Array`` without the JAX stubs: completion and attribute checks then
match JAX.

Each entry is a member's declaration as the generated stub writes it
(``jaxtypes._stubgen.package_stubs``); ``jaxtypes._array`` gives each one an abstract runtime
member (stubtest checks the two agree).  The members that keep the array's
dtype say so (``Array[DT]``, checked against JAX by tests/test_array_surface.py);
where the dtype depends on more than the array's (an index dtype follows x64, a
variance drops complex, ``dot`` promotes with its argument), the result is
``Array[Any]``; ``argsort``'s is JAX's default integer (``DEFAULT_INT``).
With the JAX stubs, jax.Array keeps JAX's own declarations of these
(``jaxtypes._stubgen.basearray_stub``), with the same dtypes.

Left out on purpose: ``__setitem__`` (JAX arrays are immutable; JAX declares it
only to raise, so ``x[0] = 1`` stays an error), ``__init__`` (not
instantiable), ``__numpy_dtype__`` (deprecated), and the private
``_rewrap_with_aval_and_sharding``.  Standard library only.
"""

from __future__ import annotations

from typing import Final

__all__ = ["SURFACE", "SAME_DTYPE", "DEFAULT_INT", "PROPERTIES", "LEFT_OUT", "INDEX_UPDATE_METHODS"]

# name -> the declaration's lines (a property's first line is "@property").
SURFACE: Final[dict[str, tuple[str, ...]]] = {
    # The array's own dtype.
    "mT": ("@property", "def mT(self) -> Array[DT]: ..."),
    "conjugate": ("def conjugate(self) -> Array[DT]: ...",),
    "copy": ("def copy(self) -> Array[DT]: ...",),
    "flatten": ("def flatten(self, order: str = 'C') -> Array[DT]: ...",),
    "ravel": ("def ravel(self, order: str = 'C', *, out_sharding: Any = None) -> Array[DT]: ...",),
    "squeeze": ("def squeeze(self, axis: AxisArgument = None) -> Array[DT]: ...",),
    "swapaxes": ("def swapaxes(self, axis1: int, axis2: int) -> Array[DT]: ...",),
    "sort": (
        "def sort(self, axis: int | None = -1, *, kind: None = None, order: None = None, "
        "stable: bool = True, descending: bool = False) -> Array[DT]: ...",
    ),
    "diagonal": ("def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array[DT]: ...",),
    "repeat": (
        "def repeat(self, repeats: Any, axis: int | None = None, *, total_repeat_length: "
        "int | None = None, out_sharding: Any = None) -> Array[DT]: ...",
    ),
    "take": (
        "def take(self, indices: Any, axis: int | None = None, out: None = None, "
        "mode: str | None = None, unique_indices: bool = False, indices_are_sorted: bool = False, "
        "fill_value: Any = None) -> Array[DT]: ...",
    ),
    "compress": (
        "def compress(self, condition: Any, axis: int | None = None, *, out: None = None, "
        "size: int | None = None, fill_value: Any = 0) -> Array[DT]: ...",
    ),
    "block_until_ready": ("def block_until_ready(self) -> Array[DT]: ...",),
    "to_device": ("def to_device(self, device: Any, *, stream: Any = None) -> Array[DT]: ...",),
    "addressable_data": ("def addressable_data(self, index: int) -> Array[DT]: ...",),
    "byteswap": ("def byteswap(self) -> Array[DT]: ...",),
    "at": ("@property", "def at(self) -> ArrayAt[DT]: ..."),
    "__reversed__": ("def __reversed__(self) -> Iterator[Array[DT]]: ...",),
    # JAX's default integer, whatever the array's dtype (jnp.argsort's indices
    # are an iota of dtypes.int_): int32 as the stubs are for x64 off (the mypy
    # plugin answers int64 for a project with x64 on).
    "argsort": (
        "def argsort(self, axis: int | None = -1, *, kind: None = None, order: None = None, "
        "stable: bool = True, descending: bool = False) -> Array[int32]: ...",
    ),
    # A dtype that depends on more than the array's.
    "__round__": ("def __round__(self, ndigits: int | None = None) -> Array[Any]: ...",),
    "__divmod__": ("def __divmod__(self, other: Any, /) -> tuple[Array[Any], Array[Any]]: ...",),
    "__rdivmod__": ("def __rdivmod__(self, other: Any, /) -> tuple[Array[Any], Array[Any]]: ...",),
    "argpartition": ("def argpartition(self, kth: int, axis: int = -1) -> Array[Any]: ...",),
    "searchsorted": (
        "def searchsorted(self, v: Any, side: str = 'left', sorter: Any = None, *, "
        "method: str = 'scan') -> Array[Any]: ...",
    ),
    "nonzero": (
        "def nonzero(self, *, fill_value: Any = None, size: int | None = None) -> tuple[Array[Any], ...]: ...",
    ),
    "choose": ("def choose(self, choices: Sequence[Any], out: None = None, mode: str = 'raise') -> Array[Any]: ...",),
    "cumsum": ("def cumsum(self, axis: AxisArgument = None, dtype: Any = None, out: None = None) -> Array[Any]: ...",),
    "cumprod": (
        "def cumprod(self, axis: AxisArgument = None, dtype: Any = None, out: None = None) -> Array[Any]: ...",
    ),
    "dot": ("def dot(self, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Array[Any]: ...",),
    "ptp": ("def ptp(self, axis: AxisArgument = None, out: None = None, keepdims: bool = False) -> Array[Any]: ...",),
    "trace": (
        "def trace(self, offset: Any = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, "
        "out: None = None) -> Array[Any]: ...",
    ),
    "view": ("def view(self, dtype: Any = None, type: None = None) -> Array[Any]: ...",),
    # Not dtypes.
    "aval": ("@property", "def aval(self) -> Any: ..."),
    "itemsize": ("@property", "def itemsize(self) -> int: ..."),
    "nbytes": ("@property", "def nbytes(self) -> int: ..."),
    "weak_type": ("@property", "def weak_type(self) -> bool: ..."),
    "sharding": ("@property", "def sharding(self) -> Any: ..."),
    "committed": ("@property", "def committed(self) -> bool: ..."),
    "device": ("@property", "def device(self) -> Any: ..."),
    "addressable_shards": ("@property", "def addressable_shards(self) -> Sequence[Any]: ..."),
    "global_shards": ("@property", "def global_shards(self) -> Sequence[Any]: ..."),
    "is_fully_addressable": ("@property", "def is_fully_addressable(self) -> bool: ..."),
    "is_fully_replicated": ("@property", "def is_fully_replicated(self) -> bool: ..."),
    "traceback": ("@property", "def traceback(self) -> Any: ..."),
    "tobytes": ("def tobytes(self, order: str = 'C') -> bytes: ...",),
    "copy_to_host_async": ("def copy_to_host_async(self) -> None: ...",),
    "delete": ("def delete(self) -> None: ...",),
    "devices": ("def devices(self) -> set[Any]: ...",),
    "platform": ("def platform(self) -> str: ...",),
    "is_deleted": ("def is_deleted(self) -> bool: ...",),
    "on_device_size_in_bytes": ("def on_device_size_in_bytes(self) -> int: ...",),
    "unsafe_buffer_pointer": ("def unsafe_buffer_pointer(self) -> int: ...",),
    "__array_namespace__": ("def __array_namespace__(self, *, api_version: str | None = None) -> Any: ...",),
    "__dlpack__": ("def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...",),
    "__buffer__": ("def __buffer__(self, flags: int, /) -> memoryview: ...",),
    "__release_buffer__": ("def __release_buffer__(self, view: memoryview, /) -> None: ...",),
}

SAME_DTYPE: Final = frozenset(n for n, lines in SURFACE.items() if "-> Array[DT]" in lines[-1])
DEFAULT_INT: Final = frozenset(n for n, lines in SURFACE.items() if "-> Array[int32]" in lines[-1])
PROPERTIES: Final = frozenset(n for n, lines in SURFACE.items() if lines[0] == "@property")
LEFT_OUT: Final = frozenset(["__setitem__", "__init__", "__numpy_dtype__", "_rewrap_with_aval_and_sharding"])

# x.at[i].<method>(...): the ones that keep x's dtype (JAX casts the values to
# it; the arithmetic ones reject a bool array, which the stub does not say);
# divide makes an integer array's result inexact, and its dtype is Any.
_UPDATE_OPTIONS: Final = (
    "indices_are_sorted: bool = False, unique_indices: bool = False, "
    "mode: str | None = None, wrap_negative_indices: bool = True"
)
INDEX_UPDATE_METHODS: Final[dict[str, str]] = {
    "get": f"def get(self, {_UPDATE_OPTIONS}, fill_value: Any = None, out_sharding: Any = None) -> Array[DT]: ...",
    "set": f"def set(self, values: Any, {_UPDATE_OPTIONS}, fill_value: Any = None, out_sharding: Any = None) "
    "-> Array[DT]: ...",
    "apply": f"def apply(self, func: Callable[[Any], Any], {_UPDATE_OPTIONS}) -> Array[DT]: ...",
    "add": f"def add(self, values: Any, {_UPDATE_OPTIONS}, out_sharding: Any = None) -> Array[DT]: ...",
    "subtract": f"def subtract(self, values: Any, *, {_UPDATE_OPTIONS}) -> Array[DT]: ...",
    **{
        m: f"def {m}(self, values: Any, {_UPDATE_OPTIONS}) -> Array[DT]: ..."
        for m in ("mul", "multiply", "power", "min", "max")
    },
    "divide": f"def divide(self, values: Any, {_UPDATE_OPTIONS}) -> Array[Any]: ...",
}
