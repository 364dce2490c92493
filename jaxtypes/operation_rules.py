"""The dtype each array operation gives, as JAX computes it, from the lattice.

An operand is a marker node: a dtype name for an array of that dtype, or a
weak node (``i*``, ``f*``, ``c*``) for a weakly typed value (a Python scalar or
one of JAX's weak arrays).  Python ``bool`` is the strong ``bool``.  Each rule
mirrors the JAX code path of the operation (``jax._src.numpy.ufuncs``,
``reductions``, ``array_methods`` of JAX 0.10): promote the operands with
``lattice.lattice_result_type``, then apply what the operation does to that
dtype.  The answer is an ``Outcome``: the result's marker node, or an error.

The stub generator, the generated typecheck cases and the mypy plugin all ask
this module; tests check it against JAX's observed answers.
"""

from __future__ import annotations

import functools
from typing import Final, Literal, NamedTuple, Tuple, Union

from jaxtypes import lattice, operation_table
from jaxtypes.lattice import Variant

__all__ = [
    "Outcome",
    "ErrorKind",
    "BINARY_OPERATORS",
    "COMPARISONS",
    "UNARY_OPERATORS",
    "METHODS",
    "SAME_DTYPE_METHODS",
    "SYMBOLS",
    "binary",
    "unary",
    "method",
    "item_type",
    "operand",
    "numpy_operand",
    "marker_node",
    "DEFAULT",
    "clip",
    "FLOAT_PRECISION",
    "COMPONENT",
    "TO_INEXACT",
    "no_join",
    "unsupported",
    "promote_integer_dtype",
]

DEFAULT: Final = Variant("standard", False)  # JAX's default configuration

ErrorKind = Literal["promotion", "unsupported"]


class Outcome(NamedTuple):
    """A result marker node, or an error (kind and JAX's reason)."""

    node: str | None
    error: ErrorKind | None = None
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.node is not None


# The operations, from jaxtypes.operation_table: Python operator name (without
# underscores) -> the JAX rule that computes it; comparisons; unary operators;
# methods and properties; how messages write each operator.
BINARY_OPERATORS: Final = operation_table.BINARY_RULES
COMPARISONS: Final = operation_table.COMPARISONS
SYMBOLS: Final = operation_table.SYMBOLS
UNARY_OPERATORS: Final = operation_table.UNARY
# Methods and properties whose result keeps the operand's dtype and weakness.
SAME_DTYPE_METHODS: Final = tuple(op.name for op in operation_table.with_rule("same_dtype"))
METHODS: Final = operation_table.METHODS

_INTS: Final = frozenset(lattice.UNSIGNED_INTS + lattice.SIGNED_INTS)
_SUB_BYTE_INTS: Final = frozenset(lattice.INTN)
# jax._src.dtypes._dtype_to_inexact: bool and ints of up to 32 bits (and the
# 4-bit ones) become float32 whatever x64 says; the 64-bit ints float64.
TO_INEXACT: Final = {
    "bool": "float32",
    "uint4": "float32",
    "int4": "float32",
    "uint8": "float32",
    "int8": "float32",
    "uint16": "float32",
    "int16": "float32",
    "uint32": "float32",
    "int32": "float32",
    "uint64": "float64",
    "int64": "float64",
}
# A complex dtype's component (real, imag, abs).
COMPONENT: Final = {"complex64": "float32", "complex128": "float64"}


def operand(node: str, v: Variant) -> tuple[str, bool]:
    """The (dtype node, weak) JAX sees for a value typed by a marker node.

    A weak node is the weakly typed value JAX makes in this configuration (its
    kind's default dtype).  A 64-bit node with x64 off is an array made while
    x64 was on: it keeps its dtype (see ``_kept_64_bit``)."""
    if node in lattice.WEAK:
        return lattice.default_dtype(node[0], v.x64), True
    lattice.kind(node)  # validates the name
    return node, False


