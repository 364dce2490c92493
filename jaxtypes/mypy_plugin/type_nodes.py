"""Between mypy types and lattice nodes: what dtype a type stands for, and back.

An *alternative* is what one possibility of a type means to JAX:

* a lattice node name (``"float32"``, ``"i*"`` ...), or
* a ``TypeVarType``: an array whose dtype is that (unsolved) type variable.

A type reads as a list of alternatives (a union distributes), or ``None`` when
the dtype is unknown (``Any``, ``Never``, bare ``Array``, a non-marker type
argument, ...): then the plugin answers ``Array[Any]`` and reports nothing.
"""

from __future__ import annotations

from typing import Any, Callable, Final, NamedTuple, Optional, Sequence, Union

from mypy.nodes import SymbolTableNode, TypeAlias, TypeInfo
from mypy.types import (
    AnyType,
    CallableType,
    Instance,
    LiteralType,
    NoneType,
    Overloaded,
    ProperType,
    Type,
    TypeOfAny,
    TypeType,
    TypeVarType,
    UnionType,
    get_proper_type,
)

from jaxtypes import lattice

from . import names

__all__ = [
    "Alt",
    "Operand",
    "array_info",
    "array_dtype",
    "operands",
    "dtype_like",
    "is_numpy",
    "Builder",
    "MAX_DEPTH",
    "MAX_ALTERNATIVES",
    "shareable",
]

Alt = Union[str, TypeVarType]
Lookup = Callable[[str], Optional[SymbolTableNode]]
MAX_DEPTH: Final = 8  # nested unions/aliases deeper than this read as unknown
MAX_ALTERNATIVES: Final = 64  # a union wider than this reads as unknown


class Operand(NamedTuple):
    """One alternative of an operand: its node (or TypeVar), whether it is a
    Python scalar (``int``, ``float``, ...) rather than an array, and whether
    it is a NumPy ``"scalar"`` or ``"array"`` (node: its dtype, which JAX
    canonicalizes: ``jaxtypes.operation_rules.numpy_operand``)."""

    alt: Alt
    scalar: bool
    numpy: str = ""


def _union_items(t: UnionType) -> list[Type]:
    return list(t.items)


def array_info(t: Instance) -> TypeInfo | None:
    """The TypeInfo of jaxtypes' Array (or of jax.Array of the generated
    stubs) if ``t`` is one (or a subclass)."""
    if t.type.fullname in names.ARRAYS:
        return t.type
    for info in t.type.mro:
        if info.fullname in names.ARRAYS:
            return info
    return None


def _array_arg(t: Instance) -> Type | None:
    info = array_info(t)
    if info is None:
        return None
    if t.type is info:
        args = t.args
    else:
        from mypy.maptype import map_instance_to_supertype

        args = map_instance_to_supertype(t, info).args
    return args[0] if len(args) == 1 else None


def marker_alts(arg: Type, depth: int = 0) -> list[Alt] | None:
    """The alternatives of a dtype type argument (``float32``, ``int8 | int16``, ``T``)."""
    if depth > MAX_DEPTH:
        return None
    t = get_proper_type(arg)
    if isinstance(t, Instance):
        node = names.NODE_OF_MARKER.get(t.type.fullname)
        return [node] if node is not None else None
    if isinstance(t, TypeVarType):
        return [t]
    if isinstance(t, UnionType):
        out: list[Alt] = []
        for item in _union_items(t):
            sub = marker_alts(item, depth + 1)
            if sub is None:
                return None
            out.extend(a for a in sub if a not in out)
        return out if 0 < len(out) <= MAX_ALTERNATIVES else None
    return None  # Any, Never, anything else: unknown


def array_dtype(t: Type) -> list[Alt] | None:
    """The dtype alternatives of an Array instance type (None: unknown or not an Array)."""
    p = get_proper_type(t)
    if not isinstance(p, Instance):
        return None
    arg = _array_arg(p)
    return None if arg is None else marker_alts(arg)


