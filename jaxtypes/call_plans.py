"""How a call of a JAX function with a dtype rule is read: its call plan.

A row of ``jaxtypes/functions.csv`` says how the oracle passed a function its
arrays (``function_rules.ARGUMENTS``: ``x``, ``xy``, ``xd``...) and which rule
gives the result; the function's declaration in the installed JAX says what
its parameters are called and of what kind JAX declares them.  From the two,
``call_plan`` answers, once for both readers of a call (the stub generator,
``jaxtypes._stubgen.function_overloads``, which writes typed overloads from it,
and the mypy plugin, which reads calls with it): which parameters carry the
rule's operands, which is ``dtype=``, which never change the result (masks,
indices, shapes, axes), which would change it in a way the rule does not
cover (pinned to their default), and how Python scalars count.

Standard library only, like ``jaxtypes.lattice``: each reader describes the
parameters in its own terms (the generator from the stub's syntax, the plugin
from mypy's types) as ``Parameter`` values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

from jaxtypes import function_rules, lattice

__all__ = [
    "ANY",
    "ARRAY",
    "ARRAY_LIKE",
    "DEPRECATED",
    "DTYPE_LIKE",
    "INT",
    "NEUTRAL_NAMES",
    "OTHER",
    "PINNED",
    "SEQUENCE",
    "CallPlan",
    "Parameter",
    "anonymous",
    "answered_by_plugin",
    "call_plan",
    "unnamed",
    "VARARG_OPERANDS",
]

# How JAX declares a parameter (a ``Parameter.declared``).
ARRAY: Final = "array"  # Array, or Array | np.ndarray: no Python scalar
ARRAY_LIKE: Final = "array_like"  # ArrayLike (and unions with it)
SEQUENCE: Final = "sequence"  # Sequence[ArrayLike]
DTYPE_LIKE: Final = "dtype_like"  # DTypeLike
DEPRECATED: Final = "deprecated"  # DeprecatedArg: an old name, None unless given
ANY: Final = "any"  # Any, or not declared
INT: Final = "int"  # int exactly (a count: hanning's M)
OTHER: Final = "other"  # float, Sequence[int], str, a callable...

# Families with no rule to read a call by.
UNTYPED_FAMILIES: Final = ("untyped", "higher_order", "not_an_array")
# Families computed from one input or from dtype=.
ONE_INPUT_KINDS: Final = ("x", "xd")
# Families of two-array functions (their result is the promoted dtype,
# possibly made inexact, or a fixed dtype).
PAIR_FAMILIES: Final = ("keeps", "operator", "inexact", "fixed", "mean", "equal", "select")
# Families whose result no argument but the inputs can change (isin's bool,
# fold_in's key): every other argument is neutral.
INPUTS_ALONE_FAMILIES: Final = ("fixed", "key")

# Parameters that never change the result's dtype, whatever JAX declares them:
# masks and indices (jnp.where's mask, lax.dynamic_slice's start indices,
# jnp.put's ind) and shapes (jnp.zeros(shape: Any)).  A parameter JAX declares
# as neither an array nor Any (an int axis, a count k) never does either.
NEUTRAL_NAMES: Final = frozenset(
    ["where", "indices", "condition", "indices_or_sections", "start_indices", "start_index", "index", "ind", "shape"]
)
# Parameters that decide the result's dtype besides dtype= and the arrays, in a
# way no rule covers: a typed overload pins each to its default (this text),
# and a call that passes one is read as unknown.
PINNED: Final = {"promote_integers": "Literal[True]", "preferred_element_type": "None", "retstep": "Literal[False]"}
# The names of the two operands of a function taking ``*operands`` (einsum),
# as its typed overloads declare them.
VARARG_OPERANDS: Final = ("operand0", "operand1")


@dataclass(frozen=True)
class Parameter:
    """One parameter of a function's declaration in the installed JAX."""

    name: str
    declared: str  # ARRAY, ARRAY_LIKE, SEQUENCE, DTYPE_LIKE, DEPRECATED, ANY, INT or OTHER
    positional: bool = True  # may be passed by position (not keyword-only)
    default: bool = False
    allows_none: bool = False
    positional_only: bool = False


def unnamed(i: int) -> str:
    """The name of the ``i``-th parameter (``self`` not counted) when it is
    positional-only: mypy's types leave those unnamed (its cache drops their
    names), so the plugin names them by position, and so a plan reads them."""
    return f"#{i}"


def anonymous(params: Sequence[Parameter]) -> list[Parameter]:
    """``params`` with the positional-only ones named by position (``unnamed``)."""
    params = [p for p in params if p.name != "self"]
    return [replace(p, name=unnamed(i)) if p.positional_only else p for i, p in enumerate(params)]