def numpy_operand(dtype: str, v: Variant = DEFAULT) -> str:
    """The node of a NumPy scalar or array of ``dtype`` as an operand: JAX
    takes it as a strongly typed array of its dtype, canonicalized (with x64
    off, ``np.float64(1)`` is a float32)."""
    if dtype in lattice.WEAK:
        raise ValueError(f"a NumPy value has a dtype, not {dtype!r}; expected one of: {', '.join(lattice.STRONG)}")
    return lattice.canonicalize(dtype, v.x64)


def marker_node(dtype: str, weak: bool) -> str:
    """The marker node typing a JAX result of this dtype and weakness."""
    return lattice.jax_type(dtype, weak)


def no_join(nodes: tuple[str, ...], v: Variant) -> Outcome:
    """The promotion error of nodes with no join, with JAX's reason."""
    reason = lattice.no_join_reason(nodes, v)
    why = lattice.NO_JOIN_TEXT[reason].why
    if reason == "strict":
        why += "; cast one operand explicitly"
    return Outcome(None, "promotion", f"{', '.join(nodes)}: {why}")


def unsupported(what: str, dtype: str) -> Outcome:
    """The error of an operation JAX rejects for a dtype."""
    return Outcome(None, "unsupported", f"{what} does not accept dtype {dtype}")


# (max exponent, mantissa bits) of each float, as ml_dtypes.finfo gives them:
# lax.dot_general ranks operand types by them (tests check them against finfo).
FLOAT_PRECISION: Final = {
    "float4_e2m1fn": (3, 1),
    "float6_e2m3fn": (3, 3),
    "float6_e3m2fn": (5, 2),
    "float8_e3m4": (4, 4),
    "float8_e4m3": (8, 3),
    "float8_e8m0fnu": (128, 0),
    "float8_e4m3b11fnuz": (5, 3),
    "float8_e4m3fn": (9, 3),
    "float8_e4m3fnuz": (8, 3),
    "float8_e5m2": (16, 2),
    "float8_e5m2fnuz": (16, 2),
    "bfloat16": (128, 7),
    "float16": (16, 10),
    "float32": (128, 23),
    "float64": (1024, 52),
}


def _bit_width(dtype: str) -> int:
    """lax._bit_width: a complex counts its component's bits, bool one bit."""
    if dtype == lattice.BOOL:
        return 1
    return lattice.bits(COMPONENT.get(dtype, dtype)) or 0


def _dot_precision(dtype: str) -> tuple[bool, int, int, int, bool]:
    """lax.dot_general's ranking of an operand type (XLA's HigherPrecisionType)."""
    real = COMPONENT.get(dtype, dtype)
    maxexp, nmant = FLOAT_PRECISION.get(real, (-1, -1))
    return (dtype in COMPONENT, maxexp, nmant, _bit_width(real), lattice.kind(real) != "u")


def _kept_64_bit(dtype: str, v: Variant) -> bool:
    """A 64-bit dtype with x64 off: only an array made while x64 was on has it,
    and JAX keeps it only where every operand has that very dtype (any other
    promotion canonicalizes).  JAX's code then computes in 32 bits wherever it
    requests a dtype explicitly (``lax.convert_element_type``, ``astype``,
    ``preferred_element_type``: canonicalized, as jax_explicit_x64_dtypes='warn',
    the default, truncates) or mixes in a constant it makes (a 32-bit one)."""
    return dtype != lattice.canonicalize(dtype, v.x64)


def _matmul(dtype: str, weak: bool, operands: tuple[str, str], v: Variant) -> Outcome:
    """jnp.matmul of arrays (``binary`` refuses a scalar first): it asks
    lax.dot_general for the promoted dtype as preferred_element_type, which
    dot_general canonicalizes and checks against the operands as given; the
    result is then cast to the promoted dtype."""
    left, right = operands
    lp, rp = _dot_precision(left), _dot_precision(right)
    if lp == rp and left != right:
        return unsupported(f"'@' between {left} and {right} (lax.dot_general)", dtype)
    natural = left if lp >= rp else right
    preferred = lattice.canonicalize(dtype, v.x64)
    if lattice.kind(natural) != "f" and _bit_width(preferred) < _bit_width(natural):
        return unsupported(f"'@' producing {preferred} from a {natural} operand (lax.dot_general)", dtype)
    return Outcome(marker_node(dtype, weak))


