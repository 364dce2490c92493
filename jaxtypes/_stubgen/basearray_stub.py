"""``jax/_src/basearray.pyi`` with ``jax.Array`` generic in its dtype.

The transformation works on syntax trees (``ast``): JAX's module is parsed, its
``class Array`` rebuilt member by member, and the module unparsed; jaxtypes'
own ``Array`` comes parsed from ``jaxtypes._stubgen.package_stubs`` (which renders it from the
lattice).  Nothing depends on JAX's formatting.  In the result:

* ``Array`` is ``Generic[DT]`` with ``DT`` defaulting to ``Any``, so bare
  ``jax.Array`` (and every JAX function's return type) is ``Array[Any]``;
* every member JAX declares is kept, with JAX's own declaration, except
  - the operators and the methods whose dtype jaxtypes computes (``sum``,
    ``mean``, ``max``, ``clip``, ``round``, ``item``, ...): jaxtypes'
    promotion-aware descriptors, which for ``Array[Any]`` fall back to JAX's
    own signature (``_descriptors``);
  - ``dtype``, ``real``, ``imag``, ``astype``: jaxtypes' typed signatures
    (``x.dtype`` is a ``DtypeValue[DT]``; ``astype`` also takes numpy's dtype
    spellings, and keeps JAX's signature as its last overload);
  - ``__abs__``: a descriptor like the operators', with JAX's own signature
    for ``Array[Any]`` (``_abs_descriptor``: jaxtypes' own ``__abs__`` is a
    method, whose ``abs(b)`` ty cannot solve for a bare array);
  - the members that keep the dtype (``reshape``, ``T``, ``__getitem__``,
    ``copy``, ``.at[...].set(...)``, ...), whose returned ``Array`` becomes
    ``Array[DT]`` (not ``.at[...].divide(...)``, inexact for integers), and
    ``all``/``any``, which return ``Array[bool_]``, and ``argsort``, JAX's
    default integer (``array_surface.DEFAULT_INT``: int32, x64 off);
  - ``__setitem__``, left out: ``x[i] = v`` always raises (``REMOVED``);
* jaxtypes' table and descriptor classes are defined alongside.

What the transformation relies on is checked, not assumed (``check_shape``):
a JAX whose module lacks a part it needs is refused with the part named.
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final, cast

from jaxtypes import array_surface, lattice
from jaxtypes._stubgen import package_stubs

__all__ = [
    "SAME_DTYPE",
    "BOOL_RESULT",
    "OPTIONAL",
    "KEEP_JAX",
    "ADDED",
    "SAME_ARRAY",
    "SAME_ARRAY_METHOD",
    "INDEX_HELPERS",
    "INDEX_UPDATES_NOT_KEEPING",
    "REMOVED",
    "ShapeError",
    "check_shape",
    "render_basearray",
    "prelude_names",
    "member_name",
]

# Members whose JAX signature is kept and only the returned Array gets a dtype:
# jaxtypes.Array's own and those of the rest of JAX's surface that keep it.
SAME_DTYPE: Final = frozenset(["T", "reshape", "transpose", "conj", "__getitem__"]) | array_surface.SAME_DTYPE
BOOL_RESULT: Final = frozenset(["all", "any"])
# Members an older supported JAX does not declare (byteswap before 0.10,
# to_device before 0.4.31): left out when absent.
OPTIONAL: Final = frozenset(["byteswap", "to_device"])
# Members jaxtypes' Array declares whose JAX declaration is kept as it is.
KEEP_JAX: Final = frozenset(
    [
        "shape",
        "ndim",
        "size",
        "tolist",
        "__array__",
        "__len__",
        "__bool__",
        "__int__",
        "__float__",
        "__complex__",
        "__index__",
    ]
)
# Members jaxtypes adds where JAX declares none.
ADDED: Final = frozenset(["__hash__"])
# A method of the JAX stubs' Array only, taking and giving the array's own
# type, which no checker widens: lax's equal-dtype functions read both arrays
# through it (jaxtypes.markers.SameArray), so that two arrays of one dtype
# variable (``x: jax.Array[D]``) match where two of known, different dtypes do
# not (function_overloads._equal_dtype_overloads).  A dunder name, as
# completions list them apart from an array's public members.
SAME_ARRAY: Final = "__jaxtypes_same__"
SAME_ARRAY_METHOD: Final = f"def {SAME_ARRAY}(self, other: Self, /) -> Self: ..."
# Index-update helpers (``x.at[i].set(v)``): generic in the dtype, every Array
# they return keeps it.
INDEX_HELPERS: Final = ("_IndexUpdateHelper", "_IndexUpdateRef")
# Their methods that do not keep the dtype: ``x.at[i].divide(v)`` of an
# integer array is inexact (its JAX declaration, ``-> Array``, is kept).
INDEX_UPDATES_NOT_KEEPING: Final = frozenset(["divide"])
# Members JAX declares that the stubs leave out: ``x[i] = v`` always raises
# TypeError (JAX arrays are immutable), so it is an error to the checkers too.
REMOVED: Final = frozenset(["__setitem__"])

MARKERS_MODULE: Final = "_jaxtypes_markers"  # how the module imports jaxtypes.markers
DESCRIPTOR_DT: Final = "_DescriptorDT"  # the descriptors' own type parameter
ANY_DTYPE: Final = "_AnyDtype"  # no marker derives from it: matches only Any
DESCRIPTOR_BASE: Final = "_Descriptor"  # every descriptor's base, generic in the dtype
# A descriptor of dtype Any: the self type of the overload that gives Array[Any]
# JAX's own signature (_self_dispatched says why a TypeVar).
ANY_DTYPE_DESCRIPTOR: Final = "_AnyDtypeDescriptor"
COMPARE_DESCRIPTOR: Final = "_CompareOp"  # the comparisons' descriptor: bool for any dtype
ANY_SCALAR: Final = "_AnyNumpyScalar"  # no numpy scalar type derives from it
ABS_DESCRIPTOR: Final = "_AbsOp"  # Array.__abs__ here (_abs_descriptor says why)
# A method's descriptor by its table of its own dtype (``_kept``: ``SumTo[DT]``)
# and that dtype (``_dtype``, every descriptor's): the self type of the overload
# for a dtype the method gives back (``_kept_dtypes``), a TypeVar's too.
KEPT_PROTOCOL: Final = "_Kept"
KEPT_ATTRIBUTE: Final = "_kept"
KEPT_DTYPE: Final = "_dtype"
KEPT_DT: Final = "_KeptDT"  # the protocol's dtype parameter
# numpy's scalar types that are lattice dtypes, named as their jaxtypes markers.
NUMPY_DTYPES: Final = (
    "bool_",
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


class ShapeError(Exception):
    """JAX's basearray.pyi lacks a part the transformation relies on."""


