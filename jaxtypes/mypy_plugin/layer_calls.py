"""Equinox's and Flax's layer calls under the project's ``[tool.jaxtypes]`` settings.

A layer of ``equinox.nn`` made without ``dtype`` has parameters in JAX's
default float, which x64 decides; the stubs of ``jaxtypes jax-stubs`` give
it for x64 off (the layer's second type argument is the stubs'
``jaxtypes.markers.DefaultFloat``), and give no error for an input the layer
refuses.  The plugin asks ``jaxtypes.layer_rules`` for the call's output in the
configured x64 and promotion, from the input's dtype and the layer's.  A
call it cannot read exactly (an input of unknown dtype, a layer whose dtype
is not known) gets ``Array[Any]``; an input the layer refuses is an error
(``jax-promotion``, ``jax-unsupported``), as for JAX's functions.

Flax's layers (``flax.linen``, ``flax.nnx``) carry their computation
``dtype`` and their ``param_dtype`` as type arguments in the stubs, which
answer for JAX's default promotion; under ``promotion = "strict"`` a layer
that mixes its input's dtype with its parameters' raises in JAX (Flax
promotes them with JAX's rules), which the plugin reports the same way (a
normalization, which computes its statistics in float32, refuses there any
other dtype beside float32).

Flax's pooling functions (``avg_pool``, ``max_pool``, ``min_pool``) get the
same in a function hook: ``avg_pool`` divides by the window's size, so its
answer for an integer input follows x64 and strict promotion refuses it
beside any other dtype than that integer's.

Equinox's modules declare their layers as fields (``linear: eqx.nn.Linear``),
which leaves the layer's dtype unknown to every checker.  When such a field
is read, the plugin looks at the module's ``__init__``: if every assignment
to the field there makes the layer (``self.linear = eqx.nn.Linear(...,
dtype=jnp.bfloat16)``), the field has that layer's type (``dtype`` left out or
None: JAX's default float; a literal dtype: its own; anything else, or a
``dtype`` passed by position: unknown, as before).  mypy keeps no function
bodies of a module it read from its cache, so a field read in another module
than its class's is known only when mypy checks both.
"""

from __future__ import annotations

from typing import Callable, Final

from mypy.nodes import (
    AssignmentStmt,
    Block,
    CallExpr,
    Decorator,
    ForStmt,
    FuncDef,
    IfStmt,
    MemberExpr,
    NameExpr,
    OverloadedFuncDef,
    RefExpr,
    Statement,
    TryStmt,
    TypeInfo,
    Var,
    WhileStmt,
    WithStmt,
)
from mypy.plugin import AttributeContext, FunctionContext, MethodContext
from mypy.types import AnyType, CallableType, Instance, Type, TypeOfAny, TypeType, get_proper_type

from jaxtypes import lattice, layer_rules
from jaxtypes.lattice import Variant

from . import errors, names
from .methods import bool_value
from .type_nodes import Builder, array_info, dtype_like

__all__ = [
    "typed_layer_calls",
    "layer_call_hook",
    "typed_layer_functions",
    "layer_function_hook",
    "is_module_field",
    "field_hook",
]

_DEFAULT: Final = "default"  # _param_of_call: the layer's parameters are in JAX's default float


def typed_layer_calls() -> dict[str, str]:
    """{fully qualified name mypy gives a layer's call: its rule's name}: the
    call of each layer class with a rule, and Flax's ``Embed.attend``
    (Flax's functions keep the stubs' answers)."""
    calls: dict[str, str] = {}
    for name in layer_rules.RULES:
        owner, _, last = name.rpartition(".")
        if name.startswith(names.EQUINOX_NN) or (name.startswith(names.FLAX_LAYERS) and last[:1].isupper()):
            calls[f"{name}.__call__"] = name
        elif name.startswith(names.FLAX_LAYERS) and owner.rpartition(".")[2][:1].isupper():
            calls[name] = name
    return calls


