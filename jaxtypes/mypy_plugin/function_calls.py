"""JAX's functions (``jnp.sqrt``, ``jax.nn.softmax``, ``jax.random.normal``...)
under the project's ``[tool.jaxtypes]`` settings.

The stubs of ``jaxtypes jax-stubs`` type each function that has a dtype rule
(``jaxtypes.function_rules``) for JAX's default configuration.  The plugin asks the
same rule for the configured one (x64, strict): it reads the call's array
arguments (markers of ``Array[...]``, Python scalars as weakly typed values,
numpy scalars as strong ones) and its ``dtype=``, and replaces the dtype of
the result the stubs gave, reading the call by the function's plan
(``jaxtypes.call_plans``, from JAX's declaration in the stubs: the plan the
generator typed the function by).  It also answers calls the stubs cannot (arrays of
two different dtypes, 64-bit arrays).  A call it cannot read exactly (an
argument of unknown dtype, another array or a ``preferred_element_type=`` the
rule does not cover) gets ``Array[Any]``; a call JAX rejects is an error
(``jax-promotion``, ``jax-unsupported``), as the operators are.
"""

from __future__ import annotations

from typing import Callable, Union

from mypy.nodes import (
    ARG_NAMED_OPT,
    ARG_OPT,
    ARG_POS,
    ARG_STAR,
    ARG_STAR2,
    ArgKind,
    Decorator,
    Expression,
    FuncDef,
    ListExpr,
    OverloadedFuncDef,
    SymbolNode,
    TupleExpr,
    Var,
)
from mypy.plugin import FunctionContext, MethodContext
from mypy.typeops import make_simplified_union
from mypy.types import (
    AnyType,
    CallableType,
    Instance,
    LiteralType,
    NoneType,
    Overloaded,
    ProperType,
    TupleType,
    Type,
    TypeOfAny,
    UnionType,
    get_proper_type,
)

from jaxtypes import call_plans, function_rules, lattice
from jaxtypes.call_plans import CallPlan
from jaxtypes.lattice import Variant
from jaxtypes.operation_rules import DEFAULT, numpy_operand

from . import argument_values, errors, names
from .type_nodes import Builder, DTypeLike, array_info, dtype_like, is_numpy

__all__ = ["typed_functions", "function_hook"]

Context = Union[FunctionContext, MethodContext]
# (jaxtypes.call_plans decides, for the generator and here alike, which
# parameters are operands, dtype=, neutral or pinned.)


class _Unknown(Exception):
    pass


# Functions the stubs leave as JAX re-exports them (no typed overloads: the
# plugin alone reads their calls), by the name mypy gives their calls: where
# JAX defines them.  (lax.select_n(which, *cases): any number of cases.)
DEFINED_AT: dict[str, str] = {"jax._src.lax.lax.select_n": "jax.lax.select_n"}


def typed_functions() -> dict[str, str]:
    """{fully qualified name mypy gives a call: the rule's name} for every
    function with a rule, and the ufunc objects' ``__call__``
    (``jnp.maximum`` is a ``BinaryUfunc`` in JAX's stubs)."""
    out: dict[str, str] = {
        defined: name
        for defined, name in DEFINED_AT.items()
        if function_rules.TABLE[name].family not in call_plans.UNTYPED_FAMILIES
    }
    for name in function_rules.TABLE:
        if not call_plans.answered_by_plugin(name):
            continue
        out[name] = name
        ufunc = names.ufunc_call(name)
        if ufunc is not None:
            out[ufunc] = name
    return out


def _array_template(t: Type) -> Instance | None:
    """The Array instance in a result type (``Array[X]``, ``list[Array[X]]``...)."""
    p = get_proper_type(t)
    if isinstance(p, Instance):
        if array_info(p) is not None:
            return p
        for arg in p.args:
            found = _array_template(arg)
            if found is not None:
                return found
    if isinstance(p, TupleType):
        for item in p.items:
            found = _array_template(item)
            if found is not None:
                return found
    return None


