"""``check_dtypes``: the dtypes of ``Array[DT]`` annotations checked at run time.

The type checkers read ``def f(x: Array[float32]) -> Array[float32]`` with
jaxtypes' stubs; this decorator checks the same annotations when ``f`` is
called, with the same meaning, so that the two never disagree:

* an argument or result annotated ``Array[DT]`` (jaxtypes' ``Array`` or, with
  the JAX stubs, ``jax.Array[DT]``) must be a JAX array or tracer whose dtype is
  DT and which is not weakly typed; ``Array[weak_float]`` (``weak_int``,
  ``weak_complex``) one that is weakly typed, of that kind.  A Python scalar or
  a NumPy array is no ``Array`` (the checkers refuse it too); bare ``Array``,
  ``Array[Any]`` and a TypeVar check only that;
* jaxtyping's annotations mean what the mypy plugin reads in them
  (``Float32[Array, "n"]`` is ``Array[float32]``, a category such as
  ``Float[Array, "n"]`` any array), and ``Annotated[Array[DT], ...]`` is
  ``Array[DT]``; shapes are left to jaxtyping;
* ``X | None`` and unions of such annotations, and ``tuple[...]`` of them
  (results of several arrays), are checked member by member; any other
  annotation is not checked here (that is a runtime type checker's job:
  beartype, typeguard).

Inside ``jax.jit`` and ``jax.vmap`` (the decorator under them) the values are
tracers, which carry their dtype and weak type as arrays do.  A Python scalar
given to a jitted function reaches the function as JAX made it, a weakly
typed array: put ``check_dtypes`` outside ``jax.jit`` to check what the caller
passes.  Weak types: "Type promotion semantics",
https://docs.jax.dev/en/latest/type_promotion.html#weak-types.
"""

from __future__ import annotations

import functools
import inspect
import sys
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final, TypeVar, Union

from jaxtypes import lattice
from jaxtypes._array import Array
from jaxtypes.markers import NODE_OF_MARKER
from jaxtypes.promotion import is_weakly_typed, node_of

__all__ = ["DtypeCheckError", "check_dtypes"]

_F = TypeVar("_F", bound=Callable[..., Any])


class DtypeCheckError(TypeError):
    """An argument or result whose dtype is not the one annotated."""


@dataclass(frozen=True)
class _ArrayCheck:
    """A value that must be an array; of the node ``node`` unless it is None."""

    node: str | None

    def problem(self, value: Any) -> str | None:
        if not _is_array(value):
            return f"got {_describe(value)}"
        if self.node is None:
            return None
        actual = _node_of_value(value)
        return None if actual == self.node else f"got Array[{_marker_name(actual)}], {_describe(value)}"

    def __str__(self) -> str:
        return "Array" if self.node is None else f"Array[{_marker_name(self.node)}]"


@dataclass(frozen=True)
class _UnionCheck:
    """A value that one member accepts; None among the members accepts None."""

    members: tuple[_Check, ...]
    accepts_none: bool

    def problem(self, value: Any) -> str | None:
        if value is None and self.accepts_none:
            return None
        problems = [member.problem(value) for member in self.members]
        return None if None in problems else problems[0]

    def __str__(self) -> str:
        return " | ".join([*map(str, self.members), *(["None"] if self.accepts_none else [])])


@dataclass(frozen=True)
class _TupleCheck:
    """A tuple whose items the checks accept (``tuple[X, ...]``: ``variadic``)."""

    items: tuple[_Check | None, ...]
    variadic: bool

    def problem(self, value: Any) -> str | None:
        if not _is_tuple(value):
            return f"got {_describe(value)}"
        items: tuple[Any, ...] = value
        if not self.variadic and len(items) != len(self.items):
            return f"got a tuple of {len(items)} items"
        for index, item in enumerate(items):
            check = self.items[0] if self.variadic else self.items[index]
            problem = check.problem(item) if check is not None else None
            if problem is not None:
                return f"item {index}: {problem}"
        return None

    def __str__(self) -> str:
        shown = ["..." if item is None else str(item) for item in self.items]
        return f"tuple[{', '.join(shown)}{', ...' if self.variadic else ''}]"


_Check = Union[_ArrayCheck, _UnionCheck, _TupleCheck]


def _marker_name(node: str | None) -> str:
    return "?" if node is None else lattice.MARKER_NAME[node]


def _node_of_value(value: Any) -> str | None:
    """The marker's node an array's type has: its dtype's, or its kind's weak node."""
    node = node_of(value.dtype)
    if node is not None and is_weakly_typed(value) and lattice.kind(node) in "iufc":
        return lattice.weak_node(lattice.kind(node))
    return node


def _is_tuple(value: object) -> bool:
    return isinstance(value, tuple)


def _is_array(value: object) -> bool:
    """A JAX array or tracer (``Array``'s instance check).  (These helpers
    keep a value ``Any`` where ``isinstance`` would make it ``Array[Unknown]``.)"""
    return isinstance(value, Array)


def _describe(value: Any) -> str:
    if _is_array(value):
        weak = ", weakly typed" if is_weakly_typed(value) else ""
        return f"{'a tracer' if _is_tracer(value) else 'an array'} of dtype {value.dtype}{weak}"
    if value is None:
        return "None"
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.ndarray):
        return f"a NumPy {value.dtype} array, not a JAX array"
    return f"a {type(value).__module__.replace('builtins', 'Python')} {type(value).__qualname__}, not a JAX array"