def _kept_64_bit_binary(op: str, dtype: str, v: Variant) -> Outcome | None:
    """``x <op> y`` where both have the 64-bit dtype ``dtype`` and x64 is off:
    the operators whose JAX code mixes in a 32-bit constant (None: the others,
    which keep the dtype)."""
    k = lattice.kind(dtype)
    symbol = SYMBOLS[op]
    if op == "floordiv":
        if k == "i":
            # jnp.floor_divide: where(select, quotient - 1, quotient); the Python 1
            # makes quotient - 1 32-bit, and where promotes the two.
            narrow = lattice.canonicalize(dtype, v.x64)
            if v.mode == "strict":
                return Outcome(
                    None,
                    "promotion",
                    f"{narrow}, {dtype}: '//' of {dtype} arrays with x64 off joins "
                    "its 32-bit partial result with the 64-bit one, which "
                    "jax_numpy_dtype_promotion=strict refuses",
                )
            return Outcome(narrow)
        if k == "f":  # _float_divmod: lax.select of a float64 and a float32 value
            return unsupported(f"'{symbol}' with x64 off (a 32-bit constant inside)", dtype)
    if op == "mod" and k in "iuf":  # jnp.remainder: lax.ne(x, 0) with a 32-bit 0
        return unsupported(f"'{symbol}' with x64 off (a 32-bit constant inside)", dtype)
    if op == "pow" and k in "iu":  # jnp.power's integer path: lax.eq with a 32-bit constant
        return unsupported(f"'{symbol}' between arrays with x64 off (a 32-bit constant inside)", dtype)
    return None


@functools.lru_cache(maxsize=None)
def _promote_pair(a: str, a_weak: bool, b: str, b_weak: bool, v: Variant) -> Union[Tuple[str, bool], lattice.NoJoin]:
    """``lattice_result_type`` of two operands, memoised: every binary operator
    promotes alike, and a type checker asks about the same pairs again and
    again.  A missing join is returned (and so memoised), not raised."""
    try:
        return lattice.lattice_result_type([(a, a_weak), (b, b_weak)], v)
    except lattice.NoJoin as err:
        return err.with_traceback(None)