def _replace(t: Type, new: Type) -> Type:
    """``t`` with every Array in it replaced by ``new`` (a list or a
    tuple of arrays of one dtype keeps its shape)."""
    p = get_proper_type(t)
    if isinstance(p, Instance):
        if array_info(p) is not None:
            return new
        # (mypy types copy_modified's parameters with its FlexibleAlias, Unknown to pyright)
        return p.copy_modified(args=[_replace(a, new) for a in p.args])  # pyright: ignore[reportUnknownMemberType]
    if isinstance(p, TupleType):
        return _tuple_of(p, [_replace(i, new) for i in p.items])
    return t


def _tuple_of(t: TupleType, items: list[Type]) -> TupleType:
    """``t`` with these items; a generic NamedTuple of results (the stubs'
    EighResult[...]) gets them as its type arguments too, which attribute
    access (``r.eigenvalues``) reads."""
    fallback = t.partial_fallback
    if fallback.type.is_named_tuple and len(fallback.args) == len(items):
        fallback = fallback.copy_modified(args=items)  # pyright: ignore[reportUnknownMemberType]
    return t.copy_modified(items=items, fallback=fallback)


def _node(types: list[Type], builder: Builder, x64: bool, scalars: bool = True) -> str:
    """The marker node of one array argument (weak for Python scalars, when
    ``scalars``: to jax.random's functions a Python scalar means something
    else, ``permutation(key, 20)`` being ``arange(20)``).  A NumPy array or
    scalar is the strong array JAX makes of it, canonicalized (with x64 off a
    float64 one is float32: jaxtypes.operation_rules.numpy_operand)."""
    if len(types) != 1:
        raise _Unknown
    found = dtype_like(types[0], builder)
    if not found or len(found) != 1:
        raise _Unknown
    d = found[0]
    if d.node is None or d.kind not in ("array", "value") or (d.kind == "value" and not scalars):
        raise _Unknown
    if d.node in lattice.STRONG and is_numpy(types[0]):
        return numpy_operand(d.node, lattice.variant("standard", x64))
    return d.node


def _sequence_nodes(types: list[Type], builder: Builder, x64: bool) -> list[str]:
    """The dtypes of a list or tuple of arrays (``concatenate([x, y])``),
    as the two inputs the rule takes (one dtype twice, or two)."""
    if len(types) != 1:
        raise _Unknown
    p = get_proper_type(types[0])
    items: list[Type]
    if isinstance(p, TupleType):
        items = list(p.items)
    elif isinstance(p, Instance) and p.args:
        item = get_proper_type(p.args[0])  # list[Array[a] | Array[b]]: each
        items = list(item.items) if isinstance(item, UnionType) else [item]
    else:
        raise _Unknown
    nodes = list(dict.fromkeys(_node([i], builder, x64) for i in items))
    if len(nodes) == 1:
        return nodes * 2
    if len(nodes) == 2:
        return nodes
    raise _Unknown


def _dtype(types: list[Type], builder: Builder, v: Variant, kinds: list[ArgKind] | None = None) -> str | None:
    """A ``dtype=`` argument's node (None: not given, or None); ``kinds``,
    the arguments' kinds, tell a ``**{"dtype": ...}`` mapping's value."""
    if not types:
        return None
    if len(types) != 1:
        raise _Unknown
    t = types[0]
    if kinds and kinds[0] == ARG_STAR2:
        mapping = get_proper_type(t)
        if not isinstance(mapping, Instance) or len(mapping.args) != 2:
            raise _Unknown
        t = mapping.args[1]
    found: list[DTypeLike] | None = dtype_like(t, builder)
    if not found or len(found) != 1:
        raise _Unknown
    d = found[0]
    if d.kind == "none":
        return None
    if d.node is None or d.kind not in ("type", "dtype"):
        raise _Unknown
    return lattice.default_dtype(d.node[0], v.x64) if d.weak else d.node


def _takes_scalars(plan: CallPlan, formal: str | None) -> bool:
    """Whether JAX declares the operand ``formal`` to take a Python scalar; a
    scalar where it declares an Array (lax.dynamic_update_slice's operand)
    is an argument error mypy reports, and the call's dtype unknown."""
    return not plan.arrays_only and formal not in plan.array_params


