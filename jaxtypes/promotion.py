"""The runtime promotion API: JAX's answers, from the shared lattice, without JAX.

Each function mirrors its namesake in ``jax._src.dtypes`` (JAX 0.10): the same
inputs, the same dtype and weak flag, the same error class and message.  The
answers come from ``jaxtypes.lattice``; this module only turns Python inputs
into lattice nodes and nodes back into numpy dtypes, and caches the result per
configuration so that repeated calls are dictionary look-ups.
"""

from __future__ import annotations

import functools
import importlib
import sys
import warnings
from types import FrameType
from typing import TYPE_CHECKING, Any, Final

import ml_dtypes
import numpy as np

from jaxtypes import lattice
from jaxtypes.config import Resolved, State, current_resolved, default_state, process_holder

__all__ = [
    "TypePromotionError",
    "promote_types",
    "result_type",
    "is_weakly_typed",
    "canonicalize_dtype",
    "dtype",
    "node_of",
    "dtype_of_node",
]


class TypePromotionError(ValueError):
    """Raised when JAX type promotion fails (a ValueError, as in JAX).

    With JAX loaded, the error raised is also a ``jax.dtypes.TypePromotionError``,
    so ``except`` clauses written for JAX catch it.
    """


_with_jax_error: dict[type, type] = {}


def _promotion_error(msg: str) -> TypePromotionError:
    """A TypePromotionError that, when JAX is loaded, is JAX's class as well."""
    jd = _jax_dtypes()
    jax_class = getattr(jd, "TypePromotionError", None) if jd is not None else None
    if not (isinstance(jax_class, type) and issubclass(jax_class, ValueError)):
        return TypePromotionError(msg)
    both = _with_jax_error.get(jax_class)
    if both is None:
        both = type(
            "TypePromotionError",
            (TypePromotionError, jax_class),
            {
                "__module__": __name__,
                "__qualname__": "TypePromotionError",
                "__doc__": "jaxtypes' TypePromotionError and JAX's, in a process that runs JAX.",
            },
        )
        both = _with_jax_error.setdefault(jax_class, both)
    return both(msg)  # type: ignore[no-any-return]  # a class made by type(): a TypePromotionError


def _np_dtype(name: str) -> np.dtype | None:
    try:
        return np.dtype(getattr(ml_dtypes, name, None) or name)
    except TypeError:  # an ml_dtypes release without this type
        return None


# Strong nodes that this numpy/ml_dtypes provides, as dtype objects.
_DTYPE_OF: Final[dict[str, np.dtype]] = {n: d for n, d in ((n, _np_dtype(n)) for n in lattice.STRONG) if d is not None}
_NODE_OF: Final[dict[np.dtype, str]] = {dt: n for n, dt in _DTYPE_OF.items()}
_WEAK_TYPE_OF: Final[dict[str, type]] = {
    s.node: s.python_type for s in lattice.PYTHON_SCALARS if s.node in lattice.WEAK
}
_WEAK_NODE_OF_TYPE: Final[dict[type, str]] = {t: n for n, t in _WEAK_TYPE_OF.items()}
# Canonicalization with x64 off (64-bit nodes to 32-bit), as a table.
_X32: Final = {n: lattice.canonicalize(n, False) for n in lattice.NODES}
# JAX's python_scalar_types_to_dtypes.
_PY_SCALAR_NODE: Final[dict[type, str]] = {s.python_type: s.dtype for s in lattice.PYTHON_SCALARS}
# Dtypes outside the lattice that JAX still takes as values (its _jax_dtype_set):
# float0 (the dtype of integer-valued gradients) and numpy's StringDType.  As
# in JAX, one alone (or repeated) is its own result_type; promoting it fails.
_OPAQUE_DTYPES: Final = frozenset(
    [np.dtype([("float0", np.void, 0)])] + ([np.dtypes.StringDType()] if hasattr(np.dtypes, "StringDType") else [])
)
# A ``result_type`` operand: a lattice node name, or (outside the lattice) the
# dtype itself, for the opaque dtypes, non-numeric numpy scalar types
# (np.str_ gives dtype('<U'), as in JAX) and JAX arrays of any other dtype.
_Token = Any
# The readings of arbitrary inputs below (dtype(), result_type()) dispatch on an
# Any.  pyright gives ``type(x)`` of an Any, and an Any narrowed by isinstance
# to numpy's generic dtype or generic, Unknown type arguments where numpy
# declares defaults (mypy: Any); its strict mode then reports each use.  Those
# lines carry a pyright ignore naming the rule ("Unknown from Any").