def member_name(node: ast.stmt) -> str | None:
    """The name a class-body statement declares (a def, ``x: T``, ``x = ...``)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id
    return None


def _members(body: Iterable[ast.stmt]) -> dict[str, list[ast.stmt]]:
    """name -> its declarations (several for overloads), in order."""
    out: dict[str, list[ast.stmt]] = {}
    for node in body:
        name = member_name(node)
        if name is not None:
            out.setdefault(name, []).append(node)
    return out


def _classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}


def _defined_names(body: Iterable[ast.stmt]) -> set[str]:
    return {name for node in body if (name := member_name(node)) is not None}


def _parse(text: str) -> list[ast.stmt]:
    return ast.parse(text).body


def _expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


# ------------------------------------------------------------ jaxtypes' Array
@dataclass(frozen=True)
class _Ours:
    """jaxtypes' ``_array.pyi`` as stubgen renders it, parsed."""

    prelude: list[ast.stmt]  # everything before ``class Array`` but the docstring and __all__
    keywords: list[ast.keyword]  # of the class line (``metaclass=``)
    members: dict[str, list[ast.stmt]]  # Array's members


def _ours() -> _Ours:
    tree = ast.parse(package_stubs.render_array())
    prelude: list[ast.stmt] = []
    array: ast.ClassDef | None = None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Array":
            array = node
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the module docstring
        elif member_name(node) == "__all__":
            continue
        elif array is None:
            prelude.append(node)
    if array is None:
        raise AssertionError("jaxtypes._stubgen.package_stubs.render_array() has no class Array")
    return _Ours(prelude, array.keywords, _members(array.body))


def prelude_names() -> list[str]:
    """The names jaxtypes' prelude defines (re-exported by jaxtypes/_array.pyi)."""
    return sorted(_defined_names(_ours().prelude))


# --------------------------------------------------------------- JAX's shape
# What JAX before 0.8 declares Array with (``class Array(abc.ABC)``, then
# ``metaclass=abc.ABCMeta``): jaxtypes' class has a metaclass derived from
# ABCMeta, so the transformed class keeps what these say.
_ABC_BASES: Final = frozenset(["abc.ABC", "ABC"])
_ABC_METACLASSES: Final = frozenset(["abc.ABCMeta", "ABCMeta"])


def _only_abc(cls: ast.ClassDef) -> bool:
    """Whether ``cls`` has no base class or keyword but ABC's."""
    return all(ast.unparse(b) in _ABC_BASES for b in cls.bases) and all(
        k.arg == "metaclass" and ast.unparse(k.value) in _ABC_METACLASSES for k in cls.keywords
    )


def check_shape(tree: ast.Module) -> list[str]:
    """The parts of JAX's basearray.pyi the transformation needs that are
    missing (empty when all are there)."""
    classes = _classes(tree)
    array = classes.get("Array")
    if array is None:
        return ["class Array"]
    missing: list[str] = []
    if not _only_abc(array):
        missing.append("class Array without base classes")
    declared = _members(array.body)
    ours = _ours().members
    # (The rest of JAX's surface, which jaxtypes' Array declares for use
    # without these stubs, is JAX's to declare here.)
    needed = (set(ours) - ADDED - set(array_surface.SURFACE)) | SAME_DTYPE | BOOL_RESULT | {"at"}
    missing += [f"Array.{name}" for name in sorted(needed - set(declared) - OPTIONAL)]
    missing += [f"class {name}" for name in INDEX_HELPERS if name not in classes]
    if "ArrayLike" not in _defined_names(tree.body):
        missing.append("ArrayLike")
    taken = sorted(_defined_names(tree.body) & _defined_names(_ours().prelude))
    missing += [f"(no) {name}, which jaxtypes defines too" for name in taken]
    return missing


# ------------------------------------------------------------- retyping
class _Returns(ast.NodeTransformer):
    """Every function's returned bare ``Array`` (or index helper) -> ``name[DT]``."""

    def __init__(self, names: Iterable[str], new: str) -> None:
        self.names = set(names)
        self.new = new

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        if isinstance(node.returns, ast.Name) and node.returns.id in self.names:
            node.returns = _expr(self.new.format(name=node.returns.id))
        return node


def _retyped(nodes: Iterable[ast.stmt], names: Iterable[str], new: str) -> list[ast.stmt]:
    transform = _Returns(names, new)
    return [transform.visit(copy.deepcopy(n)) for n in nodes]