class Builder:
    """Makes and reads the types the plugin needs, through mypy's symbol tables."""

    def __init__(self, lookup: Lookup, named_type: Callable[[str, list[Type]], Instance]) -> None:
        self._lookup = lookup
        self._named = named_type
        self._numpy_nodes: dict[object, str] | None = None
        self._markers: dict[str, Instance] = {}
        # What a type reads as, kept for one build: code repeats the same few
        # types many times (mypy's types hash and compare by structure).
        self._arrays: dict[tuple[TypeInfo | None, str], Instance] = {}  # Array[marker]
        self._array_alts: dict[Type, list[Alt] | None] = {}
        self._operand_alts: dict[Type, list[Operand] | None] = {}
        self._memos: list[dict[Any, Any]] = []

    def reset(self) -> None:
        """Forget what was looked up (a new build: the symbol tables changed)."""
        self._numpy_nodes = None
        self._markers.clear()
        self._arrays.clear()
        self._array_alts.clear()
        self._operand_alts.clear()
        for memo in self._memos:
            memo.clear()

    def memo(self) -> dict[Any, Any]:
        """A dictionary for a hook's answers, emptied with each new build."""
        memo: dict[Any, Any] = {}
        self._memos.append(memo)
        return memo

    # --------------------------------------------------- reading, memoised
    def array_alts(self, t: Type) -> list[Alt] | None:
        """``array_dtype(t)``, memoised for the build."""
        try:
            return self._array_alts[t]
        except KeyError:
            alts = array_dtype(t)
            if shareable(alts):
                self._array_alts[t] = alts
            return alts

    def operand_alts(self, t: Type) -> list[Operand] | None:
        """``operands(t, self)``, memoised for the build."""
        try:
            return self._operand_alts[t]
        except KeyError:
            alts = operands(t, self)
            if alts is None or shareable([o.alt for o in alts]):
                self._operand_alts[t] = alts
            return alts

    # -------------------------------------------------------------- making
    def marker(self, node: str) -> Instance:
        # Types are not mutated once made: one Instance per marker and build.
        found = self._markers.get(node)
        if found is None:
            found = self._markers[node] = self._named(names.MARKER_FULLNAME[node], [])
        return found

    def array(self, template: Instance | None, dtype: Type) -> Instance:
        """``Array[dtype]``: from the receiver's TypeInfo when there is one;
        JAX's own ``jax.Array`` (no stubs of `jaxtypes jax-stubs`) is not
        generic, and stays the plain ``jax.Array`` it is."""
        if template is not None:
            info = array_info(template)
            if info is not None:
                return Instance(info, [dtype] if info.type_vars else [])
        return self._named(names.ARRAY, [dtype])

    def array_of(self, template: Instance | None, alts: Sequence[Alt] | None) -> Type:
        """``Array[...]`` of one alternative, a union of them (``Array[a] |
        Array[b]``, as the stubs answer), or ``Array[Any]``."""
        if not alts:
            return self.array(template, AnyType(TypeOfAny.special_form))
        if len(alts) == 1 and isinstance(alts[0], str):
            key = (template.type if template is not None else None, alts[0])
            found = self._arrays.get(key)
            if found is None:
                found = self._arrays[key] = self.array(template, self.marker(alts[0]))
            return found
        items: list[Type] = [self.marker(a) if isinstance(a, str) else a for a in alts]
        if len(items) == 1:
            return self.array(template, items[0])
        return UnionType.make_union([self.array(template, item) for item in items])

    def dtype_value(self, dtype: Type) -> Instance:
        """``DtypeValue[dtype]``: what ``x.dtype`` of an ``Array[dtype]`` is."""
        return self._named(names.DTYPE_VALUES[0], [dtype])

    def any_array(self, template: Instance | None = None) -> Instance:
        return self.array(template, AnyType(TypeOfAny.special_form))

    def symbol(self, fullname: str) -> SymbolTableNode | None:
        return self._lookup(fullname)

    def named(self, fullname: str) -> TypeInfo | None:
        sym = self._lookup(fullname)
        return sym.node if sym is not None and isinstance(sym.node, TypeInfo) else None

    def builtin(self, name: str) -> Instance:
        return self._named(f"builtins.{name}", [])

    def numpy_scalar(self, node: str) -> Type | None:
        """numpy's scalar type of a strong node (``numpy.float32``), if numpy has one."""
        for fullname in names.NUMPY_SCALAR.get(node, ()):
            sym = self._lookup(fullname)
            t = _type_of_symbol(sym)
            if t is not None:
                return t
        return None

    def numpy_dtype(self, node: str | None) -> Instance | None:
        """``numpy.dtype[numpy.<node>]`` (``numpy.dtype[Any]`` for ml_dtypes' dtypes)."""
        sym = self._lookup(names.NUMPY_DTYPE)
        if sym is None or not isinstance(sym.node, TypeInfo):
            return None
        scalar = self.numpy_scalar(node) if node is not None else None
        return Instance(sym.node, [scalar if scalar is not None else AnyType(TypeOfAny.special_form)])

    # ------------------------------------------------------------- reading
    def numpy_node(self, t: Instance) -> str | None:
        """The strong node of a numpy scalar type (``numpy.float32`` -> float32)."""
        if self._numpy_nodes is None:
            table: dict[object, str] = {}
            for node in names.NUMPY_SCALAR:
                scalar = self.numpy_scalar(node)
                if isinstance(scalar, Instance):
                    table.setdefault(_numpy_key(scalar, exact=True), node)
                    if scalar.type.fullname in names.NUMPY_SCALAR[node]:
                        # A class of its own (numpy.float64), not an alias of a
                        # generic one (numpy.float32 = floating[_32Bit]).
                        table.setdefault(_numpy_key(scalar, exact=False), node)
            self._numpy_nodes = table
        return self._numpy_nodes.get(_numpy_key(t, exact=True)) or self._numpy_nodes.get(_numpy_key(t, exact=False))