def _inputs(plan: CallPlan, ctx: Context, builder: Builder, x64: bool) -> tuple[list[str], set[int]]:
    """The rule's input nodes and the formals they came from."""
    formals = ctx.callee_arg_names
    kind = plan.kind
    if kind in call_plans.ONE_INPUT_KINDS:
        i = plan.input_position
        return [_node(ctx.arg_types[i], builder, x64, plan.scalar_inputs and _takes_scalars(plan, formals[i]))], {
            i,
            *range(i),
        }
    if kind == "cxy" and len(ctx.arg_types) == 2:  # select_n(which, *cases): each case's dtype
        cases = list(dict.fromkeys(_node([t], builder, x64) for t in ctx.arg_types[1]))
        if not cases:
            raise _Unknown
        return ["bool", *(cases * 2 if len(cases) == 1 else cases)], {0, 1}
    if kind == "cxy":
        return ["bool", _node(ctx.arg_types[1], builder, x64), _node(ctx.arg_types[2], builder, x64)], {0, 1, 2}
    if kind == "xy" and plan.varargs:
        star = [i for i, f in enumerate(formals) if f == plan.input_param]
        if star and len(ctx.arg_types[star[0]]) == 2:  # einsum(subscripts, *operands): JAX's own signature
            return [_node([t], builder, x64) for t in ctx.arg_types[star[0]]], {0, star[0]}
        # einsum(subscripts, a, b): the typed forms of the stubs
        operands = [i for i, f in enumerate(formals) if f in call_plans.VARARG_OPERANDS]
        if len(operands) != 2:
            raise _Unknown
        return [_node(ctx.arg_types[i], builder, x64) for i in operands], {0, *operands}
    if kind == "xy" and plan.second is not None:
        if len(ctx.arg_types) < 2 or not ctx.arg_types[0] or not ctx.arg_types[1]:
            raise _Unknown
        return [
            _node(ctx.arg_types[0], builder, x64, _takes_scalars(plan, formals[0])),
            _node(ctx.arg_types[1], builder, x64, _takes_scalars(plan, formals[1])),
        ], {0, 1}
    if kind == "xy" and plan.sequence:
        first = ctx.arg_types[0] if ctx.arg_types else []
        # concatenate([x, y]): the list's elements, as written when it is a
        # literal (mypy joins Array[bfloat16] and Array[float32] to an
        # Array of neither)
        literal = ctx.args[0][0] if ctx.args and len(ctx.args[0]) == 1 else None
        if isinstance(literal, (ListExpr, TupleExpr)) and literal.items:
            nodes = list(
                dict.fromkeys(_node([argument_values.expression_type(ctx.api, e)], builder, x64) for e in literal.items)
            )
            if len(nodes) > 2:
                raise _Unknown
            return (nodes * 2)[:2] if len(nodes) == 1 else nodes, {0}
        return _sequence_nodes(first, builder, x64), {0}
    if kind == "kd":
        return [function_rules.KEY], {0}
    if kind == "k":
        return [_node(ctx.arg_types[0], builder, x64)], {0}
    return [], set()  # (d, n: dtype= or counts alone)


def _preferred(plan: CallPlan, ctx: Context, inputs: list[str], builder: Builder, v: Variant) -> str | None:
    """The result a ``preferred_element_type=`` gives (dot, einsum: the
    generator's typed overloads say the same): two arrays of one dtype that
    JAX takes with that preferred dtype (``function_rules.PREFERRED_RESULTS``)
    give it; None where the call passes none.  Any other pairing is unknown
    (JAX refuses some; the rule does not say)."""
    name = "preferred_element_type"
    if not plan.preferred or name not in ctx.callee_arg_names:
        return None
    types = ctx.arg_types[ctx.callee_arg_names.index(name)]
    if not types:
        return None
    preferred = _dtype(types, builder, v)
    if preferred is None:
        return None  # (None: JAX's default, the rule's answer)
    if (
        len(inputs) != 2
        or inputs[0] != inputs[1]
        or inputs[0] not in function_rules.PREFERRED_RESULTS.get(preferred, ())
    ):
        raise _Unknown
    return preferred