def typed_layer_functions() -> dict[str, str]:
    """{fully qualified name mypy gives a function of the layers' libraries:
    its rule's name}: Flax's pooling functions, which the stubs declare in
    ``flax.linen`` and ``flax.nnx`` (and Flax defines in
    ``flax.linen.pooling``).  Their stubs answer for x64 off and standard
    promotion; ``avg_pool`` divides by the window's size, which x64 and
    strict promotion change."""
    calls: dict[str, str] = {}
    for name in layer_rules.RULES:
        module, _, function = name.rpartition(".")
        if module == names.FLAX_POOLING:
            for package in (module, *(p.rstrip(".") for p in names.FLAX_LAYERS)):
                calls[f"{package}.{function}"] = name
    return calls


def layer_function_hook(rule_name: str, v: Variant, builder: Builder) -> Callable[[FunctionContext], Type]:
    """A pooling function's output for the configured x64 and promotion (its
    input the first argument), or the error it raises; ``Array[Any]`` where
    its input's dtype is not known, and the stubs' answer where the call
    passes ``count_include_pad`` other than True (the rule is Flax's
    default: a sum divided by the window's size)."""

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: FunctionContext) -> Type:
        result = get_proper_type(ctx.default_return_type)
        if not isinstance(result, Instance) or array_info(result) is None or not ctx.arg_types:
            return ctx.default_return_type
        if "count_include_pad" in ctx.callee_arg_names:
            given = ctx.arg_types[ctx.callee_arg_names.index("count_include_pad")]
            if given and (len(given) != 1 or bool_value(given[0]) is not True):
                return ctx.default_return_type
        try:
            node = _input(ctx.arg_types[0], builder, v)
        except LookupError:
            return builder.any_array(result)
        out = layer_rules.result(rule_name, node, v)
        if out.node is None:
            if out.error is not None:
                code = errors.JAX_PROMOTION if out.error == "promotion" else errors.JAX_UNSUPPORTED
                errors.report(ctx.api, f"{rule_name.rpartition('.')[2]}: {out.message}", ctx.context, code=code)
            return builder.any_array(result)
        return builder.array_of(result, [out.node])

    return hook


def _strong_node(arg: Type) -> str:
    proper = get_proper_type(arg)
    if isinstance(proper, Instance):
        node = names.NODE_OF_MARKER.get(proper.type.fullname)
        if node is not None and node in lattice.STRONG:
            return node
    raise LookupError


def _dtypes(layer: Instance, flax: bool) -> tuple[str | None, str | None]:
    """(the layer's computation dtype, its parameters' dtype) as nodes; None:
    left out (an Equinox layer's parameters: JAX's default float)."""
    if len(layer.args) != 2:  # Dropout: no parameters
        return None, None
    if flax:
        first = get_proper_type(layer.args[0])
        no_dtype = isinstance(first, Instance) and first.type.fullname in names.FLAX_NO_DTYPES
        dtype = None if no_dtype else _strong_node(first)
        try:
            return dtype, _strong_node(layer.args[1])
        except LookupError:
            if dtype is None:
                raise
            return dtype, None  # (a dtype given decides, whatever the parameters')
    arg = get_proper_type(layer.args[1])
    if isinstance(arg, Instance) and arg.type.fullname == names.EQUINOX_DEFAULT_FLOAT:
        return None, None
    return None, _strong_node(arg)


def _input(types: list[Type], builder: Builder, v: Variant) -> str:
    """The node of the layer's input array (strong; with x64 off a 64-bit
    one is the 32-bit one JAX makes of it)."""
    found = dtype_like(types[0], builder) if len(types) == 1 else None
    if not found or len(found) != 1 or found[0].kind != "array" or found[0].node not in lattice.STRONG:
        raise LookupError
    return lattice.canonicalize(found[0].node, v.x64)