def binary(
    op: str,
    a: str,
    b: str,
    v: Variant = DEFAULT,
    *,
    a_is_scalar: bool = False,
    b_is_scalar: bool = False,
    a_is_numpy_scalar: bool = False,
    b_is_numpy_scalar: bool = False,
) -> Outcome:
    """``a <op> b`` for marker nodes a, b; ``a_is_scalar``/``b_is_scalar`` say
    that the operand is a Python scalar rather than an array (a weak array of
    the same node promotes alike, but a few operators treat them apart).
    ``a_is_numpy_scalar``/``b_is_numpy_scalar``: a NumPy scalar, strongly
    typed like an array of its dtype (give the dtype JAX makes of it,
    ``numpy_operand``), but 0-d, and an integer one is a Python index."""
    rule = BINARY_OPERATORS.get(op)
    if rule is None and op not in COMPARISONS:
        raise ValueError(
            f"unknown operator {op!r}; expected one of: {', '.join(list(BINARY_OPERATORS) + list(COMPARISONS))}"
        )
    (a_dtype, a_weak), (b_dtype, b_weak) = operand(a, v), operand(b, v)
    if rule == "matmul" and (a_is_scalar or b_is_scalar or a_is_numpy_scalar or b_is_numpy_scalar):
        # jnp.matmul checks its operands' ndim before it promotes them.
        array_dtype = b_dtype if a_is_scalar or a_is_numpy_scalar else a_dtype
        return unsupported("'@' (a scalar is 0-d; matmul needs 1-d or more)", array_dtype)
    if rule == "pow" and (
        (b_is_scalar and b in (lattice.WEAK_INT, lattice.BOOL)) or (b_is_numpy_scalar and lattice.kind(b) in "iu")
    ):
        # x ** <Python int, or a NumPy integer: operator.index takes both>:
        # lax.integer_pow on x alone (no promotion with the exponent, in strict
        # mode too); bool becomes int32 first.
        dtype = "int32" if a_dtype == lattice.BOOL else a_dtype
        return Outcome(marker_node(dtype, a_weak and a_dtype != lattice.BOOL))
    promoted = _promote_pair(a_dtype, a_weak, b_dtype, b_weak, v)
    if isinstance(promoted, lattice.NoJoin):
        return no_join(promoted.nodes, v)
    dtype, weak = promoted
    k = lattice.kind(dtype)
    symbol = SYMBOLS[op]
    if rule is None:  # a comparison
        return Outcome(lattice.BOOL)
    if rule == "matmul":
        return _matmul(dtype, weak, (a_dtype, b_dtype), v)
    if _kept_64_bit(dtype, v):
        kept = _kept_64_bit_binary(op, dtype, v)
        if kept is not None:
            return kept
    if rule == "sub" and dtype == lattice.BOOL:
        return unsupported(f"'{symbol}' (lax.sub)", dtype)
    if rule == "inexact":
        dtype = TO_INEXACT.get(dtype, dtype)
    elif rule in ("numeric_no_complex", "pow", "shift"):
        if rule != "pow" and k == "c":
            return unsupported(f"'{symbol}'", dtype)
        if rule == "shift" and k == "f":
            return unsupported(f"'{symbol}'", dtype)
        if dtype == lattice.BOOL:  # jax's to_numeric_dtype: bool -> int32, always
            dtype = "int32"
        if rule == "pow":
            if dtype in _SUB_BYTE_INTS and not b_is_scalar:
                # jnp.power of integer arrays needs np.iinfo, which sub-byte ints lack.
                return unsupported(f"'{symbol}' between arrays", dtype)
            if lattice.kind(dtype) in "biu":
                weak = False  # jnp.power's integer path builds a strong result
            elif lattice.kind(a_dtype) in "fc" and lattice.kind(b_dtype) in "iu":
                # an inexact base with an integer exponent: lax.pow(x1, x2) on the
                # operands as given, so the base's dtype (a kept 64-bit one too),
                # weak only if both are
                dtype, weak = a_dtype, a_weak and b_weak
    elif rule == "bitwise" and k not in "biu":
        return unsupported(f"'{symbol}'", dtype)
    return Outcome(marker_node(dtype, weak))


def unary(op: str, a: str, v: Variant = DEFAULT) -> Outcome:
    """``<op> a`` for the unary operators neg, pos, abs and invert."""
    if op not in UNARY_OPERATORS:
        raise ValueError(f"unknown unary operator {op!r}; expected one of: {', '.join(UNARY_OPERATORS)}")
    dtype, weak = operand(a, v)
    k = lattice.kind(dtype)
    if op == "neg" and dtype == lattice.BOOL:
        return unsupported("unary '-' (lax.neg)", dtype)
    if op == "invert" and k not in "biu":
        return unsupported("'~'", dtype)
    if op == "abs":
        if k == "c":
            dtype = COMPONENT[dtype]
        elif k == "i" and dtype in _SUB_BYTE_INTS:
            return unsupported("abs", dtype)
    return Outcome(marker_node(dtype, weak))