def _is_weak_type(x: Any) -> bool:
    """Whether ``x`` is one of the types int, float, complex (JAX's weak types).
    Only plain classes qualify: they hash and compare by identity, where
    dtype('int64') == int and jnp.int64 == np.int64."""
    return type(x) is type and x in _WEAK_NODE_OF_TYPE


def node_of(dt: Any) -> str | None:
    """The lattice node of a numpy dtype, or None when it is not a JAX dtype."""
    return _NODE_OF.get(dt)


def _dtype_of_token(node: _Token) -> np.dtype:
    """The dtype of a token; a JAX extended dtype (a PRNG key's) is returned as
    it is, under the annotation np.dtype as in JAX's own ``dtypes.dtype``."""
    return _DTYPE_OF[node] if isinstance(node, str) else node


def dtype_of_node(node: str) -> np.dtype:
    """The numpy dtype of a node; weak nodes give numpy's dtype of int/float/complex."""
    if node in _WEAK_TYPE_OF:
        return np.dtype(_WEAK_TYPE_OF[node])
    try:
        return _DTYPE_OF[node]
    except KeyError:
        raise ValueError(f"unknown dtype name {node!r}; expected one of: {', '.join(lattice.NODES)}") from None


# ---------------------------------------------------------------- JAX arrays
_jax_array_type: Any = None


def _is_jax_array(x: Any) -> bool:
    """isinstance(x, jax.Array), without importing JAX when it is not loaded."""
    global _jax_array_type
    if _jax_array_type is None:
        jax = sys.modules.get("jax")
        if jax is None or not hasattr(jax, "Array"):
            return False
        _jax_array_type = jax.Array
    return isinstance(x, _jax_array_type)


_MISSING: Final = object()


def is_weakly_typed(x: Any) -> bool:
    """Whether ``x`` is weakly typed, as JAX reads it: a Python int/float/complex
    value, a value of a weak scalar type JAX registered (symbolic dimensions),
    or the value of ``x.aval.weak_type`` (JAX arrays and tracers; like JAX, the
    value itself is returned, so a truthy non-bool counts).  jaxtypes also reads
    a ``weak_type`` attribute of objects without ``aval``."""
    if type(x) in _WEAK_NODE_OF_TYPE or type(x) in _registered_weak_types():
        return True
    # getattr with a default, not try/except: most arguments have no aval,
    # and a raised AttributeError costs a microsecond.
    aval: Any = getattr(x, "aval", _MISSING)
    if aval is not _MISSING:
        try:
            return aval.weak_type  # type: ignore[no-any-return]  # as it is, like JAX (see above)
        except AttributeError:
            pass
    if isinstance(x, type):  # a class's weak_type is a descriptor, not a value: JAX reads False
        return False
    try:
        return getattr(x, "weak_type", False)  # as it is, like aval's
    except Exception:  # noqa: BLE001 - JAX never reads it: an object that cannot say is strong, as there
        return False


def _registered_weak_types() -> Any:
    """JAX's registered weak scalar types (jax._src.dtypes), when JAX is loaded."""
    module = sys.modules.get("jax._src.dtypes")
    return getattr(module, "_registered_weak_types", ()) if module is not None else ()


# ------------------------------------------------------------------ dtype()
def _invalid_value(x: Any, dt: np.dtype) -> TypeError:
    return TypeError(
        f"Value '{x}' with dtype {dt} is not a valid JAX array type. Only arrays of numeric types are supported by JAX."
    )


def _jax_dtypes() -> Any:
    """jax._src.dtypes when JAX is loaded (never imported here), else None."""
    return sys.modules.get("jax._src.dtypes")


def _is_extended(dt: Any) -> bool:
    """Whether ``dt`` is one of JAX's extended dtypes (PRNG keys, ...)."""
    jd = _jax_dtypes()
    if jd is None or isinstance(dt, np.dtype) or dt is None:
        return False
    try:
        return bool(jd.issubdtype(dt, jd.extended))
    except Exception:  # noqa: BLE001 - anything JAX cannot classify is not extended
        return False


def _scalar_node(tp: type) -> str | None:
    """The node of a Python scalar type, JAX's registered ones included
    (symbolic dimensions are int64, as in JAX's python_scalar_types_to_dtypes)."""
    node = _PY_SCALAR_NODE.get(tp)
    if node is None:
        jd = _jax_dtypes()
        if jd is not None:
            dt = getattr(jd, "python_scalar_types_to_dtypes", {}).get(tp)
            node = _NODE_OF.get(dt) if dt is not None else None
    return node


