"""The plugin's error codes and messages, and the guard that keeps its bugs out of mypy.

Error codes (silence one line with ``# type: ignore[jax-promotion]``):

* ``jax-promotion``: operands JAX will not promote implicitly: any mixed-dtype
  promotion under ``promotion = "strict"``, and pairs with no promotion path
  in either mode (float8 with complex, int4 with a float, ...).
* ``jax-unsupported``: an operation JAX rejects for a dtype (``&`` on floats,
  unary ``-`` on bool, ``abs`` of int4, ...).
* ``jax-dtype``: a dtype argument JAX rejects (a weak marker passed as a dtype,
  a non-inexact ``dtype=`` for ``promote_dtype(..., inexact=True)``).
"""

from __future__ import annotations

import functools
import os
from typing import Any, Callable, Final, Iterable, TypeVar, cast

from mypy.errorcodes import ErrorCode
from mypy.errors import ErrorWatcher
from mypy.nodes import Context
from mypy.plugin import CheckerPluginInterface

from jaxtypes import lattice

__all__ = [
    "JAX_PROMOTION",
    "JAX_UNSUPPORTED",
    "JAX_DTYPE",
    "guarded",
    "report",
    "DEBUG_ENV",
    "promotion_message",
    "unsupported_message",
    "display",
]

JAX_PROMOTION: Final = ErrorCode("jax-promotion", "An implicit dtype promotion JAX rejects (jaxtypes)", "jaxtypes")
JAX_UNSUPPORTED: Final = ErrorCode(
    "jax-unsupported", "An operation JAX does not support for a dtype (jaxtypes)", "jaxtypes"
)
JAX_DTYPE: Final = ErrorCode("jax-dtype", "A dtype argument JAX rejects (jaxtypes)", "jaxtypes")

# Set to 1 to let the plugin's own exceptions escape (tests, debugging).
DEBUG_ENV: Final = "JAXTYPES_MYPY_PLUGIN_DEBUG"
_DEBUG: Final = os.environ.get(DEBUG_ENV, "") not in ("", "0")

_C = TypeVar("_C")
_R = TypeVar("_R")


def guarded(fallback: Callable[[Any], _R]) -> Callable[[Callable[[_C], _R]], Callable[[_C], _R]]:
    """Run a hook; if it raises, give mypy ``fallback(ctx)`` (the default answer).

    mypy must never crash because of the plugin: a bug here costs precision,
    not the user's type check.
    """

    def wrap(hook: Callable[[_C], _R]) -> Callable[[_C], _R]:
        @functools.wraps(hook)
        def run(ctx: _C) -> _R:
            try:
                return hook(ctx)
            except Exception:
                if _DEBUG:
                    raise
                return fallback(ctx)

        return run

    return wrap


# While bound_dtypes tries a call once for each dtype of a TypeVar's bound:
# the errors ``report`` would give, held back (each list is one attempt's).
held_reports: list[list[str]] = []


def report(api: CheckerPluginInterface, message: str, context: Context, code: ErrorCode) -> None:
    """Report the plugin's error about a call's arguments where mypy shows it.

    mypy checks a call of an overloaded function (JAX's functions and the
    layers' calls in the stubs) against each overload with its errors held
    back, and takes an overload with an error as one that does not match: a
    hook's error there would make no overload match, and mypy would then
    report the first one's own error (a confusing ``[type-var]``) beside it.
    So where the overload being tried has no error of mypy's own, the
    plugin's error is reported past the held-back errors (mypy drops the
    copies another overload's check makes) and the overload matches, with
    the hook's ``Array[Any]``; where it has one (a wrong argument), the
    plugin's error stays with it.
    """
    if held_reports:
        held_reports[-1].append(message)
        return
    watchers = getattr(getattr(getattr(api, "msg", None), "errors", None), "_watchers", None)
    if not isinstance(watchers, list) or not watchers:
        api.fail(message, context, code=code)
        return
    held = cast("list[ErrorWatcher]", watchers)
    if held[-1].has_new_errors():
        api.fail(message, context, code=code)
        return
    watchers_before = list(held)
    held.clear()
    try:
        api.fail(message, context, code=code)
    finally:
        held[:] = watchers_before


def display(node: str, scalar: bool = False) -> str:
    """How a message names an operand: its dtype (a weak one by its marker), or
    the Python scalar type."""
    if scalar and node in lattice.PYTHON_SCALAR_OF_NODE:
        return lattice.PYTHON_SCALAR_OF_NODE[node].name
    return lattice.MARKER_NAME[node] if node in lattice.WEAK else node


def cast_hint(target: str) -> str:
    return f"x.astype(jaxtypes.{lattice.MARKER_NAME[target]})"


def promotion_message(what: str, operands: Iterable[tuple[str, bool]], v: lattice.Variant) -> str:
    """The message for operands (node, is_python_scalar) with no join under ``v``.

    Under strict promotion it names the cast that fixes it: the dtype standard
    promotion would pick, applied to each array operand of another dtype.
    """
    ops_ = list(dict.fromkeys(operands))
    shown = " and ".join(display(n, s) for n, s in ops_)
    standard = lattice.Variant("standard", v.x64)
    nodes = [n for n, _ in ops_]
    try:
        target, _ = lattice.result_type(
            [(lattice.default_dtype(n[0], v.x64), True) if n in lattice.WEAK else (n, False) for n in nodes], standard
        )
    except (lattice.NoJoin, ValueError):
        target = None
    if v.mode == "strict" and target is not None:
        to_cast = [display(n, s) for n, s in ops_ if not s and n != target]
        who = f"the {to_cast[0]} operand" if len(to_cast) == 1 else "each operand" if to_cast else "the operands"
        return (
            f"Implicit promotion of {shown} in {what} is not allowed under "
            f"jax_numpy_dtype_promotion=strict; cast {who} explicitly, "
            f"e.g. {cast_hint(target)}"
        )
    reason, hint = lattice.NO_JOIN_TEXT[lattice.no_join_reason(nodes, standard)]
    return f"No implicit promotion of {shown} in {what}: {reason}" + (
        f"; cast explicitly, e.g. {cast_hint(hint)}" if hint else "; cast explicitly"
    )


def unsupported_message(jax_message: str) -> str:
    return f"Unsupported dtype for JAX: {jax_message}"
