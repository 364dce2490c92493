"""JAX's functions with dtype-computing signatures, from ``jaxtypes.function_rules``.

``jaxtypes jax-stubs`` rewrites the stub modules JAX ships (``jax/numpy``,
``jax/nn``) so that a function whose dtype rule is known returns that dtype
for inputs of known dtype.  Each typed function keeps JAX's own declaration
as its last overload, so every call JAX's stubs accept still type-checks (a
call the typed overloads do not cover gives JAX's ``Array``, i.e.
``Array[Any]``), but lax's functions that require one dtype of their two
arrays (``lax.add``, ``lax.select``), whose declaration is narrowed to leave
two jax Arrays of different dtypes unmatched (``_equal_dtype_overloads``);
before it come, in this order:

1. the input overload: the function's array argument typed
   ``Array[Inexact[D]]``, returning ``Array[D]``.  ``Inexact`` is a
   protocol over an attribute each marker carries when JAX accepts it
   (``float32._fn_inexact: float32``, ``int8._fn_inexact: float32``), so a
   checker solves the result by one protocol match; a marker without the
   attribute (a dtype JAX rejects) falls through to JAX's signature.  An
   ``Array[Any]`` argument gives ``Array[Any]``, as JAX's stubs do.
2. the ``dtype=`` overloads, where a ``dtype=`` argument decides: a marker
   class (``jt.float32``, which JAX's scalar type ``jnp.float32`` is here),
   canonicalized as JAX does (``float64`` is ``float32`` with x64 off);
3. an overload taking numpy scalars and arrays, which JAX's stubs type
   ``Array`` (``np.float64`` is a Python ``float`` to a checker, but a strong
   value to JAX);
4. one overload per Python scalar kind (``bool``, ``int``, ``float``,
   ``complex``) JAX accepts, with the weakly typed result JAX gives.

The other array parameters of a typed overload (``clip``'s bounds, ``sum``'s
``initial``) are narrowed to ``None`` (absent), since they could change the
result; ``where=`` masks are kept.  Answers are JAX's default configuration
(standard promotion, x64 off); a 64-bit marker (an array made under
``enable_x64``) gets no attribute, so it falls through to ``Array[Any]``.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from jaxtypes import call_plans, function_rules, lattice, operation_rules
from jaxtypes._stubgen import basearray_stub, jax_transforms, package_stubs
from jaxtypes._stubgen.syntax import (
    BUILTINS,
    ModuleShapeError,
    all_params,
    annotation_names,
    as_overload,
    check_exports,
    copy_signature,
    declarations,
    exported_import,
    is_alias,
    is_overload,
    is_private_machinery,
    module_file,
    parse_expr,
    positional_params,
    required_overloads,
    stub_def,
    stub_view,
    without_param,
)
from jaxtypes.call_plans import CallPlan
from jaxtypes.lattice import Variant
from jaxtypes.operation_rules import DEFAULT

__all__ = [
    "FunctionTables",
    "transform_module",
    "transform_markers",
    "render_runtime_module",
    "MODULES",
    "RUNTIME_MODULES",
    "typed_functions",
    "plugin_module",
]

MARKERS: Final = "_jaxtypes_markers"  # how a transformed module imports jaxtypes.markers
# How it imports jaxtypes.typing.DType, which spells a typed dtype value
# (``type[M] | DtypeValue[M]``) by its public name in an IDE's hover.
DTYPE_ALIAS: Final = "_JaxtypesDType"
# What an IDE's hover or a checker's message shows of the typed overloads
# names nothing private: their TypeVars and protocols are declared in the
# markers stub (a module of jaxtypes, whose public-looking names a JAX module
# would otherwise export) and a JAX module imports the TypeVars under private
# names: ``def tanh(x: Array[Inexact[D@tanh]], /) -> Array[D@tanh]``.
RESULT_VAR: Final = "_JaxtypesV"  # the TypeVar a typed overload solves (markers' D)
OTHER_VAR: Final = "_JaxtypesW"  # ... and its second result's (top_k's indices; markers' D2)
RESULT_TYPEVAR_NAMES: Final = {RESULT_VAR: "D", OTHER_VAR: "D2"}
_RESULT_TYPEVARS: Final = (
    "from jaxtypes.markers import "
    + ", ".join(f"{public} as {local}" for local, public in RESULT_TYPEVAR_NAMES.items())
    + "\n"
)
UNKNOWN: Final = "_UnknownArgument"  # (in the markers stub) matches only Any
# A TypeVar bound to it, which the guard overloads take: as the type context
# of a nested call (``jnp.exp(jnp.sum(x))``) a TypeVar is no context for
# mypy, where the class itself would make mypy solve the nested call for it.
# (A hover shows it: ``dtype: AnyDtype@zeros``, the overload giving Array[Any].)
UNKNOWN_VAR: Final = "AnyDtype"
# The TypeVar of a layer's param_dtype= (its dtype='s is D; jaxtypes._stubgen.
# layer_stubs), declared here for the same reason: a Flax module would export it.
PARAM_DTYPE_VAR: Final = "ParamDtype"
# The protocols' own (covariant) parameters.
_PROTOCOL_VARS: Final = ("D_co", "D2_co")
# A protocol's name, from its attribute's: the words of ``_fn_<words><n>``
# (``_fn_inexact_with_int2``: InexactWithInt2); a pair's two joined by "And".
_PROTOCOL_WORDS: Final = {"dtype": "GivenDtype", "finfo": "FinfoDtype"}


def protocol_name(attribute: str) -> str:
    """The protocol reading a marker attribute (or a pair of them, ``pair``):
    ``_fn_inexact`` -> ``Inexact``, ``_fn_dtype2`` (what ``dtype=`` gives)
    -> ``GivenDtype2``, ``_fn_same4_fn_other`` -> ``Same4AndOther``."""
    words: list[str] = []
    for part in attribute.split("_fn_")[1:]:
        match = re.fullmatch(r"(.*?)(\d*)", part)
        assert match is not None
        stem, n = match.groups()
        word = _PROTOCOL_WORDS.get(stem) or "".join(w[:1].upper() + w[1:] for w in stem.split("_"))
        words.append(word + n)
    if not words:
        raise AssertionError(f"not a function attribute: {attribute!r}")
    return "And".join(words)


def _protocol(attribute: str) -> str:
    """The protocol as a transformed module names it (an attribute of the markers module)."""
    return f"{MARKERS}.{protocol_name(attribute)}"


# The stub modules JAX ships that are rewritten: path in the jax package -> the
# qualified name of its functions in jaxtypes.function_rules.TABLE.
MODULES: Final = {"numpy/__init__.pyi": "jax.numpy", "nn/__init__.pyi": "jax.nn"}
_SCALARS: Final = (
    ("builtins.bool", "bool"),
    ("builtins.int", lattice.WEAK_INT),
    ("builtins.float", lattice.WEAK_FLOAT),
    ("builtins.complex", lattice.WEAK_COMPLEX),
)
_64_BIT: Final = frozenset(["int64", "uint64", "float64", "complex128"])
# An array of a Python scalar's own node (a weak-typed array, from
# ``jnp.asarray(0.5)``; a bool array for a bool) promotes with another array
# as that scalar does, so the scalar overloads of two-array functions take it.
_SCALAR_NODE: Final = dict(_SCALARS)


def _m(node: str) -> str:
    return package_stubs.MARKER_NAME[node]


@functools.lru_cache(maxsize=None)  # the same rule and inputs come up for many signatures
def _result(rule: function_rules.Rule, inputs: tuple[str, ...], v: Variant, dtype: str | None = None) -> str | None:
    try:
        out = function_rules.apply(rule, inputs, v, dtype)
    except ValueError:
        return None
    if out.node is None or out.node not in lattice.NODES:
        return None
    return out.node


# pyright solves a TypeVar bound to a union by trying its members in order,
# and the time goes with the members tried (benchmarks.stub_builds: 20
# members in the lattice's order made each call of jnp.sqrt on a float32
# array 1.6x dearer): the dtypes most arrays have come first.
_FREQUENT_FIRST: Final = ("float32", "bfloat16", "float16", "int32")


def _bound_order(node: str) -> tuple[int, int]:
    if node in _FREQUENT_FIRST:
        return (_FREQUENT_FIRST.index(node), 0)
    return (len(_FREQUENT_FIRST), lattice.NODES.index(node))


@dataclass
class FunctionTables:
    """The per-marker attributes the typed signatures read, deduplicated: one
    attribute per distinct mapping of input marker -> result marker."""

    v: Variant = DEFAULT
    attributes: dict[tuple[tuple[str, str], ...], str] = field(default_factory=dict[tuple[tuple[str, str], ...], str])
    constrained: dict[tuple[str, ...], str] = field(default_factory=dict[tuple[str, ...], str])
    # {(stem, marker...): name} of the bounded TypeVars (``bounded``)
    bounded_vars: dict[tuple[str, ...], str] = field(default_factory=dict[tuple[str, ...], str])
    pairs: set[tuple[str, str]] = field(default_factory=set[tuple[str, str]])
    # The attributes read from a class object (``dtype=jnp.float32``): their
    # classes are generic bases of the markers, not protocols, as ty solves
    # ``type[P[V]]`` of a protocol through the class's ``__new__`` (which
    # gives an Array: ``jnp.float32(1)``), never from its attributes.
    nominal: set[str] = field(default_factory=set[str])
    # {JAX's NamedTuple of results: its fields}, of the typed functions'
    # results: declared generic by the markers stub (named_result_lines).
    named_results: dict[str, list[str]] = field(default_factory=dict[str, list[str]])
    # {class: (its declaration, the imports it needs)} of the typed ufuncs,
    # declared by the markers stub (ufunc_lines).
    ufuncs: dict[str, tuple[ast.ClassDef, set[str]]] = field(default_factory=dict[str, tuple[ast.ClassDef, set[str]]])

    def pair(self, first: str, second: str) -> str:
        """A protocol of two attributes, each solving its own TypeVar."""
        self.pairs.add((first, second))
        return first + second

    def attribute(self, prefix: str, mapping: Mapping[str, str]) -> str:
        key = tuple(sorted(mapping.items()))
        name = self.attributes.get(key)
        if name is None and all(k == v for k, v in key):
            prefix = "_fn_same"  # (the dtypes it accepts, each kept)
        if name is None:
            taken = set(self.attributes.values())
            name, n = prefix, 1
            while name in taken:
                n += 1
                name = f"{prefix}{n}"
            self.attributes[key] = name
        return name

    def input_mapping(self, rule: function_rules.Rule) -> dict[str, str]:
        """{input marker node: result node} for the markers JAX accepts (and
        that are not 64-bit with x64 off)."""
        out: dict[str, str] = {}
        for node in lattice.NODES:
            if node in _64_BIT and not self.v.x64:
                continue
            res = _result(rule, (node,), self.v)
            if res is not None:
                out[node] = res
        return out

    def dtype_mapping(self, rule: function_rules.Rule, inputs: tuple[str, ...]) -> dict[str, str]:
        """{dtype= marker node: result node}."""
        return {node: res for node in lattice.STRONG if (res := _result(rule, inputs, self.v, node)) is not None}

    def same_dtype(self, markers: Iterable[str]) -> str:
        """A TypeVar constrained to these markers, declared once per set."""
        key = tuple(sorted(markers, key=lattice.NODES.index))
        if len(key) == 1:  # a TypeVar needs two constraints: the marker itself
            return _m(key[0])
        name = self.constrained.get(key)
        if name is None:
            name = self.constrained[key] = f"SameDtype{len(self.constrained)}"
        return name

    def bounded(self, stem: str, markers: Iterable[str]) -> str:
        """A TypeVar bound to these markers, declared once per set and stem,
        which a hover shows: ``InexactKept`` (the dtypes a function of the
        protocol ``Inexact`` gives back unchanged) or ``AcceptedInput`` (those
        a function of one result dtype takes), numbered after the first."""
        key = (stem, *sorted(markers, key=_bound_order))
        name = self.bounded_vars.get(key)
        if name is None:
            n = sum(k[0] == stem for k in self.bounded_vars)
            name = self.bounded_vars[key] = f"{stem}{n + 1 if n else ''}"
        return name

    def marker_bases(self) -> dict[str, list[str]]:
        """{marker class name: the nominal classes it derives from}."""
        out: dict[str, list[str]] = {_m(n): [] for n in lattice.NODES}
        for key, name in self.attributes.items():
            if name in self.nominal:
                for node, result in key:
                    out[_m(node)].append(f"{protocol_name(name)}[{_m(result)}]")
        return out

    def marker_lines(self) -> dict[str, list[str]]:
        """{marker class name: its attribute declarations}."""
        out: dict[str, list[str]] = {_m(n): [] for n in lattice.NODES}
        for key, name in self.attributes.items():
            for node, result in key:
                out[_m(node)].append(f"{name}: {_m(result)}")
        return out

    def ufunc_lines(self) -> list[str]:
        """The typed ufuncs' classes, after the imports of JAX's names they use."""
        imports = sorted({line for _, needed in self.ufuncs.values() for line in needed})
        return [*imports, "", *(ast.unparse(cls) + "\n" for cls, _ in self.ufuncs.values())]

    def protocol_lines(self) -> list[str]:
        v, w = _PROTOCOL_VARS
        lines = [f'{v} = TypeVar("{v}", covariant=True)', f'{w} = TypeVar("{w}", covariant=True)', ""]
        for markers, name in self.constrained.items():
            lines.append(f'{name} = TypeVar("{name}", {", ".join(_m(m) for m in markers)})')
        for key, name in self.bounded_vars.items():
            lines.append(f'{name} = TypeVar("{name}", bound={" | ".join(_m(m) for m in key[1:])})')
        names = [protocol_name(n) for n in self.attributes.values()] + [protocol_name(f + s) for f, s in self.pairs]
        if len(set(names)) != len(names):
            raise AssertionError(f"two protocols of one name: {sorted(n for n in names if names.count(n) > 1)}")
        for name in sorted(self.attributes.values()):
            if name in self.nominal:
                lines += [
                    "@type_check_only",
                    f"class {protocol_name(name)}(Generic[{v}]):",
                    f'    """A dtype marker whose ``{name}`` is {v}: a base of the markers."""',
                    "",
                ]
                continue
            lines += [
                "@type_check_only",
                f"class {protocol_name(name)}(Protocol[{v}]):",
                "    @property",
                f"    def {name}(self) -> {v}: ...",
                "",
            ]
        for first, second in sorted(self.pairs):
            lines += [
                "@type_check_only",
                f"class {protocol_name(first + second)}(Protocol[{v}, {w}]):",
                "    @property",
                f"    def {first}(self) -> {v}: ...",
                "    @property",
                f"    def {second}(self) -> {w}: ...",
                "",
            ]
        return lines


def _rule_prefix(rule: function_rules.Rule) -> str:
    name = f"_fn_{rule.family}"
    if not rule.keep_weak:
        name += "_strong"
    return name


# ------------------------------------------------------------- signatures
def _is_array_like(annotation: ast.expr | None) -> bool:
    """Whether JAX declares a parameter ``ArrayLike``, under that name or one
    of its other names (``_ARRAY_LIKE_ALIASES``)."""
    if annotation is None:
        return False
    text = ast.unparse(annotation)
    return "ArrayLike" in text or any(n in _ARRAY_LIKE_ALIASES for n in re.findall(r"\w+", text))


def _is_array(annotation: ast.expr | None) -> bool:
    """Whether JAX declares a parameter an array, not ArrayLike:
    ``operand: Array`` (lax.cummax), ``Array | np.ndarray`` (lax.dynamic_slice).
    Its typed function then takes no Python scalar, as JAX's declaration does not."""
    if annotation is None:
        return False
    members = ast.unparse(annotation).replace(" ", "").split("|")
    return "Array" in members and set(members) <= {"Array", "jax.Array", "np.ndarray", "numpy.ndarray"}