def shareable(alts: Sequence[Alt] | None) -> bool:
    """Whether a reading holds wherever the type is equal: not when it holds a
    type variable, which compares by id and bound, not by its function or name."""
    for a in alts or ():  # a loop: no generator on the hot path
        if not isinstance(a, str):
            return False
    return True


def _type_of_symbol(sym: SymbolTableNode | None) -> Type | None:
    if sym is None:
        return None
    node = sym.node
    if isinstance(node, TypeInfo):
        return _instance_with_defaults(node)
    if isinstance(node, TypeAlias):
        return get_proper_type(node.target)
    return None


def _instance_with_defaults(info: TypeInfo) -> Instance:
    """``info``'s instance type with each type parameter at its default (numpy's
    ``bool`` is ``bool[builtins.bool]``), or Any where it has none."""
    args: list[Type] = []
    for tv in info.defn.type_vars:
        declared: Type | None = getattr(tv, "default", None)  # None: a mypy without defaults
        default = get_proper_type(declared)
        if default is None or isinstance(default, AnyType):
            args.append(AnyType(TypeOfAny.special_form))
        else:
            args.append(default)
    return Instance(info, args)


def _numpy_key(t: Instance, exact: bool) -> object:
    if not exact:
        return t.type.fullname
    return (
        t.type.fullname,
        tuple(
            a.type.fullname if isinstance(a, Instance) else type(a).__name__
            for a in (get_proper_type(x) for x in t.args)
        ),
    )


def _is_numpy_scalar(t: Instance) -> bool:
    return any(info.fullname == names.NUMPY_GENERIC for info in t.type.mro)


def is_numpy(t: Type) -> bool:
    """Whether ``t`` is a NumPy array or scalar type (``np.ndarray[...]``,
    ``np.float64``), which JAX takes as a strong array of its dtype."""
    p = get_proper_type(t)
    return isinstance(p, Instance) and (p.type.fullname == names.NUMPY_NDARRAY or _is_numpy_scalar(p))


def _python_scalar(t: Instance) -> str | None:
    for info in t.type.mro:
        node = names.PYTHON_SCALAR_NODE.get(info.fullname)
        if node is not None:
            return node
    return None


def operands(t: Type, builder: Builder, depth: int = 0) -> list[Operand] | None:
    """The alternatives of an operand of an Array operator: arrays and Python scalars."""
    if depth > MAX_DEPTH:
        return None
    p = get_proper_type(t)
    if isinstance(p, LiteralType):
        p = p.fallback
    if isinstance(p, Instance):
        if array_info(p) is not None:
            alts = array_dtype(p)
            return None if alts is None else [Operand(a, False) for a in alts]
        if _is_numpy_scalar(p):  # numpy.float64 is a float, but JAX takes it as strong
            node = builder.numpy_node(p)
            return None if node is None else [Operand(node, False, "scalar")]
        if p.type.fullname == names.NUMPY_NDARRAY:
            node = _ndarray_node(p, builder)
            return None if node is None else [Operand(node, False, "array")]
        node = _python_scalar(p)
        return None if node is None else [Operand(node, True)]
    if isinstance(p, UnionType):
        out: list[Operand] = []
        for item in _union_items(p):
            sub = operands(item, builder, depth + 1)
            if sub is None:
                return None
            out.extend(o for o in sub if o not in out)
        return out if 0 < len(out) <= MAX_ALTERNATIVES else None
    if isinstance(p, TypeVarType):  # a scalar or array type variable: its bound
        return operands(p.upper_bound, builder, depth + 1)
    return None


