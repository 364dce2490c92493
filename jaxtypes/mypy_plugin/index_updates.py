"""``x.at[i].set(v)`` and ``x.at[i].add(v)`` of a value JAX casts lossily
into the array's dtype: a complex value into a real (or integer, or bool)
array, a floating value into an integer or bool array.  JAX does not raise:
it casts the value to the array's dtype, dropping the imaginary part or the
fraction, and warns ("scatter inputs have incompatible types: cannot safely
cast value", a FutureWarning in JAX 0.10).  A value of a wider dtype of the
same kind (float32 into bfloat16), which JAX warns about too, is not
reported: it loses precision, not a part of the value.

Only values whose dtype is known exactly (each alternative of a union) are
read; the array's dtype is the one ``x.at`` carries (``_IndexUpdateRef[DT]``
of the JAX stubs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from mypy.plugin import MethodContext
from mypy.types import Instance, Type, get_proper_type

from jaxtypes import lattice

from . import errors, names
from .type_nodes import Builder, marker_alts, operands

__all__ = ["index_update_hooks"]

UPDATES: Final = ("set", "add")

# array kind -> the value kinds JAX casts into it losing part of the value
_LOSSY: Final = {"b": ("f", "c"), "u": ("f", "c"), "i": ("f", "c"), "f": ("c",)}
_LOST: Final = {"c": "its imaginary part", "f": "its fraction"}


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _hook(method: str, builder: Builder) -> Callable[[MethodContext], Type]:
    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: MethodContext) -> Type:
        ref = get_proper_type(ctx.type)
        if not isinstance(ref, Instance) or len(ref.args) != 1 or not ctx.arg_types or len(ctx.arg_types[0]) != 1:
            return ctx.default_return_type
        target = marker_alts(ref.args[0])
        values = operands(ctx.arg_types[0][0], builder)
        if target is None or len(target) != 1 or not isinstance(target[0], str) or values is None:
            return ctx.default_return_type
        array = target[0]
        for value in values:
            if not isinstance(value.alt, str):
                continue
            value_kind = lattice.kind(value.alt)
            if value_kind in _LOSSY.get(lattice.kind(array), ()):
                shown, into = errors.display(value.alt, value.scalar), errors.display(array)
                fix = "jnp.real(v)" if value_kind == "c" else "jnp.round(v)"
                errors.report(
                    ctx.api,
                    f"x.at[...].{method}() of a {shown} value into {_article(into)} {into} array drops "
                    f"{_LOST[value_kind]}: JAX casts the value to {into} with at most a warning; "
                    f"cast it explicitly, e.g. {fix}.astype(x.dtype)",
                    ctx.context,
                    errors.JAX_UNSUPPORTED,
                )
                break
        return ctx.default_return_type

    return hook


def index_update_hooks(builder: Builder) -> dict[str, Callable[[MethodContext], Type]]:
    """{method's full name: its hook} for the plugin's method hooks."""
    assert (
        names.JAX_ARRAY.rpartition(".")[0] == names.INDEX_UPDATE_REF.rpartition(".")[0]
    )  # (both in JAX's basearray stub)
    return {f"{names.INDEX_UPDATE_REF}.{method}": _hook(method, builder) for method in UPDATES}