def _allows_none(annotation: ast.expr | None) -> bool:
    """Whether ``annotation`` admits ``None``: ``X | None``, ``Optional[X]``
    (JAX before 0.5 spells it so), ``Union[X, None]``, ``Any``."""
    if annotation is None:
        return False
    if ast.unparse(annotation) == "Any":
        return True
    return any(
        (isinstance(n, ast.Constant) and n.value is None)
        or (isinstance(n, ast.Name) and n.id in ("None", "Optional"))
        or (isinstance(n, ast.Attribute) and n.attr == "Optional")
        for n in ast.walk(annotation)
    )


# JAX's other names of ArrayLike (jax._src.random's), which only a
# reader of the syntax tells apart from it.
_ARRAY_LIKE_ALIASES: Final = ("RealArray", "IntegerArray")


def _declared_kind(param: ast.arg) -> str:
    """How JAX declares ``param``, in ``call_plans``' terms."""
    annotation = param.annotation
    text = ast.unparse(annotation) if annotation is not None else "Any"
    if _is_array(annotation):
        return call_plans.ARRAY
    if "Sequence[ArrayLike]" in text:
        return call_plans.SEQUENCE
    if _is_array_like(annotation):
        return call_plans.ARRAY_LIKE
    if text == "Any":
        return call_plans.ANY
    if "DTypeLike" in text or param.arg == "dtype":
        return call_plans.DTYPE_LIKE
    if "DeprecatedArg" in text:
        return call_plans.DEPRECATED
    return call_plans.INT if text == "int" else call_plans.OTHER


def parameters(fn: ast.FunctionDef) -> tuple[list[call_plans.Parameter], call_plans.Parameter | None]:
    """``fn``'s parameters as ``call_plans`` reads them, and its ``*args``."""
    defaulted = _defaulted(fn)
    positional = {p.arg for p in positional_params(fn)}
    only = {p.arg for p in fn.args.posonlyargs}
    params = [
        call_plans.Parameter(
            p.arg, _declared_kind(p), p.arg in positional, p.arg in defaulted, _allows_none(p.annotation), p.arg in only
        )
        for p in all_params(fn)
    ]
    vararg = fn.args.vararg
    return params, (call_plans.Parameter(vararg.arg, _declared_kind(vararg)) if vararg is not None else None)


def _plan(name: str, fn: ast.FunctionDef) -> CallPlan | None:
    """The call plan the typed overloads follow (None: no typed overloads)."""
    plan = call_plans.call_plan(name, *parameters(fn))
    return plan if plan is not None and plan.overloads else None


def _defaults(fn: ast.FunctionDef) -> dict[str, ast.expr]:
    """The parameters of ``fn`` that have a default, with it."""
    positional = positional_params(fn)
    with_default = positional[len(positional) - len(fn.args.defaults) :] if fn.args.defaults else []
    out = {p.arg: d for p, d in zip(with_default, fn.args.defaults)}
    out.update((p.arg, d) for p, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None)
    return out


def _defaulted(fn: ast.FunctionDef) -> set[str]:
    """The parameters of ``fn`` that have a default."""
    return set(_defaults(fn))


def _narrowed(fn: ast.FunctionDef, inputs: Iterable[str], scalars: str | None = None) -> ast.FunctionDef | None:
    """A copy of ``fn`` in which every parameter that could change the
    result's dtype, other than ``inputs``, is pinned: other arrays to ``None``
    (or, given ``scalars``, to that Python scalar type or None), ``dtype``-like
    ones to ``None``, the flags of ``call_plans.PINNED`` to their default; None when one
    of them cannot be left out."""
    out = copy_signature(fn)
    keep = set(inputs) | call_plans.NEUTRAL_NAMES
    defaulted = _defaulted(out)
    dropped: list[str] = []
    for param in all_params(out):
        if param.arg in keep or param.annotation is None:
            continue
        text = ast.unparse(param.annotation)
        if "DeprecatedArg" in text and _allows_none(param.annotation):
            param.annotation = parse_expr("None")  # (clip's a=, a_min=: old names)
        elif param.arg in call_plans.PINNED:
            param.annotation = parse_expr(call_plans.PINNED[param.arg])
        elif "DTypeLike" in text or param.arg == "dtype":
            # JAX before 0.5 declares ``dtype: DTypeLike = ...`` for a None
            # default: left out, it is None all the same.
            if not (_allows_none(param.annotation) or param.arg in defaulted):
                return None
            param.annotation = parse_expr("None")
        elif _is_array_like(param.annotation):
            if scalars is not None:
                param.annotation = parse_expr(f"{scalars} | None" if _allows_none(param.annotation) else scalars)
            elif _allows_none(param.annotation):
                param.annotation = parse_expr("None")
            elif param.arg in defaulted:
                # (elu's alpha=1.0, isclose's rtol=: typed as JAX computes
                # with the default, the calls that pass one keep JAX's signature)
                dropped.append(param.arg)
            else:
                return None
    for name in dropped:
        out = without_param(out, name)
    return out


def _returns(annotation: ast.expr | None, others: Sequence[str] = ()) -> str | None:
    """``{}``-template of JAX's return annotation with its arrays' dtype as a
    hole: ``Array`` -> ``{}``, ``list[Array]`` -> ``list[{}]``; a tuple of
    arrays whose results after the first the rule gives (``others``, their
    types' text) -> ``tuple[{}, Array[int32]]``; None for any other result
    (another tuple of arrays, a non-array)."""
    if annotation is None:
        return None
    text = ast.unparse(annotation)
    if others:
        if text != f"tuple[{', '.join(['Array'] * (1 + len(others)))}]":
            return None
        return f"tuple[{{}}{''.join(', ' + other for other in others)}]"
    if text == "Array":
        return "{}"
    for container in ("list", "Sequence", "tuple"):
        tail = ", ...]" if container == "tuple" else "]"
        if text == f"{container}[Array{tail}":
            return f"{container}[{{}}{tail}"
    return None


def _pytree_return(plan: CallPlan, fn: ast.FunctionDef) -> str | None:
    """``{}`` for a function JAX declares over pytrees, ``(operand: Any, ...)
    -> Any`` (lax.reduce_window): each overload typed here takes one array (or
    a scalar, made one), and one array in gives one array out."""
    if plan.kind not in call_plans.ONE_INPUT_KINDS or plan.input_param is None or plan.rule.others:
        return None
    param = next((p for p in all_params(fn) if p.arg == plan.input_param), None)
    if param is None or fn.returns is None:
        return None
    if ast.unparse(fn.returns) == "Any" and param.annotation is not None and ast.unparse(param.annotation) == "Any":
        return "{}"
    return None


def _with(fn: ast.FunctionDef, annotations: Mapping[str, str], returns: str) -> ast.FunctionDef:
    out = as_overload(fn)
    for param in all_params(out):
        if param.arg in annotations:
            param.annotation = parse_expr(annotations[param.arg])
    out.returns = parse_expr(returns)
    return out