def _keeps_its_dtype(x: Any) -> bool:
    """JAX arrays and JAX's typed literals (TypedInt, TypedFloat, TypedComplex,
    TypedNdArray): JAX keeps their dtype, canonical or not, and checks nothing."""
    jd = _jax_dtypes()
    if jd is None or type(x) in _NEVER_JAX_VALUES:
        return False  # (jax.Array's isinstance check is slow: a Python __instancecheck__)
    return isinstance(x, getattr(jd, "_types_whose_dtype_should_not_be_canonicalized", ()))


# Types none of whose instances is a JAX array or typed literal (TypedNdArray
# subclasses numpy.ndarray: the exact type only).
_NEVER_JAX_VALUES: Final = frozenset({str, np.ndarray} | {type(dt) for dt in _NODE_OF} | {dt.type for dt in _NODE_OF})


_EXPLICIT_ERROR: Final = (
    "Explicitly requested dtype {}{} is not available. To enable more dtypes, set the "
    "jax_enable_x64 or allow_explicit_x64_dtypes configuration options."
    "See https://github.com/jax-ml/jax#current-gotchas for more."
)
_EXPLICIT_WARNING: Final = (
    "Explicitly requested dtype {}{} is not available, and will be truncated to dtype {}. "
    "To enable more dtypes, set the jax_enable_x64 configuration option or the "
    "JAX_ENABLE_X64 shell environment variable. "
    "See https://github.com/jax-ml/jax#current-gotchas for more."
)


def _explicit(node: str, resolved: Resolved, warned: list[str] | None = None) -> str:
    """JAX's _maybe_canonicalize_explicit_dtype: a 64-bit dtype asked for by
    name or type with x64 off is kept ('allow'), refused ('error') or
    truncated with a warning ('warn'), per jax_explicit_x64_dtypes."""
    mode = resolved.explicit_x64
    if mode == "allow" or resolved.variant.x64:
        return node
    canonical = _X32[node]
    if canonical == node:
        return node
    where = " requested in dtype"
    if mode == "error":
        raise ValueError(_EXPLICIT_ERROR.format(_DTYPE_OF[node], where))
    warnings.warn(
        _EXPLICIT_WARNING.format(_DTYPE_OF[node], where, _DTYPE_OF[canonical].name),
        UserWarning,
        stacklevel=_user_stacklevel(),
    )
    if warned is not None:
        warned.append(node)  # an answer that warns is not cached: JAX warns every time
    return canonical


def _user_stacklevel() -> int:
    """The stack level of the first frame outside jaxtypes (for warnings)."""
    # sys._getframe: documented, and what the warnings module itself uses.
    frame: FrameType | None = sys._getframe(1)  # pyright: ignore[reportPrivateUsage]
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("jaxtypes"):
        frame, level = frame.f_back, level + 1
    return level


# How JAX's dtype() treats an operand's dtype, in the configuration in force:
EXPLICIT: Final = "explicit"  # named, a dtype or a numpy type: jax_explicit_x64_dtypes applies
CANONICAL: Final = "canonical"  # values and Python types: 64-bit is 32-bit with x64 off
KEPT: Final = "kept"  # JAX arrays, typed literals, dtypes outside the lattice: as they are


def _operand(x: Any) -> tuple[str, _Token]:
    """How JAX's ``dtypes.dtype(x)`` reads ``x``, before the configuration
    applies: (EXPLICIT, CANONICAL or KEPT, the node name), or (KEPT, the dtype
    itself) where JAX accepts a dtype outside the lattice.  Raises JAX's
    errors for values JAX refuses."""
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    dt: np.dtype[Any]
    if isinstance(x, type):
        node = _scalar_node(x)
        if node is not None:
            return CANONICAL, node
        if issubclass(x, np.generic):
            # JAX checks nothing here: np.str_, np.object_ ... give their dtype.
            dt = np.dtype(x)  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]  # Unknown from Any
            node = _NODE_OF.get(dt)
            return (KEPT, dt) if node is None else (EXPLICIT, node)
    else:
        node = _scalar_node(type(x))  # pyright: ignore[reportUnknownArgumentType]  # Unknown from Any
        if node is not None:
            return CANONICAL, node
        if _keeps_its_dtype(x):
            # JAX keeps the dtype of an existing array or typed literal,
            # canonical or not (PRNG key arrays have extended dtypes).
            return KEPT, _NODE_OF.get(x.dtype) or x.dtype
    if isinstance(x, (str, np.dtype)):
        dt = np.dtype(x)  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]  # Unknown from Any
        node = _NODE_OF.get(dt)
        if node is None:
            if dt in _OPAQUE_DTYPES:
                return KEPT, dt
            raise _invalid_value(x, dt)
        return EXPLICIT, node
    dt_attr = getattr(x, "dtype", None)  # pyright: ignore[reportUnknownArgumentType]  # Unknown from Any
    if isinstance(dt_attr, np.dtype):
        dt = dt_attr  # pyright: ignore[reportUnknownVariableType]  # Unknown from Any
    elif _is_extended(dt_attr):
        return KEPT, dt_attr
    else:
        try:
            dt = np.result_type(x)  # pyright: ignore[reportUnknownArgumentType]  # Unknown from Any
        except TypeError as err:
            raise TypeError(f"Cannot determine dtype of {x}") from err
    node = _NODE_OF.get(dt)
    if node is None:
        if dt in _OPAQUE_DTYPES:
            return KEPT, dt
        raise _invalid_value(x, dt)
    return CANONICAL, node


