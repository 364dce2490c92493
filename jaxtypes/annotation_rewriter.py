"""Rewrite bare ``jax.Array`` annotations with the dtypes a run recorded.

The second half of ``jaxtypes annotate`` (``jaxtypes.dtype_recorder`` is the
first): ``decide`` turns what was seen at one function's annotated places
(its parameters, its result, the items of a tuple result) into a dtype per
place, a dtype variable shared by a parameter and the results that follow
it, or a reason to leave the place alone; ``rewrite`` applies those
decisions to a module's source with libcst, which keeps comments and
formatting, in one of three spellings (``SPELLINGS``), adding the imports
they need.  Only bare annotations are rewritten (``jax.Array``, ``Array``
imported from JAX, ``jnp.ndarray``, ``jaxtypes.Array``, and jaxtyping's
dtype categories such as ``Float[Array, "b n"]``): a written dtype is never
changed, so a second run changes nothing.

libcst is needed here only (the ``annotate`` extra); ``import jaxtypes``
does not import this module.
"""

from __future__ import annotations

import dataclasses
import json
import keyword
from collections.abc import Mapping, Sequence
from typing import Final, Union

import libcst as cst
from libcst.codemod import CodemodContext, ContextAwareTransformer
from libcst.codemod.visitors import AddImportsVisitor
from libcst.helpers import get_full_name_for_node
from libcst.metadata import CodeRange, PositionProvider, QualifiedNameProvider

from jaxtypes import dtype_recorder, lattice

__all__ = [
    "SPELLINGS",
    "TYPEVAR",
    "MIXED",
    "Decision",
    "Change",
    "Left",
    "Rewritten",
    "FunctionRecord",
    "decide",
    "decide_fields",
    "decide_keys",
    "keyed_place",
    "rewrite",
]

SPELLINGS: Final = ("jax", "jaxtypes", "jaxtyping")
"""``jax``: ``jax.Array[jnp.float32]``; ``jaxtypes``:
``jaxtypes.Array[jaxtypes.float32]``; ``jaxtyping``: ``Float32[Array, "..."]``."""

TYPEVAR: Final = "<typevar>"
"""The decision for the places that share the module's dtype variable."""

RETURN: Final = "return"
WEAK_SUFFIX: Final = ":weak"
MIXED: Final = "mixed:"
"""A container place's value when the container held several dtypes at once
(``mixed:float32,int32``): no one dtype, and no dtype variable, names it."""
TYPEVAR_NAME: Final = "DT"

# What a bare array annotation names, by qualified name.
_ARRAYS: Final = frozenset({"jax.Array", "jax.numpy.ndarray", "jaxtypes.Array", "jax.numpy.Array", "jaxtyping.Array"})
_JAXTYPING_PREFIX: Final = "jaxtyping."
# jaxtyping's categories, and the dtypes each admits (None: any).
_FLOATS: Final = frozenset(n for n in lattice.STRONG if n.startswith(("float", "bfloat")))
_SIGNED: Final = frozenset(n for n in lattice.STRONG if n.startswith("int"))
_UNSIGNED: Final = frozenset(n for n in lattice.STRONG if n.startswith("uint"))
_COMPLEX: Final = frozenset(n for n in lattice.STRONG if n.startswith("complex"))
_CATEGORIES: Final[Mapping[str, frozenset[str] | None]] = {
    "Float": _FLOATS,
    "Inexact": _FLOATS | _COMPLEX,
    "Complex": _COMPLEX,
    "Int": _SIGNED | _UNSIGNED,
    "Integer": _SIGNED | _UNSIGNED,
    "SInt": _SIGNED,
    "UInt": _UNSIGNED,
    "Real": _FLOATS | _SIGNED | _UNSIGNED,
    "Num": _FLOATS | _COMPLEX | _SIGNED | _UNSIGNED,
    "Shaped": None,
}
# jaxtyping's name of one dtype (as jaxtypes.mypy_plugin.jaxtyping_annotations reads them).
_JAXTYPING_NAMES: Final[Mapping[str, str]] = {
    "bool": "Bool",
    **{f"int{bits}": f"Int{bits}" for bits in (2, 4, 8, 16, 32, 64)},
    **{f"uint{bits}": f"UInt{bits}" for bits in (2, 4, 8, 16, 32, 64)},
    "bfloat16": "BFloat16",
    "float16": "Float16",
    "float32": "Float32",
    "float64": "Float64",
    "complex64": "Complex64",
    "complex128": "Complex128",
    "float8_e4m3b11fnuz": "Float8e4m3b11fnuz",
    "float8_e4m3fn": "Float8e4m3fn",
    "float8_e4m3fnuz": "Float8e4m3fnuz",
    "float8_e5m2": "Float8e5m2",
    "float8_e5m2fnuz": "Float8e5m2fnuz",
}


# The weak marker naming a weakly typed array of each dtype: JAX's default
# dtype of the kind, with x64 off or on (a weak float32 or float64 array
# promotes as a Python float does, "Weak types" in JAX's type promotion
# semantics, https://docs.jax.dev/en/latest/type_promotion.html#weak-types).
_WEAK_MARKERS: Final[Mapping[str, str]] = {
    lattice.default_dtype(weak[0], x64): lattice.MARKER_NAME[weak] for weak in lattice.WEAK for x64 in (False, True)
}
_MARKERS: Final = frozenset(lattice.STRONG) | frozenset(_WEAK_MARKERS.values())