def _typed_overloads(plan: CallPlan, fn: ast.FunctionDef, tables: FunctionTables) -> list[ast.FunctionDef]:
    rule = plan.rule
    if plan.choice is not None:
        return _choice_overloads(plan, fn, tables)
    if rule.others and (len(rule.others) != 1 or plan.kind not in call_plans.ONE_INPUT_KINDS):
        return []  # (typed: one input, two results)
    ret = _returns(fn.returns, _other_texts(rule, (), tables)) or _pytree_return(plan, fn) or _unannotated(plan, fn)
    if ret is None:
        return []
    out: list[ast.FunctionDef] = []
    if rule.family == "key":
        return _key_overloads(plan, fn, tables, ret)
    if plan.kind in ("xy", "cxy"):
        return _pair_overloads(plan, fn, tables, ret)
    if plan.input_param is None and plan.dtype_param is None and rule.family in ("fixed", "dtype"):
        fixed = _result(rule, (), tables.v)
        return [_with(fn, {}, ret.format(f"Array[{MARKERS}.{_m(fixed)}]"))] if fixed else []
    takes_dtype = plan.takes_dtype
    keep = list(plan.keep)
    if rule.family == "fixed":  # one result dtype: the other arrays do not matter
        keep += [p.arg for p in all_params(fn)]
    if plan.input_param is not None:
        # clip(x, 0, 1) is clip with an int bound, as the rule has it (relu:
        # maximum(x, 0)): its other arrays may be Python scalars of that kind.
        base = _narrowed(fn, [plan.input_param, *keep], plan.input_scalar)
        if base is None:
            return []
        mapping = _unbounded_agree(plan, tables.input_mapping(rule), tables)
        if mapping and rule.others:
            # the second result's dtype is a second attribute of the input's
            # marker, solved with the first through one protocol
            attr = tables.attribute(_rule_prefix(rule), mapping)
            other = tables.attribute(
                "_fn_other", {node: function_rules.other_results(rule, (node,), tables.v)[0] for node in mapping}
            )
            proto = f"{_protocol(tables.pair(attr, other))}[{RESULT_VAR}, {OTHER_VAR}]"
            both = _returns(fn.returns, [f"Array[{OTHER_VAR}]"])
            assert both is not None
            typed = _with(base, {plan.input_param: f"Array[{proto}]"}, both.format(f"Array[{RESULT_VAR}]"))
            out.append(_without_default(typed, plan.input_param))
        elif mapping and len(set(mapping.values())) == 1 and not plan.float_bounds:
            out.append(_one_result_overload(plan, base, mapping, tables, ret))
        elif mapping:
            attr = tables.attribute(_rule_prefix(rule), mapping)
            out += _kept_dtype_overloads(plan, base, mapping, tables, ret, protocol_name(attr))
            typed = _with(
                base, {plan.input_param: f"Array[{_protocol(attr)}[{RESULT_VAR}]]"}, ret.format(f"Array[{RESULT_VAR}]")
            )
            out.append(_without_default(typed, plan.input_param))
            if plan.float_bounds:
                out += _float_bound_overloads(plan.input_param, fn, keep, mapping, tables, ret)
    if takes_dtype:
        inputs = () if plan.kind == "d" else (function_rules.KEY,) if plan.kind == "kd" else ("float32",)
        base = _narrowed(fn, [plan.input_param or "", "dtype", *keep], plan.dtype_scalar)
        if base is not None and plan.input_param is None:
            # dtype=None first: with dtype= omitted, a checker would take the
            # marker overload's default and leave its TypeVar unsolved.
            default = _result(rule, inputs, tables.v)
            if default is not None:
                out.append(_with(base, {"dtype": "None"}, ret.format(f"Array[{MARKERS}.{_m(default)}]")))
        mapping = tables.dtype_mapping(rule, inputs)
        if mapping and base is not None:
            attr = tables.attribute("_fn_dtype", mapping)
            tables.nominal.add(attr)
            proto = f"{_protocol(attr)}[{RESULT_VAR}]"
            out += required_overloads(
                _with(
                    base,
                    {"dtype": f"type[{proto}] | {MARKERS}.DtypeValue[{proto}]"},
                    ret.format(f"Array[{RESULT_VAR}]"),
                ),
                "dtype",
            )
    if out:
        out[:0] = _any_guards(fn, ret, ["dtype"] if takes_dtype or plan.dtype_param else [])
    base = _narrowed(fn, [plan.input_param, *keep]) if plan.input_param is not None and out else None
    if base is not None and plan.input_param is not None and not plan.arrays_only:
        # (a function of one result dtype gives it for any input: JAX's
        # declaration says so too, _jax_declaration, so that an Array[Any]
        # argument, which matches every overload, is that dtype in mypy)
        one = next((getattr(t, ONE_RESULT) for t in out if hasattr(t, ONE_RESULT)), ret.format("Array"))
        out.append(_with(base, {plan.input_param: "_np.generic | _np.ndarray[Any, Any]"}, one))
        # (jax.random's keep JAX's signature for a Python scalar: CallPlan.scalar_inputs)
        kinds = _SCALARS if plan.scalar_inputs else ()
        answers = [
            (
                py,
                _unbounded_agree(plan, {node: res}, tables).get(node)
                if (res := _result(rule, (node,), tables.v))
                else None,
            )
            for py, node in kinds
        ]
        for py, res_text in _kind_results(answers):
            ret_py = _returns(fn.returns, _other_texts(rule, (_SCALAR_NODE[py],), tables))
            assert ret_py is not None
            out.append(_with(base, {plan.input_param: py}, ret_py.format(res_text)))
    return out


# Functions JAX declares without a return annotation that return one array
# ("Returns: The resized image.", jax.image.resize's documentation,
# https://docs.jax.dev/en/latest/_autosummary/jax.image.resize.html): typed
# as returning an Array, JAX's declaration too (``render_runtime_module``).
UNANNOTATED_ARRAY_RESULTS: Final = frozenset({"jax.image.resize"})


def _unannotated(plan: CallPlan, fn: ast.FunctionDef) -> str | None:
    """``{}`` for a function of ``UNANNOTATED_ARRAY_RESULTS`` declared without a return annotation."""
    return "{}" if fn.returns is None and plan.name in UNANNOTATED_ARRAY_RESULTS else None


def _choice_literal(values: Sequence[str]) -> str:
    """The type of a choice's values: ``Literal["nearest", ResizeMethod.NEAREST]``
    (an enum member by the name the function's module binds its enum)."""
    members = [v if re.fullmatch(r"[A-Z]\w*\.\w+", v) else repr(v) for v in values]
    return f"Literal[{', '.join(members)}]"


def _choice_overloads(plan: CallPlan, fn: ast.FunctionDef, tables: FunctionTables) -> list[ast.FunctionDef]:
    """A function whose rule a parameter's value picks (jax.image.resize's
    ``method``, ``function_rules.CHOICES``): the typed overloads of each
    rule, with that parameter narrowed to the values that pick it.  Any
    other value (a ``str`` variable) takes JAX's declaration: unknown."""
    assert plan.choice is not None
    out: list[ast.FunctionDef] = []
    for rule, values in function_rules.CHOICES[plan.name].by_rule():
        narrowed = copy_signature(fn)
        for param in all_params(narrowed):
            if param.arg == plan.choice:
                param.annotation = parse_expr(_choice_literal(values))
        out += _typed_overloads(dataclasses.replace(plan, rule=rule, choice=None), narrowed, tables)
    return out


def _with_64_bit(
    plan: CallPlan, nodes: list[str], keep: Callable[[str | None, str], bool], tables: FunctionTables
) -> list[str]:
    """``nodes``, and with x64 off the 64-bit dtypes ``keep`` takes with x64
    on (given JAX's result there and the dtype): no array is 64-bit with x64
    off, so a TypeVar's bound may hold them (floating's float64) as the
    plugin reads a bound."""
    if tables.v.x64:
        return nodes
    x64 = lattice.variant(tables.v.mode, x64=True)
    return nodes + [n for n in lattice.NODES if n in _64_BIT and keep(_result(plan.rule, (n,), x64), n)]


def _one_result_overload(
    plan: CallPlan, base: ast.FunctionDef, mapping: Mapping[str, str], tables: FunctionTables, ret: str
) -> ast.FunctionDef:
    """The typed overload of a function that gives one dtype for every
    dtype it takes (``jnp.argmax``: the default integer): the input is an
    array of any of those, a TypeVar bound within them or of unknown dtype
    (``Array[Any]``), the result that dtype."""
    assert plan.input_param is not None
    (result,) = set(mapping.values())
    accepted = _with_64_bit(plan, list(mapping), lambda r, _: r is not None, tables)
    var = f"{MARKERS}.{tables.bounded('AcceptedInput', accepted)}"
    returns = ret.format(f"Array[{MARKERS}.{_m(result)}]")
    typed = _without_default(_with(base, {plan.input_param: f"Array[{var}]"}, returns), plan.input_param)
    takes_all = all(n in mapping for n in lattice.NODES if tables.v.x64 or n not in _64_BIT)
    if takes_all and not plan.takes_dtype and plan.dtype_param is None:
        # (a function JAX refuses some dtypes of, lax.is_finite of integers,
        # keeps JAX's declaration: the refused reach it; so does one whose
        # dtype= gives other results, jnp.astype)
        setattr(typed, ONE_RESULT, returns)
    return typed


# The attribute of a typed overload whose function gives one result type
# for every input (``_one_result_overload``): that type.
ONE_RESULT: Final = "jaxtypes_one_result"


def _jax_declaration(fn: ast.FunctionDef, typed: Sequence[ast.FunctionDef]) -> ast.FunctionDef:
    """JAX's declaration ``fn`` as the last overload after ``typed``; of a
    function of one result type, returning it."""
    out = as_overload(fn)
    one = next((t for t in typed if hasattr(t, ONE_RESULT)), None)
    if one is not None:
        out.returns = parse_expr(getattr(one, ONE_RESULT))
        # (the mypy plugin's module keeps JAX's: the plugin answers with x64 on too)
        setattr(out, TYPED_FOR, getattr(one, TYPED_FOR, ""))
        setattr(out, JAX_DECLARATION, as_overload(fn))
    return out


def _kept_dtype_overloads(
    plan: CallPlan, base: ast.FunctionDef, mapping: Mapping[str, str], tables: FunctionTables, ret: str, family: str
) -> list[ast.FunctionDef]:
    """The overload before the marker one, for an array whose dtype is a
    TypeVar (``x: Array[F]``, F bound to ``floating``): a TypeVar bound within
    the dtypes the function gives back unchanged keeps its TypeVar
    (``jnp.sqrt(x)`` is ``Array[F]``).  The marker overload would answer the
    union of its bound's members.  A concrete dtype of that set stops here
    with the same answer; any other tries one overload more."""
    assert plan.input_param is not None
    kept = [node for node, result in mapping.items() if node == result]
    if not kept or plan.float_bounds:  # (clip's bounds may change a kept dtype)
        return []
    var = f"{MARKERS}.{tables.bounded(f'{family}Kept', _with_64_bit(plan, kept, lambda r, n: r == n, tables))}"
    return [
        _without_default(
            _with(base, {plan.input_param: f"Array[{var}]"}, ret.format(f"Array[{var}]")), plan.input_param
        )
    ]


