"""Plain signatures for Array's operators and dtype methods, while mypy analyses the stub.

The shipped stub (``jaxtypes/_array.pyi``) encodes promotion in types that
every checker can solve: each operator is a descriptor attribute
(``__add__: _AddOp``) whose ``__get__`` reads a table of overloads on the
dtype marker.  mypy spends most of its time solving those.  With the plugin,
mypy never sees them: a customize-MRO hook, which mypy runs on a class after
its bases are known and before its body is analysed, swaps the descriptor
statements of ``Array``'s body for the plain definitions below (one signature
each, returning ``Array[Any]``).  mypy then analyses them as if the stub said
so, and the method hooks (operators.py, methods.py) compute each result from
jaxtypes.operation_rules.  Other checkers, and mypy without the plugin, keep the
overloads.

The hook only edits the syntax tree before analysis, so what mypy caches for
``jaxtypes._array`` is what it would cache for a stub written this way.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import AssignmentStmt, ClassDef, Decorator, FuncDef, NameExpr, OverloadedFuncDef, Statement
from mypy.plugin import ClassDefContext

from . import names

__all__ = ["SIGNATURES", "replace_members", "replacement_source"]

_AXIS: Final = "axis: AxisArgument = None"
_DTYPE: Final = "dtype: _DTypeArg = None"


def _signatures() -> dict[str, str]:
    sigs: dict[str, str] = {}
    # The other operand: arrays, Python scalars, NumPy scalars and arrays.
    for name in names.BINARY_METHODS:
        # (A TypeVar, not Any: as the type context of a call given as the
        # operand, ``x - jnp.max(x)``, Any would make mypy solve it for Any.
        # Not one for the NumPy array's scalar type, which kept the dtype of
        # ``x + np.ones(2, np.float32)``: it made mypy 1.5 times slower on
        # operators that fail, 1.2 times on the others; operators.py infers
        # such a call again instead.)
        sigs[name] = (
            f"def {name}(self, other: Array[_T] | complex | np.generic | np.ndarray[Any, Any], /) -> Array[Any]: ..."
        )
    for name in names.REFLECTED_METHODS:
        sigs[name] = f"def {name}(self, other: complex | np.generic, /) -> Array[Any]: ..."
    for name in names.UNARY_METHODS:
        sigs[name] = f"def {name}(self) -> Array[Any]: ..."
    for name in names.REDUCTIONS:  # the parameters of _Reduce.__call__
        sigs[name] = (
            f"def {name}(self, {_AXIS}, {_DTYPE}, out: None = None, keepdims: bool = False, "
            "initial: Any = None, where: Any = None, promote_integers: bool = True) -> Array[Any]: ..."
        )
    sigs["mean"] = (  # _Mean.__call__
        f"def mean(self, {_AXIS}, {_DTYPE}, out: None = None, keepdims: bool = False, *, "
        "where: Any = None) -> Array[Any]: ..."
    )
    for name in names.VARIANCES:  # VarTo.var, StdTo.std
        sigs[name] = (
            f"def {name}(self, {_AXIS}, {_DTYPE}, out: None = None, ddof: int = 0, keepdims: bool = False, *, "
            "where: Any = None, correction: int | float | None = None) -> Array[Any]: ..."
        )
    for name in ("max", "min"):  # _Extremum.__call__
        sigs[name] = (
            f"def {name}(self, {_AXIS}, out: None = None, keepdims: bool = False, "
            "initial: Any = None, where: Any = None) -> Array[Any]: ..."
        )
    for name in ("argmax", "argmin"):  # _ArgExtremum.__call__
        sigs[name] = (
            f"def {name}(self, axis: int | None = None, out: None = None, "
            "keepdims: bool | None = None) -> Array[Any]: ..."
        )
    sigs["clip"] = "def clip(self, min: Any = None, max: Any = None) -> Array[Any]: ..."
    sigs["round"] = "def round(self, decimals: int = 0, out: None = None) -> Array[Any]: ..."
    sigs[names.ITEM] = "def item(self, *args: int) -> Any: ..."
    sigs[names.ASTYPE] = "def astype(self, dtype: _DTypeArg, copy: bool = False, device: Any = None) -> Array[Any]: ..."
    for name in names.PROPERTIES:
        sigs[name] = f"@property\ndef {name}(self) -> Array[Any]: ..."
    return sigs


SIGNATURES: Final = _signatures()


def _member_name(stmt: Statement) -> str | None:
    if isinstance(stmt, AssignmentStmt) and len(stmt.lvalues) == 1:
        lvalue = stmt.lvalues[0]
        return lvalue.name if isinstance(lvalue, NameExpr) else None
    if isinstance(stmt, (FuncDef, OverloadedFuncDef, Decorator)):
        return stmt.name
    return None


def _is_original(stmt: Statement) -> bool:
    """Whether a member statement is the stub's own (not already replaced).

    The stub declares these members as descriptor attributes, overloads, or
    functions with an annotated ``self``; the replacements never annotate self.
    """
    if isinstance(stmt, (AssignmentStmt, OverloadedFuncDef)):
        return True
    func = stmt.func if isinstance(stmt, Decorator) else stmt
    if isinstance(func, FuncDef) and func.arguments:
        return func.arguments[0].type_annotation is not None
    return False


def replacement_source(placed: list[tuple[int, str]]) -> str:
    """A stub class ``Array`` holding the given definitions, each starting on
    (or as near as it can after) the given line, so that mypy's notes that
    point into the stub point at the member they replace."""
    lines = ["class Array:"]
    for line, text in sorted(placed):
        while len(lines) < line - 1:
            lines.append("")
        lines.extend("    " + part for part in text.splitlines())
    return "\n".join(lines) + "\n"


def _parse_class_body(source: str, ctx: ClassDefContext) -> list[Statement]:
    from mypy.errors import Errors
    from mypy.fastparse import parse

    options = ctx.api.options
    try:
        errors = Errors(options)
    except TypeError:  # mypy before 1.5
        errors = Errors()  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]  # its old signature
    module = ctx.cls.fullname.rsplit(".", 1)[0]
    tree = parse(source, module.replace(".", "/") + ".pyi", module, errors, options)
    if errors.is_errors():
        raise RuntimeError("the replacement signatures do not parse")
    (cls,) = tree.defs
    assert isinstance(cls, ClassDef)  # the source is one class (replacement_source)
    return list(cls.defs.body)


def replace_members(ctx: ClassDefContext) -> None:
    """The customize-MRO hook of ``jaxtypes._array.Array``, and of
    ``jax._src.basearray.Array`` in the stubs of ``jaxtypes jax-stubs`` (idempotent)."""
    body = ctx.cls.defs.body
    found: dict[str, Statement] = {}
    for stmt in body:
        name = _member_name(stmt)
        if name in SIGNATURES and _is_original(stmt):
            found[name] = stmt
    if not found:
        return
    # An overloaded member starts at its first decorator; place the new one there.
    placed = [(stmt.line, SIGNATURES[name]) for name, stmt in found.items()]
    new = {_member_name(s): s for s in _parse_class_body(replacement_source(placed), ctx)}
    ctx.cls.defs.body = [
        new[name] if (name := _member_name(stmt)) in found and found[name] is stmt else stmt for stmt in body
    ]