# ------------------------------------------------------------------ decisions
@dataclasses.dataclass(frozen=True)
class Decision:
    """Per annotated place: a dtype's name or ``TYPEVAR`` (``dtypes``), or why
    it is left as written (``left``)."""

    dtypes: dict[str, str]
    left: dict[str, str]


def _is_weak(seen: str) -> bool:
    return seen.endswith(WEAK_SUFFIX)


def _base(seen: str) -> str:
    return seen.removesuffix(WEAK_SUFFIX)


def _listed(names: set[str]) -> str:
    return ", ".join(sorted(names))


def _several_held(layers: set[str], recorded: set[str]) -> str:
    """Why a field that held more than one Equinox layer, or a layer and
    something else, is left: what it held, as a reader names it."""
    shown = _listed({layer.removeprefix(dtype_recorder.LAYER_PREFIX).replace(":", " of ") for layer in layers})
    if recorded != layers:
        return f"held a layer ({shown}) and other values ({_listed(recorded - layers)})"
    return f"held layers of several classes or dtypes ({shown})"


def _single(place: str, values: Sequence[str]) -> str | None | tuple[str]:
    """The one dtype seen at a place; None when nothing was; a 1-tuple holding
    the reason when no one strong dtype decides it."""
    strong = {v for v in values if not _is_weak(v)}
    weak = {_base(v) for v in values if _is_weak(v)}
    if not values:
        return None
    mixed = {d for v in values if v.startswith(MIXED) for d in v.removeprefix(MIXED).split(",")}
    if mixed:
        return (f"held arrays of several dtypes at once ({_listed(mixed)})",)
    if not strong:
        marker = _WEAK_MARKERS.get(next(iter(weak))) if len(weak) == 1 else None
        if marker is None:
            return (f"only weakly typed arrays seen ({_listed(weak)}), which no one weak marker names",)
        return marker
    if len(strong) == 1 and weak <= strong:
        return next(iter(strong))
    return ("",)


def decide(places: Sequence[str], calls: Sequence[Mapping[str, str]]) -> Decision:
    """What to write at each of a function's annotated ``places`` (parameter
    names, ``"return"``, ``"return[0]"`` for a tuple's items, ``"x[*]"`` for
    the items of a dict, list or tuple of arrays), given what each
    recorded call held there (a dtype's name, ``":weak"`` appended for a
    weakly typed array; absent where no array was seen)."""
    dtypes: dict[str, str] = {}
    left: dict[str, str] = {}
    several: list[str] = []
    for place in places:
        values = [c[place] for c in calls if place in c]
        one = _single(place, values)
        if one is None:
            left[place] = "no JAX array seen there"
        elif isinstance(one, tuple):
            if one[0]:
                left[place] = one[0]
            else:
                several.append(place)
        else:
            dtypes[place] = one

    def follows(result: str, param: str) -> bool:
        return all(
            param in c and c[param] == c[result] and not _is_weak(c[result]) for c in calls if result in c
        ) and any(result in c for c in calls)

    results = [p for p in several if p.startswith(RETURN)]
    params = [p for p in several if not p.startswith(RETURN)]
    driver = max(params, key=lambda p: sum(follows(r, p) for r in results), default=None)
    if driver is not None and any(follows(r, driver) for r in results):
        dtypes[driver] = TYPEVAR
        for place in results:
            if follows(place, driver):
                dtypes[place] = TYPEVAR
        for place in params:
            if place != driver and all(c.get(place) == c.get(driver) for c in calls):
                dtypes[place] = TYPEVAR
    for place in several:
        if place in dtypes:
            continue
        seen = {_base(c[place]) for c in calls if place in c}
        if place.startswith(RETURN):
            left[place] = f"results of several dtypes ({_listed(seen)}) that follow no annotated parameter's"
        else:
            left[place] = f"called with several dtypes ({_listed(seen)}) that no result follows"
    return Decision(dtypes, left)


def decide_fields(fields: Mapping[str, Sequence[str]], places: Sequence[str]) -> Decision:
    """What to write at a class's annotated fields: one dtype each, or why not."""
    dtypes: dict[str, str] = {}
    left: dict[str, str] = {}
    for place in places:
        one = _single(place, list(fields.get(place, ())))
        if one is None:
            left[place] = "no JAX array seen there"
        elif isinstance(one, tuple):
            seen = {_base(v) for v in fields[place]}
            left[place] = one[0] or f"held several dtypes ({_listed(seen)})"
        else:
            dtypes[place] = one
    return Decision(dtypes, left)


def keyed_place(place: str, key: str) -> str:
    """The place of one key's array in a string-keyed dict recorded at
    ``place`` (``return{"k"}``)."""
    return f"{place}{{{json.dumps(key)}}}"