def _unbounded_agree(plan: CallPlan, mapping: Mapping[str, str], tables: FunctionTables) -> dict[str, str]:
    """For jnp.clip, whose rule was measured with bounds (clip(x, 0, 1)) but
    whose typed overloads a call without bounds also reaches: the inputs whose
    answer is the same without them (operation_rules.clip(node, None), checked against
    JAX's x.clip()); clip(bool array) stays bool, not the weak int a bound of
    0 makes it.  Any other function's mapping as it is."""
    if not plan.float_bounds:
        return dict(mapping)
    return {node: res for node, res in mapping.items() if operation_rules.clip(node, None, tables.v).node == res}


def _float_bound_overloads(
    input_param: str,
    fn: ast.FunctionDef,
    keep: list[str],
    int_mapping: Mapping[str, str],
    tables: FunctionTables,
    ret: str,
) -> list[ast.FunctionDef]:
    """The overload after the int-bounded one: bounds that are Python floats
    (or ints and floats mixed, which promote as floats do).  Only for the
    input markers the int overload takes, so that no all-int call reaches it."""
    base = _narrowed(fn, [input_param, *keep], "builtins.float")
    if base is None:
        return []
    mapping: dict[str, str] = {}
    for node in int_mapping:
        outcome = operation_rules.clip(node, lattice.WEAK_FLOAT, tables.v)
        if outcome.node is not None:
            mapping[node] = outcome.node
    if not mapping:
        return []
    attr = tables.attribute("_fn_float_bounded", mapping)
    typed = _with(base, {input_param: f"Array[{_protocol(attr)}[{RESULT_VAR}]]"}, ret.format(f"Array[{RESULT_VAR}]"))
    return [_without_default(typed, input_param)]


# A NamedTuple of arrays that JAX returns (``EighResult(eigenvalues,
# eigenvectors)``) becomes a generic one, with one type parameter per field,
# so that each result carries its own dtype and ``r.eigenvalues`` and
# ``w, v = eigh(a)`` both keep working.  A hover shows it
# (``EighResult[Array[float32], Array[float32]]``), so it is declared by the
# markers stub under JAX's name (``named_result_lines``) and imported by the
# module under a private one, which the module does not export.
NAMED_RESULT_PREFIX: Final = "_Jaxtypes"
_FIELD_VAR: Final = "Field{}"


def named_results(tree: ast.Module) -> dict[str, list[str]]:
    """{class name: its fields} of the NamedTuples in ``tree`` whose fields
    are all ``Array`` (jax._src.numpy.linalg's EighResult, SVDResult...)."""
    out: dict[str, list[str]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or [ast.unparse(b) for b in node.bases] != ["NamedTuple"]:
            continue
        fields = [
            (stmt.target.id, ast.unparse(stmt.annotation))
            for stmt in node.body
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
        ]
        if fields and all(annotation == "Array" for _, annotation in fields):
            out[node.name] = [name for name, _ in fields]
    return out


def named_result_imports(used: Mapping[str, Sequence[str]]) -> list[ast.stmt]:
    """A module's imports of the generic NamedTuples it returns, from the
    markers stub, under private names (``_JaxtypesEighResult``)."""
    if not used:
        return []
    names = ", ".join(f"{name} as {NAMED_RESULT_PREFIX}{name}" for name in sorted(used))
    return ast.parse(f"from jaxtypes.markers import {names}").body


def named_result_lines(used: Mapping[str, Sequence[str]]) -> list[str]:
    """The generic NamedTuples' declarations in the markers stub, with the
    TypeVars they need."""
    if not used:
        return []
    width = max(len(fields) for fields in used.values())
    lines = ["from typing import NamedTuple as _NamedTuple"]
    lines += [f'{_FIELD_VAR.format(i)} = TypeVar("{_FIELD_VAR.format(i)}")' for i in range(width)]
    for name, fields in sorted(used.items()):
        params = ", ".join(_FIELD_VAR.format(i) for i in range(len(fields)))
        lines += [
            "",
            f"class {name}(_NamedTuple, Generic[{params}]):",
            f'    """JAX\'s {name}, generic in the type of each result ({", ".join(fields)})."""',
            *(f"    {field}: {_FIELD_VAR.format(i)}" for i, field in enumerate(fields)),
        ]
    return lines + [""]


def with_literal_defaults(fn: ast.FunctionDef, declarations: Sequence[ast.FunctionDef]) -> ast.FunctionDef:
    """``fn`` (one of JAX's overloads) with each keyword-only parameter it
    requires as ``Literal[X]`` given a default where another declaration's
    default for it is X: svd's ``compute_uv: Literal[True]`` overload is also
    the call that leaves ``compute_uv`` out (its default is True)."""
    out = copy_signature(fn)
    defaults: dict[str, str] = {}
    for other in declarations:
        for name, default in _defaults(other).items():
            defaults.setdefault(name, ast.unparse(default))
    args = out.args
    for i, param in enumerate(args.kwonlyargs):
        if args.kw_defaults[i] is not None or param.annotation is None:
            continue
        text = ast.unparse(param.annotation)
        if text.startswith("Literal[") and defaults.get(param.arg) == text[len("Literal[") : -1]:
            args.kw_defaults[i] = ast.Constant(...)
    return out


def _named_result_overloads(
    plan: CallPlan, fn: ast.FunctionDef, tables: FunctionTables, result_class: str, fields: int
) -> list[ast.FunctionDef]:
    """eigh, svd, qr, slogdet: each result of JAX's NamedTuple typed, the
    first by the rule's family, the others by ``Rule.others`` (a result the
    others leave out has the first one's dtype: qr's Q and R)."""
    rule = plan.rule
    if plan.kind not in call_plans.ONE_INPUT_KINDS or plan.input_param is None or len(rule.others) >= fields:
        return []
    base = _narrowed(fn, [plan.input_param, *plan.keep])
    if base is None:
        return []
    first = tables.input_mapping(rule)
    per_result: list[dict[str, str]] = [first]
    for i in range(len(rule.others)):
        per_result.append(
            {n: others[i] for n in first if len(others := function_rules.other_results(rule, (n,), tables.v)) > i}
        )
    per_result += [first] * (fields - len(per_result))
    common: set[str] = set(first).intersection(*per_result)  # (the inputs every result answers)
    per_result = [{n: r for n, r in mapping.items() if n in common} for mapping in per_result]
    distinct: list[dict[str, str]] = []
    for mapping in per_result:
        if mapping not in distinct:
            distinct.append(mapping)
    if not common or len(distinct) > 2:
        return []
    variables = (RESULT_VAR, OTHER_VAR)
    attrs = [
        tables.attribute(_rule_prefix(rule) if i == 0 else "_fn_other", mapping) for i, mapping in enumerate(distinct)
    ]
    if len(attrs) == 1:
        proto = f"{_protocol(attrs[0])}[{RESULT_VAR}]"
    else:
        proto = f"{_protocol(tables.pair(attrs[0], attrs[1]))}[{RESULT_VAR}, {OTHER_VAR}]"
    results = ", ".join(f"Array[{variables[distinct.index(mapping)]}]" for mapping in per_result)
    named = f"{NAMED_RESULT_PREFIX}{result_class}"
    typed = _with(base, {plan.input_param: f"Array[{proto}]"}, f"{named}[{results}]")
    untyped = _with(
        base, {plan.input_param: "_np.generic | _np.ndarray[Any, Any]"}, f"{named}[{', '.join(['Array'] * fields)}]"
    )
    return [_without_default(typed, plan.input_param), untyped]


def _other_texts(rule: function_rules.Rule, inputs: tuple[str, ...], tables: FunctionTables) -> list[str]:
    """The types of the results after the first, for these inputs."""
    return [f"Array[{MARKERS}.{_m(node)}]" for node in function_rules.other_results(rule, inputs, tables.v)]


def _typed(
    name: str, fn: ast.FunctionDef, tables: FunctionTables, named: Mapping[str, Sequence[str]] | None = None
) -> list[ast.FunctionDef]:
    """The typed overloads of JAX's function ``name`` declared ``fn``; none
    when it has no rule, or when its declaration is of a shape the generator
    does not know (another JAX release's): it then keeps JAX's own.  Each
    is tagged with ``name`` (``TYPED_FOR``), for ``plugin_module``, but for
    a function whose result is a NamedTuple of arrays."""
    try:
        plan = _plan(name, fn)
        cases = _cases_plan(name, fn) if plan is None else None
        if cases is not None:
            typed = _cases_overloads(cases, fn, tables)
        elif plan is None and name in function_rules.PREFERRED_TYPED:
            typed = _preferred_only(fn, tables)
        elif plan is None:
            return []
        else:
            returned = ast.unparse(fn.returns) if fn.returns is not None else ""
            if named and returned in named:
                # (kept for the plugin too: JAX declares svd's default call
                # ``Array | SVDResult``, which its typed overloads answer)
                return _named_result_overloads(plan, fn, tables, returned, len(named[returned]))
            typed = _typed_overloads(plan, fn, tables)
    except Exception:  # noqa: BLE001 - an unknown shape (an assertion, a missing parameter): untyped
        return []
    for overload in typed:
        setattr(overload, TYPED_FOR, name)
    return typed


# The attribute of a typed overload's node naming the function it types.
TYPED_FOR: Final = "jaxtypes_typed_for"


def _unread(node: ast.FunctionDef) -> bool:
    """Whether ``node`` is a typed overload the plugin never reads: of a
    function it answers, but for jnp.clip, whose Python float bounds only
    its overloads type (``_float_bound_overloads``)."""
    name = getattr(node, TYPED_FOR, "")
    return call_plans.answered_by_plugin(name) and name not in function_rules.BOUNDED_FUNCTIONS


def plugin_module(module: ast.Module) -> ast.Module | None:
    """A generated module as the mypy plugin reads it: without the typed
    overloads of the functions it answers from their rule
    (``call_plans.answered_by_plugin``), each declared as JAX declares it;
    None when it would not differ.  The plugin never reads those overloads,
    and analysing them is most of what the stubs cost a cold mypy run
    (docs/costs.md); it reads this module in place of the other one
    (``jaxtypes.mypy_plugin.plugin_stubs``)."""
    body: list[ast.stmt] = []
    for node in module.body:
        if not (isinstance(node, ast.FunctionDef) and _unread(node)):
            body.append(node)
        elif hasattr(node, JAX_DECLARATION):  # (in place of the overloads narrowing it)
            body.append(getattr(node, JAX_DECLARATION))
    if len(body) == len(module.body):
        return None
    declared: dict[str, int] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef):
            declared[node.name] = declared.get(node.name, 0) + 1
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.FunctionDef) and declared[node.name] == 1 and is_overload(node):
            # JAX's one declaration, made an overload after the typed ones
            node = copy.copy(node)
            node.decorator_list = [d for d in node.decorator_list if ast.unparse(d).split(".")[-1] != "overload"]
        out.append(node)
    return ast.Module(body=out, type_ignores=[])


def _inputs(plan: CallPlan, x: str, y: str) -> tuple[str, ...]:
    return ("bool", x, y) if plan.kind == "cxy" else (x, y)