def promote_integer_dtype(dtype: str, v: Variant) -> str | None:
    """jax.numpy.sum's promote_integers (JAX's _promote_integer_dtype): narrow
    ints widen to the default (None: JAX raises)."""
    if dtype == lattice.BOOL:
        return lattice.default_dtype("i", v.x64)
    if dtype in _SUB_BYTE_INTS:
        return None  # np.iinfo does not know them: JAX raises
    k = lattice.kind(dtype)
    if k in "iu":
        default = lattice.default_dtype(k, v.x64)
        if (lattice.bits(dtype) or 0) < (lattice.bits(default) or 0):
            return default
    return dtype


_METHOD_RULE: Final = {op.name: op.rule for op in operation_table.of_kind("property", "index", "method")}


def method(name: str, a: str, v: Variant = DEFAULT, *, promote_integers: bool = True) -> Outcome:
    """The dtype of ``a.<name>(...)`` (or the property) for a marker node a;
    ``promote_integers`` is that argument of sum and prod."""
    rule = _METHOD_RULE.get(name)
    if rule is None:
        raise ValueError(f"unknown method {name!r}; expected one of: {', '.join(METHODS)}")
    dtype, weak = operand(a, v)
    k = lattice.kind(dtype)
    if rule == "same_dtype":
        return Outcome(marker_node(dtype, weak))
    if rule == "component":
        return Outcome(marker_node(COMPONENT.get(dtype, dtype), weak))
    if rule == "clip":
        return clip(a, None, v)
    if rule == "round":
        if dtype == lattice.BOOL:
            return unsupported("round", dtype)
        return Outcome(marker_node(dtype, weak))
    # Reductions: the result is strongly typed, and cast (lax.convert_element_type,
    # astype) to a dtype JAX canonicalizes: a kept 64-bit dtype becomes 32-bit.
    if rule == "to_bool":
        return Outcome(lattice.BOOL)
    if rule == "arg_extremum":
        if k == "c":
            return unsupported(name, dtype)
        if _kept_64_bit(dtype, v):
            # lax.argmax's reduction gets 32-bit initial values for a 64-bit operand
            return unsupported(f"{name} with x64 off (lax.reduce with 32-bit initial values)", dtype)
        return Outcome(lattice.default_dtype("i", v.x64))
    if rule == "extremum":
        return Outcome(lattice.canonicalize(dtype, v.x64))
    if rule == "reduce":
        if not promote_integers:
            # The operand's dtype made numeric (bool -> int32, whatever x64 says),
            # canonicalized like every reduction's result.
            return Outcome(lattice.canonicalize("int32" if dtype == lattice.BOOL else dtype, v.x64))
        promoted = promote_integer_dtype(dtype, v)
        if promoted is None:
            return unsupported(name, dtype)
        return Outcome(lattice.canonicalize(promoted, v.x64))
    inexact = lattice.canonicalize(TO_INEXACT.get(dtype, dtype), v.x64)
    if rule == "variance":  # (the mean of squared magnitudes: real)
        if inexact in _SUB_BYTE_INTS:  # (which the mean keeps, and JAX then mixes with a Python float)
            return no_join((inexact, lattice.WEAK_FLOAT), v)
        return Outcome(COMPONENT.get(inexact, inexact))
    assert rule == "mean", rule
    return Outcome(inexact)


def clip(a: str, bound: str | None = None, v: Variant = DEFAULT) -> Outcome:
    """``a.clip(lo, hi)`` where the bounds are of marker node ``bound`` (a Python
    int is i*, a float f*), or absent (None): jnp.clip promotes with them."""
    dtype, weak = operand(a, v)
    if bound is not None:
        try:
            dtype, weak = lattice.lattice_result_type([(dtype, weak), operand(bound, v)], v)
        except lattice.NoJoin as err:
            return no_join(err.nodes, v)
    if lattice.kind(dtype) == "c":
        return unsupported("clip (complex values have no order)", dtype)
    return Outcome(marker_node(dtype, weak))


def item_type(a: str, v: Variant = DEFAULT) -> str:
    """The Python type name ``a.item()`` returns: bool, int, float or complex."""
    dtype, _ = operand(a, v)
    return {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}[lattice.kind(dtype)]