def _in_configuration(how: str, node: _Token, resolved: Resolved, warned: list[str] | None = None) -> _Token:
    """The node JAX's ``dtypes.dtype`` gives an operand read as ``how`` in a configuration."""
    if how is CANONICAL:
        return node if resolved.variant.x64 else _X32[node]
    if how is EXPLICIT:
        return _explicit(node, resolved, warned)
    return node


def dtype(x: Any) -> np.dtype:
    """The dtype JAX gives a value or type (``jax.dtypes.dtype``).

    Python scalars and types, numpy scalar types, dtypes, names and arrays are
    canonicalized for the x64 setting in force; a 64-bit dtype named or given
    as a numpy type follows ``jax_explicit_x64_dtypes`` when x64 is off; JAX
    arrays and JAX's typed literals keep their dtype.
    """
    how, node = _operand(x)
    return _dtype_of_token(_in_configuration(how, node, current_resolved()))


def canonicalize_dtype(dtype: Any, allow_extended_dtype: bool = False) -> Any:
    """``jax.dtypes.canonicalize_dtype``: 64-bit dtypes become 32-bit with x64 off.

    JAX's extended dtypes (PRNG keys) are returned as they are with
    ``allow_extended_dtype=True`` and refused otherwise, as in JAX.
    """
    if _is_extended(dtype):
        if not allow_extended_dtype:
            raise ValueError(
                f"Internal: canonicalize_dtype called on extended dtype {dtype} with allow_extended_dtype=False"
            )
        return dtype
    dt = np.dtype(dtype)  # numpy's own error for an unknown name, as in JAX
    if current_resolved().variant.x64:
        return dt
    node = _NODE_OF.get(dt)
    return _DTYPE_OF[lattice.canonicalize(node, False)] if node is not None else dt


# ----------------------------------------------------------------- errors
def _node_object(node: _Token) -> Any:
    """The object JAX uses for a node: a numpy dtype, or int/float/complex."""
    if not isinstance(node, str):
        return node
    return _WEAK_TYPE_OF.get(node) or _DTYPE_OF[node]


def _no_join_error(objects: Any, variant: lattice.Variant) -> TypePromotionError:
    """JAX's message for nodes without a join (``objects`` in JAX's order)."""
    objects = tuple(objects)
    names = tuple(_WEAK_NODE_OF_TYPE.get(o) or _NODE_OF[o] for o in objects)
    reason = lattice.no_join_reason(names, variant)
    msg = lattice.no_join_message([str(o) for o in objects], reason)
    return _promotion_error(msg)


# ---------------------------------------------------------- promote_types
def _promote_types_slow(a: Any, b: Any, resolved: Resolved) -> np.dtype:
    a_tp = a if _is_weak_type(a) else np.dtype(a)
    b_tp = b if _is_weak_type(b) else np.dtype(b)
    a_node, b_node = _node_name(a_tp), _node_name(b_tp)
    if a_node is None or b_node is None:
        for obj in {a_tp, b_tp}:  # JAX reports the first invalid one in set order
            if _node_name(obj) is None:
                raise ValueError(f"dtype={obj!r} is not a valid dtype for JAX type promotion.")
        raise AssertionError("unreachable: the operand without a node raised above")
    variant = resolved.variant
    joined = lattice.join(a_node, b_node, variant)
    if joined is None:
        raise _no_join_error((a_tp, b_tp), variant)
    result = dtype_of_node(joined)
    # Were int's hash ever dtype('int64')'s, a cached dtype could answer for
    # the weak type: then nothing is cached (never seen; the guard is cheap).
    if _WEAK_KEYS_DISTINCT and isinstance(a, _CACHEABLE) and isinstance(b, _CACHEABLE):
        resolved.promote_cache.setdefault(_stored_key(a), {})[_stored_key(b)] = result
    return result


