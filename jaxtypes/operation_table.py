"""Array's typed operations, in one table: their names, JAX's rule for each, and
where the generated stubs put them.

An operation is named by its Python stem: ``add`` for ``x + y`` (``__add__``,
reflected ``__radd__``), ``lt`` for ``x < y``, ``neg`` for ``-x``, ``getitem``
for ``x[i]``, ``sum`` for ``x.sum()``, ``real`` for ``x.real``.  Its ``rule``
names the JAX code path ``jaxtypes.operation_rules`` follows to compute its dtype; its
``family`` is the promotion table of the generated stubs it shares with the
operations that always give the same answers (``+`` and ``*`` read one table).

Everything that lists operations reads them here: ``jaxtypes.operation_rules`` (the
answers), ``jaxtypes._array`` (the runtime class's operators),
``jaxtypes._stubgen.package_stubs`` (the stubs), the mypy plugin (the members it hooks) and
the JAX-stub generator (the members of jax.Array it replaces).  Standard
library only: the mypy plugin imports it.
"""

from __future__ import annotations

from typing import Final, Literal, NamedTuple

__all__ = [
    "Kind",
    "Operation",
    "OPERATIONS",
    "BY_NAME",
    "of_kind",
    "with_rule",
    "BINARY",
    "COMPARISONS",
    "UNARY",
    "METHODS",
    "SYMBOLS",
    "BINARY_RULES",
    "RULES",
]

# binary: x <op> y and y <op> x; comparison: x <op> y (reflected by Python as the
# mirrored comparison); unary: <op> x; index: x[i]; method: x.<name>(...);
# property: x.<name>.
Kind = Literal["binary", "comparison", "unary", "index", "method", "property"]
_DUNDER_KINDS: Final = ("binary", "comparison", "unary", "index")


class Operation(NamedTuple):
    """One operation of Array whose result dtype jaxtypes computes."""

    name: str
    kind: Kind
    symbol: str  # how a message writes it: "+", "//", "abs", "sum"
    rule: str  # the JAX code path jaxtypes.operation_rules follows (see RULES)
    # The stubs' promotion table it shares with operations that give the same
    # answers; for a method, the generic class its table is, named after it
    # ("" where the stub declares the member itself).
    family: str = ""
    # How the stubs name it where JAX rejects it for a dtype: in a class name
    # (NegationNotSupportedForBool) and in that class's docstring.
    title: str = ""
    text: str = ""

    @property
    def member(self) -> str:
        """Array's member: ``__add__``, ``__neg__``, ``__getitem__``, ``sum``, ``real``."""
        return f"__{self.name}__" if self.kind in _DUNDER_KINDS else self.name

    @property
    def reflected_member(self) -> str | None:
        """``__radd__`` for a binary operator, else None."""
        return f"__r{self.name}__" if self.kind == "binary" else None

    @property
    def written(self) -> str:
        """How code writes it, on an array ``x`` (and ``y``): ``x + y``, ``-x``,
        ``abs(x)``, ``x[i]``, ``x.sum()``, ``x.real``."""
        if self.kind in ("binary", "comparison"):
            return f"x {self.symbol} y"
        if self.kind == "unary":
            return f"{self.symbol}(x)" if self.symbol.isalpha() else f"{self.symbol}x"
        if self.kind == "index":
            return "x[i]"
        return f"x.{self.name}()" if self.kind == "method" else f"x.{self.name}"

    @property
    def class_title(self) -> str:
        return self.title or self.name.title()

    @property
    def description(self) -> str:
        return self.text or self.name


# What each rule does, as jaxtypes.operation_rules computes it (JAX 0.10's code paths).
RULES: Final = {
    "join": "the promoted dtype",
    "matmul": "the promoted dtype, where lax.dot_general accepts the operands",
    "sub": "the promoted dtype; rejected where that is bool",
    "inexact": "the promoted dtype made inexact (bool and integers become float32, 64-bit integers float64)",
    "numeric_no_complex": "the promoted dtype (bool becomes int32); complex is rejected",
    "pow": "the promoted dtype (bool becomes int32); with a Python int exponent, or an "
    "integer one and an inexact base, the base's dtype",
    "bitwise": "the promoted dtype; floats and complex are rejected",
    "shift": "the promoted dtype (bool becomes int32); floats and complex are rejected",
    "compare": "bool",
    "neg": "the dtype; bool is rejected",
    "pos": "the dtype",
    "abs": "the dtype, a complex one's component; sub-byte signed integers are rejected",
    "invert": "the dtype; floats and complex are rejected",
    "same_dtype": "the dtype (and weakness)",
    "reduce": "the dtype, with bool and integers narrower than the default integer "
    "widened to it (int8 to int32, uint8 to uint32) and sub-byte integers "
    "rejected; with promote_integers=False, the dtype (bool becomes int32)",
    "mean": "the dtype made inexact",
    "variance": "the dtype made inexact, a complex one's real component",
    "extremum": "the dtype (strongly typed)",
    "arg_extremum": "the default integer; complex is rejected",
    "to_bool": "bool",
    "clip": "the dtype promoted with the bounds; complex is rejected",
    "round": "the dtype; bool is rejected",
    "component": "the dtype, a complex one's component",
}