def _covered(plan: CallPlan, ctx: Context, used: set[int], builder: Builder, preferred: bool = False) -> bool:
    """Whether every argument the call passes is one the rule accounts for
    (``preferred``: its ``preferred_element_type=`` too)."""
    if plan.inputs_alone:
        return True
    scalars: set[str] = {lattice.WEAK_INT, lattice.BOOL} if plan.input_scalar else set()
    if plan.dtype_scalar == "builtins.float":
        scalars |= {lattice.WEAK_INT, lattice.WEAK_FLOAT, lattice.BOOL}
    elif plan.dtype_scalar:
        scalars |= {lattice.WEAK_INT, lattice.BOOL}
    for i, types in enumerate(ctx.arg_types):
        formal = ctx.callee_arg_names[i] if i < len(ctx.callee_arg_names) else None
        if not types or i in used or formal in (plan.dtype_param, "dtype") or formal in plan.neutral:
            continue
        if formal == "preferred_element_type" and preferred:
            continue
        if formal in call_plans.PINNED:
            return False
        for t in types:
            found = dtype_like(t, builder)
            if found is None:
                if _of_unknown_dtype(t):
                    return False  # (clip(x, lo) with lo an Array[Any]: it may promote)
                continue  # shapes, axes, names: not arrays
            for d in found:
                if d.kind == "array" or (d.kind == "value" and d.node not in scalars):
                    return False
    return True


def _union_items(t: Type) -> list[ProperType]:
    """The members of a union, nested ones (ArrayLike's) flattened."""
    p = get_proper_type(t)
    if not isinstance(p, UnionType):
        return [p]
    return [i for item in p.items for i in _union_items(item)]


def _of_unknown_dtype(t: Type) -> bool:
    """Whether ``t`` is Any or an array of unknown dtype (not a shape, a name...)."""
    p = get_proper_type(t)
    return isinstance(p, AnyType) or isinstance(p, Instance) and array_info(p) is not None


def _declared_kind(t: Type, name: str | None) -> str:
    """How JAX declares a parameter of this type, in ``call_plans``' terms."""
    items = _union_items(t)
    if all(isinstance(i, AnyType) for i in items):
        # (Any mypy could not resolve, as JAX's ``inplace: bool`` where
        # jax.numpy's ``bool`` is its dtype: the annotation names a type)
        unresolved = (TypeOfAny.from_error, TypeOfAny.from_unimported_type)
        return (
            call_plans.OTHER
            if any(i.type_of_any in unresolved for i in items if isinstance(i, AnyType))
            else call_plans.ANY
        )
    instances = [i for i in items if isinstance(i, Instance)]
    fullnames = {i.type.fullname for i in instances}
    arrays = [i for i in instances if array_info(i) is not None]
    others = [i for i in items if not (isinstance(i, Instance) and array_info(i) is not None)]
    if arrays and all(isinstance(i, Instance) and i.type.fullname == names.NUMPY_NDARRAY for i in others):
        return call_plans.ARRAY
    # (a sequence of array-likes anywhere in it, as the generator reads
    # ``Sequence[ArrayLike]`` in the annotation's text)
    for i in instances:
        if i.type.fullname in names.SEQUENCES and i.args:
            if _declared_kind(i.args[0], None) in (call_plans.ARRAY_LIKE, call_plans.SEQUENCE):
                return call_plans.SEQUENCE
    if arrays and "builtins.float" in fullnames:
        return call_plans.ARRAY_LIKE
    if name == "dtype" or {"builtins.str", names.NUMPY_DTYPE} <= fullnames:
        return call_plans.DTYPE_LIKE
    if any("DeprecatedArg" in n for n in fullnames):
        return call_plans.DEPRECATED
    return call_plans.INT if fullnames == {"builtins.int"} and len(items) == 1 else call_plans.OTHER