# -------------------------------------------------------------- descriptors
def _canon(x: object) -> str:
    """An AST dump without positions, comments or empty fields."""
    if isinstance(x, ast.AST):
        fields: list[str] = []
        for f in x._fields:
            if f in ("type_params", "type_comment", "kind"):
                continue
            v = getattr(x, f, None)
            if v is None or v == []:
                continue
            fields.append(f"{f}={_canon(v)}")
        return f"{type(x).__name__}({', '.join(fields)})"
    if isinstance(x, list):
        items = cast("list[object]", x)  # (a field's list; isinstance names no element type)
        return "[" + ", ".join(_canon(v) for v in items) + "]"
    return repr(x)


def _marker_tables() -> tuple[dict[str, dict[str, ast.expr]], set[str]]:
    """{marker: {table attribute (``_add``): its annotation}} from jaxtypes'
    generated markers stub, and every class name that stub defines."""
    tree = ast.parse(package_stubs.render_stubs()["jaxtypes/markers.pyi"])
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    marker_names = set(package_stubs.MARKER_NAME.values())
    markers = {
        c.name: {
            n.target.id: n.annotation for n in c.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
        }
        for c in classes
        if c.name in marker_names
    }
    return markers, {c.name for c in classes}


class _Qualify(ast.NodeTransformer):
    """Names defined by jaxtypes.markers, as attributes of the imported module."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in self.names:
            return ast.Attribute(value=ast.Name(MARKERS_MODULE, ast.Load()), attr=node.id, ctx=ast.Load())
        return node


class _Substitute(ast.NodeTransformer):
    def __init__(self, var: str, value: ast.expr) -> None:
        self.var, self.value = var, value

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return copy.deepcopy(self.value) if node.id == self.var else node


def _protocol_attribute(prelude: list[ast.stmt], name: str) -> str:
    """The one property of protocol ``name`` (``_Has_add`` -> ``_add``)."""
    for node in prelude:
        if isinstance(node, ast.ClassDef) and node.name == name:
            props = [f.name for f in node.body if isinstance(f, ast.FunctionDef)]
            if len(props) == 1:
                return props[0]
    raise AssertionError(
        f"jaxtypes._stubgen.package_stubs's {name} is not a one-property protocol; teach jaxtypes._stubgen.basearray_stub about it"
    )


def _read_table(dtype: ast.Subscript) -> ast.expr:
    """What a protocol's table argument is: ``_Bound_sum[_M]`` of a method's
    ``_Has_sum[_Bound_sum[_M], _One]`` (its second argument only makes a
    union of markers not match), ``_F`` of an operator's ``_Has_add[_F]``."""
    inner = dtype.slice
    return inner.elts[0] if isinstance(inner, ast.Tuple) else inner


def _is_bound_method(dtype: ast.expr) -> bool:
    """Whether a descriptor's ``obj: Array[...]`` reads a method's def
    (``_Has_sum[_Bound_sum[_M], _One]``), not an operator's table (``_Has_add[_F]``)."""
    if not isinstance(dtype, ast.Subscript):
        return False
    table = _read_table(dtype)
    return (
        isinstance(table, ast.Subscript) and isinstance(table.value, ast.Name) and table.value.id.startswith("_Bound_")
    )


def _table_variable(dtype: ast.expr) -> str | None:
    """The TypeVar a descriptor's ``obj: Array[...]`` solves for the marker's
    table: ``_F`` of ``_Has_add[_F]``; for a method, ``_M`` of
    ``_Has_sum[_Bound_sum[_M]]``, its table's def bound, for which the
    per-marker overloads here give the table itself (a ``self`` type is no
    protocol step mypy binds: ``SumTo[bfloat16]``, called the same way)."""
    if not (
        isinstance(dtype, ast.Subscript) and isinstance(dtype.value, ast.Name) and dtype.value.id.startswith("_Has")
    ):
        return None
    inner = _read_table(dtype)
    if isinstance(inner, ast.Name):
        return inner.id
    if (
        isinstance(inner, ast.Subscript)
        and isinstance(inner.value, ast.Name)
        and inner.value.id.startswith("_Bound_")
        and isinstance(inner.slice, ast.Name)
    ):
        return inner.slice.id
    return None


def _is_descriptor(node: ast.stmt) -> bool:
    return isinstance(node, ast.ClassDef) and any(
        isinstance(f, ast.FunctionDef) and f.name == "__get__" for f in node.body
    )


@dataclass(frozen=True)
class _KeptDtypes:
    """The markers a method gives their own dtype back (``_kept_dtypes``)."""

    table: str  # the table class, ``SumTo``
    markers: list[str]  # in the markers stub's order
    narrowed: list[str]  # those of them whose table is another's: 64-bit, with x64 off


def _kept_dtypes(attribute: str, markers: Mapping[str, Mapping[str, ast.expr]]) -> _KeptDtypes | None:
    """The markers whose table of a method (``_sum``) is the method's table of
    the marker itself (``float32``: ``SumTo[float32]``), so that a TypeVar bound
    within them keeps its TypeVar; None when there is none.

    A 64-bit marker counts when the 32-bit dtype JAX makes of it with x64 off
    (the stubs' setting) counts and its table is that dtype's (``float64``:
    ``SumTo[float32]``): no array has its dtype then, so, as with the mypy
    plugin's rule for a bound (only the dtypes an array can have), ``x.sum()``
    of ``x: Array[F]``, F bound to ``floating``, is ``Array[F]``."""
    node_of = {marker: node for node, marker in package_stubs.MARKER_NAME.items()}

    def table(marker: str) -> tuple[str, str] | None:
        t = markers[marker].get(attribute)
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and isinstance(t.slice, ast.Name):
            return t.value.id, t.slice.id
        return None

    strong = [m for m in markers if m in node_of and not lattice.is_weak(node_of[m])]
    own = {m: t for m in strong if (t := table(m)) is not None and t[1] == m}
    narrowed = [
        m
        for m in strong
        if m not in own
        and (canonical := package_stubs.MARKER_NAME[lattice.canonicalize(node_of[m], x64=False)]) in own
        and table(m) == own[canonical]
    ]
    classes = {t[0] for t in own.values()}
    if not own:
        return None
    if len(classes) != 1:
        raise AssertionError(f"the markers' {attribute} tables that keep the dtype are of several classes: {classes}")
    return _KeptDtypes(classes.pop(), [m for m in strong if m in own or m in narrowed], narrowed)


