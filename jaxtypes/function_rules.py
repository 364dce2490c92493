"""The dtype rule of each public JAX function, as data: function -> rule family.

The data is one table, ``jaxtypes/functions.csv`` (one row per function; its
columns are described at ``TABLE_FILE`` below), read when this module is
imported.  ``TABLE`` maps a function's qualified name (``jax.numpy.sqrt``,
``jax.nn.softmax``, ``jax.random.normal``, ``jax.lax.add``) to a ``Rule``: a
family and its parameters.  Each family is a function computing the result's
marker node from the marker nodes of the function's array arguments and a
``lattice.Variant``, built on the lattice and on ``jaxtypes.operation_rules`` (the operator
rules, whose helpers it reuses).  ``result(name, inputs, v, dtype=...)`` asks
the table.  Later generators (the JAX stub signatures, the mypy plugin's
function hooks) read this module; tests/test_function_rules.py checks every
entry against JAX's answers in tools/data/jax_function_dtypes.json.

Inputs are the function's array arguments in signature order, as marker nodes
(``i*``/``f*``/``c*`` for weakly typed values).  A PRNG key is ``KEY`` (a typed
key) or ``uint32`` (a raw key).  ``dtype`` is the node of a ``dtype=``
argument, or None where it is absent.

Functions whose result dtype no rule expresses are in the table too, with
family ``untyped`` or ``higher_order`` and the reason.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import Callable, Final, NamedTuple

from jaxtypes import lattice, operation_rules
from jaxtypes.lattice import Variant

# The rules' building blocks, shared with the operators' (module-private names here).
from jaxtypes.operation_rules import COMPONENT as _COMPONENT
from jaxtypes.operation_rules import DEFAULT, Outcome, marker_node, operand
from jaxtypes.operation_rules import TO_INEXACT as _TO_INEXACT
from jaxtypes.operation_rules import no_join as _no_join
from jaxtypes.operation_rules import promote_integer_dtype as _promote_integers
from jaxtypes.operation_rules import unsupported as _unsupported

__all__ = [
    "Rule",
    "TABLE",
    "FAMILIES",
    "ARGUMENTS",
    "INPUT_POSITION",
    "DTYPE_POSITION",
    "KEY",
    "NOT_AN_ARRAY",
    "DTYPE_FAMILIES",
    "UNKNOWN",
    "PREFERRED_RESULTS",
    "PREFERRED_TYPED",
    "SEVERAL_RESULT_DTYPES",
    "TWO_SCALARS_TYPED",
    "NEUTRAL_PARAMETERS",
    "CHOICES",
    "Choice",
    "probe_rule",
    "TABLE_FILE",
    "COLUMNS",
    "KINDS",
    "TableError",
    "apply",
    "other_results",
    "RESULT_FAMILIES",
    "parse_rule",
    "read_rows",
    "render_rows",
    "result",
    "rule_columns",
    "rule_of",
    "scalar_input_is_weak",
    "untyped",
]

KEY: Final = "key<fry>"  # a typed PRNG key array (jax.random.key); not a lattice node
NOT_AN_ARRAY: Final = "not-an-array"  # the result is a Python value, a dtype, a tuple...

_ALL_KINDS: Final = "biufc"
DTYPE_FAMILIES: Final = ("dtype", "like", "sum", "mean")  # the families that read dtype=
UNKNOWN: Final = Outcome(None)  # neither a dtype nor an error: the rule does not say


class Rule(NamedTuple):
    """A function's rule: its family and the family's parameters.

    ``args``: which inputs take part (positions; None: all).  ``keep_weak``:
    a weakly typed input gives a weak result.  ``accepts``: the kind letters of
    the dtypes the function accepts, others raising: checked on the result
    dtype (or the ``dtype=`` argument), and on each input for family ``fixed``.  ``default``: the dtype
    ``dtype=None`` gives: a kind letter (its default dtype, 64-bit with x64) or
    a node.  ``fixed``: the result node of family ``fixed``.  ``bool_as_int``:
    a bool input counts as the default int (jax's to_numeric_dtype: cumsum,
    square).  ``scalar``: the node of a Python scalar the function combines its
    input with (relu is ``maximum(x, 0)``: ``i*``).  ``rejects``: input (or
    ``dtype=``) nodes JAX refuses besides the refused kinds (sub-byte ints,
    4- and 6-bit floats, by JAX's observed behaviour).  ``unknown``: input
    nodes the family does not answer for, because JAX computes them by
    another path (softplus of a bool is a weak float: it is
    ``logaddexp(x, 0)``); the result is unknown (``Array[Any]``), never a
    guess.  ``reason``: why a function is untyped, or what ``unknown`` covers.
    ``others``: for a function whose results are arrays of different dtypes
    (``lax.top_k``'s values and indices), the dtype of each result after the
    first: a node, or a kind letter for that kind's default dtype, weak
    (its kind's weak node) when an input is weak and ``keep_weak`` (top_k of
    a weak array gives weak int32 indices), or the name of a family in
    ``RESULT_FAMILIES``, whose answer for the same inputs it is (svd's
    ``real inexact``); the family gives the first (and whether the call is
    refused)."""

    family: str
    args: tuple[int, ...] | None = None
    keep_weak: bool = True
    accepts: str = _ALL_KINDS
    default: str | None = None
    fixed: str | None = None
    bool_as_int: bool = False
    scalar: str | None = None
    rejects: tuple[str, ...] = ()
    reason: str = ""
    bool_as: str | None = None
    input_rejects: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    others: tuple[str, ...] = ()


Inputs = tuple[str, ...]


def _operands(rule: Rule, inputs: Inputs, v: Variant) -> list[tuple[str, bool]]:
    chosen = inputs if rule.args is None else tuple(inputs[i] for i in rule.args)
    out = [operand(n, v) for n in chosen]
    if rule.scalar is not None:
        out.append(operand(rule.scalar, v))
    if rule.bool_as_int:
        out = [(lattice.default_dtype("i", v.x64), False) if d == lattice.BOOL else (d, w) for d, w in out]
    if rule.bool_as is not None:
        out = [(rule.bool_as, False) if d == lattice.BOOL else (d, w) for d, w in out]
    return out


def _promoted(rule: Rule, inputs: Inputs, v: Variant) -> tuple[str, bool] | Outcome:
    """The operands' lattice_result_type, or the error JAX raises."""
    ops_ = _operands(rule, inputs, v)
    try:
        return lattice.lattice_result_type(ops_, v)
    except lattice.NoJoin as err:
        return _no_join(err.nodes, v)


def _refused(rule: Rule, dtype: str) -> Outcome | None:
    if lattice.kind(dtype) not in rule.accepts:
        return _unsupported("this function", dtype)
    return None


def _keeps(rule: Rule, inputs: Inputs, v: Variant, dtype: str | None) -> Outcome:
    """Keeps its (promoted) input's dtype: shape ops, max/min, relu..."""
    got = _promoted(rule, inputs, v)
    if isinstance(got, Outcome):
        return got
    out, weak = got
    return _refused(rule, out) or Outcome(marker_node(out, weak and rule.keep_weak))


def _inexact(rule: Rule, inputs: Inputs, v: Variant, dtype: str | None) -> Outcome:
    """Promotes, then bool and integers become floats (jax's promote_args_inexact)."""
    got = _promoted(rule, inputs, v)
    if isinstance(got, Outcome):
        return got
    out, weak = got
    if lattice.kind(out) in "biu":
        if out not in _TO_INEXACT:
            return _unsupported("this function (no inexact dtype for it)", out)
        out = _TO_INEXACT[out]
    return _refused(rule, out) or Outcome(marker_node(out, weak and rule.keep_weak))


def _fixed(rule: Rule, inputs: Inputs, v: Variant, dtype: str | None) -> Outcome:
    """One result dtype whatever the inputs (bool for comparisons)."""
    for node in _operands(rule, inputs, v):
        refused = _refused(rule, node[0])
        if refused:
            return refused
    got = _promoted(rule, inputs, v) if _operands(rule, inputs, v) else None
    if isinstance(got, Outcome):
        return got
    assert rule.fixed is not None
    return Outcome(_default(rule.fixed, v))


def _default(spec: str, v: Variant) -> str:
    """A kind letter's default dtype (index: default int), or a node, canonicalized."""
    if spec in ("b", "i", "u", "f", "c"):
        return lattice.default_dtype(spec, v.x64)
    return lattice.canonicalize(spec, v.x64)


def _sum(rule: Rule, inputs: Inputs, v: Variant, dtype: str | None) -> Outcome:
    """Sum-like reductions: narrow ints (and bool) widen to the default int;
    a dtype= argument decides instead; the result is strongly typed."""
    if dtype is not None:
        return _refused(rule, dtype) or Outcome(lattice.canonicalize(dtype, v.x64))
    ((d, _),) = _operands(rule, inputs, v)
    widened = _promote_integers(d, v)
    if widened is None:
        return _unsupported("this reduction", d)
    return _refused(rule, widened) or Outcome(widened)


def _dtype(rule: Rule, inputs: Inputs, v: Variant, dtype: str | None) -> Outcome:
    """``dtype=`` decides, with a default (none: unknown); the result is strongly typed."""
    if dtype is not None:
        out = lattice.canonicalize(dtype, v.x64)
    elif rule.default is None:
        return UNKNOWN
    else:
        out = _default(rule.default, v)
    return _refused(rule, out) or Outcome(out)


def _like(rule: Rule, inputs: Inputs, v: Variant, dtype: str | None) -> Outcome:
    """``dtype=`` decides (strongly typed), else the input's dtype and weakness."""
    if dtype is not None:
        return _refused(rule, dtype) or Outcome(lattice.canonicalize(dtype, v.x64))
    return _keeps(rule, inputs, v, None)


def _mean(rule: Rule, inputs: Inputs, v: Variant, dtype: str | None) -> Outcome:
    """Inexact, strongly typed (mean, softmax...); dtype= decides where given."""
    if dtype is not None:
        return _refused(rule, dtype) or Outcome(lattice.canonicalize(dtype, v.x64))
    got = _promoted(rule, inputs, v)
    if isinstance(got, Outcome):
        return got
    # As operation_rules.method("mean"): dtypes without an inexact counterpart (the 1- and
    # 2-bit ints) are kept.
    out = _TO_INEXACT.get(got[0], got[0])
    return _refused(rule, out) or Outcome(out)


def _to_real(rule: Rule, inputs: Inputs, v: Variant, dtype: str | None) -> Outcome:
    """Complex -> its real component (abs, std, norm); others as ``keeps``, or
    as ``inexact`` when the rule's default is ``f``."""
    first = (_inexact if rule.default == "f" else _keeps)(rule, inputs, v, None)
    if first.node is None:
        return first
    out, weak = operand(first.node, v)
    return Outcome(marker_node(_COMPONENT.get(out, out), weak and rule.keep_weak))


_TO_COMPLEX: Final = {"complex64": "complex64", "complex128": "complex128", "float64": "complex128"}


def _to_complex(rule: Rule, inputs: Inputs, v: Variant, dtype: str | None) -> Outcome:
    """Real -> complex (rfft): made inexact, then complex64 (complex128 from float64)."""
    first = _inexact(rule, inputs, v, None)
    if first.node is None:
        return first
    out, weak = operand(first.node, v)
    if lattice.kind(out) != "c" and out not in ("float16", "bfloat16", "float32", "float64"):
        return _unsupported("this function (no complex dtype for it)", out)
    return Outcome(marker_node(_TO_COMPLEX.get(out, "complex64"), weak and rule.keep_weak))


# fft, ifft (and 2-d, n-d) of any input: a complex input keeps its dtype, a
# 64-bit one gives complex128, every other (bool, ints, the small floats,
# float16, bfloat16, float32) complex64, strongly typed (JAX's answers,
# tools/data).  Unlike ``complex`` (rfft), nothing is refused.
_COMPLEX_OF_64_BITS: Final = frozenset({"int64", "uint64", "float64", "complex128"})


def _fft(rule: Rule, inputs: Inputs, v: Variant, dtype: str | None) -> Outcome:
    """Any input -> complex: complex128 from a 64-bit input, else complex64."""
    got = _promoted(rule, inputs, v)
    if isinstance(got, Outcome):
        return got
    out, weak = got
    result = "complex128" if out in _COMPLEX_OF_64_BITS else "complex64"
    return _refused(rule, out) or Outcome(marker_node(result, weak and rule.keep_weak))


def _equal(rule: Rule, inputs: Inputs, v: Variant, dtype: str | None, hint: str = "") -> Outcome:
    """lax: every array argument must have one dtype; weak only if all are.
    A weakly typed operand counts as its dtype in the configuration (a weak
    float is float32 with x64 off), which the other must be: JAX does not
    promote here."""
    ops_ = _operands(rule, inputs, v)
    dtypes = list(dict.fromkeys(d for d, _ in ops_))
    if len(dtypes) != 1:
        return Outcome(
            None,
            "unsupported",
            f"operands of different dtypes, {' and '.join(dtypes)}: JAX requires one dtype here "
            f"(cast one first, e.g. y.astype(x.dtype){hint})",
        )
    out = ops_[0][0]
    weak = all(w for _, w in ops_)
    return _refused(rule, out) or Outcome(marker_node(out, weak and rule.keep_weak))


def _select(rule: Rule, inputs: Inputs, v: Variant, dtype: str | None) -> Outcome:
    """lax.select(pred, on_true, on_false), lax.select_n(which, *cases): the
    cases as ``equal``; the predicate (the first input) must be a bool or an
    integer (JAX refuses a float or complex one)."""
    which, _ = operand(inputs[0], v)
    if lattice.kind(which) not in ("b", "i", "u"):
        return _unsupported("the predicate of select", which)
    cases = rule._replace(args=rule.args or tuple(range(1, len(inputs))))
    return _equal(cases, inputs, v, dtype, hint=", or jnp.where, which promotes")


def _operator(rule: Rule, inputs: Inputs, v: Variant, dtype: str | None) -> Outcome:
    """As the Python operator ``fixed`` names (operation_rules.binary / operation_rules.unary, which
    tests check against JAX): jnp.add is ``+``, jnp.matmul ``@``, jnp.abs ``abs``."""
    assert rule.fixed is not None
    if len(inputs) == 1:
        return operation_rules.unary(rule.fixed, inputs[0], v)
    left, right = inputs
    return operation_rules.binary(rule.fixed, left, right, v)


def _key(rule: Rule, inputs: Inputs, v: Variant, dtype: str | None) -> Outcome:
    """PRNG keys: a new key (typed, or raw uint32 for the legacy PRNGKey), or the
    input key's kind kept (split, fold_in)."""
    if rule.fixed is not None:
        return Outcome(rule.fixed)
    return Outcome(inputs[0])


def _not_an_array(rule: Rule, inputs: Inputs, v: Variant, dtype: str | None) -> Outcome:
    return Outcome(NOT_AN_ARRAY)


def _untyped(rule: Rule, inputs: Inputs, v: Variant, dtype: str | None) -> Outcome:
    raise ValueError(f"no dtype rule: {rule.reason}")


FAMILIES: Final[dict[str, Callable[[Rule, Inputs, Variant, "str | None"], Outcome]]] = {
    "keeps": _keeps,  # keeps (promotes) its inputs' dtype and weakness
    "inexact": _inexact,  # promotes, then ints/bool -> float; weak kept
    "mean": _mean,  # inexact, strong result (mean, softmax, linspace)
    "fixed": _fixed,  # one dtype: bool (comparisons), default int (index)...
    "sum": _sum,  # narrow ints widen, strong; dtype= decides
    "dtype": _dtype,  # dtype= decides, with its default
    "like": _like,  # dtype= decides, else the input's (asarray, zeros_like)
    "real": _to_real,  # complex -> real component
    "complex": _to_complex,  # real -> complex (rfft)
    "fft": _fft,  # any -> complex (fft, ifft)
    "equal": _equal,  # lax: equal dtypes required
    "select": _select,  # lax.select/select_n: equal cases, an integer or bool predicate
    "operator": _operator,  # as a Python operator on arrays (jaxtypes.operation_rules)
    "key": _key,  # PRNG keys
    "not_an_array": _not_an_array,
    "higher_order": _untyped,  # the result is a callable's or a carry's
    "untyped": _untyped,  # no rule expresses it (reason given)
}


def rule_of(name: str) -> Rule:
    try:
        return TABLE[name]
    except KeyError:
        raise ValueError(
            f"no dtype rule for {name!r}; the table has {len(TABLE)} functions "
            f"of jax.numpy, jax.nn, jax.random, jax.lax, jax.scipy and jax.image"
        ) from None


def apply(rule: Rule, inputs: Inputs, v: Variant = DEFAULT, dtype: str | None = None) -> Outcome:
    """A rule's result marker node for these inputs, or the error."""
    for node in inputs + ((dtype,) if dtype else ()):
        if node in rule.rejects:
            return _unsupported("this function", node)
    for node in inputs:
        if node in rule.input_rejects:
            return _unsupported("this function", node)
    if any(node in rule.unknown for node in inputs):
        return UNKNOWN
    if dtype is not None and rule.family not in (*DTYPE_FAMILIES, "fixed"):
        return UNKNOWN  # the family does not say what dtype= does (fixed: it changes nothing)
    return FAMILIES[rule.family](rule, tuple(inputs), v, dtype)


# preferred_element_type=T: JAX gives T for two arrays of one of these dtypes
# and refuses many other pairs (a T narrower than the inputs, another kind:
# tools/data's (preferred_element_type=) probes), so the stubs type only
# these, for the functions the oracle probed with it (PREFERRED_TYPED; both
# checked against JAX's answers by tests/test_function_rules.py), lax.dot_general
# too, which no rule types otherwise (its mixed dtypes are its own).
PREFERRED_RESULTS: Final[dict[str, tuple[str, ...]]] = {
    "float32": ("bfloat16", "float16", "float32"),
    "int32": ("int8", "int16", "int32", "uint8"),
}


def other_results(rule: Rule, inputs: Inputs, v: Variant = DEFAULT) -> tuple[str, ...]:
    """The nodes of the results after the first (``Rule.others``) for these
    inputs, in this configuration; () for a function with one result (or of
    one dtype)."""
    weak = rule.keep_weak and any(node in lattice.WEAK for node in inputs)
    out: list[str] = []
    for spec in rule.others:
        if spec in RESULT_FAMILIES:
            node = _family_result(rule, spec, inputs, v)
            if node is None:
                return ()
        else:
            node = _default(spec, v)
            node = lattice.weak_node(lattice.kind(node)) if weak else node
        out.append(node)
    return tuple(out)


# Families an ``others`` entry may name instead of a dtype: that result is
# the family's answer for the same inputs (eigh's eigenvectors keep the
# input's dtype made inexact, its eigenvalues the real component of that:
# "real"; svd's singular values are real, U and Vh inexact).  ``real`` makes
# the input inexact first, as the rule ``real`` with default ``f`` does.
RESULT_FAMILIES: Final = ("inexact", "real")


def _family_result(rule: Rule, family: str, inputs: Inputs, v: Variant) -> str | None:
    default = "f" if family == "real" else rule.default
    outcome = apply(rule._replace(family=family, others=(), default=default), inputs, v)
    return outcome.node


def result(name: str, inputs: Inputs, v: Variant = DEFAULT, dtype: str | None = None) -> Outcome:
    """The result marker node of ``name(*inputs, dtype=dtype)``, or the error."""
    return apply(rule_of(name), tuple(inputs), v, dtype)


def untyped() -> dict[str, str]:
    """The functions no rule expresses, with why."""
    return {n: r.reason for n, r in TABLE.items() if r.family in ("untyped", "higher_order")}


# jnp.finfo(dtype) (ml_dtypes.finfo): its min, max, eps, epsneg, tiny,
# resolution, smallest_normal and smallest_subnormal are NumPy scalars of the
# dtype's real type (float32 for complex64), which JAX canonicalizes (float64
# is float32 with x64 off) and treats as strongly typed.  Not for the 4- and
# 6-bit floats, whose eps and epsneg are Python floats (weakly typed).
def finfo_node(node: str, v: Variant = DEFAULT) -> str | None:
    """The node of ``jnp.finfo(node)``'s values in this configuration, or None
    when finfo raises for it (not a float) or its values are of several
    dtypes."""
    if node not in lattice.FLOATS + lattice.COMPLEXES or node in lattice.FLOAT4 + lattice.FLOAT6:
        return None
    real = _COMPONENT.get(node, node)
    return lattice.canonicalize(real, v.x64)


def scalar_input_is_weak(name: str) -> bool:
    """Whether a Python scalar given as the function's array input is a weakly
    typed value.  jax.random's functions read one otherwise
    (``permutation(key, 20)`` is ``arange(20)``), and jax.image's take no
    scalar (they read the image's ``ndim``, which a Python scalar lacks)."""
    return not name.startswith(("jax.random.", "jax.image."))


# --------------------------------------------------------------------- table
# The table is data: jaxtypes/functions.csv, one row per public JAX function,
# sorted by name, read here with the standard library's csv (and read the same
# way by tools/oracle/make_function_tables.py, which probes JAX for the rows
# with a kind and imports nothing of jaxtypes).  An empty cell is the default.
#
#   name             the function's qualified name: jax.numpy.add
#   kind             how the oracle calls it, i.e. its array arguments, in
#                    the order they are the inputs of ``result``; empty: not
#                    probed (an untyped function, with its reason):
#     x    one array, the first positional parameter
#     xy   two arrays, the first two positional parameters
#     cxy  a condition, then two arrays (where): the inputs are the two arrays
#     d    no array: the ``dtype=`` argument decides
#     xd   one array, the first positional parameter, and ``dtype=``
#     kd   a PRNG key, the first positional parameter, and ``dtype=``
#     k    a PRNG key only;   n  no array argument
#     (xyd: two arrays and ``preferred_element_type=``, a second probe only)
#   input_position   where the array is when it is not the first positional
#                    parameter (compress(condition, a): 1)
#   dtype_position   where dtype is a positional-only parameter (astype(x,
#                    dtype, /): 1); mypy gives such a parameter no name
#   dtype_probe      yes: probed a second time with ``dtype=`` (kind xd),
#                    as the oracle's ``NAME(dtype=)`` (sum, mean...)
#   preferred        yes: the stubs type ``preferred_element_type=`` for two
#                    arrays of one of ``PREFERRED_RESULTS``' dtypes, probed
#                    as ``NAME(preferred_element_type=)`` (kind xyd)
#   family ... others   the ``Rule``: its family and parameters (tuples
#                    space-separated; args ``-`` is no input, empty every
#                    input; keep_weak ``no`` is False, bool_as_int ``yes`` True)
#   reason           why a function is untyped, or what ``unknown`` covers
#   several_results  a typed function whose results JAX gives in dtypes that
#                    depend on the inputs, so that no ``others`` says them:
#                    how they differ.  The rule gives the first result only;
#                    the stubs leave its return as JAX declares it, and the
#                    mypy plugin answers Array[Any] for its results
#   neutral          parameters of this function only that do not change the
#                    result's dtype though they may be arrays or numbers
#                    (jnp.repeat's ``repeats``, lax.integer_pow's exponent
#                    ``y``): the stubs leave them as JAX declares them and the
#                    mypy plugin does not read them as operands
#   two_scalars      yes: two Python scalars (``jnp.maximum(t, 1e-6)``) give
#                    the rule's answer for their weak nodes, eagerly and under
#                    jit, so the stubs type that call (tests/test_two_scalars.py
#                    runs JAX on each).  Not for the functions that need
#                    arrays (concatenate, matmul) or compute from the values
#                    (power's integer exponent keeps a weak type, hypot's too)
#   choices          a parameter whose value picks the rule, for a function
#                    whose result JAX computes one way or another by it
#                    (jax.image.resize's ``method``): the parameter's name,
#                    then each value JAX accepts, ``VALUE`` for the row's
#                    family, ``VALUE=FAMILY`` for another; an enum member as
#                    ``Enum.MEMBER`` (an enum of the function's module:
#                    ``ResizeMethod.NEAREST``).  Each is probed as
#                    ``NAME(PARAM=VALUE)`` (``probe_rule``); a call passing
#                    another value, or one not known where it is written (a
#                    ``str`` variable), is unknown (``Choice``)
#   note             a comment for readers; nothing reads it
#
# Each row's family was chosen by running JAX (tools/oracle/
# make_function_tables.py; ``python -m tools.classify_functions NAME`` tries
# every family on JAX's answers and proposes the rows that fit) and is checked
# against every answer by tests/test_function_rules.py.  ``rejects`` lists the
# nodes JAX refuses beyond the family's rule (mostly the sub-byte ints and the
# 4- and 6-bit floats).
TABLE_FILE: Final = "functions.csv"  # in this package
COLUMNS: Final = (
    "name",
    "kind",
    "input_position",
    "dtype_position",
    "dtype_probe",
    "preferred",
    "family",
    "args",
    "keep_weak",
    "accepts",
    "default",
    "fixed",
    "bool_as_int",
    "bool_as",
    "scalar",
    "rejects",
    "input_rejects",
    "unknown",
    "others",
    "reason",
    "several_results",
    "neutral",
    "two_scalars",
    "choices",
    "note",
)
KINDS: Final = ("x", "xy", "cxy", "d", "xd", "xyd", "kd", "k", "n")
# The second probes a row's flag asks for: (the probe's suffix, its kind).
DTYPE_PROBE: Final = ("(dtype=)", "xd")
PREFERRED_PROBE: Final = ("(preferred_element_type=)", "xyd")
_FLAGS: Final = {"": None, "yes": True, "no": False}


class TableError(ValueError):
    """A row of jaxtypes/functions.csv that does not parse."""


def _flag(row: Mapping[str, str], column: str, default: bool) -> bool:
    value = row[column]
    if value not in _FLAGS:
        raise TableError(f"{row['name']}: {column} is {value!r}, not yes, no or empty")
    flag = _FLAGS[value]
    return default if flag is None else flag


def _position(row: Mapping[str, str], column: str) -> int | None:
    value = row[column]
    if not value:
        return None
    if not value.isdigit():
        raise TableError(f"{row['name']}: {column} is {value!r}, not a position")
    return int(value)


def parse_rule(row: Mapping[str, str]) -> Rule:
    """The ``Rule`` a table row's rule columns (family ... reason) say."""
    if row["family"] not in FAMILIES:
        raise TableError(f"{row['name']}: no family {row['family']!r}")
    args = row["args"]
    if args == "-":
        positions: tuple[int, ...] | None = ()
    elif args:
        if not all(a.isdigit() for a in args.split()):
            raise TableError(f"{row['name']}: args is {args!r}")
        positions = tuple(int(a) for a in args.split())
    else:
        positions = None
    return Rule(
        row["family"],
        args=positions,
        keep_weak=_flag(row, "keep_weak", True),
        accepts=row["accepts"] or _ALL_KINDS,
        default=row["default"] or None,
        fixed=row["fixed"] or None,
        bool_as_int=_flag(row, "bool_as_int", False),
        scalar=row["scalar"] or None,
        rejects=tuple(row["rejects"].split()),
        reason=row["reason"],
        bool_as=row["bool_as"] or None,
        input_rejects=tuple(row["input_rejects"].split()),
        unknown=tuple(row["unknown"].split()),
        others=tuple(row["others"].split()),
    )


def rule_columns(rule: Rule) -> dict[str, str]:
    """A ``Rule`` as the table's rule columns (``parse_rule``'s inverse)."""
    args = "" if rule.args is None else "-" if rule.args == () else " ".join(map(str, rule.args))
    return {
        "family": rule.family,
        "args": args,
        "keep_weak": "" if rule.keep_weak else "no",
        "accepts": "" if rule.accepts == _ALL_KINDS else rule.accepts,
        "default": rule.default or "",
        "fixed": rule.fixed or "",
        "bool_as_int": "yes" if rule.bool_as_int else "",
        "bool_as": rule.bool_as or "",
        "scalar": rule.scalar or "",
        "rejects": " ".join(rule.rejects),
        "input_rejects": " ".join(rule.input_rejects),
        "unknown": " ".join(rule.unknown),
        "others": " ".join(rule.others),
        "reason": rule.reason,
    }


def read_rows(text: str) -> list[dict[str, str]]:
    """The table's rows (``COLUMNS`` -> cell), checked for their columns."""
    reader = csv.DictReader(io.StringIO(text))
    if tuple(reader.fieldnames or ()) != COLUMNS:
        raise TableError(f"the table's columns are {reader.fieldnames}, not {list(COLUMNS)}")
    rows: list[dict[str, str]] = []
    for row in reader:
        if None in row or any(v is None for v in row.values()):
            raise TableError(f"{row.get('name')}: not {len(COLUMNS)} cells")
        if row["kind"] not in ("", *KINDS):
            raise TableError(f"{row['name']}: no kind {row['kind']!r}")
        rows.append(row)
    return rows


def render_rows(rows: Iterable[Mapping[str, str]]) -> str:
    """The table's text for these rows (as the committed file writes them)."""
    out = io.StringIO()
    fieldnames: list[str] = list(COLUMNS)
    writer = csv.DictWriter(out, fieldnames, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _table_text() -> str:
    return resources.files("jaxtypes").joinpath(TABLE_FILE).read_text(encoding="utf-8")


TABLE: dict[str, Rule] = {}
# How each probed function takes its arrays, as the oracle called it (the
# kinds above; tests/test_function_rules.py checks that the two agree), and
# its second probes (``jax.numpy.sum(dtype=)``: xd).
ARGUMENTS: dict[str, str] = {}
INPUT_POSITION: Final[dict[str, int]] = {}
DTYPE_POSITION: Final[dict[str, int]] = {}
SEVERAL_RESULT_DTYPES: Final[dict[str, str]] = {}
NEUTRAL_PARAMETERS: Final[dict[str, frozenset[str]]] = {}


class Choice(NamedTuple):
    """A parameter whose value picks a function's rule (the ``choices``
    column): ``rules`` maps each value JAX accepts (a string, or an enum
    member spelled ``Enum.MEMBER``) to its rule."""

    param: str
    rules: dict[str, Rule]

    def rule(self, value: str) -> Rule | None:
        """The rule ``value`` picks; None for a value JAX refuses or not listed."""
        return self.rules.get(value)

    def by_rule(self) -> list[tuple[Rule, list[str]]]:
        """(rule, the values that pick it), in the column's order."""
        out: dict[Rule, list[str]] = {}
        for value, rule in self.rules.items():
            out.setdefault(rule, []).append(value)
        return list(out.items())


CHOICES: Final[dict[str, Choice]] = {}
# A choice's probe suffix: ``jax.image.resize(method=nearest)``.
_CHOICE_PROBE: Final = re.compile(r"\((\w+)=([^()]+)\)")


def probe_rule(probe: str) -> Rule:
    """The rule a probe of the oracle checks: the function's, or, for a
    probe of one value of a choice (``jax.image.resize(method=nearest)``),
    the rule that value picks."""
    name, _, suffix = probe.partition("(")
    choice = CHOICES.get(name)
    match = _CHOICE_PROBE.fullmatch("(" + suffix) if suffix else None
    if choice is None or match is None or match.group(1) != choice.param:
        return rule_of(name)
    picked = choice.rule(match.group(2))
    if picked is None:
        raise ValueError(f"{probe}: {match.group(2)!r} is none of {name}'s choices")
    return picked


def choice_probes(name: str) -> list[str]:
    """The probes of a function's choices (none without any)."""
    choice = CHOICES.get(name)
    return [f"{name}({choice.param}={value})" for value in choice.rules] if choice else []


def _choice(row: Mapping[str, str], rule: Rule) -> Choice:
    param, *values = row["choices"].split()
    if not param.isidentifier() or not values:
        raise TableError(f"{row['name']}: choices is {row['choices']!r}, not a parameter and its values")
    rules: dict[str, Rule] = {}
    for token in values:
        value, _, family = token.partition("=")
        if family and family not in FAMILIES:
            raise TableError(f"{row['name']}: choices: no family {family!r}")
        if not value or value in rules:
            raise TableError(f"{row['name']}: choices: {token!r} is empty or given twice")
        rules[value] = rule._replace(family=family) if family else rule
    return Choice(param, rules)


def _load(text: str) -> None:
    preferred: set[str] = set()
    for row in read_rows(text):
        name = row["name"]
        if name in TABLE:
            raise TableError(f"{name}: two rows")
        TABLE[name] = parse_rule(row)
        if row["kind"]:
            ARGUMENTS[name] = row["kind"]
        for column, (suffix, kind) in (("dtype_probe", DTYPE_PROBE), ("preferred", PREFERRED_PROBE)):
            if _flag(row, column, False):
                ARGUMENTS[name + suffix] = kind
        if (i := _position(row, "input_position")) is not None:
            INPUT_POSITION[name] = i
        if (i := _position(row, "dtype_position")) is not None:
            DTYPE_POSITION[name] = i
        if _flag(row, "preferred", False):
            preferred.add(name)
        if row["several_results"]:
            SEVERAL_RESULT_DTYPES[name] = row["several_results"]
        if row["neutral"]:
            NEUTRAL_PARAMETERS[name] = frozenset(row["neutral"].split())
        if _flag(row, "two_scalars", False):
            _TWO_SCALARS.add(name)
        if row["choices"]:
            CHOICES[name] = _choice(row, TABLE[name])
            for probe in choice_probes(name):
                ARGUMENTS[probe] = row["kind"]
    _PREFERRED.update(preferred)


_PREFERRED: set[str] = set()
_TWO_SCALARS: set[str] = set()
_load(_table_text())
# The functions the stubs type with ``preferred_element_type=`` (the column).
PREFERRED_TYPED: Final = frozenset(_PREFERRED)
# The two-array functions the stubs type for two Python scalars (the column).
TWO_SCALARS_TYPED: Final = frozenset(_TWO_SCALARS)
# Functions whose bounds may be left out or be Python floats, whose rule was
# measured with int bounds (jnp.clip(x, 0, 1)): typed as x.clip is
# (operation_rules.clip), without bounds only where that gives the rule's answer.
BOUNDED_FUNCTIONS: Final = frozenset({"jax.numpy.clip"})