def _ndarray_node(t: Instance, builder: Builder) -> str | None:
    """The node of ``numpy.ndarray[shape, numpy.dtype[scalar]]``'s scalar type."""
    arg = get_proper_type(t.args[-1]) if t.args else None
    if not (isinstance(arg, Instance) and arg.type.fullname == names.NUMPY_DTYPE and arg.args):
        return None
    scalar = get_proper_type(arg.args[0])
    return builder.numpy_node(scalar) if isinstance(scalar, Instance) else None


# ------------------------------------------------------------ dtype-likes
class DTypeLike(NamedTuple):
    """One alternative of a dtype-like argument, as JAX reads it."""

    node: str | None  # None: the argument is not a valid dtype (``invalid`` says why)
    weak: bool = False
    kind: str = "dtype"  # "dtype" (a type, name or dtype), "array", "value", "none", "type"
    invalid: str = ""


# numpy's names for dtypes besides the lattice's own (all without byte order).
_NUMPY_ALIASES: Final = {
    "bool_": "bool",
    "?": "bool",
    "b1": "bool",
    "u1": "uint8",
    "u2": "uint16",
    "u4": "uint32",
    "u8": "uint64",
    "i1": "int8",
    "i2": "int16",
    "i4": "int32",
    "i8": "int64",
    "f2": "float16",
    "f4": "float32",
    "f8": "float64",
    "c8": "complex64",
    "c16": "complex128",
    "half": "float16",
    "single": "float32",
    "double": "float64",
    "float": "float64",
    "int": "int64",
    "complex": "complex128",
    "csingle": "complex64",
    "cdouble": "complex128",
    # C's types of one width on every platform numpy 2 supports; ``long`` and
    # ``ulong`` (32-bit on Windows) are left unknown.  ``int``, ``int_`` and
    # ``intp`` are numpy 2's 64-bit default integer.
    "byte": "int8",
    "ubyte": "uint8",
    "short": "int16",
    "ushort": "uint16",
    "intc": "int32",
    "uintc": "uint32",
    "longlong": "int64",
    "ulonglong": "uint64",
    "int_": "int64",
    "intp": "int64",
    "uint": "uint64",
    "uintp": "uint64",
}


def names_of_dtype(node: str) -> list[str]:
    """The names JAX reads as the dtype ``node``: its own, then numpy's aliases."""
    return [node, *(alias for alias, aliased in _NUMPY_ALIASES.items() if aliased == node)]


def dtype_name(name: str) -> str | None:
    """The node of a dtype name JAX accepts (``'bfloat16'``, ``'float32'``, ``'f4'``)."""
    if name in lattice.STRONG:
        return name
    return _NUMPY_ALIASES.get(name)


def _str_value(t: ProperType) -> str | None:
    """The value of a string literal type (or of a str known to hold one)."""
    if isinstance(t, LiteralType) and isinstance(t.value, str) and t.fallback.type.fullname == "builtins.str":
        return t.value
    if isinstance(t, Instance) and t.last_known_value is not None:
        value = t.last_known_value.value
        if isinstance(value, str) and t.type.fullname == "builtins.str":
            return value
    return None


def _type_object(inst: Instance, builder: Builder) -> list[DTypeLike] | None:
    """A class used as a dtype (``inst``: its instances' type): a marker, a
    Python type, a numpy scalar type."""
    fullname = inst.type.fullname
    node = names.NODE_OF_MARKER.get(fullname)
    if node is not None:
        if node in lattice.WEAK:
            return [
                DTypeLike(
                    None, invalid=f"jaxtypes.{lattice.MARKER_NAME[node]} is a type marker for Array[...], not a dtype"
                )
            ]
        return [DTypeLike(node)]
    py = names.PYTHON_SCALAR_NODE.get(fullname)
    if py is not None:
        # int, float, complex: weak (JAX's default of the kind); bool: strong bool.
        return [DTypeLike(py, weak=py in lattice.WEAK, kind="type")]
    if _is_numpy_scalar(inst):
        node = builder.numpy_node(inst)
        return None if node is None else [DTypeLike(node)]
    return None