def kept_dtypes() -> dict[str, list[str]]:
    """method -> the lattice nodes whose arrays it gives their own dtype back
    (a 64-bit one: the dtype JAX makes of it with x64 off), as the stubs
    declare it (``_kept_dtypes``), for each method of Array whose descriptor
    reads a table (tests/test_bound_dtypes.py checks them against JAX)."""
    markers, _ = _marker_tables()
    node_of = {marker: node for node, marker in package_stubs.MARKER_NAME.items()}
    out: dict[str, list[str]] = {}
    prelude = _ours().prelude
    for node in prelude:
        if not (isinstance(node, ast.ClassDef) and _is_descriptor(node)):
            continue
        for fn in node.body:
            params = fn.args.posonlyargs + fn.args.args if isinstance(fn, ast.FunctionDef) else []
            obj = params[1].annotation if len(params) == 3 else None
            if isinstance(obj, ast.Subscript) and _is_bound_method(obj.slice):
                assert isinstance(obj.slice, ast.Subscript) and isinstance(obj.slice.value, ast.Name)
                attribute = _protocol_attribute(prelude, obj.slice.value.id)
                found = _kept_dtypes(attribute, markers)
                if found is not None:
                    out[attribute.removeprefix("_")] = [node_of[m] for m in found.markers]
    return out


def _union(marker_names: Iterable[str]) -> str:
    return " | ".join(f"{MARKERS_MODULE}.{m}" for m in marker_names)