def _stored_key(x: Any) -> Any:
    """The key a promote_types operand is cached under: itself, but for JAX's
    scalar types (jnp.float32) the numpy type they equal and hash as (the
    dict holds one of the two; numpy's compares without a Python call, so
    looking up numpy's types stays fast once JAX's have been asked about)."""
    return x.dtype.type if type(x) is _jax_scalar_meta() else x


def _node_name(obj: Any) -> str | None:
    """The node of a promote_types operand (a weak type or a numpy dtype)."""
    return _WEAK_NODE_OF_TYPE.get(obj) if isinstance(obj, type) else _NODE_OF.get(obj)


# Inputs whose hash and equality identify the dtype they stand for (None is
# numpy's float64).  numpy dtypes compare equal to their names and scalar
# types, and dtype('float64') to None, which is harmless (they promote alike)
# except for dtype('int64') == int and its float and complex twins; their
# hashes differ, which the guard below checks once.
_CACHEABLE: Final = (np.dtype, str, type, type(None))
_WEAK_KEYS_DISTINCT: Final = all(hash(t) != hash(np.dtype(t)) for t in _WEAK_NODE_OF_TYPE)


def promote_types(a: Any, b: Any) -> np.dtype:
    """``jax.numpy.promote_types``: the dtype a binary operation casts to.

    ``int``, ``float`` and ``complex`` (the types) are weak; anything else goes
    through ``numpy.dtype``.  A weak result is int64/float64/complex128, as in
    JAX; inputs are not canonicalized.
    """
    resolved = current_resolved()  # one snapshot: compute and store with it
    try:
        return resolved.promote_cache[a][b]
    except (KeyError, TypeError):
        pass
    return _promote_types_slow(a, b, resolved)


# ------------------------------------------------------------ result_type
def _jax_type(node: _Token, weak: bool) -> _Token:
    """JAX's ``_jax_type``; a dtype outside the lattice stays itself."""
    return lattice.jax_type(node, weak) if isinstance(node, str) else node


def _invalid_for_promotion(objects: Any) -> ValueError:
    # JAX names the first object of set(nodes) that is not in the lattice.
    bad = next(o for o in set(tuple(objects)) if _node_name(o) is None)
    return ValueError(f"dtype={bad!r} is not a valid dtype for JAX type promotion.")


@functools.lru_cache(maxsize=4096)
def _lattice_join(
    operands: tuple[tuple[str, bool], ...], variant: lattice.Variant
) -> tuple[str, bool, bool] | lattice.NoJoin:
    """``lattice.lattice_result_type`` of (node, weak) operands, memoised: a
    pure function of its arguments, which many calls share (a dtype, its name
    and an array of it are the same operand).  The third item says whether the
    answer is a join JAX passes through ``dtype()``, where
    jax_explicit_x64_dtypes applies (the caller's configuration decides).  A
    missing join is returned (and so memoised), not raised."""
    joins: list[str] = []

    def through_dtype(node: str) -> str:
        joins.append(node)
        return node

    try:
        out, weak = lattice.lattice_result_type(operands, variant, through_dtype)
    except lattice.NoJoin as err:
        return err.with_traceback(None)
    return out, weak, bool(joins)


def _weak_default_of(out: _Token, x64: bool) -> str:
    """The dtype ``result_type`` gives a weak answer: JAX's
    default_types['f' if custom float else dtype.kind], a dict of the kinds b,
    i, u, f, c.  ml_dtypes' int1/2/4 and uint1/2/4 are of kind 'V', so a weakly
    typed one alone (or joined weakly) raises KeyError('V'), as in JAX."""
    kind_letter = "f" if out in lattice.CUSTOM_FLOATS else _dtype_of_token(out).kind
    if kind_letter not in "biufc":
        raise KeyError(kind_letter)
    return lattice.default_dtype(kind_letter, x64)


def _defaults(x64: bool) -> dict[str, str]:
    out: dict[str, str] = {}
    for node in _DTYPE_OF:
        try:
            out[node] = _weak_default_of(node, x64)
        except KeyError:
            pass
    return out


_WEAK_DEFAULT: Final = {x64: _defaults(x64) for x64 in (False, True)}


def _weak_default(out: _Token, x64: bool) -> str:
    default = _WEAK_DEFAULT[x64].get(out) if isinstance(out, str) else None
    return default if default is not None else _weak_default_of(out, x64)