def _scalar_mappings(plan: CallPlan, tables: FunctionTables, right: bool) -> list[tuple[str, dict[str, str]]]:
    """(Python scalar type, {marker: result}) in the order a checker tries
    them (a bool is an int, an int is taken as a float): a marker is in a
    kind's mapping only if every Python scalar that reaches that overload for
    it (the kind itself, and the narrower ones no earlier overload takes)
    gives the same result."""
    out: list[tuple[str, dict[str, str]]] = []
    taken: dict[str, set[str]] = {}  # marker -> the scalar kinds an earlier overload takes
    for j, (py, node) in enumerate(_SCALARS):
        mapping: dict[str, str] = {}
        for m in lattice.NODES:
            if m in _64_BIT and not tables.v.x64:
                continue
            res = _result(plan.rule, _inputs(plan, m, node) if right else _inputs(plan, node, m), tables.v)
            reaching = [k for _, k in _SCALARS[: j + 1] if k not in taken.get(m, set())]
            answers = {
                _result(plan.rule, _inputs(plan, m, k) if right else _inputs(plan, k, m), tables.v) for k in reaching
            }
            if res is not None and answers == {res}:
                mapping[m] = res
                taken.setdefault(m, set()).update(reaching)
        out.append((py, mapping))
    return out


def _same_dtype_groups(plan: CallPlan, tables: FunctionTables) -> list[tuple[str, str]]:
    """(TypeVar or marker, result) for arrays of one dtype on both sides:
    the markers whose result is themselves share a constrained TypeVar
    (``SameDtype0`` -> ``SameDtype0``); those with one fixed result share
    another (int8, int16... -> float32 for true_divide)."""
    groups: dict[str, list[str]] = {}
    for m in lattice.NODES:
        if m in _64_BIT and not tables.v.x64:
            continue
        res = _result(plan.rule, _inputs(plan, m, m), tables.v)
        if res is not None:
            groups.setdefault("" if res == m else res, []).append(m)
    out: list[tuple[str, str]] = []
    for result, markers in groups.items():
        var = tables.same_dtype(markers)
        out.append((var, var if not result else _m(result)))
    return out


# The functions of two arrays typed for arrays of two different dtypes too,
# one overload per dtype of the second array: the products, where mixed
# dtypes are how quantized weights are used (a bfloat16 activation by an
# int8 weight is bfloat16, not the float32 its author expected:
# https://github.com/jax-ml/jax/issues/17214).  Every overload is paid by
# every call of the function (docs/costs.md), so not the elementwise
# functions, whose mixed operands are written as operators (``x * w``).
MIXED_DTYPE_FUNCTIONS: Final = frozenset(["jax.numpy.matmul", "jax.numpy.dot"])
# ... and the dtypes of the second array typed so: those of quantized weights
# (int8 and int4 in AQT, float8 in JAX's "Quantization" and float8 guides),
# not every dtype, as each is an overload every call pays.
QUANTIZED_DTYPES: Final = ("int4", "int8", "uint4", "uint8", "float8_e4m3fn", "float8_e5m2")


def _mixed_dtype_overloads(
    plan: CallPlan, base: ast.FunctionDef, tables: FunctionTables, ret: str
) -> list[ast.FunctionDef]:
    """An array of any dtype with an array of one other dtype: per dtype of
    the second array, the first array's marker gives the result (an
    attribute of the markers, as for a Python scalar)."""
    x, y = plan.input_param, plan.second
    assert x is not None and y is not None
    strong = [m for m in lattice.NODES if not lattice.is_weak(m) and not (m in _64_BIT and not tables.v.x64)]
    out: list[ast.FunctionDef] = []
    for second in (m for m in strong if m in QUANTIZED_DTYPES):
        mapping = {
            m: res for m in strong if m != second and (res := _result(plan.rule, _inputs(plan, m, second), tables.v))
        }
        if not mapping:
            continue
        attr = tables.attribute(_rule_prefix(plan.rule) + "_and_" + _m(second), mapping)
        array = f"Array[{_protocol(attr)}[{RESULT_VAR}]]"
        out.append(_with(base, {x: array, y: f"Array[{MARKERS}.{_m(second)}]"}, ret.format(f"Array[{RESULT_VAR}]")))
    return out


def _pair_overloads(plan: CallPlan, fn: ast.FunctionDef, tables: FunctionTables, ret: str) -> list[ast.FunctionDef]:
    """Two arrays: unknown on either side stays unknown; the same dtype on both
    sides (a constrained TypeVar, which no checker widens to a union of
    dtypes) gives the rule's result where that is the dtype itself; a Python
    scalar on either side, per marker, and an array of that scalar's node
    with it (``_SCALAR_NODE``); other arrays of different dtypes fall
    through to JAX's own signature (``Array[Any]``)."""
    rule = plan.rule
    same = _same_dtype_groups(plan, tables)
    unknown = f"Array[{MARKERS}.{UNKNOWN_VAR}]"
    out: list[ast.FunctionDef] = []
    if plan.varargs:
        return _varargs_overloads(plan, fn, tables, ret, same)
    assert plan.input_param is not None
    if plan.sequence:
        base = _narrowed(fn, [plan.input_param])
        if base is None or not same:
            return []
        out = [_with(base, {plan.input_param: f"_JaxtypesSequence[{unknown}]"}, ret.format("Array"))]
        for var, result in same:
            out.append(
                _with(
                    base,
                    {plan.input_param: f"_JaxtypesSequence[Array[{MARKERS}.{var}]]"},
                    ret.format(f"Array[{MARKERS}.{result}]"),
                )
            )
        return out
    x, y = plan.input_param, plan.second
    assert y is not None
    base = _narrowed(fn, [x, y, *plan.keep])
    if base is None:
        return []
    out += [_with(base, {x: unknown}, ret.format("Array")), _with(base, {y: unknown}, ret.format("Array"))]
    out += _any_guards(fn, ret, ["preferred_element_type"])
    for var, result in same:
        out.append(
            _with(
                base,
                {x: f"Array[{MARKERS}.{var}]", y: f"Array[{MARKERS}.{var}]"},
                ret.format(f"Array[{MARKERS}.{result}]"),
            )
        )
    for right in (True, False):
        if (y if right else x) in plan.array_params:
            continue  # (JAX declares it an Array: no scalar there)
        for py, mapping in _scalar_mappings(plan, tables, right):
            if not mapping:
                continue
            attr = tables.attribute(_rule_prefix(rule) + ("_with_" if right else "_after_") + py.split(".")[1], mapping)
            array = f"Array[{_protocol(attr)}[{RESULT_VAR}]]"
            scalar = f"{py} | Array[{MARKERS}.{_m(_SCALAR_NODE[py])}]"
            out.append(
                _with(
                    base, {x: array, y: scalar} if right else {x: scalar, y: array}, ret.format(f"Array[{RESULT_VAR}]")
                )
            )
    if plan.name in MIXED_DTYPE_FUNCTIONS:
        out += _mixed_dtype_overloads(plan, base, tables, ret)
    if plan.two_scalars and x not in plan.array_params and y not in plan.array_params:
        out += _two_scalar_overloads(plan, base, tables, ret)
    if plan.preferred:
        out += _preferred_overloads(fn, tables, ret, x, y, list(plan.keep), _declared(fn, "preferred_element_type"))
    if len(out) > 2 and _narrows(plan, fn):
        out += _equal_dtype_overloads(plan, fn, base, tables, ret)
    return out if len(out) > 2 else []


# What an argument of lax's equal-dtype functions may be that is no jax.Array
# (JAX's ArrayLike but Array): NumPy arrays and scalars and Python scalars,
# whose dtype JAX converts or canonicalizes, so that the stubs do not judge
# them (lax.add(float32 array, np.float64(1)) is float32 with x64 off).
NOT_JAX_ARRAY: Final = (
    "_np.generic | _np.ndarray[Any, Any] | builtins.bool | builtins.int | builtins.float | builtins.complex"
)
# The attribute of the overloads that stand for JAX's declaration of a
# function, narrowed (_equal_dtype_overloads): its module declares them in
# its place, and the mypy plugin's module JAX's declaration (plugin_module).
REPLACES_DECLARATION: Final = "jaxtypes_replaces_declaration"
# ... and of the last of them, JAX's declaration (an overload), for plugin_module.
JAX_DECLARATION: Final = "jaxtypes_jax_declaration"
SAME_ARRAY: Final = "SameArray"  # (the markers stub's protocol, transform_markers)


def _narrows(plan: CallPlan, fn: ast.FunctionDef) -> bool:
    """Whether the function is one of lax's that require one dtype of their
    two arrays (the table's families ``equal`` and ``select``, whose rules say
    where a weakly typed array is accepted), with no other argument deciding
    its dtype: its declaration is narrowed to leave two jax Arrays of known,
    different dtypes unmatched (an error, as JAX raises TypeError for them)."""
    names = {p.arg for p in all_params(fn)}
    return (
        plan.name.startswith("jax.lax.")
        and (plan.rule.family, plan.kind) in (("equal", "xy"), ("select", "cxy"))
        and not (plan.sequence or plan.varargs or plan.preferred)
        and not names & set(call_plans.PINNED)
        and fn.returns is not None
    )


def _equal_dtype_overloads(
    plan: CallPlan, fn: ast.FunctionDef, base: ast.FunctionDef, tables: FunctionTables, ret: str
) -> list[ast.FunctionDef]:
    """After the typed overloads of a function ``_narrows`` takes: a weakly
    typed array with the array of the dtype JAX gives it (``lax.add(x, y)`` of
    float32 and weak float: x64 off, a weak float is float32), per the rule;
    two arrays of one type (``SameArray``: two ``jax.Array[D]`` of a dtype
    variable D, which is no marker), unknown; a 64-bit array with x64 off
    (the stubs do not type those), unknown; then JAX's declaration narrowed
    twice: with a NumPy or Python value (no jax.Array) as the one or the
    other array.  Two jax Arrays of known dtypes that JAX refuses together
    match none (a dtype variable's with a known dtype neither)."""
    x, y = plan.input_param, plan.second
    assert x is not None and y is not None
    rule, v = plan.rule, tables.v
    out: list[ast.FunctionDef] = []
    strong = [m for m in lattice.NODES if not (m in _64_BIT and not v.x64)]
    for weak in lattice.WEAK:
        for right in (True, False):
            kept: list[str] = []
            for m in strong:
                if m == weak:
                    continue
                res = _result(rule, _inputs(plan, m, weak) if right else _inputs(plan, weak, m), v)
                if res == m:
                    kept.append(m)
                elif res is not None:
                    pair = {x: f"Array[{MARKERS}.{_m(m)}]", y: f"Array[{MARKERS}.{_m(weak)}]"}
                    if not right:
                        pair = {x: pair[y], y: pair[x]}
                    out.append(_with(base, pair, ret.format(f"Array[{MARKERS}.{_m(res)}]")))
            if kept:
                var = tables.same_dtype(kept)
                pair = {x: f"Array[{MARKERS}.{var}]", y: f"Array[{MARKERS}.{_m(weak)}]"}
                if not right:
                    pair = {x: pair[y], y: pair[x]}
                out.append(_with(base, pair, ret.format(f"Array[{MARKERS}.{var}]")))
    same = f"{MARKERS}.{SAME_ARRAY}[{RESULT_VAR}]"
    # (unknown: as the result, D would be solved by the type context of a
    # call the result is an argument of, which mypy gives first)
    out.append(_with(base, {x: same, y: same}, ret.format("Array")))
    declared = ast.unparse(fn.returns) if fn.returns is not None else "Array"
    wide = [m for m in lattice.NODES if m in _64_BIT and not v.x64]
    if wide:
        unknown = "Array[" + " | ".join(f"{MARKERS}.{_m(m)}" for m in wide) + "]"
        out += [_with(fn, {x: unknown}, declared), _with(fn, {y: unknown}, declared)]
    for param in (x, y):
        escape = "_np.ndarray[Any, Any]" if param in plan.array_params else NOT_JAX_ARRAY
        narrowed = _with(fn, {param: escape}, declared)
        setattr(narrowed, REPLACES_DECLARATION, True)
        out.append(narrowed)
    return out