OPERATIONS: Final[tuple[Operation, ...]] = (
    # Binary operators, in the order of the stubs' tables.
    Operation("add", "binary", "+", "join", "add"),
    Operation("mul", "binary", "*", "join", "add"),
    Operation("matmul", "binary", "@", "matmul", "matmul"),
    Operation("sub", "binary", "-", "sub", "sub"),
    Operation("truediv", "binary", "/", "inexact", "truediv"),
    Operation("floordiv", "binary", "//", "numeric_no_complex", "floordiv"),
    # apart from floordiv: they differ for 64-bit arrays with x64 off
    Operation("mod", "binary", "%", "numeric_no_complex", "mod"),
    Operation("pow", "binary", "**", "pow", "pow"),
    Operation("and", "binary", "&", "bitwise", "bitwise"),
    Operation("or", "binary", "|", "bitwise", "bitwise"),
    Operation("xor", "binary", "^", "bitwise", "bitwise"),
    Operation("lshift", "binary", "<<", "shift", "shift"),
    Operation("rshift", "binary", ">>", "shift", "shift"),
    Operation("lt", "comparison", "<", "compare", "compare"),
    Operation("le", "comparison", "<=", "compare", "compare"),
    Operation("gt", "comparison", ">", "compare", "compare"),
    Operation("ge", "comparison", ">=", "compare", "compare"),
    Operation("eq", "comparison", "==", "compare", "compare"),
    Operation("ne", "comparison", "!=", "compare", "compare"),
    Operation("neg", "unary", "-", "neg", "neg", "Negation", "unary -"),
    Operation("pos", "unary", "+", "pos", "pos", "UnaryPlus", "unary +"),
    Operation("abs", "unary", "abs", "abs", "abs"),
    Operation("invert", "unary", "~", "invert", "invert", "BitwiseInvert", "~ (bitwise invert)"),
    Operation("T", "property", "T", "same_dtype"),
    Operation("reshape", "method", "reshape", "same_dtype"),
    Operation("transpose", "method", "transpose", "same_dtype"),
    Operation("getitem", "index", "[]", "same_dtype"),
    Operation("conj", "method", "conj", "same_dtype"),
    Operation("sum", "method", "sum", "reduce", "SumTo"),
    Operation("prod", "method", "prod", "reduce", "ProdTo"),
    Operation("mean", "method", "mean", "mean", "MeanTo"),
    Operation("var", "method", "var", "variance", "VarTo"),
    Operation("std", "method", "std", "variance", "StdTo"),
    Operation("max", "method", "max", "extremum", "MaxTo"),
    Operation("min", "method", "min", "extremum", "MinTo"),
    Operation("argmax", "method", "argmax", "arg_extremum", "ArgmaxTo"),
    Operation("argmin", "method", "argmin", "arg_extremum", "ArgminTo"),
    Operation("all", "method", "all", "to_bool"),
    Operation("any", "method", "any", "to_bool"),
    Operation("clip", "method", "clip", "clip"),
    Operation("round", "method", "round", "round", "RoundTo"),
    Operation("real", "property", "real", "component", "real"),
    Operation("imag", "property", "imag", "component", "imag"),
)

BY_NAME: Final = {op.name: op for op in OPERATIONS}


def of_kind(*kinds: Kind) -> tuple[Operation, ...]:
    """The operations of these kinds, in the table's order."""
    return tuple(op for op in OPERATIONS if op.kind in kinds)


def with_rule(*rules: str) -> tuple[Operation, ...]:
    """The operations following these rules, in the table's order."""
    for rule in rules:
        if rule not in RULES:
            raise ValueError(f"unknown rule {rule!r}; expected one of: {', '.join(RULES)}")
    return tuple(op for op in OPERATIONS if op.rule in rules)


BINARY: Final = tuple(op.name for op in of_kind("binary"))
COMPARISONS: Final = tuple(op.name for op in of_kind("comparison"))
UNARY: Final = tuple(op.name for op in of_kind("unary"))
# Everything jaxtypes.operation_rules.method answers: methods, properties and indexing.
METHODS: Final = tuple(op.name for op in of_kind("property", "index", "method"))
SYMBOLS: Final = {op.name: op.symbol for op in of_kind("binary", "comparison", "unary")}
BINARY_RULES: Final = {op.name: op.rule for op in of_kind("binary")}