@dataclass(frozen=True)
class CallPlan:
    """How one function's calls are read: its operands, dtype= and the rest."""

    name: str
    rule: function_rules.Rule
    kind: str
    input_param: str | None  # the array argument (of a pair, the first)
    dtype_param: str | None
    keep: tuple[str, ...] = ()  # left as JAX declares them (a PRNG key, a shape before the array)
    second: str | None = None  # the other array of a two-array function
    sequence: bool = False  # input_param is a sequence of arrays (concatenate)
    varargs: bool = False  # the arrays are ``*operands`` (einsum)
    scalar_inputs: bool = True  # function_rules.scalar_input_is_weak
    arrays_only: bool = False  # JAX declares the inputs Arrays (lax.cummax): no NumPy or scalar overloads
    # of two arrays, the ones JAX declares Arrays (lax.dynamic_update_slice's
    # operand, jnp.outer's b): no Python scalar overload puts a scalar there
    array_params: tuple[str, ...] = ()
    float_bounds: bool = False  # jnp.clip: typed with Python float bounds too (function_rules.BOUNDED_FUNCTIONS)
    preferred: bool = False  # preferred_element_type= typed (function_rules.PREFERRED_TYPED)
    two_scalars: bool = False  # two Python scalars typed (function_rules.TWO_SCALARS_TYPED)
    neutral: frozenset[str] = frozenset()  # parameters that never change the result
    input_position: int = 0  # of a one-input function, its input's position
    dtype_position: int | None = None  # a positional-only dtype parameter's (function_rules.DTYPE_POSITION)
    overloads: bool = True  # the stubs type it (else only the plugin reads its calls)
    choice: str | None = None  # the parameter whose value picks the rule (function_rules.CHOICES)

    def rule_for(self, values: Sequence[str]) -> function_rules.Rule | None:
        """The rule of a call whose choice parameter (``choice``) is one of
        ``values`` (strings, enum members as ``Enum.MEMBER``): the one they
        all pick; None where they pick none or several, or none is known (a
        ``str`` variable): the call is unknown."""
        choice = function_rules.CHOICES.get(self.name)
        if choice is None or self.choice is None:
            return self.rule
        rules = {choice.rule(value) for value in values}
        return rules.pop() if len(rules) == 1 else None

    @property
    def operands(self) -> tuple[str, ...]:
        """The parameters whose arguments are the rule's inputs, in its order
        (a ``where``'s condition first); empty for ``*operands``."""
        if self.kind == "cxy":
            return (*self.keep[:1], *(p for p in (self.input_param, self.second) if p))
        return tuple(p for p in (self.input_param, self.second) if p)

    @property
    def inputs_alone(self) -> bool:
        """Whether no argument but the operands can change the result."""
        return self.rule.family in INPUTS_ALONE_FAMILIES

    @property
    def input_scalar(self) -> str | None:
        """The Python scalar type the other array parameters may be given
        with the input without changing the rule's answer: clip's int bounds
        (its rule was measured with clip(x, 0, 1)); None otherwise."""
        return "builtins.int" if self.rule.scalar == lattice.WEAK_INT else None

    @property
    def dtype_scalar(self) -> str | None:
        """... and with dtype=: eye's k, a Python float; arange's bounds, ints;
        a random draw's loc, scale, bounds or rate, any Python scalar (JAX
        converts them to dtype=, weakly typed as they are).  An array there
        may promote the draw: ``double_sided_maxwell(k, loc, scale,
        dtype=bfloat16)`` with float32 ``loc`` is float32."""
        if self.kind == "kd":
            return "builtins.float"
        return "builtins.int" if self.rule.default == "i" else "builtins.float" if self.kind == "d" else None

    @property
    def takes_dtype(self) -> bool:
        """Whether dtype= decides the result (the families that read it)."""
        return self.dtype_param is not None and self.rule.family in function_rules.DTYPE_FAMILIES


def call_plan(name: str, params: Sequence[Parameter], vararg: Parameter | None = None) -> CallPlan | None:
    """The plan of ``name``'s calls, given the parameters of its declaration
    (positional ones in order, then keyword-only ones) and its ``*args``;
    None for a function with no rule or a declaration of a shape no plan
    reads (another JAX release's)."""
    plan = _plan(name, params, vararg)
    if plan is None:
        return None
    choice = function_rules.CHOICES.get(name)
    if choice is not None and choice.param not in {p.name for p in params}:
        return None  # (a declaration of another shape: no plan reads it)
    neutral = {p.name for p in params if p.declared in (INT, OTHER) and p.name not in PINNED}
    neutral |= NEUTRAL_NAMES | function_rules.NEUTRAL_PARAMETERS.get(name, frozenset())
    neutral -= {*plan.operands, plan.dtype_param or "", choice.param if choice is not None else ""}
    return replace(
        plan,
        # (the table's neutral column: left as JAX declares them, as NEUTRAL_NAMES are)
        keep=plan.keep + tuple(sorted(function_rules.NEUTRAL_PARAMETERS.get(name, ()))),
        neutral=frozenset(neutral),
        preferred=name in function_rules.PREFERRED_TYPED,
        two_scalars=name in function_rules.TWO_SCALARS_TYPED,
        float_bounds=name in function_rules.BOUNDED_FUNCTIONS,
        dtype_position=function_rules.DTYPE_POSITION.get(name),
        choice=choice.param if choice is not None else None,
    )