# Of lax.select_n(which, *cases), the calls of at most this many cases are
# checked (no overload takes more cases, besides JAX's declaration): an
# overload per case that may be a NumPy or Python value leaves the others
# unmatched (_cases_overloads); select_n's cases are a handful in the code
# that uses it (one per branch: PNDM's five in diffusers' scheduler).
CHECKED_CASES: Final = 6


def _cases_plan(name: str, fn: ast.FunctionDef) -> CallPlan | None:
    """The plan of a function like lax.select_n(which, *cases): its rule is
    ``select`` (one dtype of every case), it takes one argument and then
    ``*cases`` of JAX's ArrayLike.  (The call plan, which the mypy plugin
    reads too, reads the cases by position; the generator by their
    vararg.)"""
    plan = call_plans.call_plan(name, *parameters(fn))
    vararg = fn.args.vararg
    positional = [*fn.args.posonlyargs, *fn.args.args]
    if (
        plan is None
        or (plan.rule.family, plan.kind) != ("select", "cxy")
        or not name.startswith("jax.lax.")
        or vararg is None
        or not _is_array_like(vararg.annotation)
        or len(positional) != 1
        or fn.args.kwonlyargs
        or fn.args.kwarg is not None
        or fn.returns is None
        or ast.unparse(fn.returns) != "Array"
    ):
        return None
    return plan


def _cases_overloads(plan: CallPlan, fn: ast.FunctionDef, tables: FunctionTables) -> list[ast.FunctionDef]:
    """lax.select_n(which, *cases): cases of unknown dtype give an unknown
    result; cases of one dtype give it; cases of a
    weakly typed array and the dtype JAX gives it, that dtype (per the rule,
    as ``_equal_dtype_overloads``); cases of one array type (a dtype
    variable's), unknown; then, as JAX's declaration, a call of more than
    ``CHECKED_CASES`` cases, and one whose case at a position up to it is a
    NumPy or Python value, a 64-bit array with x64 off, or of unknown dtype.
    Cases of known dtypes that JAX refuses together match none."""
    v = tables.v
    strong = [m for m in lattice.NODES if not (m in _64_BIT and not v.x64)]
    # (cases of unknown dtype first, unknown: where none matches, mypy reports
    # the first overload and reveals its result, not a dtype the cases join to)
    forms: list[tuple[list[str], str, str]] = [([], f"Array[{MARKERS}.{UNKNOWN_VAR}]", "Array")]
    for var, result in _same_dtype_groups(plan, tables):
        forms.append(([], f"Array[{MARKERS}.{var}]", f"Array[{MARKERS}.{result}]"))
    for weak in lattice.WEAK:
        for m in strong:
            res = _result(plan.rule, ("bool", m, weak), v)
            if m != weak and res is not None and res == _result(plan.rule, ("bool", weak, m), v):
                forms.append(([], f"Array[{MARKERS}.{_m(m)} | {MARKERS}.{_m(weak)}]", f"Array[{MARKERS}.{_m(res)}]"))
    if len(forms) == 1:
        return []
    forms.append(([], f"{MARKERS}.{SAME_ARRAY}[{RESULT_VAR}]", "Array"))
    wide = [f"{MARKERS}.{_m(m)}" for m in lattice.NODES if m in _64_BIT and not v.x64]
    escape = " | ".join(
        [NOT_JAX_ARRAY, f"Array[{MARKERS}.{UNKNOWN_VAR}]", *([f"Array[{' | '.join(wide)}]"] if wide else [])]
    )
    forms.append((["ArrayLike"] * (CHECKED_CASES + 1), "ArrayLike", "Array"))
    for i in range(CHECKED_CASES):
        forms.append((["ArrayLike"] * i + [escape], "ArrayLike", "Array"))
    out: list[ast.FunctionDef] = []
    for positional, rest, result in forms:
        overload = as_overload(fn)
        first = overload.args.posonlyargs + overload.args.args
        overload.args.posonlyargs = first if positional else []
        overload.args.args = [] if positional else first
        overload.args.posonlyargs += [ast.arg(f"case{i}", parse_expr(a)) for i, a in enumerate(positional)]
        assert overload.args.vararg is not None
        overload.args.vararg.annotation = parse_expr(rest)
        overload.returns = parse_expr(result)
        out.append(overload)
    setattr(out[-1], REPLACES_DECLARATION, True)
    return out


def _two_scalar_overloads(
    plan: CallPlan, base: ast.FunctionDef, tables: FunctionTables, ret: str
) -> list[ast.FunctionDef]:
    """Two Python scalars (``jnp.maximum(t, 1e-6)``, ``jnp.where(m, 0.0,
    -1e9)``): one overload per kind, taking both of that kind, which the
    narrower kinds reach too (a bool is an int, an int a float); each gives
    the rule's answer if every pair reaching it has that answer, else
    ``Array`` where a later one would take a pair wrongly."""
    x, y = plan.input_param, plan.second
    assert x is not None and y is not None
    kinds = [node for _, node in _SCALARS]
    answers: list[tuple[str, str | None]] = []
    taken: set[tuple[str, str]] = set()
    for j, (py, _) in enumerate(_SCALARS):
        reaching = {(a, b) for a in kinds[: j + 1] for b in kinds[: j + 1]} - taken
        results = {_result(plan.rule, _inputs(plan, a, b), tables.v) for a, b in reaching}
        taken |= reaching
        answers.append((py, results.pop() if len(results) == 1 else None))
    return [_with(base, {x: py, y: py}, ret.format(res_text)) for py, res_text in _kind_results(answers)]


def _kind_results(answers: Sequence[tuple[str, str | None]]) -> list[tuple[str, str]]:
    """(Python scalar type, result type) of the overloads, one per scalar kind
    in the order a checker tries them, of these answers (None: no single
    answer): none for a kind without one, unless a wider kind's overload,
    later, would take its calls wrongly; that one gives ``Array``."""
    out: list[tuple[str, str]] = []
    for i, (py, res) in enumerate(answers):
        if res is not None:
            out.append((py, f"Array[{MARKERS}.{_m(res)}]"))
        elif any(r is not None for _, r in answers[i + 1 :]):
            out.append((py, "Array"))
    return out


def _any_guards(fn: ast.FunctionDef, ret: str, params: list[str]) -> list[ast.FunctionDef]:
    """Overloads that only an argument typed ``Any`` matches, one per
    dtype-deciding parameter, giving JAX's ``Array``: without them pyright
    takes ``jnp.zeros(3, dtype=d)`` with ``d: Any`` (a Flax module's
    ``self.dtype``) for the ``dtype=None`` overload, float32."""
    out: list[ast.FunctionDef] = []
    names = {p.arg for p in all_params(fn)}
    for param in params:
        if param in names:
            guard = _with(fn, {param: f"{MARKERS}.{UNKNOWN_VAR}"}, ret.format("Array"))
            out += required_overloads(guard, param)
    return out


def _preferred_overloads(
    fn: ast.FunctionDef, tables: FunctionTables, ret: str, x: str, y: str, keep: list[str], declared: str
) -> list[ast.FunctionDef]:
    """``preferred_element_type=`` (dot, matmul, einsum): two arrays of one
    dtype that JAX takes with that preferred dtype give it
    (``function_rules.PREFERRED_RESULTS``); JAX refuses others (a narrower one,
    another kind), which keep JAX's signature.  ``declared`` is JAX's
    annotation of ``preferred_element_type``."""
    if "preferred_element_type" not in {p.arg for p in all_params(fn)}:
        return []
    base = _narrowed(fn, [x, y, *keep, "preferred_element_type"])
    if base is None:
        return []
    # Guards first, giving JAX's Array: an array of unknown dtype (it may be one
    # JAX refuses with that dtype), with any preferred dtype; a preferred dtype
    # value of unknown dtype (``x.dtype`` of an ``Array[Any]``), which pyright
    # would otherwise take for the first typed overload's.
    unknown = f"Array[{MARKERS}.{UNKNOWN_VAR}]"
    unknown_dtype = (
        f"{MARKERS}.{UNKNOWN_VAR} | type[{MARKERS}.{UNKNOWN_VAR}] | {MARKERS}.DtypeValue[{MARKERS}.{UNKNOWN_VAR}]"
    )
    out = [
        _with(base, {x: unknown, "preferred_element_type": declared}, ret.format("Array")),
        _with(base, {y: unknown, "preferred_element_type": declared}, ret.format("Array")),
        *required_overloads(
            _with(base, {"preferred_element_type": unknown_dtype}, ret.format("Array")), "preferred_element_type"
        ),
    ]
    for preferred, inputs in function_rules.PREFERRED_RESULTS.items():
        var = tables.same_dtype(inputs)
        marker = f"{MARKERS}.{_m(preferred)}"
        typed = _with(
            base,
            {
                x: f"Array[{MARKERS}.{var}]",
                y: f"Array[{MARKERS}.{var}]",
                "preferred_element_type": f"{DTYPE_ALIAS}[{marker}]",
            },
            ret.format(f"Array[{marker}]"),
        )
        out += required_overloads(typed, "preferred_element_type")
    return out


def _preferred_only(fn: ast.FunctionDef, tables: FunctionTables) -> list[ast.FunctionDef]:
    """A function typed only with ``preferred_element_type=`` (lax.dot_general:
    no rule gives its dtype otherwise): its first two parameters are the arrays."""
    ret = _returns(fn.returns)
    params = positional_params(fn)
    if ret is None or len(params) < 2:
        return []
    return _preferred_overloads(
        fn, tables, ret, params[0].arg, params[1].arg, [], _declared(fn, "preferred_element_type")
    )


def _declared(fn: ast.FunctionDef, name: str) -> str:
    """JAX's annotation of parameter ``name`` of ``fn`` (Any: none, or no such parameter)."""
    annotation = next((p.annotation for p in all_params(fn) if p.arg == name), None)
    return ast.unparse(annotation) if annotation is not None else "Any"


def _without_default(fn: ast.FunctionDef, name: str) -> ast.FunctionDef:
    """``fn`` with the first positional parameter ``name`` required (clip's
    ``x=None``): omitted, it would leave the overload's TypeVar unsolved."""
    args = fn.args
    positional = args.posonlyargs + args.args
    if positional and positional[0].arg == name and len(args.defaults) == len(positional):
        args.defaults = args.defaults[1:]
    return fn