def _declarations(name: str, builder: Builder) -> list[CallableType]:
    """The declarations of function ``name`` in the stubs, JAX's own last (a
    ufunc's ``__call__``, without ``self``)."""
    sym = builder.symbol(name)
    node: SymbolNode | None = sym.node if sym is not None else None
    drop_self = False
    if isinstance(node, Var):  # jnp.maximum: a ufunc object
        t = get_proper_type(node.type) if node.type is not None else None
        call = t.type.get("__call__") if isinstance(t, Instance) else None
        node, drop_self = (call.node if call is not None else None), True
    if isinstance(node, Decorator):
        node = node.func
    if not isinstance(node, (FuncDef, OverloadedFuncDef)) or node.type is None:
        return []
    t = get_proper_type(node.type)
    items = t.items if isinstance(t, Overloaded) else [t] if isinstance(t, CallableType) else []
    return [_without_self(c) if drop_self and c.arg_types else c for c in items]


def _without_self(declaration: CallableType) -> CallableType:
    return declaration.copy_modified(  # pyright: ignore[reportUnknownMemberType]
        arg_types=declaration.arg_types[1:], arg_kinds=declaration.arg_kinds[1:], arg_names=declaration.arg_names[1:]
    )


def _plan_of(name: str, declaration: CallableType) -> CallPlan | None:
    params: list[call_plans.Parameter] = []
    vararg: call_plans.Parameter | None = None
    for i, (n, kind, t) in enumerate(zip(declaration.arg_names, declaration.arg_kinds, declaration.arg_types)):
        if kind == ARG_STAR:
            vararg = call_plans.Parameter(n or "args", _declared_kind(t, n))
        elif kind != ARG_STAR2:
            # (positional-only: unnamed in mypy's types, named by position)
            params.append(
                call_plans.Parameter(
                    n if n is not None else call_plans.unnamed(i),
                    _declared_kind(t, n),
                    kind in (ARG_POS, ARG_OPT),
                    kind in (ARG_OPT, ARG_NAMED_OPT),
                    any(isinstance(item, NoneType) for item in _union_items(t)),
                    n is None,
                )
            )
    return call_plans.call_plan(name, params, vararg)


def _call_plan(name: str, builder: Builder) -> CallPlan | None:
    """``call_plans.call_plan`` of ``name``, from JAX's declaration in the
    stubs: the last one the stubs type from (JAX's own come after the typed
    overloads), else the last."""
    plans = [_plan_of(name, d) for d in _declarations(name, builder)]
    typed = [p for p in plans if p is not None and p.overloads]
    return typed[-1] if typed else plans[-1] if plans else None


def _pytree_template(ctx: Context, kind: str, builder: Builder) -> Instance | None:
    """``jax.Array[Any]`` for a one-array function JAX declares ``(operand:
    Any, ...) -> Any`` over pytrees (lax.reduce_window), when the call gives
    that ``Any`` and passes an array: a result whose dtype the rule gives."""
    if kind not in ("x", "xd") or not isinstance(get_proper_type(ctx.default_return_type), AnyType):
        return None
    first = ctx.arg_types[0] if ctx.arg_types else []
    operand = get_proper_type(first[0]) if len(first) == 1 else None
    if not isinstance(operand, Instance) or array_info(operand) is None:
        return None
    info = builder.named(names.JAX_ARRAY)
    return Instance(info, [AnyType(TypeOfAny.special_form)] if info.type_vars else []) if info else None


def _array_template_dtype_unknown(t: Type) -> bool:
    p = get_proper_type(t)
    return not isinstance(p, Instance) or not _array_template_dtype_known(p)


def _python_scalars(ctx: Context, operands: set[int], builder: Builder) -> bool:
    """Whether the operands at these argument positions are all Python scalars."""
    for i in operands:
        types = ctx.arg_types[i] if i < len(ctx.arg_types) else []
        found = [d for t in types for d in (dtype_like(t, builder) or [])]
        if not found or any(d.kind != "value" for d in found):
            return False
    return len(operands) >= 2