def layer_call_hook(rule_name: str, v: Variant, builder: Builder) -> Callable[[MethodContext], Type]:
    family = layer_rules.RULES[rule_name].family
    flax = rule_name.startswith(names.FLAX_LAYERS)

    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: MethodContext) -> Type:
        result = get_proper_type(ctx.default_return_type)
        layer = get_proper_type(ctx.type)
        if not isinstance(result, Instance) or array_info(result) is None or not isinstance(layer, Instance):
            return ctx.default_return_type  # the form with a state: as Equinox declares it
        try:
            dtype, param = _dtypes(layer, flax)
        except LookupError:
            return builder.any_array(result)
        try:
            if family in ("param", "flax_embed"):  # an embedding: its table's dtype, whatever the input
                nodes = [lattice.BOOL]
            else:
                count = layer_rules.INPUTS.get(rule_name, 1)
                given = ctx.arg_types[:count]
                if flax:  # (Flax's keys and values, left out, are the query)
                    given = [types for types in given if types]
                if len(given) < (1 if flax else count) or not all(given):
                    raise LookupError
                nodes = [_input(types, builder, v) for types in given]
        except LookupError:
            # An input of unknown dtype: the answer every input JAX accepts
            # gives, if one (a Flax layer given dtype= computes in it, as the
            # stubs answer).
            every = {
                out.node
                for n in lattice.STRONG
                if (out := layer_rules.result(rule_name, n, v, dtype=dtype, param_dtype=param)).node is not None
            }
            if dtype is None or len(every) != 1:
                return builder.any_array(result)
            return builder.array_of(result, [every.pop()])
        if family == "to_float" and lattice.kind(nodes[0]) not in "fc":
            # (Dropout returns an integer input as it is in inference mode)
            return builder.any_array(result)
        # Each input goes through the layer's parameters (an attention's query,
        # key and value, each projected): one answer for all, or none.
        outs = [layer_rules.result(rule_name, node, v, dtype=dtype, param_dtype=param) for node in nodes]
        answers: set[str] = set()
        for out in outs:
            if out.node is None:
                if out.error is not None:
                    code = errors.JAX_PROMOTION if out.error == "promotion" else errors.JAX_UNSUPPORTED
                    errors.report(ctx.api, f"{rule_name.rpartition('.')[2]}: {out.message}", ctx.context, code=code)
                return builder.any_array(result)
            answers.add(out.node)
        if len(answers) != 1:
            return builder.any_array(result)
        return builder.array_of(result, [answers.pop()])

    return hook


def is_module_field(info: TypeInfo, attribute: str) -> bool:
    """Whether ``attribute`` is a field the Equinox module ``info`` declares
    (whether it is a layer is seen when it is read)."""
    sym = info.names.get(attribute)
    return sym is not None and isinstance(sym.node, Var) and info.has_base(names.EQUINOX_MODULE)


def _assigned_calls(init: FuncDef, attribute: str) -> list[CallExpr | None]:
    """What ``__init__`` assigns to ``self.<attribute>``: each call, None for
    anything else (also an assignment inside a nested function or loop body)."""
    if not init.arguments:
        return [None]
    self_name = init.arguments[0].variable.name
    found: list[CallExpr | None] = []

    def visit(stmts: list[Statement]) -> None:
        for stmt in stmts:
            if isinstance(stmt, AssignmentStmt):
                for target in stmt.lvalues:
                    if (
                        isinstance(target, MemberExpr)
                        and target.name == attribute
                        and isinstance(target.expr, NameExpr)
                        and target.expr.name == self_name
                    ):
                        found.append(
                            stmt.rvalue if isinstance(stmt.rvalue, CallExpr) and len(stmt.lvalues) == 1 else None
                        )
            elif isinstance(stmt, IfStmt):
                for body in stmt.body:
                    visit(body.body)
                if stmt.else_body is not None:
                    visit(stmt.else_body.body)
            elif isinstance(stmt, (WithStmt, TryStmt)):
                visit(stmt.body.body)
            elif isinstance(stmt, (ForStmt, WhileStmt)):
                before = len(found)
                visit(stmt.body.body)
                if len(found) > before:
                    found.append(None)  # made in a loop: several layers
            elif isinstance(stmt, Block):
                visit(stmt.body)

    visit(init.body.body)
    return found