def decide_keys(held: Sequence[Mapping[str, str]]) -> dict[str, str] | str:
    """What each key of a string-keyed dict holds, over every dict ``held``
    (key -> the dtype seen): one dtype per key, or why not."""
    if not held:
        return "no dict of arrays seen there"
    keys = set(held[0])
    if any(set(h) != keys for h in held):
        every: set[str] = set()
        common = set(keys)
        for h in held:
            every |= set(h)
            common &= set(h)
        differing = every - common
        return f"dicts with different keys seen ({_listed(differing)})"
    dtypes: dict[str, str] = {}
    for key in sorted(keys):
        one = _single(key, [h[key] for h in held])
        if not isinstance(one, str):
            seen = {_base(h[key]) for h in held}
            return f"key {key!r} held several dtypes ({_listed(seen)})"
        dtypes[key] = one
    return dtypes


# ------------------------------------------------------------------ rewriting
@dataclasses.dataclass(frozen=True)
class FunctionRecord:
    """What a run saw of one function: each distinct call as {place: seen}."""

    calls: list[dict[str, str]]
    params: dict[str, set[str]]
    """Every parameter seen holding an array: name -> dtypes seen (those without
    an annotation are reported)."""


@dataclasses.dataclass(frozen=True)
class Change:
    line: int
    where: str  # the function's or class's name
    places: dict[str, str]  # place -> what was written


@dataclasses.dataclass(frozen=True)
class Left:
    line: int
    where: str
    place: str
    reason: str


@dataclasses.dataclass(frozen=True)
class Rewritten:
    source: str
    changes: list[Change]
    left: list[Left]


# A bare annotation: the array expression alone, or jaxtyping's category
# around one (the subscript, the category's name, the array expression).
_Bare = Union[cst.BaseExpression, tuple[cst.Subscript, str, cst.BaseExpression]]

# Containers whose items' annotation is the last type argument: a dict's
# values, a list's or sequence's items, a homogeneous tuple's.
_CONTAINERS: Final = frozenset(
    {
        "builtins.dict",
        "builtins.list",
        "typing.Dict",
        "typing.List",
        "typing.Mapping",
        "typing.MutableMapping",
        "typing.Sequence",
        "typing.MutableSequence",
        "collections.abc.Mapping",
        "collections.abc.MutableMapping",
        "collections.abc.Sequence",
        "collections.abc.MutableSequence",
    }
)
_TUPLES: Final = frozenset({"builtins.tuple", "typing.Tuple"})
_OPTIONALS: Final = frozenset({"typing.Optional", "typing.Union"})


_MAPPINGS: Final = frozenset(
    {
        "builtins.dict",
        "typing.Dict",
        "typing.Mapping",
        "typing.MutableMapping",
        "collections.abc.Mapping",
        "collections.abc.MutableMapping",
    }
)


def _equinox_typed_classes() -> frozenset[str]:
    # (imported when a field holds an Equinox layer: the stub generator is large)
    from jaxtypes._stubgen.layer_stubs import EQUINOX_TYPED_CLASSES

    return EQUINOX_TYPED_CLASSES


class _FunctionDefs(cst.CSTVisitor):
    """Collects every function and method of a tree, nested ones too."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[cst.FunctionDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.found.append(node)


def _function_defs(module: cst.Module) -> list[cst.FunctionDef]:
    """Every function and method of a module, nested ones too."""
    collect = _FunctionDefs()
    module.visit(collect)
    return collect.found


def _node(bare: _Bare) -> cst.BaseExpression:
    """The node a bare annotation's rewrite replaces."""
    return bare[0] if isinstance(bare, tuple) else bare


class _Replace(cst.CSTTransformer):
    """Replaces nodes of a tree, found by identity, with others."""

    def __init__(self, replacements: Mapping[int, cst.BaseExpression]) -> None:
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
        return self.replacements.get(id(original_node), updated_node)


def _dtype_expression(spelling: str, numpy_alias: str, name: str) -> str:
    attribute = "bool_" if name == lattice.BOOL else name
    # jax.numpy has no name for a weak type: JAX's spelling takes jaxtypes' marker.
    in_numpy = spelling == "jax" and name not in _WEAK_MARKERS.values()
    return f"{numpy_alias}.{attribute}" if in_numpy else f"jaxtypes.{attribute}"