def answered_by_plugin(name: str) -> bool:
    """Whether the mypy plugin answers calls of JAX's function ``name`` from
    its rule (it then needs no typed overload of it: the stubs' lighter
    modules for the plugin leave them out)."""
    rule = function_rules.TABLE.get(name)
    return rule is not None and rule.family not in UNTYPED_FAMILIES and name in function_rules.ARGUMENTS


def _plan(name: str, params: Sequence[Parameter], vararg: Parameter | None) -> CallPlan | None:
    rule = function_rules.TABLE.get(name)
    kind = function_rules.ARGUMENTS.get(name)
    if rule is None or kind is None or rule.family in UNTYPED_FAMILIES:
        return None
    positional = [p for p in params if p.positional]
    names = {p.name for p in params}
    dtype_param = "dtype" if "dtype" in names else None
    if kind in ONE_INPUT_KINDS:
        position = function_rules.INPUT_POSITION.get(name, 0)
        if len(positional) <= position:
            if vararg is None or position:
                return None
            # (jnp.ix_(*args): one array read, by the plugin only)
            return CallPlan(name, rule, kind, vararg.name, dtype_param, overloads=False)
        param = positional[position]
        arrays_only = param.declared == ARRAY
        keep = tuple(p.name for p in positional[:position])  # (a key or a shape before the array)
        return CallPlan(
            name,
            rule,
            kind,
            param.name,
            dtype_param,
            keep,
            scalar_inputs=function_rules.scalar_input_is_weak(name),
            arrays_only=arrays_only,
            input_position=position,
            # (stop_gradient(x: T) -> T: read by the plugin, not typed)
            overloads=param.declared in (ARRAY, ARRAY_LIKE, SEQUENCE, ANY),
        )
    if kind == "d" and dtype_param is not None and rule.family in function_rules.DTYPE_FAMILIES:
        return CallPlan(name, rule, kind, None, dtype_param)
    if kind == "kd" and dtype_param is not None and rule.family in function_rules.DTYPE_FAMILIES and positional:
        return CallPlan(name, rule, kind, None, dtype_param, (positional[0].name,))
    if kind == "kd" and rule.family == "fixed" and rule.args == ():  # categorical: int32
        return CallPlan(name, rule, kind, None, None, tuple(p.name for p in params))
    if kind in ("xy", "cxy"):
        return _pair_plan(name, rule, kind, positional, vararg)
    if kind == "n" and dtype_param is None and rule.family == "dtype":
        # hanning(M): the default float, when only ints are passed (not
        # kaiser(M, beta), whose beta the oracle's probes leave at a Python float)
        return CallPlan(name, rule, kind, None, None, overloads=all(p.declared == INT for p in params))
    if rule.family == "key" and kind in ("k", "n"):
        key = (positional[0].name,) if positional and kind == "k" else ()
        return CallPlan(name, rule, kind, None, None, key)
    # The rest, read by the plugin only, by their kind alone (tril_indices(n):
    # counts; a key; dtype=)
    return CallPlan(name, rule, kind, None, dtype_param, overloads=False)


def _pair_plan(
    name: str, rule: function_rules.Rule, kind: str, positional: list[Parameter], vararg: Parameter | None
) -> CallPlan:
    positional = [p for p in positional if p.name != "self"]
    offset = 1 if kind == "cxy" else 0  # where(condition, x, y)
    pair = positional[offset : offset + 2]
    keep = tuple(p.name for p in positional[:offset])
    typed = rule.family in PAIR_FAMILIES
    arrays = (ARRAY, ARRAY_LIKE, SEQUENCE)
    if len(pair) == 2 and all(p.declared in arrays for p in pair):
        return CallPlan(
            name,
            rule,
            kind,
            pair[0].name,
            None,
            keep,
            second=pair[1].name,
            # (arrays only: jax.scipy.signal.convolve2d(in1: Array, in2: Array), no scalar overloads)
            arrays_only=all(p.declared == ARRAY for p in pair),
            array_params=tuple(p.name for p in pair if p.declared == ARRAY),
            overloads=typed,
        )
    if kind == "xy" and positional and positional[0].declared == SEQUENCE:
        return CallPlan(name, rule, kind, positional[0].name, None, sequence=True, overloads=typed)
    if kind == "xy" and vararg is not None and vararg.declared == ARRAY_LIKE:
        return CallPlan(
            name, rule, kind, vararg.name, None, tuple(p.name for p in positional), varargs=True, overloads=typed
        )
    # Declarations the stubs do not type, read by the plugin only: two
    # arrays by position, unless the second parameter is neutral
    # (lax.concatenate(operands, dimension)); else one sequence of arrays.
    if len(pair) == 2 and pair[1].declared not in (INT, OTHER) and pair[1].name not in NEUTRAL_NAMES:
        return CallPlan(name, rule, kind, pair[0].name, None, keep, second=pair[1].name, overloads=False)
    if kind == "cxy" or not positional:
        return CallPlan(name, rule, kind, None, None, keep, overloads=False)
    return CallPlan(name, rule, kind, positional[0].name, None, sequence=True, overloads=False)