def function_hook(name: str, v: Variant, builder: Builder) -> Callable[[Context], Type]:
    rule = function_rules.TABLE[name]
    kind = function_rules.ARGUMENTS[name]
    plans = builder.memo()  # (JAX's declaration, looked up once a build)

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: Context) -> Type:
        branches = argument_values.conditional_dtype(ctx)
        if branches is not None:
            joined = _each_branch(ctx, branches, hook, builder)
            if joined is not None:
                return joined
        template = _array_template(ctx.default_return_type)
        if template is None:
            pytree = _pytree_template(ctx, kind, builder)
            if pytree is None:
                return ctx.default_return_type
            # (lax.reduce_window, declared over pytrees: one array in, one out)
            got = hook(ctx._replace(default_return_type=pytree))
            return ctx.default_return_type if _array_template_dtype_unknown(got) else got
        known = _array_template_dtype_known(template)
        if v == DEFAULT and known and not _weak_int(template) and not _passes_dtype(ctx):
            return ctx.default_return_type  # the stubs' answer is this configuration's
        # (a weak int: its Python int operands are checked against int32; a
        # dtype=: mypy may have solved the stubs' dtype variable from the
        # declared type the call is assigned to, not from the argument)
        if name not in plans:
            plans[name] = _call_plan(name, builder)
        plan: CallPlan | None = plans[name]
        picked = rule
        try:
            if plan is None:
                raise _Unknown
            if plan.choice is not None:  # (jax.image.resize's method: the value picks the rule)
                chosen = plan.rule_for(_choice_values(ctx, plan.choice))
                if chosen is None:
                    raise _Unknown
                picked = chosen
            dtype_index = (
                ctx.callee_arg_names.index("dtype") if "dtype" in ctx.callee_arg_names else plan.dtype_position
            )
            dtype = (
                _dtype(ctx.arg_types[dtype_index], builder, v, ctx.arg_kinds[dtype_index])
                if dtype_index is not None
                else None
            )
            try:
                inputs, used = _inputs(plan, ctx, builder, v.x64)
            except _Unknown:
                inputs, used = _like_inputs(plan, ctx, dtype, v.x64)
            preferred = _preferred(plan, ctx, inputs, builder, v)
            if not _covered(plan, ctx, used, builder, preferred is not None):
                raise _Unknown
            if preferred is not None:
                return _replace(ctx.default_return_type, builder.array_of(template, [preferred]))
            operands = used - {0} if kind == "cxy" else used
            if kind in ("xy", "cxy") and not plan.two_scalars and _python_scalars(ctx, operands, builder):
                raise _Unknown  # (jnp.power(2, 3) is weakly typed: JAX computes it from the values)
            if plan.float_bounds and not any(t for i, t in enumerate(ctx.arg_types) if i not in used):
                raise _Unknown  # (no bound: not what the rule was measured with)
        except _Unknown:
            if v == DEFAULT and known:  # (the stubs' answer stands where the call is not read)
                return ctx.default_return_type
            # (a dtype= gives other results: kind "xd", jnp.astype)
            one = _one_result(picked, v) if kind == "x" and not _passes_dtype(ctx) else None
            if one is not None:  # (jnp.argmax of an array of unknown dtype: the default integer)
                return _replace(ctx.default_return_type, builder.array_of(template, [one]))
            return _replace(ctx.default_return_type, builder.any_array(template))
        if dtype is not None and not lattice.is_weak(dtype):
            dtype = lattice.canonicalize(dtype, v.x64)
        out = function_rules.apply(picked, tuple(inputs), v, dtype)
        if out.node == lattice.WEAK_INT and _int_overflow(ctx, name, used, v.x64):
            return _replace(ctx.default_return_type, builder.any_array(template))
        if out.node is None:
            if out.error is not None:
                code = errors.JAX_PROMOTION if out.error == "promotion" else errors.JAX_UNSUPPORTED
                errors.report(ctx.api, f"{name.rpartition('.')[2]}: {out.message}", ctx.context, code=code)
            return _replace(ctx.default_return_type, builder.any_array(template))
        if out.node not in lattice.NODES:  # a PRNG key: no lattice dtype
            return _replace(ctx.default_return_type, builder.any_array(template))
        if name in function_rules.SEVERAL_RESULT_DTYPES:  # (the rule gives the first result only)
            return _replace(ctx.default_return_type, builder.any_array(template))
        others = function_rules.other_results(picked, tuple(inputs), v)
        if others:
            return _with_others(
                ctx.default_return_type,
                builder.array_of(template, [out.node]),
                [builder.array_of(template, [o]) for o in others],
            )
        return _replace(ctx.default_return_type, builder.array_of(template, [out.node]))

    return hook