def _varargs_overloads(
    plan: CallPlan, fn: ast.FunctionDef, tables: FunctionTables, ret: str, same: list[tuple[str, str]]
) -> list[ast.FunctionDef]:
    """``einsum(subscripts, *operands)``: one or two operands of one dtype."""
    base = _narrowed(fn, list(plan.keep))
    if base is None or not same or base.args.vararg is None:
        return []
    unknown = f"Array[{MARKERS}.{UNKNOWN_VAR}]"
    forms: list[tuple[list[str], str]] = [
        ([unknown], "Array"),
        ([unknown, "Array"], "Array"),
        (["Array", unknown], "Array"),
    ]
    for var, result in same:
        typed = f"Array[{MARKERS}.{var}]"
        forms += [([typed], f"Array[{MARKERS}.{var}]"), ([typed, typed], f"Array[{MARKERS}.{result}]")]
    out: list[ast.FunctionDef] = []
    for operands, result_type in forms:
        fn2 = _with_operands(base, operands)
        fn2.returns = parse_expr(ret.format(result_type))
        out.append(fn2)
    if not plan.preferred:
        return out
    # (einsum(subscripts, operand0, operand1, preferred_element_type=...))
    two = _with_operands(base, ["ArrayLike", "ArrayLike"])
    declared = _declared(fn, "preferred_element_type")
    return out + _preferred_overloads(two, tables, ret, *call_plans.VARARG_OPERANDS, list(plan.keep), declared)


def _with_operands(base: ast.FunctionDef, annotations: list[str]) -> ast.FunctionDef:
    """An overload of ``base`` whose ``*operands`` are so many positional
    parameters (``operand0``...), annotated so."""
    fn = as_overload(base)
    fn.args.vararg = None
    fn.args.posonlyargs = (
        fn.args.posonlyargs
        + fn.args.args
        + [ast.arg(n, parse_expr(a)) for n, a in zip(call_plans.VARARG_OPERANDS, annotations)]
    )
    fn.args.args = []
    fn.args.defaults = []
    return fn


def _key_overloads(plan: CallPlan, fn: ast.FunctionDef, tables: FunctionTables, ret: str) -> list[ast.FunctionDef]:
    """PRNG keys: a raw key (``PRNGKey``, ``key_data``) is a uint32 array, and
    ``split``/``fold_in``/``clone`` keep it; a typed key (``jax.random.key``)
    has no lattice dtype, so it stays ``Array[Any]``."""
    fixed = plan.rule.fixed
    if fixed is not None:
        if fixed not in lattice.NODES or plan.kind == "k":
            return []  # a typed key; key_data's input is a typed key
        return [_with(fn, {}, ret.format(f"Array[{MARKERS}.{_m(fixed)}]"))]
    if not plan.keep:
        return []
    attr = tables.attribute("_fn_raw_key", {"uint32": "uint32"})
    return [_with(fn, {plan.keep[0]: f"Array[{_protocol(attr)}[{RESULT_VAR}]]"}, ret.format(f"Array[{RESULT_VAR}]"))]


# A typed ufunc (``jnp.maximum: BinaryUfunc`` in JAX's stub) is of a subclass
# of JAX's ufunc protocol whose ``__call__`` has the typed overloads.  A hover
# shows that class (``maximum: MaximumUfunc``), so the markers stub declares it
# under a public-looking name (``FunctionTables.ufunc_lines``; a JAX module
# would export it) and the module imports it under a private one.
UFUNC_PREFIX: Final = "_JaxtypesUfunc_"
# How the markers stub imports a name the class takes from JAX's module.
_UFUNC_NAME_PREFIX: Final = "_jnp_"


def ufunc_class(name: str) -> str:
    """The class of JAX's typed ufunc ``name`` in the markers stub:
    ``logical_and`` -> ``LogicalAndUfunc``."""
    return "".join(word[:1].upper() + word[1:] for word in name.split("_")) + "Ufunc"


def _bindings(body: Sequence[ast.stmt], module: str) -> dict[str, str]:
    """{name: the import that binds it outside the module} of the names the
    statements of JAX's stub module ``module`` (a package) bind, the later
    binding winning: ``from m import a as b`` is ``from m import a``, a name
    it declares itself ``from module import name``."""
    out: dict[str, str] = {}
    for node in body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    out[alias.asname] = f"import {alias.name}"
                else:  # (``import a.b`` binds ``a``)
                    out[alias.name.partition(".")[0]] = f"import {alias.name.partition('.')[0]}"
        elif isinstance(node, ast.ImportFrom):
            parts = module.split(".")
            base = parts[: len(parts) - (node.level - 1)] if node.level else []
            source = ".".join([*base, *([node.module] if node.module else [])])
            for alias in node.names:
                out[alias.asname or alias.name] = f"from {source} import {alias.name}"
        elif isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            out[node.name] = f"from {module} import {node.name}"
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    out[target.id] = f"from {module} import {target.id}"
    return out


class _InMarkers(ast.NodeTransformer):
    """A declaration of JAX's module rewritten for the markers stub: the
    markers' own names bare, the TypeVars by their names there, and each name
    of the module imported under ``_jnp_NAME`` (``imports``).  KeyError for
    a name the module does not bind."""

    def __init__(self, bindings: Mapping[str, str]) -> None:
        self.bindings = bindings
        self.imports: set[str] = set()

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if isinstance(node.value, ast.Name) and node.value.id == MARKERS:
            return ast.copy_location(ast.Name(node.attr, ast.Load()), node)
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in RESULT_TYPEVAR_NAMES:
            return ast.copy_location(ast.Name(RESULT_TYPEVAR_NAMES[node.id], ast.Load()), node)
        if node.id in BUILTINS and node.id not in self.bindings:
            return node
        local = f"{_UFUNC_NAME_PREFIX}{node.id}"
        self.imports.add(f"{self.bindings[node.id]} as {local}")
        return ast.copy_location(ast.Name(local, ast.Load()), node)


def _typed_ufunc(
    node: ast.AnnAssign, call: ast.FunctionDef, module: str, tables: FunctionTables, bindings: Mapping[str, str]
) -> list[ast.stmt]:
    """``maximum: BinaryUfunc``: of the markers stub's ``MaximumUfunc``, a
    subclass of JAX's ufunc protocol whose ``__call__`` has the typed
    overloads, keeping its other members."""
    assert isinstance(node.target, ast.Name)
    name = node.target.id
    typed = _typed(f"{module}.{name}", call, tables)
    if not typed:
        return [node]
    cls = ufunc_class(name)
    (class_def,) = ast.parse(
        f'@type_check_only\nclass {cls}(BinaryUfunc):\n    """``{module}.{name}``: JAX\'s BinaryUfunc, whose'
        ' calls give the dtype JAX gives (typed by jaxtypes)."""'
    ).body
    assert isinstance(class_def, ast.ClassDef)
    class_def.body += [*typed, as_overload(call)]
    in_markers = _InMarkers(bindings)
    try:
        # (re-parsed: the overloads share nodes, which a transformer would visit twice)
        declared = in_markers.visit(ast.parse(ast.unparse(class_def)).body[0])
    except KeyError:
        return [node]  # a name of JAX's declaration the generator cannot import: JAX's own typing
    tables.ufuncs[cls] = (declared, in_markers.imports)
    out = copy.deepcopy(node)
    out.annotation = ast.Name(UFUNC_PREFIX + name, ast.Load())
    return [ast.parse(f"from jaxtypes.markers import {cls} as {UFUNC_PREFIX}{name}").body[0], out]


def _module_header() -> str:
    """The imports ``transform_module`` puts before a module's own statements."""
    return (
        "import builtins\nfrom collections.abc import Sequence as _JaxtypesSequence\n"
        "from typing import Any, Literal, TypeVar, overload, type_check_only\nimport numpy as _np\n"
        f"import jaxtypes.markers as {MARKERS}\nfrom jaxtypes.typing import DType as {DTYPE_ALIAS}\n" + _RESULT_TYPEVARS
    )


def typed_functions(tree: ast.Module, module: str) -> list[str]:
    """The functions of a JAX stub module ``transform_module`` types."""
    tables = FunctionTables()
    return [
        fn.name for fn in tree.body if isinstance(fn, ast.FunctionDef) and _typed(f"{module}.{fn.name}", fn, tables)
    ]


# JAX's classes given a dtype-generic class of jaxtypes' markers instead:
# (module, name) -> the class (``finfo = _dtypes.finfo`` in JAX's stub).
_CLASSES: Final = {("jax.numpy", "finfo"): "Finfo"}


def transform_module(tree: ast.Module, module: str, tables: FunctionTables) -> ast.Module:
    """JAX's stub module with the typed overloads in front of each typed
    function's own declaration."""
    counts: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            counts[node.name] = counts.get(node.name, 0) + 1
    ufunc = next((c for c in tree.body if isinstance(c, ast.ClassDef) and c.name == "BinaryUfunc"), None)
    call = (
        next((f for f in ufunc.body if isinstance(f, ast.FunctionDef) and f.name == "__call__"), None)
        if ufunc is not None
        else None
    )
    body: list[ast.stmt] = []
    done: set[str] = set()
    bindings = _bindings([*ast.parse(_module_header()).body, *tree.body], module)
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and (module, node.targets[0].id) in _CLASSES
        ):
            body.append(ast.parse(f"{node.targets[0].id} = {MARKERS}.{_CLASSES[module, node.targets[0].id]}").body[0])
            continue
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and call is not None
            and ast.unparse(node.annotation) == "BinaryUfunc"
        ):
            body += _typed_ufunc(node, call, module, tables, bindings)
            continue
        if isinstance(node, ast.FunctionDef) and counts[node.name] == 1:
            typed = _typed(f"{module}.{node.name}", node, tables)
            if typed:
                body += typed + [_jax_declaration(node, typed)]
                continue
        elif isinstance(node, ast.FunctionDef) and node.name not in done:
            # JAX's own overloads (where, einsum): ours from the first that
            # gives any, all before JAX's
            done.add(node.name)
            group = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == node.name]
            for fn in group:
                typed = _typed(f"{module}.{fn.name}", fn, tables)
                if typed:
                    body += typed
                    break
        body.append(node)
    header = ast.parse(_module_header()).body
    # after `from __future__ import annotations`, which must stay first
    first = 1 if body and isinstance(body[0], ast.ImportFrom) and body[0].module == "__future__" else 0
    body[first:first] = header
    return ast.Module(body=[_dtype_of(n) for n in body], type_ignores=[])


# Modules JAX ships as code, not stubs, given a stub here: path in the jax
# package -> the qualified name of its functions.  Each re-exports functions
# of private modules (``from jax._src.random.core import normal as normal``).
# One that JAX ships a stub for (``nn/__init__.pyi`` from 0.6.2 on) is
# rewritten from that stub instead (``MODULES``).
RUNTIME_MODULES: Final = {
    "random.py": "jax.random",
    "lax/__init__.py": "jax.lax",
    "numpy/linalg.py": "jax.numpy.linalg",
    "numpy/fft.py": "jax.numpy.fft",
    "nn/__init__.py": "jax.nn",
    "scipy/signal.py": "jax.scipy.signal",
    "scipy/special.py": "jax.scipy.special",
    "image/__init__.py": "jax.image",
}


