"""``jax.Array[DT]`` at run time, as the JAX stubs of ``jaxtypes jax-stubs`` type it.

With those stubs ``def f(x: jax.Array[float32])`` type-checks, but JAX's
Array class is not subscriptable: evaluating the annotation (at the ``def``,
or in ``typing.get_type_hints`` for postponed annotations, which dataclasses,
beartype and jaxtyping read) raises "type 'jaxlib._jax.Array' is not
subscriptable".  Once ``import jaxtypes`` has run, JAX's Array class gets a
``__class_getitem__`` (the hook Python calls for ``cls[...]``: "Emulating
generic types", https://docs.python.org/3/reference/datamodel.html#emulating-generic-types),
as soon as JAX has made the class, whichever of the two is imported first;
jaxtypes never imports JAX.

``jax.Array[float32]`` is then ``types.GenericAlias(jax.Array, (float32,))``,
the alias ``list[int]`` is: ``typing.get_origin`` gives ``jax.Array`` and
``typing.get_args`` the marker; ``isinstance(x, jax.Array)`` is unchanged, and
a runtime checker that does not know the dtype argument checks ``jax.Array``
(beartype does so).  An argument every checker refuses there is refused with
a ``TypeError`` (more than one, a value such as a dtype object); JAX's scalar
types (``jax.Array[jnp.float32]``) are their markers, as in the stubs.  jaxtypes' own ``jaxtypes.Array[float32]`` is a
``typing`` generic instead: a ``typing`` alias of a class that is not a
``typing.Generic`` is refused by beartype.
"""

from __future__ import annotations

import sys
import types
import typing
from typing import Any, Final, cast

from jaxtypes.config import when_jax_imported
from jaxtypes.lattice import MARKER_NAME

__all__ = ["install", "installed_on"]

_MARKER_HINT: Final = "a jaxtypes dtype marker (jaxtypes.float32, jaxtypes.weak_float, ...)"


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _is_type_argument(arg: object) -> bool:
    """What typing accepts as a type argument: a class (the markers are
    classes), a TypeVar, Any, a forward reference, or a typing construct
    (a union, ``Annotated[...]``, an alias)."""
    return (
        isinstance(arg, (type, str, typing.TypeVar, typing.ForwardRef))
        or arg is typing.Any
        or typing.get_origin(arg) is not None
    )


def _class_getitem(cls: type, params: object) -> types.GenericAlias:
    args: tuple[object, ...] = cast("tuple[object, ...]", params) if isinstance(params, tuple) else (params,)
    if len(args) != 1:
        raise TypeError(
            f"jax.Array takes one type argument, its dtype: {_MARKER_HINT}; "
            f"got {len(args)}: jax.Array[{', '.join(map(_short, args))}]"
        )
    arg = args[0]
    if isinstance(arg, type) and type(arg).__module__.startswith("jax."):
        # JAX's scalar types (jnp.float32) are the dtype markers in the JAX
        # stubs: the alias holds the marker, as ``jax.Array[jaxtypes.float32]``.
        node = str(getattr(getattr(arg, "dtype", None), "name", ""))
        if node not in MARKER_NAME:
            raise TypeError(f"invalid type argument {_short(arg)} for jax.Array: no dtype marker; use {_MARKER_HINT}")
        from jaxtypes import markers  # (numpy and ml_dtypes: not at import)

        arg = getattr(markers, MARKER_NAME[node])
    if not _is_type_argument(arg):
        raise TypeError(
            f"invalid type argument {_short(arg)} of type {type(arg).__name__} for "
            f"jax.Array; expected its dtype as a type: {_MARKER_HINT}, a TypeVar or Any"
        )
    return types.GenericAlias(cls, (arg,))


_class_getitem.__qualname__ = "Array.__class_getitem__"
_CLASS_GETITEM: Final[classmethod[Any, [object], types.GenericAlias]] = classmethod(_class_getitem)


def _jax_array_class() -> type | None:
    """JAX's Array class once JAX has made it, else None (never imports)."""
    jax = sys.modules.get("jax")
    cls = getattr(jax, "Array", None) if jax is not None else None
    if cls is None:
        # While ``import jax`` runs: jax._src.basearray replaces its Python
        # class by the C++ one, then names it "jax.Array".
        basearray = sys.modules.get("jax._src.basearray")
        cls = getattr(basearray, "Array", None) if basearray is not None else None
        if getattr(cls, "__module__", None) != "jax":
            return None
    return cls if isinstance(cls, type) else None


def installed_on(cls: type) -> bool:
    """Whether jaxtypes' ``__class_getitem__`` is the class's."""
    own: object = cls.__dict__.get("__class_getitem__")
    return own is _CLASS_GETITEM


def install() -> bool:
    """Make JAX's Array class subscriptable, once JAX has made it (True: done,
    or never to be done: JAX subscripts it itself)."""
    cls = _jax_array_class()
    if cls is None:
        return False
    if "__class_getitem__" not in cls.__dict__:
        try:  # jaxlib's ArrayMeta lets class attributes be set
            setattr(cls, "__class_getitem__", _CLASS_GETITEM)
        except (TypeError, AttributeError):  # an immutable class: left as JAX made it
            pass
    return True


when_jax_imported(install)