def _lattice_answer(operands: tuple[tuple[str, bool], ...], resolved: Resolved, warned: list[str]) -> tuple[str, bool]:
    """JAX's ``result_type`` on lattice (node, weak) operands: the join, with
    jax_explicit_x64_dtypes applied where JAX applies it and a weak answer
    turned into its kind's default dtype."""
    joined = _lattice_join(operands, resolved.variant)
    if isinstance(joined, lattice.NoJoin):  # raised here: no internal exception chained to it
        raise _no_join_error({_node_object(n) for n in joined.nodes}, resolved.variant)
    out, weak, through_dtype = joined
    if through_dtype:
        out = _explicit(out, resolved, warned)
    if weak:
        out = _weak_default(out, resolved.variant.x64)
    return out, weak


def _lattice_result(operands: list[tuple[_Token, bool]], resolved: Resolved, warned: list[str]) -> tuple[_Token, bool]:
    """JAX's ``result_type`` on (node, weak) pairs, nodes outside the lattice included."""
    names = [n for n, _ in operands]
    if all(isinstance(n, str) for n in names):
        return _lattice_answer(tuple(operands), resolved, warned)
    # A dtype outside the lattice passes alone, or repeated with a strong
    # operand, as in JAX; joining it with anything else fails.
    weaks = [w for _, w in operands]
    if len(operands) == 1:
        out, weak = operands[0]
    elif len(set(names)) == 1 and not all(weaks):
        out, weak = names[0], False
    else:
        all_weak = all(weaks) and resolved.variant.mode != "strict"
        joined_nodes = names if all_weak else [_jax_type(n, w) for n, w in operands]
        raise _invalid_for_promotion({_node_object(n) for n in joined_nodes})
    weak = weak and out != "bool"
    if weak:
        out = _weak_default(out, resolved.variant.x64)
    return out, weak


# result_type's cache key: one token per argument, a small int standing for
# the argument's (how, node, weak) as JAX reads it (see _operand): the answer
# in a configuration depends on nothing else.  _OPERAND_OF_TOKEN lists them.
_OPERAND_OF_TOKEN: Final = tuple(
    (how, node, weak) for how in (EXPLICIT, CANONICAL, KEPT) for node in _DTYPE_OF for weak in (False, True)
)
_TOKEN_OF_OPERAND: Final = {operand: i for i, operand in enumerate(_OPERAND_OF_TOKEN)}
# The key of up to _INT_KEY_ARGS arguments is one int, their tokens + 1 as the
# digits of base _KEY_BASE (no tuple to build, hash and compare: the C fast
# path computes it in a 64-bit integer); of more arguments, the tuple of tokens.
_KEY_BASE: Final = len(_OPERAND_OF_TOKEN) + 1
_INT_KEY_ARGS: Final = next(n for n in range(64) if _KEY_BASE ** (n + 1) > 2**63 - 1)


def _key_of_tokens(tokens: list[int]) -> int | tuple[int, ...]:
    if len(tokens) > _INT_KEY_ARGS:
        return tuple(tokens)
    key, digit = 0, 1
    for token in tokens:
        key += (token + 1) * digit
        digit *= _KEY_BASE
    return key


def _tokens_of_key(key: int | tuple[int, ...]) -> list[int] | tuple[int, ...]:
    if isinstance(key, tuple):
        return key
    tokens: list[int] = []
    while key:
        key, digit = divmod(key, _KEY_BASE)
        tokens.append(digit - 1)
    return tokens


# How an argument finds its token: _TOKEN_OF_TYPE, by the argument's exact
# type, holds the token itself where the type alone decides it, a dict from
# the argument to its token (names, dtypes, scalar types), _NUMPY_ARRAY_TOKEN
# (numpy arrays: by their dtype) or _JAX_ARRAY_TOKEN (JAX arrays and tracers:
# by their aval's dtype, then weak_type).  The C fast path reads these same
# tables.  The slow path adds to _TOKEN_OF_TYPE as it meets arguments
# (_learn_token); anything else is not keyed and always takes the slow path.
_NUMPY_ARRAY_TOKEN: Final = {dt: _TOKEN_OF_OPERAND[CANONICAL, n, False] for dt, n in _NODE_OF.items()}
_JAX_ARRAY_TOKEN: Final = {
    dt: (_TOKEN_OF_OPERAND[KEPT, n, False], _TOKEN_OF_OPERAND[KEPT, n, True]) for dt, n in _NODE_OF.items()
}
_TOKEN_OF_TYPE: Final[dict[type, Any]] = {np.ndarray: _NUMPY_ARRAY_TOKEN}
# Types whose every instance JAX reads alike: Python scalars, None and the
# numpy/ml_dtypes scalar types of the lattice's dtypes (exact types only).
_KEYED_BY_TYPE: Final = frozenset({bool, int, float, complex, type(None)} | {dt.type for dt in _NODE_OF})
# Types whose instances are keyed by value: names, dtypes of the lattice,
# Python and numpy scalar types (JAX's jnp.float32 and the like: below).
_KEYED_BY_VALUE: Final = frozenset({str, type} | {type(dt) for dt in _NODE_OF})
# A bound on the names remembered (numpy accepts endless spellings, 'f004' ...).
_MAX_KEYED_VALUES: Final = 1024