def _self_dispatched(
    node: ast.ClassDef,
    jax_table: str | None,
    prelude: list[ast.stmt],
    markers: Mapping[str, Mapping[str, ast.expr]],
    qualify: _Qualify,
) -> ast.ClassDef:
    """A descriptor class of jaxtypes._stubgen.package_stubs, generic in the array's dtype,
    whose ``__get__`` is keyed on ``self``, not on ``obj``.

    * Array declares ``__add__: _AddOp[DT]``; ``_AddOp.__get__`` has one
      overload per marker (``self: _AddOp[float32]`` gives float32's ``_add``
      table; mypy does not bind a ``self`` type through a protocol), then the
      generic fallback of jaxtypes._stubgen.package_stubs for a dtype known only as a TypeVar.
      Keyed on ``obj``, a bare ``jax.Array`` (``Array[Any]``) matched every
      overload, and mypy, pyrefly and ty answer ``Any`` for an ambiguous match
      (the typing spec's overload rule), so ``(b + b).typo`` went unreported.
    * ``Array[Any]`` keeps JAX's own signature: the first instance overload
      returns a table whose ``__call__`` is JAX's declaration of the member.
      Its ``self`` is ``_AnyDtypeDescriptor``, a TypeVar bound to
      ``_Descriptor[_AnyDtype]`` (no marker derives from ``_AnyDtype``), so
      only a descriptor of dtype ``Any`` matches it.  A TypeVar, not
      ``_AddOp[_AnyDtype]``, for ty: ``_AddOp[Any]`` matches every marker's
      overload too, and ty answers an ambiguous match ``Unknown`` unless the
      overloads up to one of them take every materialization of the argument
      (the typing spec's step 5); solved against ``_AddOp[Any]``, the TypeVar
      makes this overload's ``self`` exactly that, so ty stops there.
      (``self: _AddOp[_K]`` with ``_K`` bound would do for ty, but mypy
      ignores that bound when binding ``self`` and took it for ``Array[T]``.)
    * Every descriptor is also callable with anything: pyright matches a
      protocol member (``sum()``'s ``SupportsAdd``) against the attribute's
      declared type without applying ``__get__``.
    """
    name = node.name
    class_access: list[str] = []
    instance: list[str] = []
    kept_property: list[str] = []
    for fn in node.body:
        if isinstance(fn, ast.Expr) and isinstance(fn.value, ast.Constant):
            continue  # docstring
        if not (isinstance(fn, ast.FunctionDef) and fn.name == "__get__"):
            raise AssertionError(
                f"jaxtypes._stubgen.package_stubs's descriptor {name} has a member other "
                "than __get__ overloads; teach jaxtypes._stubgen.basearray_stub about it"
            )
        params = fn.args.posonlyargs + fn.args.args
        obj = params[1].annotation if len(params) == 3 else None
        returns = fn.returns if fn.returns is not None else ast.Name("Any", ast.Load())
        if isinstance(obj, ast.Constant) and obj.value is None:
            class_access += ["@overload", f"def __get__(self, obj: None, owner: Any, /) -> {ast.unparse(returns)}: ..."]
            continue
        if not (isinstance(obj, ast.Subscript) and isinstance(obj.value, ast.Name) and obj.value.id == "Array"):
            raise AssertionError(
                f"jaxtypes._stubgen.package_stubs's {name}.__get__ takes an unexpected obj: "
                f"{ast.unparse(obj) if obj is not None else '(none)'}"
            )
        dtype = obj.slice
        var = _table_variable(dtype)
        if isinstance(dtype, ast.Subscript) and isinstance(dtype.value, ast.Name) and var is not None:
            attribute = _protocol_attribute(prelude, dtype.value.id)
            per_marker: dict[str, list[str]] = {}
            for marker, tables in markers.items():
                if attribute not in tables:
                    continue
                table = qualify.visit(_Substitute(var, tables[attribute]).visit(copy.deepcopy(returns)))
                per_marker[marker] = [
                    "@overload",
                    f"def __get__(self: {name}[{MARKERS_MODULE}.{marker}], obj: object, "
                    f"owner: Any, /) -> {ast.unparse(table)}: ...",
                ]
            if not _is_bound_method(dtype):
                instance += [line for lines in per_marker.values() for line in lines]
                continue
            # The table's def bound, through the marker's protocols: the checkers
            # that bind a self type through a nested protocol (pyright,
            # basedpyright, pyrefly, ty) answer the def, so an editor's hover on
            # ``x.sum`` shows its signature and result dtype; mypy passes over it
            # to the per-marker overloads (the same calls, the same answers).
            protocol = f"def __get__(self: {name}[{ast.unparse(dtype)}], obj: object, owner: Any, /) -> {ast.unparse(returns)}: ..."
            found = _kept_dtypes(attribute, markers)
            if found is None:
                instance += ["@overload", protocol]
                instance += [line for lines in per_marker.values() for line in lines]
                continue
            # A dtype only known as a TypeVar bound within the dtypes the method
            # gives back (``x: Array[F]``, F bound to ``floating``): the def of
            # F's own table (the descriptor's ``_kept``, ``SumTo[F]``), bound as
            # above.  Through the markers' tables the checkers solve ``_M`` from
            # each dtype of the bound (pyright and basedpyright take the first's,
            # pyrefly the union, ty none), so this comes first.  Which dtypes is
            # the protocol's other argument, the descriptor's ``_dtype``: mypy
            # binds ``self: _SumMethod[_K]`` ignoring the TypeVar's bound, and an
            # ``obj`` type other than ``object`` makes ``Array[Any]`` match
            # ambiguously (an ``Any`` to mypy).  A 64-bit marker, whose table is
            # another dtype's, has its own overload before it.
            instance += [line for m in found.narrowed for line in per_marker[m]]
            instance += [
                "@overload",
                f"def __get__(self: {KEPT_PROTOCOL}[{ast.unparse(_read_table(dtype))}, {_union(found.markers)}], "
                f"obj: object, owner: Any, /) -> {ast.unparse(returns)}: ...",
                "@overload",
                protocol,
            ]
            instance += [line for m, lines in per_marker.items() if m not in found.narrowed for line in lines]
            kept_table = ast.unparse(qualify.visit(ast.Name(found.table, ast.Load())))
            # (its own TypeVar, not the class's covariant one: the table is
            # invariant in its dtype, which ty reports for the class's)
            kept_property = ["@property", f"def {KEPT_ATTRIBUTE}(self: {name}[_T]) -> {kept_table}[_T]: ..."]
        else:
            instance += [
                "@overload",
                f"def __get__(self: {name}[{ast.unparse(dtype)}], obj: object, owner: Any, /)"
                f" -> {ast.unparse(returns)}: ...",
            ]
    if jax_table is not None:
        instance[:0] = [
            "@overload",
            f"def __get__(self: {ANY_DTYPE_DESCRIPTOR}, obj: object, owner: Any, /) -> {jax_table}: ...",
        ]
    body = "\n".join("    " + line for line in instance + class_access + kept_property)
    text = (
        f"@type_check_only\nclass {name}({DESCRIPTOR_BASE}[{DESCRIPTOR_DT}]):\n{body}\n"
        "    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...\n"
    )
    (cls,) = _parse(text)
    assert isinstance(cls, ast.ClassDef)
    return cls