class _Rewriter(ContextAwareTransformer):
    METADATA_DEPENDENCIES = (PositionProvider, QualifiedNameProvider)

    def __init__(
        self,
        context: CodemodContext,
        spelling: str,
        functions: Mapping[tuple[int, str], FunctionRecord],
        fields: Mapping[str, Mapping[str, Sequence[str]]],
    ) -> None:
        super().__init__(context)
        self.spelling = spelling
        self.functions = functions
        self.fields = fields
        self.changes: list[Change] = []
        self.left: list[Left] = []
        self.numpy_alias: str | None = None
        self.jax_alias: str | None = None
        self.imports_jaxtypes = False
        self.future_annotations = False
        self.typevar_defined = False
        self.typevar_taken = False  # DT names something else
        self.typevar_needed = False
        self.jaxtypes_needed = False
        self.jaxtypes_named = False  # an annotation reads jaxtypes.<marker>: imported as a module
        self._classes: list[str] = []
        self._depth = 0  # of functions and classes: module-level imports only
        self.runtime_subscript = False  # a module-level alias subscripts jax.Array when imported
        self.equinox_alias: str | None = None
        # module-level aliases of a string-keyed dict of bare arrays
        # (Cache = dict[str, jax.Array]): their new statement, by the old one's id
        self._alias_statements: dict[int, cst.BaseStatement] = {}

    # ---------------------------------------------------------------- imports
    def visit_Import(self, node: cst.Import) -> None:
        if self._depth:
            return
        for alias in node.names:
            name = alias.evaluated_name
            bound = alias.evaluated_alias
            if name == "jax.numpy" and bound:
                self.numpy_alias = self.numpy_alias or bound
            elif name == "jax":
                self.jax_alias = self.jax_alias or bound or "jax"
            elif name == "jaxtypes" or name.startswith("jaxtypes."):
                self.imports_jaxtypes = True
            elif name == "equinox":
                self.equinox_alias = self.equinox_alias or bound or "equinox"

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if self._depth or node.module is None or node.relative:
            return
        module = get_full_name_for_node(node.module) or ""
        if module == "__future__" and not isinstance(node.names, cst.ImportStar):
            self.future_annotations |= any(a.evaluated_name == "annotations" for a in node.names)
        if module == "jaxtypes" or module.startswith("jaxtypes."):
            self.imports_jaxtypes = True
        if module == "jax" and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                if alias.evaluated_name == "numpy":
                    self.numpy_alias = self.numpy_alias or alias.evaluated_alias or "numpy"

    def visit_Module(self, node: cst.Module) -> None:
        self._decide_aliases(node)
        for statement in node.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value == TYPEVAR_NAME for t in small.targets
                ):
                    call = small.value
                    is_typevar = isinstance(call, cst.Call) and (get_full_name_for_node(call.func) or "").endswith(
                        "TypeVar"
                    )
                    self.typevar_defined |= is_typevar
                    self.typevar_taken |= not is_typevar

    # -------------------------------------------------------- what is bare
    def _names(self, node: cst.BaseExpression) -> set[str]:
        return {q.name for q in self.get_metadata(QualifiedNameProvider, node, set())}

    def _bare(self, annotation: cst.BaseExpression) -> _Bare | None:
        if isinstance(annotation, (cst.Name, cst.Attribute)) and self._names(annotation) & _ARRAYS:
            return annotation
        if isinstance(annotation, cst.Subscript) and len(annotation.slice) == 2:
            categories = [n for n in self._names(annotation.value) if n.startswith(_JAXTYPING_PREFIX)]
            first = annotation.slice[0].slice
            category = categories[0].removeprefix(_JAXTYPING_PREFIX) if categories else ""
            if (
                category in _CATEGORIES
                and isinstance(first, cst.Index)
                and isinstance(first.value, (cst.Name, cst.Attribute))
                and self._names(first.value) & _ARRAYS
            ):
                return (annotation, category, first.value)
        return None

    def _places(self, annotation: cst.BaseExpression, place: str, depth: int = 0) -> dict[str, _Bare]:
        """The bare arrays an annotation holds, by place: the annotation
        itself (``place``), ``X | None`` and ``Optional[X]``'s ``X`` (the same
        place), a tuple's items (``place[0]``), and the items of a dict,
        list, sequence or ``tuple[X, ...]`` (``place[*]``)."""
        bare = self._bare(annotation)
        if bare is not None:
            return {place: bare}
        if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
            sides = [annotation.left, annotation.right]
            others = [side for side in sides if not (isinstance(side, cst.Name) and side.value == "None")]
            return self._places(others[0], place, depth) if len(others) == 1 else {}
        if not isinstance(annotation, cst.Subscript):
            return {}
        names = self._names(annotation.value)
        items = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
        if len(items) != len(annotation.slice) or not items:
            return {}
        if names & _OPTIONALS:
            others = [i for i in items if not (isinstance(i, cst.Name) and i.value == "None")]
            if len(others) == 1 and ("typing.Optional" in names or len(items) == 2):
                return self._places(others[0], place, depth)
            return {}
        if depth:  # one container deep: what the recorder reads
            found = self._bare(items[-1]) if names & _CONTAINERS else None
            return {f"{place}[*]": found} if found is not None else {}
        if names & _TUPLES:
            if len(items) == 2 and isinstance(items[1], cst.Ellipsis):
                found = self._bare(items[0])
                return {f"{place}[*]": found} if found is not None else {}
            places: dict[str, _Bare] = {}
            for index, item in enumerate(items):
                places.update(self._places(item, f"{place}[{index}]", depth + 1))
            return places
        if names & _CONTAINERS:
            found = self._bare(items[-1])
            return {f"{place}[*]": found} if found is not None else {}
        return {}

    def _annotation_places(self, annotation: cst.Annotation | None, root: str) -> dict[str, _Bare]:
        return {} if annotation is None else self._places(annotation.annotation, root)

    @staticmethod
    def _replaced(
        annotation: cst.Annotation, places: Mapping[str, _Bare], written: Mapping[str, cst.BaseExpression]
    ) -> cst.Annotation:
        """``annotation`` (as first parsed) with the written places' nodes replaced."""
        replacements = {id(_node(places[p])): new for p, new in written.items() if p in places}
        if not replacements:
            return annotation
        new = annotation.annotation.visit(_Replace(replacements))
        assert isinstance(new, cst.BaseExpression)
        return annotation.with_changes(annotation=new)

    # ------------------------------------------------------------- writing
    def _line(self, node: cst.FunctionDef | cst.ClassDef) -> int:
        first = node.decorators[0] if node.decorators else node
        position = self.get_metadata(PositionProvider, first)
        assert isinstance(position, CodeRange)
        return position.start.line

    def _numpy(self) -> str:
        if self.numpy_alias is None:
            AddImportsVisitor.add_needed_import(self.context, "jax.numpy", asname="jnp")
            self.numpy_alias = "jnp"
        return self.numpy_alias

    def _jax(self) -> str:
        if self.jax_alias is None:
            AddImportsVisitor.add_needed_import(self.context, "jax")
            self.jax_alias = "jax"
        return self.jax_alias

    def _array_code(self, array: cst.BaseExpression) -> str:
        """The array's expression to subscript: as written, but JAX's spelling
        of ``jnp.ndarray`` (not generic in the stubs) is ``jax.Array``."""
        if self._names(array) & {"jax.numpy.ndarray", "jax.numpy.Array"}:
            return f"{self._jax()}.Array"
        return cst.Module([]).code_for_node(array)

    def _written(self, bare: _Bare, dtype: str) -> tuple[cst.BaseExpression, str] | str:
        """The new annotation and how it reads, or why none is written."""
        if dtype == TYPEVAR:
            if self.spelling == "jaxtyping":
                return "jaxtyping's annotations cannot name a dtype variable"
            if self.typevar_taken:
                return f"a dtype variable is called for, but the module's name {TYPEVAR_NAME} is taken"
            self.typevar_needed = True
        elif dtype not in _MARKERS:  # a PRNG key's key<fry>, a float0: no marker names them
            return f"{dtype} seen, which no dtype annotation names"
        elif isinstance(bare, tuple) and (admitted := _CATEGORIES[bare[1]]) is not None and dtype not in admitted:
            return f"{dtype} seen, which {bare[1]}[...] does not admit"
        if self.spelling == "jaxtyping":
            short = _JAXTYPING_NAMES.get(dtype)
            if short is None:
                return f"jaxtyping has no name for {dtype}"
            if isinstance(bare, tuple):
                subscript, _, _ = bare
                value = subscript.value
                category: cst.BaseExpression = (
                    value.with_changes(attr=cst.Name(short)) if isinstance(value, cst.Attribute) else cst.Name(short)
                )
                if isinstance(value, cst.Name):
                    AddImportsVisitor.add_needed_import(self.context, "jaxtyping", short)
                new: cst.BaseExpression = subscript.with_changes(value=category)
            else:
                AddImportsVisitor.add_needed_import(self.context, "jaxtyping", short)
                new = cst.parse_expression(f'{short}[{self._array_code(bare)}, "..."]')
            return new, cst.Module([]).code_for_node(new)
        argument = TYPEVAR_NAME if dtype == TYPEVAR else _dtype_expression(self.spelling, self._numpy_or_none(), dtype)
        array = bare[2] if isinstance(bare, tuple) else bare
        if self.spelling == "jaxtypes":
            self.jaxtypes_needed = True
            AddImportsVisitor.add_needed_import(self.context, "jaxtypes")
            subscripted = cst.parse_expression(f"jaxtypes.Array[{argument}]")
        else:
            self.jaxtypes_needed = True
            if argument.startswith("jaxtypes."):  # a weak marker: the module's name is used, import it
                self.jaxtypes_named = True
                AddImportsVisitor.add_needed_import(self.context, "jaxtypes")
            subscripted = cst.parse_expression(f"{self._array_code(array)}[{argument}]")
        if isinstance(bare, tuple):
            subscript = bare[0]
            elements = list(subscript.slice)
            elements[0] = elements[0].with_changes(slice=cst.Index(subscripted))
            new = subscript.with_changes(slice=elements)
        else:
            new = subscripted
        return new, cst.Module([]).code_for_node(new)

    def _numpy_or_none(self) -> str:
        return self._numpy() if self.spelling == "jax" else "jnp"

    def _apply(
        self, where: str, line: int, places: Mapping[str, _Bare], decision: Decision
    ) -> dict[str, cst.BaseExpression]:
        written: dict[str, cst.BaseExpression] = {}
        shown: dict[str, str] = {}
        for place, bare in places.items():
            if place in decision.left:
                self.left.append(Left(line, where, place, decision.left[place]))
                continue
            dtype = decision.dtypes.get(place)
            if dtype is None:
                continue
            result = self._written(bare, dtype)
            if isinstance(result, str):
                self.left.append(Left(line, where, place, result))
            else:
                written[place], shown[place] = result
        if written:
            self.changes.append(Change(line, where, shown))
        return written

    # ----------------------------------------------------------- functions
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._depth += 1

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self._depth -= 1
        line = self._line(original_node)
        record = self.functions.get((line, original_node.name.value))
        if record is None:
            return updated_node
        where = ".".join([*self._classes, original_node.name.value])
        params = original_node.params
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        roots: dict[str, dict[str, _Bare]] = {
            p.name.value: self._annotation_places(p.annotation, p.name.value) for p in every
        }
        roots[RETURN] = self._annotation_places(original_node.returns, RETURN)
        places = {place: bare for found in roots.values() for place, bare in found.items()}
        for name, seen in sorted(record.params.items()):
            if any(p.name.value == name and p.annotation is None for p in every):
                self.left.append(Left(line, where, name, f"not annotated (saw {_listed(seen)}): left as written"))
        if not places:
            return updated_node
        decision = decide(list(places), record.calls)
        written = self._apply(where, line, places, decision)
        if not written:
            return updated_node

        originals = {p.name.value: p.annotation for p in every}

        def annotated(param: cst.Param) -> cst.Param:
            original = originals.get(param.name.value)
            if original is None or param.annotation is None:
                return param
            return param.with_changes(annotation=self._replaced(original, roots[param.name.value], written))

        new_params = updated_node.params.with_changes(
            posonly_params=[annotated(p) for p in updated_node.params.posonly_params],
            params=[annotated(p) for p in updated_node.params.params],
            kwonly_params=[annotated(p) for p in updated_node.params.kwonly_params],
        )
        returns = updated_node.returns
        if returns is not None and original_node.returns is not None:
            returns = self._replaced(original_node.returns, roots[RETURN], written)
        return updated_node.with_changes(params=new_params, returns=returns)

    # ------------------------------------------------------------- classes
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._depth += 1
        self._classes.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        self._depth -= 1
        qualname = ".".join(self._classes)
        self._classes.pop()
        seen = self.fields.get(qualname)
        if seen is None or not isinstance(updated_node.body, cst.IndentedBlock):
            return updated_node
        roots: dict[str, tuple[cst.Annotation, dict[str, _Bare]]] = {}
        for statement in original_node.body.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        name = small.target.value
                        roots[name] = (small.annotation, self._annotation_places(small.annotation, name))
        places = {place: bare for _, found in roots.values() for place, bare in found.items()}
        line = self._line(original_node)
        written = self._apply(qualname, line, places, decide_fields(seen, list(places))) if places else {}
        layers = self._layer_fields(qualname, line, {name: annotation for name, (annotation, _) in roots.items()}, seen)
        if not written and not layers:
            return updated_node

        def annotation(s: cst.AnnAssign, name: str) -> cst.Annotation:
            if name in layers:
                return layers[name]
            return self._replaced(*roots[name], written)

        body: list[cst.BaseStatement] = []
        for statement in updated_node.body.body:
            if isinstance(statement, cst.SimpleStatementLine):
                statement = statement.with_changes(
                    body=[
                        s.with_changes(annotation=annotation(s, s.target.value))
                        if isinstance(s, cst.AnnAssign) and isinstance(s.target, cst.Name) and s.target.value in roots
                        else s
                        for s in statement.body
                    ]
                )
            body.append(statement)
        return updated_node.with_changes(body=updated_node.body.with_changes(body=body))

    # ---------------------------------------------------- Equinox layers
    def _equinox_class(self, node: cst.BaseExpression) -> str | None:
        """The typed Equinox layer a bare annotation names (``eqx.nn.Linear``)."""
        if not isinstance(node, (cst.Name, cst.Attribute)):
            return None
        for name in self._names(node):
            module, _, cls = name.rpartition(".")
            if module.startswith("equinox.nn") and cls in _equinox_typed_classes():
                return cls
        return None

    def _layer_fields(
        self, qualname: str, line: int, annotations: Mapping[str, cst.Annotation], seen: Mapping[str, Sequence[str]]
    ) -> dict[str, cst.Annotation]:
        """The fields holding Equinox layers, annotated with their class bare
        (or a bare ``list``, or a list of the class), that held one class of
        one parameter dtype over the run: ``eqx.nn.Linear[NoDtype, jnp.float32]``,
        which the stubs read as a layer of float32 parameters (quoted unless
        annotations are postponed: Equinox's classes are not subscriptable)."""
        out: dict[str, cst.Annotation] = {}
        shown: dict[str, str] = {}
        for name, annotation in annotations.items():
            node = annotation.annotation
            one = seen.get(name, ())
            items = seen.get(f"{name}[*]", ())
            is_list = isinstance(node, cst.Name) and node.value in ("list", "List")
            inner: cst.BaseExpression | None = None
            if isinstance(node, cst.Subscript) and self._names(node.value) & {"builtins.list", "typing.List"}:
                (element,) = node.slice if len(node.slice) == 1 else (None,)
                inner = element.slice.value if element is not None and isinstance(element.slice, cst.Index) else None
            recorded = items if is_list or inner is not None else one
            layers = {r for r in recorded if r.startswith(dtype_recorder.LAYER_PREFIX)}
            target = inner if inner is not None else node
            if not layers or not (is_list or isinstance(target, (cst.Name, cst.Attribute))):
                continue  # (a written annotation, quoted or with type arguments, is left as it is)
            if len(layers) != 1 or len(recorded) != 1:
                self.left.append(Left(line, qualname, name, _several_held(layers, set(recorded))))
                continue
            cls, dtype = next(iter(layers)).removeprefix(dtype_recorder.LAYER_PREFIX).split(":")
            if is_list:
                written = self.equinox_alias and f"{self.equinox_alias}.nn.{cls}"
            else:
                written = cst.Module([]).code_for_node(target) if self._equinox_class(target) == cls else None
            reason = self._layer_reason(dtype, written)
            if reason is not None:
                self.left.append(Left(line, qualname, name, reason))
                continue
            AddImportsVisitor.add_needed_import(self.context, "jaxtypes.typing", "NoDtype")
            layer = f"{written}[NoDtype, {_dtype_expression(self.spelling, self._numpy_or_none(), dtype)}]"
            if self.spelling == "jaxtypes":
                AddImportsVisitor.add_needed_import(self.context, "jaxtypes")
            text = f"list[{layer}]" if is_list or inner is not None else layer
            expression = cst.parse_expression(text if self.future_annotations else f"\"{text}\"")
            out[name] = annotation.with_changes(annotation=expression)
            shown[name] = text
        if shown:
            self.changes.append(Change(line, qualname, shown))
        return out

    def _layer_reason(self, dtype: str, written: str | None) -> str | None:
        """Why a layer field is left, or None."""
        if written is None:
            return "an Equinox layer whose class the annotation does not name"
        if self.spelling == "jaxtyping":
            return "jaxtyping's annotations name no layer"
        if dtype not in lattice.STRONG:
            return f"{dtype} parameters, which no dtype annotation names"
        return None

    # ---------------------------------------------------- dict aliases
    def _string_keyed(self, value: cst.BaseExpression) -> _Bare | None:
        """The bare array of ``dict[str, jax.Array]`` (or a Mapping's)."""
        if not isinstance(value, cst.Subscript) or not self._names(value.value) & _MAPPINGS:
            return None
        items = [e.slice.value for e in value.slice if isinstance(e.slice, cst.Index)]
        if len(items) != 2 or len(value.slice) != 2 or not (isinstance(items[0], cst.Name) and items[0].value == "str"):
            return None
        return self._bare(items[1])

    def _alias_roots(
        self, annotation: cst.BaseExpression, root: str, aliases: Mapping[str, object]
    ) -> list[tuple[str, str]]:
        """(alias, place) for an annotation naming one of ``aliases``, alone or as a tuple's item."""
        if isinstance(annotation, cst.Name) and annotation.value in aliases:
            return [(annotation.value, root)]
        if isinstance(annotation, cst.Subscript) and self._names(annotation.value) & _TUPLES:
            return [
                (e.slice.value.value, f"{root}[{i}]")
                for i, e in enumerate(annotation.slice)
                if isinstance(e.slice, cst.Index)
                and isinstance(e.slice.value, cst.Name)
                and e.slice.value.value in aliases
            ]
        return []

    def _decide_aliases(self, module: cst.Module) -> None:
        """Each alias's new statement, from the dicts the module's functions
        held where they are annotated with it: ``dict[str, jax.Array[X]]``
        when every key held X, a ``TypedDict`` when each key held one dtype
        of its own."""
        aliases: dict[str, tuple[cst.SimpleStatementLine, _Bare]] = {}
        for statement in module.body:
            if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
                small = statement.body[0]
                if (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                    and (bare := self._string_keyed(small.value)) is not None
                ):
                    aliases[small.targets[0].target.value] = (statement, bare)
        if not aliases:
            return
        held: dict[str, list[dict[str, str] | None]] = {name: [] for name in aliases}
        for fn in _function_defs(module):
            record = self.functions.get((self._line(fn), fn.name.value))
            if record is None:
                continue
            every = [*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params]
            roots = [
                r
                for p in every
                if p.annotation
                for r in self._alias_roots(p.annotation.annotation, p.name.value, aliases)
            ]
            if fn.returns is not None:
                roots += self._alias_roots(fn.returns.annotation, RETURN, aliases)
            for alias, place in roots:
                prefix = place + "{"
                for call in record.calls:
                    keyed = {json.loads(k[len(prefix) : -1]): v for k, v in call.items() if k.startswith(prefix)}
                    if keyed:
                        held[alias].append(keyed)
                    elif f"{place}[*]" in call:
                        held[alias].append(None)  # a dict not keyed by a few strings
        for alias, (statement, bare) in aliases.items():
            line = self._line_of(statement)
            seen = held[alias]
            if not seen:
                continue
            if any(h is None for h in seen):
                self.left.append(Left(line, alias, "alias", "a dict not keyed by a few strings seen"))
                continue
            decision = decide_keys([h for h in seen if h is not None])
            if isinstance(decision, str):
                self.left.append(Left(line, alias, "alias", decision))
                continue
            new = self._alias_statement(alias, statement, bare, decision, line)
            if new is not None:
                self._alias_statements[id(statement)] = new

    def _line_of(self, node: cst.CSTNode) -> int:
        position = self.get_metadata(PositionProvider, node)
        assert isinstance(position, CodeRange)
        return position.start.line

    def _alias_statement(
        self, alias: str, statement: cst.SimpleStatementLine, bare: _Bare, dtypes: Mapping[str, str], line: int
    ) -> cst.BaseStatement | None:
        """``Alias = dict[str, jax.Array[X]]``, or a TypedDict of each key's array."""
        written: dict[str, tuple[cst.BaseExpression, str]] = {}
        for key, dtype in dtypes.items():
            result = self._written(bare, dtype)
            if isinstance(result, str):
                self.left.append(Left(line, alias, f"[{key!r}]", result))
                return None
            written[key] = result
        self.runtime_subscript = True
        if len({text for _, text in written.values()}) == 1:
            expression, _ = next(iter(written.values()))
            small = statement.body[0]
            assert isinstance(small, cst.Assign)
            value = small.value.visit(_Replace({id(_node(bare)): expression}))
            assert isinstance(value, cst.BaseExpression)
            self.changes.append(Change(line, alias, {"alias": cst.Module([]).code_for_node(value)}))
            return statement.with_changes(body=[small.with_changes(value=value)])
        AddImportsVisitor.add_needed_import(self.context, "typing", "TypedDict")
        self.changes.append(
            Change(line, alias, {"TypedDict": ", ".join(f"{key!r}: {text}" for key, (_, text) in written.items())})
        )
        if all(key.isidentifier() and not keyword.iskeyword(key) for key in written):
            body = "".join(f"    {key}: {text}\n" for key, (_, text) in written.items())
            new = cst.parse_statement(f"class {alias}(TypedDict):\n{body}")
        else:
            items = ", ".join(f"{json.dumps(key)}: {text}" for key, (_, text) in written.items())
            new = cst.parse_statement(f"{alias} = TypedDict({json.dumps(alias)}, {{{items}}})\n")
        # a class after a statement: two blank lines above it (PEP 8)
        blank = [line for line in statement.leading_lines if line.comment is None]
        comments = [line for line in statement.leading_lines if line.comment is not None]
        return new.with_changes(leading_lines=[cst.EmptyLine()] * max(2, len(blank)) + comments)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement:
        return self._alias_statements.get(id(original_node), updated_node)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        """Two blank lines after a class written in place of an alias (PEP 8)."""
        classes = {id(new) for new in self._alias_statements.values() if isinstance(new, cst.ClassDef)}
        if not classes:
            return updated_node
        body: list[cst.BaseStatement] = []
        for statement in updated_node.body:
            if body and id(body[-1]) in classes:
                blank = sum(line.comment is None for line in statement.leading_lines)
                statement = statement.with_changes(
                    leading_lines=[cst.EmptyLine()] * max(0, 2 - blank) + list(statement.leading_lines)
                )
            body.append(statement)
        return updated_node.with_changes(body=body)

    # -------------------------------------------------------------- module
    def header(self) -> list[cst.SimpleStatementLine]:
        """The lines to add after the module's imports (once libcst has added its own)."""
        added: list[cst.SimpleStatementLine] = []
        if (
            self.spelling == "jax"
            and self.jaxtypes_needed
            and not self.imports_jaxtypes
            and not self.jaxtypes_named
            and (self.runtime_subscript or not self.future_annotations)
        ):
            # jax.Array[...] is subscriptable at run time once jaxtypes is imported.
            added.append(
                cst.SimpleStatementLine(
                    [cst.Import([cst.ImportAlias(cst.Name("jaxtypes"))])],
                    trailing_whitespace=cst.TrailingWhitespace(
                        whitespace=cst.SimpleWhitespace("  "),
                        comment=cst.Comment("# noqa: F401 - makes jax.Array[...] subscriptable at run time"),
                    ),
                )
            )
        if self.typevar_needed and not self.typevar_defined:
            AddImportsVisitor.add_needed_import(self.context, "typing", "TypeVar")
            typevar = cst.parse_statement(f'{TYPEVAR_NAME} = TypeVar("{TYPEVAR_NAME}")\n')
            assert isinstance(typevar, cst.SimpleStatementLine)
            added.append(typevar.with_changes(leading_lines=[cst.EmptyLine()]))
        return added