def _instance_of_type_object(t: ProperType) -> Instance | None:
    """The instance type of a class object expression (``float32``, ``int``,
    ``np.float16``), or of ``type[X]``."""
    if isinstance(t, TypeType):
        item = get_proper_type(t.item)
        return item if isinstance(item, Instance) else None
    if isinstance(t, (CallableType, Overloaded)) and t.is_type_obj():
        item = t if isinstance(t, CallableType) else t.items[0]
        ret = get_proper_type(item.ret_type)
        if isinstance(ret, Instance) and ret.type is t.type_object():
            return ret
        # A marker (jnp.float32 in the JAX stubs) is called for an Array.
        info = t.type_object()
        return Instance(info, [AnyType(TypeOfAny.special_form)] * len(info.defn.type_vars))
    return None


def dtype_like(t: Type, builder: Builder, depth: int = 0) -> list[DTypeLike] | None:
    """What a ``result_type``/``promote_dtype``/``astype`` argument is to JAX.

    Markers and numpy scalar types (as type objects), dtype names (string
    literals), ``numpy.dtype[...]``, arrays (``Array[...]``, ``numpy.ndarray``),
    Python scalars and the types ``int``/``float``/``complex``/``bool``, None.
    """
    if depth > MAX_DEPTH:
        return None
    p = get_proper_type(t)
    if isinstance(p, UnionType):
        out: list[DTypeLike] = []
        for item in _union_items(p):
            sub = dtype_like(item, builder, depth + 1)
            if sub is None:
                return None
            out.extend(d for d in sub if d not in out)
        return out if 0 < len(out) <= MAX_ALTERNATIVES else None
    if isinstance(p, NoneType):
        return [DTypeLike(None, kind="none")]
    if isinstance(p, (CallableType, Overloaded, TypeType)):
        inst = _instance_of_type_object(p)
        return None if inst is None else _type_object(inst, builder)
    text = _str_value(p)
    if text is not None:
        node = dtype_name(text)
        return None if node is None else [DTypeLike(node)]
    if isinstance(p, LiteralType):
        p = p.fallback
    if isinstance(p, TypeVarType):
        return dtype_like(p.upper_bound, builder, depth + 1)
    if not isinstance(p, Instance):
        return None
    if array_info(p) is not None:
        alts = array_dtype(p)
        if alts is None or not all(isinstance(a, str) for a in alts):
            return None
        return [DTypeLike(a, weak=a in lattice.WEAK, kind="array") for a in alts if isinstance(a, str)]
    fullname = p.type.fullname
    if fullname in names.DTYPE_VALUES and p.args:  # x.dtype: a dtype
        marker = get_proper_type(p.args[0])
        node = names.NODE_OF_MARKER.get(marker.type.fullname) if isinstance(marker, Instance) else None
        # A weak value's dtype is float32 or float64 as x64 decides: unknown here.
        return None if node is None or node in lattice.WEAK else [DTypeLike(node, kind="dtype")]
    if fullname == names.NUMPY_NDARRAY:
        node = _ndarray_node(p, builder)
        return None if node is None else [DTypeLike(node, kind="array")]
    if fullname == names.NUMPY_DTYPE:
        arg = get_proper_type(p.args[-1]) if p.args else None
        node = builder.numpy_node(arg) if isinstance(arg, Instance) else None
        return None if node is None else [DTypeLike(node, kind="dtype")]
    if _is_numpy_scalar(p):
        node = builder.numpy_node(p)
        return None if node is None else [DTypeLike(node, kind="value")]
    py = _python_scalar(p)
    if py is not None:
        return [DTypeLike(py, weak=py in lattice.WEAK, kind="value")]
    return None


def one_dtype(t: Type, builder: Builder) -> str | None:
    """The one strong dtype a dtype value says (a scalar type, a name, a dtype
    object; not an array, a Python value or type, nor a weak marker)."""
    likes = dtype_like(t, builder)
    if likes is None or len(likes) != 1:
        return None
    like = likes[0]
    if like.node is None or like.weak or like.kind != "dtype" or lattice.is_weak(like.node):
        return None
    return like.node