def _abs_descriptor(
    jax_abs: ast.FunctionDef, markers: Mapping[str, Mapping[str, ast.expr]], qualify: _Qualify
) -> tuple[list[ast.stmt], ast.ClassDef]:
    """(``_AbsOp`` and the tables of the dtypes JAX rejects, the class holding
    JAX's own ``__abs__`` for ``Array[Any]``): ``Array.__abs__: _AbsOp[DT]``.

    jaxtypes' Array declares ``def __abs__(self: Array[_Has_abs[_V]]) ->
    Array[_V]`` (builtins.abs takes a ``SupportsAbs[_T]``, so it is a method
    there); here ``abs(b)`` of a bare ``jax.Array`` would be Unknown in ty,
    which finds no ``_T`` for ``Array[Any]`` when ``__abs__`` solves a TypeVar
    of its own from the receiver (``self: Array[_V]`` too), and which takes
    the union of every overload's result when ``__abs__`` is overloaded.  A
    descriptor keyed on its own dtype (as ``_self_dispatched``'s) answers
    ``Array[Any]``: mypy, pyrefly and ty apply its ``__get__`` when they match
    ``SupportsAbs``, whose overload for ``Array[Any]`` ty picks as for ``-b``;
    pyright and basedpyright match the declared type, so ``__call__`` has the
    same overloads.  A dtype JAX rejects (int4) gets a table that is not
    callable from ``__get__`` and no ``__call__``: ``abs(x)`` is an error to
    every checker, ``x.__abs__()`` a "not callable" one."""
    if (
        [a.arg for a in jax_abs.args.posonlyargs + jax_abs.args.args] != ["self"]
        or jax_abs.args.vararg
        or jax_abs.args.kwarg
        or jax_abs.args.kwonlyargs
    ):
        raise ShapeError(f"JAX declares Array.__abs__ with parameters: {ast.unparse(jax_abs.args)}")
    name = ABS_DESCRIPTOR
    jax_table = f"_Jax{name}"
    returns = jax_abs.returns if jax_abs.returns is not None else _expr("Any")
    node_of = {marker: node for node, marker in package_stubs.MARKER_NAME.items()}
    rejected: list[str] = []
    get = ["@overload", f"def __get__(self: {ANY_DTYPE_DESCRIPTOR}, obj: object, owner: Any, /) -> {jax_table}: ..."]
    call = ["@overload", f"def __call__(self: {ANY_DTYPE_DESCRIPTOR}) -> {ast.unparse(returns)}: ..."]
    for marker, tables in markers.items():
        self_type = f"{name}[{MARKERS_MODULE}.{marker}]"
        if "_abs" in tables:
            result = ast.unparse(qualify.visit(copy.deepcopy(tables["_abs"])))
            get += [
                "@overload",
                f"def __get__(self: {self_type}, obj: object, owner: Any, /) -> UnaryTo[{result}]: ...",
            ]
            call += ["@overload", f"def __call__(self: {self_type}) -> Array[{result}]: ..."]
        else:
            refused = package_stubs.rejected_name("abs", node_of[marker])
            rejected += ["@type_check_only\n" + "\n".join(package_stubs.rejected_table("abs", node_of[marker])) + "\n"]
            get += ["@overload", f"def __get__(self: {self_type}, obj: object, owner: Any, /) -> {refused}: ..."]
    # A dtype known only as a TypeVar (``abs(x)`` of ``x: Array[F]``, F bound
    # to ``floating``): D where every dtype of its bound gives itself back,
    # Array[Any] where JAX takes each but some give another (a complex one's
    # modulus is real); one JAX refuses (int4) stays an error.  Through
    # ``_Kept``'s properties: mypy binds ``self: _AbsOp[_K]`` ignoring _K's
    # bound.  Without these, pyright and basedpyright, which match
    # ``SupportsAbs`` against ``__call__``, refused ``abs(x)`` of any TypeVar.
    strong = [m for m in markers if m in node_of and not lattice.is_weak(node_of[m])]
    kept = [m for m in strong if ast.unparse(markers[m].get("_abs", _expr("None"))) == m]
    taken = [m for m in strong if "_abs" in markers[m]]
    get += [
        "@overload",
        f"def __get__(self: {KEPT_PROTOCOL}[UnaryTo[_V], {_union(kept)}], obj: object, owner: Any, /) -> UnaryTo[_V]: ...",
        "@overload",
        f"def __get__(self: {KEPT_PROTOCOL}[Any, {_union(taken)}], obj: object, owner: Any, /) -> UnaryTo[Any]: ...",
    ]
    call += [
        "@overload",
        f"def __call__(self: {KEPT_PROTOCOL}[UnaryTo[_V], {_union(kept)}]) -> Array[_V]: ...",
        "@overload",
        f"def __call__(self: {KEPT_PROTOCOL}[Any, {_union(taken)}]) -> Array[Any]: ...",
    ]
    get += ["@overload", "def __get__(self, obj: None, owner: Any, /) -> Self: ..."]
    kept_property = ["@property", f"def {KEPT_ATTRIBUTE}(self: {name}[_T]) -> UnaryTo[_T]: ..."]
    body = "\n".join("    " + line for line in get + call + kept_property)
    text = "".join(rejected) + f"@type_check_only\nclass {name}({DESCRIPTOR_BASE}[{DESCRIPTOR_DT}]):\n{body}\n"
    method = copy.deepcopy(jax_abs)
    method.name, method.decorator_list = "__call__", []
    (table,) = _parse(
        f"@type_check_only\nclass {jax_table}:\n    \"\"\"JAX's own ``__abs__``, for ``Array[Any]``.\"\"\"\n"
    )
    assert isinstance(table, ast.ClassDef)
    table.body.append(method)
    return _parse(text), table


def _as_callable(method: ast.FunctionDef, returns: str | None = None) -> str | None:
    """JAX's declaration of an operator (``def __sub__(self, other: ArrayLike) -> Array``)
    as a ``Callable`` type, when it has only plain positional parameters.

    A Callable rather than an instance of a class with ``__call__``: mypy checks
    a user's reflected operator (``def __rsub__(self, x: jax.Array)``) against the
    type of the forward operator on ``jax.Array`` and reports any instance
    there as 'Forward operator "__sub__" is not callable'."""
    a = method.args
    params = a.posonlyargs + a.args
    if (
        a.vararg
        or a.kwarg
        or a.kwonlyargs
        or a.defaults
        or not params
        or method.returns is None
        or any(p.annotation is None for p in params[1:])
    ):
        return None
    types = ", ".join(ast.unparse(p.annotation) for p in params[1:] if p.annotation is not None)
    return f"Callable[[{types}], {returns or ast.unparse(method.returns)}]"