def _is_tracer(value: object) -> bool:
    core = sys.modules.get("jax.core")
    tracer = getattr(core, "Tracer", None)
    return tracer is not None and isinstance(value, tracer)


# ------------------------------------------------------------ annotations


def _jax_array_class() -> Any:
    jax = sys.modules.get("jax")
    return getattr(jax, "Array", None)


def _is_array_class(tp: object) -> bool:
    return tp is Array or (tp is not None and tp is _jax_array_class())


def _marker_node(arg: object) -> str | None:
    """The node of a type argument: a marker's, or None (Any, a TypeVar: any dtype)."""
    if isinstance(arg, type) and arg in NODE_OF_MARKER:
        return NODE_OF_MARKER[arg]
    if arg is Any or isinstance(arg, TypeVar):
        return None
    raise TypeError(f"Array[{arg!r}]: the type argument is not a jaxtypes dtype marker (jaxtypes.float32, ...)")


# jaxtyping's dtype names are numpy's (bool: "bool" and "bool_").
_JAXTYPING_NODE: Final = {**{n: n for n in lattice.STRONG}, "bool_": lattice.BOOL}


def _jaxtyping_check(tp: Any) -> _ArrayCheck | None:
    """jaxtyping's ``Float32[Array, "n"]`` as the plugin reads it: one dtype
    name is that dtype, anything else (a category) any array."""
    array_type = getattr(tp, "array_type", None)
    if not _is_array_class(typing.get_origin(array_type) or array_type):
        return None
    nodes = {_JAXTYPING_NODE.get(name) for name in getattr(tp, "dtypes", ())}
    return _ArrayCheck(nodes.pop() if len(nodes) == 1 else None)  # Bool: ("bool", "bool_")


def _is_jaxtyping_array(tp: object) -> bool:
    module = sys.modules.get("jaxtyping._array_types")
    abstract = getattr(module, "AbstractArray", None)
    return abstract is not None and isinstance(tp, type) and issubclass(tp, abstract)


def _check_of(tp: Any) -> _Check | None:
    """The check an annotation asks for, or None when it asks none of this module."""
    if _is_array_class(tp):
        return _ArrayCheck(None)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if _is_array_class(origin):
        return _ArrayCheck(_marker_node(args[0]))
    if origin is typing.Annotated:
        return _check_of(args[0])
    if _is_jaxtyping_array(tp):
        return _jaxtyping_check(tp)
    if origin is Union or origin is types.UnionType:
        members = [a for a in args if a is not type(None)]
        checks = [_check_of(a) for a in members]
        if not checks or any(c is None for c in checks):
            return None  # a member this module does not check: leave the union to others
        return _UnionCheck(tuple(c for c in checks if c is not None), len(members) < len(args))
    if origin is tuple and args and args != ((),):
        variadic = len(args) == 2 and args[1] is Ellipsis
        items = tuple(_check_of(a) for a in (args[:1] if variadic else args))
        return None if all(i is None for i in items) else _TupleCheck(items, variadic)
    return None


@dataclass(frozen=True)
class _Checks:
    parameters: dict[str, tuple[_Check, inspect.Parameter]]
    result: _Check | None


def _checks_of(fn: Callable[..., Any]) -> _Checks:
    hints = typing.get_type_hints(fn, include_extras=True)
    parameters: dict[str, tuple[_Check, inspect.Parameter]] = {}
    for name, parameter in inspect.signature(fn).parameters.items():
        check = _check_of(hints[name]) if name in hints else None
        if check is not None:
            parameters[name] = (check, parameter)
    return _Checks(parameters, _check_of(hints["return"]) if "return" in hints else None)


def _argument_values(value: Any, parameter: inspect.Parameter) -> Iterator[tuple[str, Any]]:
    """The values bound to a parameter, each with its place (``*args``: ``[0]`` ...)."""
    if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
        yield from ((f"[{i}]", v) for i, v in enumerate(value))
    elif parameter.kind is inspect.Parameter.VAR_KEYWORD:
        yield from ((f"[{k!r}]", v) for k, v in value.items())
    else:
        yield "", value


def check_dtypes(fn: _F) -> _F:
    """Check, at each call, the dtypes of ``fn``'s arguments and result that
    are annotated ``Array[DT]`` (see the module's documentation); a mismatch
    raises ``DtypeCheckError`` naming the parameter, the declared and the
    actual type.  The annotations are read at the first call, so they may name
    what is defined after ``fn``."""
    signature = inspect.signature(fn)
    name = getattr(fn, "__qualname__", repr(fn))

    @functools.cache
    def checks() -> _Checks:
        return _checks_of(fn)

    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> Any:
        found = checks()
        if found.parameters:
            bound = signature.bind(*args, **kwargs)
            for parameter, (check, declared) in found.parameters.items():
                if parameter not in bound.arguments:
                    continue  # a default: the checkers check it where it is written
                for suffix, value in _argument_values(bound.arguments[parameter], declared):
                    problem = check.problem(value)
                    if problem is not None:
                        raise DtypeCheckError(
                            f"{name}(): parameter {parameter!r}{suffix} is declared {check}; {problem}"
                        )
        result = fn(*args, **kwargs)
        if found.result is not None:
            problem = found.result.problem(result)
            if problem is not None:
                raise DtypeCheckError(f"{name}(): the result is declared {found.result}; {problem}")
        return result

    return typing.cast("_F", checked)