def _keyed_by_value(x: Any) -> bool:
    """Whether ``x``'s token may be remembered by its value: a name, a dtype, or
    a scalar type whose reading JAX takes from its identity, not its attributes."""
    t: type = type(x)  # pyright: ignore[reportUnknownVariableType]  # Unknown from Any
    if t is type:
        return x in _PY_SCALAR_NODE or issubclass(x, np.generic)
    return t in _KEYED_BY_VALUE or t is _jax_scalar_meta()


def _jax_scalar_meta() -> Any:
    """The class of JAX's scalar types (jnp.float32 ...), when JAX is loaded."""
    module = sys.modules.get("jax._src.numpy.scalar_types")
    return getattr(module, "_ScalarMeta", None) if module is not None else None


def _learn_token(x: Any, how: str, node: _Token, weak: Any) -> int | None:
    """The token of an argument read as (how, node, weak), or None for one
    outside the lattice; remembers it for the argument's type or value where
    that decides it, so the next call with such an argument is keyed."""
    if type(weak) is not bool or not isinstance(node, str):
        return None
    token = _TOKEN_OF_OPERAND[how, node, weak]
    t: type = type(x)  # pyright: ignore[reportUnknownVariableType]  # Unknown from Any
    if t in _KEYED_BY_TYPE:
        _TOKEN_OF_TYPE[t] = token
    elif t is np.ndarray:
        _TOKEN_OF_TYPE[t] = _NUMPY_ARRAY_TOKEN
    elif how is KEPT:
        if t not in _TOKEN_OF_TYPE and _is_jax_array(x) and hasattr(x, "aval"):
            _TOKEN_OF_TYPE[t] = _JAX_ARRAY_TOKEN  # keyed by its aval from now on
    elif _keyed_by_value(x):
        by_value = _TOKEN_OF_TYPE.setdefault(t, {})
        if len(by_value) < _MAX_KEYED_VALUES:
            by_value[x] = token
    return token


def _configured_operands(x64: bool) -> tuple[tuple[str, bool] | None, ...]:
    """Each token's (node, weak) with x64 on or off, or None where
    jax_explicit_x64_dtypes decides (a 64-bit dtype asked for with x64 off)."""
    resolved = Resolved(lattice.variant("standard", x64), "allow")
    return tuple(
        None if how is EXPLICIT and _X32[node] != node and not x64 else (_in_configuration(how, node, resolved), weak)
        for how, node, weak in _OPERAND_OF_TOKEN
    )


_CONFIGURED_OPERAND: Final = {x64: _configured_operands(x64) for x64 in (False, True)}


def _configured_explicitly(token: int, resolved: Resolved, warned: list[str]) -> tuple[str, bool]:
    how, node, weak = _OPERAND_OF_TOKEN[token]
    return _in_configuration(how, node, resolved, warned), weak


def _result_type_slow(
    args: tuple[Any, ...], resolved: Resolved, key: int | tuple[int, ...] | None
) -> tuple[np.dtype, Any]:
    """Every ``result_type`` call the cache does not answer.  The answer is
    cached under the arguments' tokens in ``resolved`` (the configuration it was
    computed in), unless JAX would warn about it (JAX warns every time)."""
    if not args:
        raise ValueError("at least one array or dtype is required")
    warned: list[str] = []
    if key is not None:  # the arguments were read before: their tokens say how
        configured = _CONFIGURED_OPERAND[resolved.variant.x64]
        out, weak = _lattice_answer(
            tuple(
                [configured[token] or _configured_explicitly(token, resolved, warned) for token in _tokens_of_key(key)]
            ),
            resolved,
            warned,
        )
    else:
        operands: list[tuple[_Token, Any]] = []
        tokens: list[int] = []
        keyed = True  # every argument has a token
        for a in args:
            if a is None:  # JAX passes its default float dtype: float64, canonicalized
                how, node, weak = CANONICAL, "float64", False
                configured = _in_configuration(how, node, resolved, warned)
            else:
                how, node = _operand(a)
                configured = _in_configuration(how, node, resolved, warned)
                weak = _is_weak_type(a) or is_weakly_typed(a)
            operands.append((configured, weak))
            token = _learn_token(a, how, node, weak)
            if token is None:
                keyed = False
            else:
                tokens.append(token)
        out, weak = _lattice_result([(n, bool(w)) for n, w in operands], resolved, warned)
        if len(operands) == 1 and operands[0][0] != lattice.BOOL:
            weak = operands[0][1]  # JAX returns the operand's own flag, a non-bool one included
        if keyed:
            key = _key_of_tokens(tokens)
    result = (_dtype_of_token(out), weak)
    if key is not None and not warned:
        resolved.result_cache[key] = result
    return result