def _descriptors(
    ours: _Ours, jax_members: Mapping[str, list[ast.stmt]]
) -> tuple[list[ast.stmt], list[ast.stmt], set[str]]:
    """(jaxtypes' prelude with its descriptors rebuilt for jax.Array, the
    classes holding JAX's own signatures for ``Array[Any]``, the descriptors' names)."""
    descriptors = {n.name: n for n in ours.prelude if isinstance(n, ast.ClassDef) and _is_descriptor(n)}
    users: dict[str, list[str]] = {}
    for member, nodes in ours.members.items():
        for node in nodes:
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.annotation, ast.Name)
                and node.annotation.id in descriptors
            ):
                users.setdefault(node.annotation.id, []).append(member)
    markers, defined = _marker_tables()
    qualify = _Qualify(defined)
    jax_tables: list[ast.stmt] = [
        *_parse(
            f"@type_check_only\nclass {ANY_SCALAR}(np.generic):\n"
            '    """Matches only an unknown numpy scalar type: ``np.dtype[Any]`` in ``astype``."""\n'
            f"@type_check_only\nclass {ANY_DTYPE}:\n"
            '    """No dtype marker derives from it: only ``_AddOp[Any]`` is assignable to ``_Descriptor[_AnyDtype]``."""\n'
        )
    ]
    prelude: list[ast.stmt] = []
    declared = False
    for node in ours.prelude:
        if not (isinstance(node, ast.ClassDef) and node.name in descriptors):
            prelude.append(node)
            continue
        if not declared:
            prelude += _parse(
                f"import jaxtypes.markers as {MARKERS_MODULE}\n"
                f'{DESCRIPTOR_DT} = TypeVar("{DESCRIPTOR_DT}", covariant=True)\n'
                f"@type_check_only\nclass {DESCRIPTOR_BASE}(Generic[{DESCRIPTOR_DT}]):\n"
                '    """The descriptors\' base: what ``_AnyDtypeDescriptor`` is bound to."""\n'
                "    @property\n"
                f"    def {KEPT_DTYPE}(self) -> {DESCRIPTOR_DT}: ...\n"
                f'{ANY_DTYPE_DESCRIPTOR} = TypeVar("{ANY_DTYPE_DESCRIPTOR}", '
                f'bound="{DESCRIPTOR_BASE}[{ANY_DTYPE}]")\n'
                f'{KEPT_DT} = TypeVar("{KEPT_DT}", covariant=True)\n'
                f"@type_check_only\nclass {KEPT_PROTOCOL}(Protocol[_F_co, {KEPT_DT}]):\n"
                '    """A method\'s descriptor by the table of its own dtype (``_SumMethod[F]``: ``SumTo[F]``) and that dtype."""\n'
                "    @property\n"
                f"    def {KEPT_ATTRIBUTE}(self) -> _F_co: ...\n"
                "    @property\n"
                f"    def {KEPT_DTYPE}(self) -> {KEPT_DT}: ...\n"
            )
            declared = True
        members = users.get(node.name, [])
        jax_defs = [d for m in members for d in jax_members.get(m, []) if isinstance(d, ast.FunctionDef)]
        jax_table = None
        if members and len(jax_defs) == len(members):
            shapes = {
                _canon(ast.FunctionDef(name="", args=d.args, body=[], decorator_list=[], returns=d.returns))
                for d in jax_defs
            }
            if len(shapes) != 1:
                raise ShapeError(
                    f"JAX declares {', '.join(members)} differently, but jaxtypes "
                    f"types them with one descriptor ({node.name})"
                )
            # (a comparison of an Array[Any] is still bool)
            bool_marker = f"{MARKERS_MODULE}.{package_stubs.MARKER_NAME[lattice.BOOL]}"
            returns = f"Array[{bool_marker}]" if node.name == COMPARE_DESCRIPTOR else None
            jax_table = _as_callable(jax_defs[0], returns)
            if jax_table is None:
                call = copy.deepcopy(jax_defs[0])
                call.name = "__call__"
                call.decorator_list = []
                jax_table = f"_Jax{node.name}"
                (table,) = _parse(
                    f"@type_check_only\nclass {jax_table}:\n"
                    f'    """JAX\'s own ``{jax_defs[0].name}``, for ``Array[Any]``."""\n'
                )
                assert isinstance(table, ast.ClassDef)
                table.body.append(call)
                jax_tables.append(table)
        prelude.append(_self_dispatched(node, jax_table, ours.prelude, markers, qualify))
    (jax_abs,) = [d for d in jax_members.get("__abs__", []) if isinstance(d, ast.FunctionDef)]
    abs_classes, abs_table = _abs_descriptor(jax_abs, markers, qualify)
    prelude += abs_classes
    jax_tables.append(abs_table)
    return prelude, jax_tables, {*descriptors, ABS_DESCRIPTOR}


# ------------------------------------------------------------------ astype
def _astype(ours: list[ast.stmt], jax_astype: ast.stmt) -> list[ast.stmt]:
    """jaxtypes' ``astype`` overloads (markers), then numpy's spellings of a
    dtype (``np.float32``, ``np.dtype[np.float32]``), then JAX's own signature
    for any other dtype argument JAX takes (objects with a ``.dtype``), with
    its ``dtype`` parameter narrowed to jaxtypes' dtype arguments and JAX's
    ``SupportsDType``: JAX's ``DTypeLike`` takes any class, which would let the
    weak markers (not dtypes) through."""
    # First among numpy's, so that a dtype of unknown scalar type
    # (np.dtype[Any]) is not taken for np.bool_ by a checker that picks the
    # first overload an Any matches.
    numpy = [
        f"@overload\ndef astype(self, dtype: np.dtype[{ANY_SCALAR}], copy: bool = False, "
        "device: Any = None) -> Array[Any]: ..."
    ]
    numpy += [
        f"@overload\ndef astype(self, dtype: type[np.{name}] | np.dtype[np.{name}], copy: bool = False, "
        f"device: Any = None) -> Array[{MARKERS_MODULE}.{name}]: ..."
        for name in NUMPY_DTYPES
    ]
    jax = copy.deepcopy(jax_astype)
    assert isinstance(jax, ast.FunctionDef)
    for arg in jax.args.args + jax.args.kwonlyargs:
        if arg.arg == "dtype":
            arg.annotation = _expr("DtypeArgument | SupportsDType")
    jax.decorator_list = [ast.Name("overload", ast.Load())]
    return [ours[0], *_parse("\n".join(numpy)), *ours[1:], jax]