def _functions_of(
    root: Path, module: str, sources: dict[str, ast.Module]
) -> dict[str, tuple[str, list[ast.FunctionDef]]]:
    """{name: (the module that defines it, its declarations)} of the functions
    JAX's private ``module`` defines or re-exports from one of its own
    submodules (``jax._src.lax.control_flow`` re-exports ``cummax`` from
    ``.loops``); ``sources`` caches the parsed modules."""

    def parsed(name: str) -> ast.Module | None:
        if name not in sources:
            source = module_file(root, name)
            if source is None:
                return None
            sources[name] = ast.parse(source.read_text(encoding="utf-8"))
        return sources[name]

    tree = parsed(module)
    if tree is None:
        return {}
    found = {name: (module, fs) for name, fs in declarations(tree.body).items()}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(module + "."):
            there = parsed(node.module)
            if there is None:
                continue
            defined = declarations(there.body)
            for alias in node.names:
                if alias.name in defined and (alias.asname or alias.name) not in found:
                    found[alias.asname or alias.name] = (node.module, defined[alias.name])
    return found


def render_runtime_module(root: Path, rel: str, module: str, tables: FunctionTables) -> ast.Module | None:
    """A stub for JAX's runtime module ``rel`` (``random.py``): its re-exports,
    each typed function declared with its typed overloads and JAX's own
    signature (read from the function's source); None when nothing in it is
    typed.  ``ModuleShapeError`` when it holds more than re-exports."""
    tree = ast.parse((root / rel).read_text(encoding="utf-8"))
    kept: list[ast.stmt] = []
    defs: list[ast.stmt] = []
    sources: dict[str, ast.Module] = {}
    imported: dict[str, set[str]] = {}
    used_named: dict[str, list[str]] = {}
    needs_transform_prelude = False
    for node in stub_view(tree.body):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if is_private_machinery(node):
            continue
        if isinstance(node, ast.Import) or is_alias(node):
            kept.append(node)
            continue
        if not isinstance(node, ast.ImportFrom):
            raise ModuleShapeError(f"jax/{rel} has a statement other than imports: {ast.unparse(node)[:80]}")
        if node.level or node.module is None or not node.module.startswith("jax."):
            kept += exported_import(node)
            continue
        functions_there = _functions_of(root, node.module, sources)
        remaining: list[ast.alias] = []
        for alias in node.names:
            public = alias.asname or alias.name
            transform = _lax_transform(root, module, node.module, alias.name, public)
            if transform is not None:  # lax.fori_loop, lax.cond
                defs += transform[0]
                imported.setdefault(transform[2], set()).update(transform[1])
                needs_transform_prelude = True
                continue
            found = functions_there.get(alias.name)
            if found is not None and alias.asname in (None, alias.name):
                defined_in, declarations = found
                # typed from its first declaration (the first that returns a
                # NamedTuple of arrays, if one does), then JAX's own, each an overload
                stubs = [stub_def(fn) for fn in declarations]
                if f"{module}.{public}" in UNANNOTATED_ARRAY_RESULTS:
                    for stub in stubs:
                        stub.returns = stub.returns or parse_expr("Array")
                named = named_results(sources[defined_in])
                typed_from = next(
                    (
                        with_literal_defaults(f, declarations)
                        for f in stubs
                        if f.returns and ast.unparse(f.returns) in named
                    ),
                    stubs[0],
                )
                typed = _typed(f"{module}.{public}", typed_from, tables, named)
                result_class = ast.unparse(typed_from.returns) if typed_from.returns else ""
                if typed and result_class in named:
                    used_named[result_class] = tables.named_results[result_class] = named[result_class]
                if typed and len(stubs) == 1 and any(getattr(t, REPLACES_DECLARATION, False) for t in typed):
                    # (narrowed in its place; the mypy plugin's module keeps it)
                    setattr(typed[-1], JAX_DECLARATION, as_overload(stubs[0]))
                    defs += typed
                elif typed:
                    typed = [t for t in typed if not getattr(t, REPLACES_DECLARATION, False)]
                    defs += typed + [_jax_declaration(stub, typed) for stub in stubs]
                if typed:
                    imported.setdefault(defined_in, set()).update(n for f in typed + stubs for n in annotation_names(f))
                    continue
            remaining.append(alias)
        if remaining:
            kept += exported_import(ast.ImportFrom(module=node.module, names=remaining, level=0))
    if not defs:
        return None
    for source_module, used in imported.items():
        # (a module that binds no ``Array``, which the typed overloads name:
        # jax._src.image.scale; the class is jax._src.basearray's)
        if "Array" in used and "Array" not in _bindings(sources[source_module].body, source_module):
            used.discard("Array")
            imported.setdefault("jax._src.basearray", set()).add("Array")
            break
    header = ast.parse(
        "from __future__ import annotations\nimport builtins\n"
        "from collections.abc import Sequence as _JaxtypesSequence\n"
        "from typing import Any, Literal, TypeVar, overload\nimport numpy as _np\n"
        f"import jaxtypes.markers as {MARKERS}\nfrom jaxtypes.typing import DType as {DTYPE_ALIAS}\n"
    ).body
    own = {
        "builtins",
        "_np",
        MARKERS,
        RESULT_VAR,
        OTHER_VAR,
        "Any",
        "Literal",
        "TypeVar",
        "overload",
        "None",
        "_JaxtypesSequence",
        DTYPE_ALIAS,
        *(NAMED_RESULT_PREFIX + name for name in used_named),
    }
    # (JAX's NamedTuples of results, which the module does not export, imported
    # for the stub's own use only: no ``as`` re-exports them)
    names_from = [
        ast.ImportFrom(
            module=m, names=[ast.alias(n, None if n in used_named else n) for n in sorted(ns - own - BUILTINS)], level=0
        )
        for m, ns in sorted(imported.items())
        if ns - own - BUILTINS
    ]
    result_var = ast.parse(_RESULT_TYPEVARS).body + named_result_imports(used_named)
    if needs_transform_prelude:
        result_var += jax_transforms.prelude()
    out = ast.Module(body=header + kept + names_from + result_var + defs, type_ignores=[])
    check_exports(tree, out, f"jax/{rel}")
    return out


def _lax_transform(
    root: Path, module: str, source: str, name: str, public: str
) -> tuple[list[ast.stmt], set[str], str] | None:
    if module != "jax.lax" or name != public:
        return None
    return jax_transforms.lax_transform_defs(root, source, name)


# JAX's scalar types (``jnp.float32``), declared ``Any`` in its stubs: the
# ones named as a marker become the marker itself, so that
# ``jax.Array[jnp.float32]`` is an annotation and ``dtype=jnp.float32`` a
# dtype (the markers' class is a numpy dtype to the checkers, and each marker
# names the dtype JAX canonicalizes it to).  (Not ``jnp.bool``: JAX's stub
# uses that name in its own annotations.)
_SCALAR_TYPES: Final = {_m(n): _m(n) for n in lattice.STRONG}


def _dtype_of(node: ast.stmt) -> ast.stmt:
    if (
        isinstance(node, ast.AnnAssign)
        and isinstance(node.target, ast.Name)
        and node.target.id in _SCALAR_TYPES
        and ast.unparse(node.annotation) == "Any"
    ):
        marker = _SCALAR_TYPES[node.target.id]
        return ast.ImportFrom("jaxtypes.markers", [ast.alias(marker, node.target.id)], 0)
    return node


# The values of jnp.finfo that are of the dtype (function_rules.finfo_node); its
# other attributes (bits, nmant, ...) are Python ints, as numpy declares them.
_FINFO_VALUES: Final = ("min", "max", "eps", "epsneg", "tiny", "resolution", "smallest_normal", "smallest_subnormal")


def transform_markers(text: str, tables: FunctionTables, typevar_lines: Sequence[str] = ()) -> str:
    """jaxtypes' markers stub with the attributes the typed signatures read,
    their protocols, and ``Finfo``; ``typevar_lines``
    declare the TypeVars of the other stubs (the layers', the transforms'),
    which their modules give."""

    tree = ast.parse(text)
    # Only where x64 does not change it: the mypy plugin's x64 setting cannot
    # correct a class's attributes (finfo(float64) is float32's with x64 off).
    other = lattice.variant(tables.v.mode, x64=not tables.v.x64)
    finfo = tables.attribute(
        "_fn_finfo",
        {
            node: res
            for node in lattice.STRONG
            if (res := function_rules.finfo_node(node, tables.v)) is not None
            and res == function_rules.finfo_node(node, other)
        },
    )
    tables.nominal.add(finfo)
    lines = tables.marker_lines()
    bases = tables.marker_bases()
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name in lines:
            node.body += [ast.parse(line).body[0] for line in lines[node.name]]
            node.bases += [parse_expr(base) for base in bases[node.name]]
    extra = [
        "from typing import Generic, Protocol",
        "import numpy as _np",
        # x.dtype (Array's dtype property): a dtype argument as JAX's scalar
        # types are.  A weak marker carries no dtype attribute (the mappings
        # of dtype= are over the strong dtypes), so a weak value's dtype takes
        # JAX's own signature: its dtype is float32 or float64 as x64 decides.
        "from jaxtypes._array import DtypeValue as DtypeValue",
        "",
        "@type_check_only",
        f"class {UNKNOWN}:",
        '    """No marker derives from it: ``Array[_UnknownArgument]`` matches only ``Array[Any]``."""',
        "",
        f'{UNKNOWN_VAR} = TypeVar("{UNKNOWN_VAR}", bound={UNKNOWN})',
        # The typed overloads' results (RESULT_TYPEVAR_NAMES), and a layer's
        # param_dtype= (PARAM_DTYPE_VAR): imported under private names.
        *(f'{name} = TypeVar("{name}")' for name in (*RESULT_TYPEVAR_NAMES.values(), PARAM_DTYPE_VAR)),
        "",
        # (D is invariant here: the method takes and gives it)
        "@type_check_only",
        f"class {SAME_ARRAY}(Protocol[{RESULT_TYPEVAR_NAMES[RESULT_VAR]}]):",
        '    """A jax.Array whose own type is D: two arguments of one D are arrays of one dtype."""',
        f"    def {basearray_stub.SAME_ARRAY}(self, other: {RESULT_TYPEVAR_NAMES[RESULT_VAR]}, /)"
        f" -> {RESULT_TYPEVAR_NAMES[RESULT_VAR]}: ...",
        *typevar_lines,
        "",
        *named_result_lines(tables.named_results),
    ]
    extra += tables.protocol_lines()
    extra += tables.ufunc_lines()
    extra += [
        # not type_check_only: jnp.finfo, a value, is this class (a name of
        # the stubs only: at run time jnp.finfo is ml_dtypes.finfo)
        f"class Finfo(_np.finfo[Any], Generic[{RESULT_TYPEVAR_NAMES[RESULT_VAR]}]):",
        '    """``jnp.finfo`` (ml_dtypes\' finfo): of a dtype of known marker, its'
        " values are that dtype's (as JAX canonicalizes it; float32 for complex64)."
        " At run time they are NumPy scalars, which JAX promotes as it does a"
        ' strongly typed array of their dtype: so they are typed here."""',
        "    @overload",
        f"    def __new__(cls, dtype: type[{protocol_name(finfo)}[{_PROTOCOL_VARS[0]}]]"
        f" | DtypeValue[{protocol_name(finfo)}[{_PROTOCOL_VARS[0]}]]) -> Finfo[{_PROTOCOL_VARS[0]}]: ...",
        "    @overload",
        "    def __new__(cls, dtype: Any) -> Finfo[Any]: ...",
        *(f"    {name}: Array[{RESULT_TYPEVAR_NAMES[RESULT_VAR]}]" for name in _FINFO_VALUES),
    ]
    return ast.unparse(tree) + "\n\n" + "\n".join(extra) + "\n"