_ONE_RESULTS: dict[tuple[function_rules.Rule, Variant], str | None] = {}


def _one_result(rule: function_rules.Rule, v: Variant) -> str | None:
    """The one dtype a function of one array gives for every dtype it takes
    in this configuration (jnp.argmax, jnp.all, jnp.isfinite), else None."""
    if (rule, v) not in _ONE_RESULTS:
        results = {function_rules.apply(rule, (n,), v, None).node for n in lattice.NODES}
        results.discard(None)
        _ONE_RESULTS[rule, v] = results.pop() if len(results) == 1 else None
    return _ONE_RESULTS[rule, v]


def _choice_values(ctx: Context, param: str) -> list[str]:
    """The values a call passes for a choice parameter, as the function table
    spells them (``"linear"``: ``linear``; ``ResizeMethod.NEAREST``): each
    literal string or enum member of its type (a union's members each); none
    where any is not one (a ``str`` variable), or the call does not pass it."""
    if param not in ctx.callee_arg_names:
        return []
    types = ctx.arg_types[ctx.callee_arg_names.index(param)]
    if len(types) != 1:
        return []
    out: list[str] = []
    for item in _union_items(types[0]):
        literal = item.last_known_value if isinstance(item, Instance) else item
        if not isinstance(literal, LiteralType):
            return []
        if literal.fallback.type.is_enum:
            out.append(f"{literal.fallback.type.name}.{literal.value}")
        elif isinstance(literal.value, str):
            out.append(literal.value)
        else:
            return []
    return out


def _each_branch(
    ctx: Context, branches: tuple[int, list[Type]], hook: Callable[[Context], Type], builder: Builder
) -> Type | None:
    """``dtype=a if c else b``: the union of the call's result with each
    (``argument_values``), or None where either is no array of a known dtype."""
    template = _array_template(ctx.default_return_type)
    if template is None or get_proper_type(ctx.default_return_type) is not template:
        return None
    i, types = branches
    results: list[Type] = []
    for t in types:
        arg_types = [list(a) for a in ctx.arg_types]
        arg_types[i] = [t]
        got = get_proper_type(
            hook(
                ctx._replace(
                    arg_types=arg_types,
                    args=[[] if j == i else a for j, a in enumerate(ctx.args)],
                    default_return_type=builder.any_array(template),
                )
            )
        )
        if not isinstance(got, Instance) or array_info(got) is None or not _array_template_dtype_known(got):
            return None
        results.append(got)
    return make_simplified_union(results)


def _passes_dtype(ctx: Context) -> bool:
    names_ = ctx.callee_arg_names
    return "dtype" in names_ and bool(ctx.arg_types[names_.index("dtype")])


# A Python scalar's kind, and the strongly typed default dtype JAX gives a
# list of them (jnp.array([1.0]) is float32, float64 with x64: never weak).
_SCALAR_KINDS: dict[str, str] = {
    "builtins.bool": "b",
    "builtins.int": "i",
    "builtins.float": "f",
    "builtins.complex": "c",
}


def _scalar_kinds(t: Type, depth: int = 0) -> set[str] | None:
    """The kinds of the Python scalars a (nested) list or tuple holds, or None."""
    p = get_proper_type(t)
    if depth > 4:
        return None
    if isinstance(p, Instance) and p.type.fullname in _SCALAR_KINDS and depth:
        return {_SCALAR_KINDS[p.type.fullname]}
    if isinstance(p, Instance) and p.type.fullname in ("builtins.list", "builtins.tuple") and len(p.args) == 1:
        return _scalar_kinds(p.args[0], depth + 1)
    if isinstance(p, TupleType) and p.items:
        found: set[str] = set()
        for item in p.items:
            kinds = _scalar_kinds(item, depth + 1)
            if kinds is None:
                return None
            found |= kinds
        return found
    if isinstance(p, UnionType):
        found = set()
        for item in p.items:
            kinds = _scalar_kinds(item, depth)
            if kinds is None:
                return None
            found |= kinds
        return found
    return None