def _dtype_position(layer: TypeInfo) -> int | None:
    """The position of ``dtype`` in the layer's own ``__init__`` signature
    (the last overload of the stubs', without self)."""
    init = layer.names.get("__init__")
    node = init.node if init is not None else None
    sig = node.items[-1] if isinstance(node, OverloadedFuncDef) and node.items else node
    if isinstance(sig, Decorator):
        sig = sig.func
    typ = sig.type if isinstance(sig, FuncDef) else None
    if isinstance(typ, CallableType) and "dtype" in typ.arg_names:
        return typ.arg_names.index("dtype") - 1
    return None


def _param_of_call(call: CallExpr, layer: TypeInfo, builder: Builder) -> str | None:
    """The lattice node of the parameters of the layer ``call`` makes
    (``_DEFAULT``: JAX's default float); None: not known."""
    if not isinstance(call.callee, RefExpr) or call.callee.fullname != layer.fullname:
        return None
    position = _dtype_position(layer)
    positional = sum(1 for name in call.arg_names if name is None)
    if position is None or positional > position:
        return None  # a dtype passed by position, or *args
    if any(kind.is_star() for kind in call.arg_kinds):
        return None
    if "dtype" not in call.arg_names:
        return _DEFAULT
    arg = call.args[call.arg_names.index("dtype")]
    if isinstance(arg, NameExpr) and arg.fullname == "builtins.None":
        return _DEFAULT
    node = arg.node if isinstance(arg, RefExpr) else None
    typ: Type | None = node.type if isinstance(node, Var) else None
    if isinstance(node, TypeInfo):  # a marker: jnp.bfloat16 in the JAX stubs
        typ = TypeType(Instance(node, [AnyType(TypeOfAny.special_form)] * len(node.defn.type_vars)))
    found = dtype_like(typ, builder) if typ is not None else None
    if not found or len(found) != 1 or found[0].kind not in ("type", "dtype") or found[0].weak:
        return None
    return found[0].node if found[0].node in lattice.STRONG else None


def field_hook(owner: str, attribute: str, builder: Builder) -> Callable[[AttributeContext], Type]:
    """The type of Equinox module ``owner``'s field ``attribute`` (a layer
    declared without type arguments) as its ``__init__`` makes it."""
    memo: dict[str, str | None] = {}  # (the plugin makes the hook again for each build)

    @errors.guarded(lambda ctx: ctx.default_attr_type)
    def hook(ctx: AttributeContext) -> Type:
        declared = get_proper_type(ctx.default_attr_type)
        if (
            not isinstance(declared, Instance)
            or not declared.type.fullname.startswith(names.EQUINOX_NN)
            or len(declared.args) != 2
            or not all(isinstance(get_proper_type(a), AnyType) for a in declared.args)
        ):
            return ctx.default_attr_type
        if "made" not in memo:
            memo["made"] = _made(owner, attribute, declared.type, builder)
        made = memo["made"]
        no_dtype = builder.named(names.EQUINOX_NO_DTYPE)
        default = builder.named(names.EQUINOX_DEFAULT_FLOAT)
        if made is None or no_dtype is None or default is None:
            return ctx.default_attr_type
        param = Instance(default, []) if made == _DEFAULT else builder.marker(made)
        return Instance(declared.type, [Instance(no_dtype, []), param])

    return hook


def _made(owner: str, attribute: str, layer: TypeInfo, builder: Builder) -> str | None:
    info = builder.named(owner)
    init = info.names.get("__init__") if info is not None else None
    if init is None or not isinstance(init.node, FuncDef):
        return None
    calls = _assigned_calls(init.node, attribute)
    params = {None if call is None else _param_of_call(call, layer, builder) for call in calls}
    return params.pop() if len(params) == 1 else None