def _after_imports(module: cst.Module, added: Sequence[cst.SimpleStatementLine]) -> cst.Module:
    body = list(module.body)
    at = 0
    for index, statement in enumerate(body):
        if not _is_header(statement, index):
            break
        at = index + 1
    return module.with_changes(body=[*body[:at], *added, *body[at:]])


def _is_header(statement: cst.BaseStatement, index: int) -> bool:
    """A module's docstring or a top-level import: what the added lines follow."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    return all(
        isinstance(s, (cst.Import, cst.ImportFrom))
        or (index == 0 and isinstance(s, cst.Expr) and isinstance(s.value, cst.SimpleString))
        for s in statement.body
    )


def rewrite(
    source: str,
    spelling: str,
    functions: Mapping[tuple[int, str], FunctionRecord],
    fields: Mapping[str, Mapping[str, Sequence[str]]],
) -> Rewritten:
    """``source`` with the bare array annotations of the recorded
    ``functions`` ((first line, name) -> what was seen; the first line is the
    first decorator's, as Python's code objects count it) and of the classes'
    ``fields`` (class qualname -> attribute -> dtypes seen) rewritten in
    ``spelling``."""
    if spelling not in SPELLINGS:
        raise ValueError(f"unknown spelling {spelling!r}; expected one of {', '.join(SPELLINGS)}")
    module = cst.parse_module(source)
    context = CodemodContext()
    rewriter = _Rewriter(context, spelling, functions, fields)
    new = rewriter.transform_module(module)
    if rewriter.changes:
        header = rewriter.header()
        new = _after_imports(AddImportsVisitor(context).transform_module(new), header)
        changes = sorted(rewriter.changes, key=lambda c: c.line)
        return Rewritten(new.code, changes, sorted(rewriter.left, key=lambda left: left.line))
    return Rewritten(source, [], sorted(rewriter.left, key=lambda left: left.line))