def _result_type_key(args: tuple[Any, ...]) -> int | tuple[int, ...] | None:
    """The cache key of ``result_type``'s arguments, or None where one is not
    keyed (yet).  jaxtypes._speedups builds the same key in C."""
    key: list[int] = []
    try:
        for a in args:
            entry: Any = _TOKEN_OF_TYPE.get(type(a))  # pyright: ignore[reportUnknownArgumentType]  # Unknown from Any
            if entry is _NUMPY_ARRAY_TOKEN:
                entry = entry[a.dtype]
            elif entry is _JAX_ARRAY_TOKEN:
                aval = a.aval  # a.dtype and a.weak_type cost twice as much
                weak = aval.weak_type
                if weak is not True and weak is not False:
                    return None
                entry = entry[aval.dtype][weak]
            elif type(entry) is dict:
                entry = entry[a]  # pyright: ignore[reportUnknownVariableType]  # Unknown from Any
            elif entry is None:
                return None
            key.append(entry)  # pyright: ignore[reportUnknownArgumentType]  # Unknown from Any
    except (KeyError, TypeError):  # a dtype outside the lattice, an unhashable value
        return None
    return _key_of_tokens(key)


def result_type(*args: Any, return_weak_type_flag: bool = False) -> Any:
    """``jax.dtypes.result_type``: the dtype JAX promotes the arguments to.

    Arguments may be dtypes, dtype names, numpy and ml_dtypes scalar types,
    Python scalars and the types int/float/complex (weak), bool, None (the
    default float), numpy arrays and scalars, and any object with a ``dtype``
    (with a true ``weak_type`` it is weak, as JAX arrays and tracers can be).
    With ``return_weak_type_flag=True`` the answer is ``(dtype, weak)``.
    """
    resolved = current_resolved()  # one snapshot: compute and store with it
    key = _result_type_key(args)
    cached = resolved.result_cache.get(key) if key is not None else None
    # Outside any except clause: an error raised here has no KeyError context.
    dt, weak = cached if cached is not None else _result_type_slow(args, resolved, key)
    return (dt, weak) if return_weak_type_flag else dt


# ------------------------------------------------------------ C fast paths
# The Python functions above answer everything and cache their answers.  When
# jaxtypes._speedups is built (it is, in wheels built with a C compiler), the
# public names become C callables that serve cache hits themselves, hand a
# miss they have keyed to the slow path (_promote_types_slow,
# _result_type_slow: looked up here at each miss) with the configuration they
# found, and call the functions above for everything else.
_promote_types_py: Final = promote_types
_result_type_py: Final = result_type

_speedups: Any  # (the C module has no stub)
try:
    _speedups = importlib.import_module("jaxtypes._speedups")
except ImportError:  # built without a C compiler: the Python paths serve all
    ACCELERATED = False  # pyright: ignore[reportConstantRedefinition]  # set once: one branch or the other
else:
    ACCELERATED = True
    if not TYPE_CHECKING:  # for type checkers these stay the functions above
        promote_types = functools.update_wrapper(
            _speedups.promote_types_fast(
                _promote_types_py, globals(), "_promote_types_slow", default_state, State, process_holder, Resolved
            ),
            _promote_types_py,
        )
        result_type = functools.update_wrapper(
            _speedups.result_type_fast(
                _result_type_py,
                globals(),
                "_result_type_slow",
                default_state,
                State,
                process_holder,
                Resolved,
                _TOKEN_OF_TYPE,
                _NUMPY_ARRAY_TOKEN,
                _JAX_ARRAY_TOKEN,
                _KEY_BASE,
            ),
            _result_type_py,
        )