def _literal_kinds(expr: Expression, ctx: Context, depth: int = 0) -> set[str] | None:
    """The kinds of the Python scalars of a (nested) list or tuple display."""
    if not isinstance(expr, (ListExpr, TupleExpr)) or not expr.items or depth > 4:
        return None
    found: set[str] = set()
    for item in expr.items:
        kinds = _literal_kinds(item, ctx, depth + 1)
        if kinds is None:
            p = get_proper_type(argument_values.expression_type(ctx.api, item))
            if isinstance(p, LiteralType):
                p = p.fallback
            if not isinstance(p, Instance) or p.type.fullname not in _SCALAR_KINDS:
                return None
            kinds = {_SCALAR_KINDS[p.type.fullname]}
        found |= kinds
    return found


def _like_inputs(plan: CallPlan, ctx: Context, dtype: str | None, x64: bool) -> tuple[list[str], set[int]]:
    """The input of ``jnp.array``/``jnp.asarray`` (family ``like``) where it is
    no array: a list or tuple of Python scalars is the default dtype of their
    highest kind, strongly typed; anything else, when ``dtype=`` decides, is
    read as that dtype (the family's answer then ignores the input)."""
    if plan.rule.family != "like" or plan.kind not in call_plans.ONE_INPUT_KINDS:
        raise _Unknown
    i = plan.input_position
    types = ctx.arg_types[i] if i < len(ctx.arg_types) else []
    exprs = ctx.args[i] if i < len(ctx.args) else []
    # (a literal's elements as written: in the context of JAX's ``Any``
    # parameter mypy types ``[1.0]`` as ``list[Any]``)
    kinds = _literal_kinds(exprs[0], ctx) if len(exprs) == 1 else None
    if kinds is None and len(types) == 1:
        kinds = _scalar_kinds(types[0])
    if kinds:
        top = max(kinds, key="bifc".index)
        return [lattice.BOOL if top == "b" else lattice.default_dtype(top, x64)], {i, *range(i)}
    if dtype is None:
        raise _Unknown
    return [dtype], {i, *range(i)}


def _weak_int(template: Instance) -> bool:
    arg = get_proper_type(template.args[0]) if template.args else None
    return isinstance(arg, Instance) and arg.type.name == "weak_int"


def _int_overflow(ctx: Context, name: str, used: set[int], x64: bool) -> bool:
    """Report a Python int operand that does not fit the int JAX makes of it
    (``argument_values``); whether one was reported."""
    dtype, low, high = argument_values.int_range(x64)
    module = getattr(getattr(ctx.api, "tree", None), "fullname", "")  # (mypy's TypeChecker: the module checked)
    for value, expr in argument_values.int_values(ctx, used, module):
        if not low <= value <= high:
            fix = "" if x64 else " (with x64 on, jax.config.update('jax_enable_x64', True), it is int64)"
            errors.report(
                ctx.api,
                f"{name.rpartition('.')[2]}: the Python int {value} does not fit {dtype}, the weakly typed int "
                f"JAX makes of it: JAX raises OverflowError{fix}",
                expr,
                code=errors.JAX_UNSUPPORTED,
            )
            return True
    return False


def _with_others(t: Type, first: Type, others: list[Type]) -> Type:
    """A tuple of results of different dtypes (``top_k``'s values and int32
    indices, eigh's NamedTuple): ``first``, then ``others``
    (``function_rules.Rule.others``)."""
    p = get_proper_type(t)
    if not isinstance(p, TupleType) or len(p.items) != 1 + len(others):
        return t
    return _tuple_of(p, [first, *others])


def _array_template_dtype_known(template: Instance) -> bool:
    arg = get_proper_type(template.args[0]) if template.args else None
    return isinstance(arg, Instance)