# ------------------------------------------------------------------- Array
def _array_class(array: ast.ClassDef, ours: _Ours, descriptors: set[str]) -> ast.ClassDef:
    jax_members = _members(array.body)
    retyped = KEEP_JAX | SAME_DTYPE | BOOL_RESULT | {"__iter__", "__reversed__", "at"} | set(array_surface.SURFACE)
    replaced = {n for n in ours.members if n in jax_members and n not in retyped}
    body: list[ast.stmt] = list(_parse('"""``jax.Array``, generic in its dtype (a jaxtypes marker; default Any)."""'))
    for added in sorted(ADDED & set(ours.members) - set(jax_members)):
        body += copy.deepcopy(ours.members[added])
    body += _parse(SAME_ARRAY_METHOD)
    emitted: set[str] = set()
    for node in array.body:
        name = member_name(node)
        if name is None:
            continue  # a comment-like expression
        if name == "__abs__":
            body += _parse(f"__abs__: {ABS_DESCRIPTOR}")  # _abs_descriptor; [DT] below
        elif name in replaced:
            if name not in emitted:
                emitted.add(name)
                mine = copy.deepcopy(ours.members[name])
                body += _astype(mine, node) if name == "astype" else mine
        elif name in SAME_DTYPE or name == "at":
            body += _retyped([node], ("Array", *INDEX_HELPERS), "{name}[DT]")
        elif name in BOOL_RESULT:
            body += _retyped([node], ("Array",), "Array[bool_]")
        elif name in array_surface.DEFAULT_INT:
            body += _retyped([node], ("Array",), "Array[int32]")
        elif name in REMOVED:
            continue
        elif name in ("__iter__", "__reversed__") and isinstance(node, ast.FunctionDef) and node.returns is not None:
            it = copy.deepcopy(node)
            it.returns = _expr("Iterator[Array[DT]]")
            body.append(it)
        else:
            body.append(node)
    # Array's descriptor attributes carry its dtype: ``__add__: _AddOp[DT]``.
    for node in body:
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.annotation, ast.Name)
            and node.annotation.id in descriptors
        ):
            node.annotation = _expr(f"{node.annotation.id}[DT]")
    cls = copy.copy(array)  # (a copy keeps the fields this Python's ast has)
    cls.bases, cls.keywords = [_expr("Generic[DT]")], copy.deepcopy(ours.keywords)
    cls.body, cls.decorator_list = body, []
    return cls


def _index_helper(node: ast.ClassDef) -> ast.ClassDef:
    helper = copy.deepcopy(node)
    helper.bases = [_expr("Generic[DT]")]
    helper.body = [
        n if member_name(n) in INDEX_UPDATES_NOT_KEEPING else _retyped([n], ("Array", *INDEX_HELPERS), "{name}[DT]")[0]
        for n in helper.body
    ]
    return helper


# Array's == and != are descriptors, where object has methods: a checker that
# checks the stub files themselves (pyrefly and ty check every file of the
# project, typings/ too) would report the override, so each line says it is
# meant, as jaxtypes' own _array.pyi does (the syntax tree drops comments).
_OVERRIDE_IGNORE: Final = "  # type: ignore[assignment]  # ty: ignore[incompatible-attribute-override]"
_EQUALITY_DESCRIPTOR: Final = re.compile(r"^(    __(?:eq|ne)__: .*)$", re.M)
_DTYPE_VALUE_CLASS: Final = re.compile(r"^(class (?:DtypeValue|ScalarType)\(.*\):)$", re.M)


def render_basearray(tree: ast.Module, header: str) -> str:
    """The transformed module (``check_shape`` first: it must find nothing missing)."""
    ours = _ours()
    classes = _classes(tree)
    array = classes["Array"]
    prelude, jax_tables, descriptors = _descriptors(ours, _members(array.body))
    first = tree.body.index(array)
    imports = [n for n in tree.body[:first] if isinstance(n, (ast.Import, ast.ImportFrom))]
    before = [n for n in tree.body[:first] if not isinstance(n, (ast.Import, ast.ImportFrom))]
    after = [
        _index_helper(n) if isinstance(n, ast.ClassDef) and n.name in INDEX_HELPERS else n
        for n in tree.body[first + 1 :]
    ]
    sections = [
        ("", imports + _parse("from jax._src.typing import SupportsDType  # astype's JAX overload")),
        ("jaxtypes: promotion tables and descriptors (jaxtypes._stubgen.package_stubs)", prelude),
        (
            "JAX's basearray.pyi, with Array generic in its dtype",
            before + [_array_class(array, ours, descriptors)] + after,
        ),
        ("jaxtypes: JAX's own signatures, for Array[Any]", jax_tables),
    ]
    out = [header.rstrip("\n")]
    for title, nodes in sections:
        if title:
            out += ["", f"# ---- {title} ----", ""]
        text = ast.unparse(ast.Module(body=nodes, type_ignores=[]))
        text = _EQUALITY_DESCRIPTOR.sub(r"\1" + _OVERRIDE_IGNORE, text)
        out.append(_DTYPE_VALUE_CLASS.sub(r"\1" + package_stubs.FINAL_BASE_IGNORE, text))
    return "\n".join(out).rstrip("\n") + "\n"
