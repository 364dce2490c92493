"""The runtime promotion API: JAX's answers, from the shared lattice, without JAX.

Each function mirrors its namesake in ``jax._src.dtypes`` (JAX 0.10): the same
inputs, the same dtype and weak flag, the same error class and message.  The
answers come from ``jaxtypes.lattice``; this module only turns Python inputs
into lattice nodes and nodes back into numpy dtypes, and caches the result per
configuration so that repeated calls are dictionary look-ups.
"""

from __future__ import annotations

import sys
import warnings
from functools import update_wrapper
from typing import TYPE_CHECKING, Any, Final

import ml_dtypes
import numpy as np

from jaxtypes import lattice
from jaxtypes.config import Resolved, State, current_resolved, process_holder, state_var

__all__ = [
    "TypePromotionError", "promote_types", "result_type", "is_weakly_typed",
    "canonicalize_dtype", "dtype", "node_of", "dtype_of_node",
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
        both = type("TypePromotionError", (TypePromotionError, jax_class), {
            "__module__": __name__, "__qualname__": "TypePromotionError",
            "__doc__": "jaxtypes' TypePromotionError and JAX's, in a process that runs JAX.",
        })
        both = _with_jax_error.setdefault(jax_class, both)
    return both(msg)  # type: ignore[no-any-return]


def _np_dtype(name: str) -> np.dtype | None:
    try:
        return np.dtype(getattr(ml_dtypes, name, None) or name)
    except TypeError:  # an ml_dtypes release without this type
        return None


# Strong nodes that this numpy/ml_dtypes provides, as dtype objects.
_DTYPE_OF: Final[dict[str, np.dtype]] = {
    n: d for n, d in ((n, _np_dtype(n)) for n in lattice.STRONG) if d is not None
}
_NODE_OF: Final[dict[np.dtype, str]] = {dt: n for n, dt in _DTYPE_OF.items()}
_WEAK_TYPE_OF: Final[dict[str, type]] = {
    s.node: s.python_type for s in lattice.PYTHON_SCALARS if s.node in lattice.WEAK
}
_WEAK_NODE_OF_TYPE: Final[dict[type, str]] = {t: n for n, t in _WEAK_TYPE_OF.items()}
# JAX's python_scalar_types_to_dtypes.
_PY_SCALAR_NODE: Final[dict[type, str]] = {s.python_type: s.dtype for s in lattice.PYTHON_SCALARS}
# Dtypes outside the lattice that JAX still takes as values (its _jax_dtype_set):
# float0 (the dtype of integer-valued gradients) and numpy's StringDType.  As
# in JAX, one alone (or repeated) is its own result_type; promoting it fails.
_OPAQUE_DTYPES: Final = frozenset(
    [np.dtype([("float0", np.void, 0)])]
    + ([np.dtypes.StringDType()] if hasattr(np.dtypes, "StringDType") else [])
)
# A ``result_type`` operand: a lattice node name, or (outside the lattice) the
# dtype itself, for the opaque dtypes, non-numeric numpy scalar types
# (np.str_ gives dtype('<U'), as in JAX) and JAX arrays of any other dtype.
_Token = Any


def node_of(dt: Any) -> str | None:
    """The lattice node of a numpy dtype, or None when it is not a JAX dtype."""
    return _NODE_OF.get(dt)


def _dtype_of_token(node: _Token) -> Any:
    return _DTYPE_OF[node] if isinstance(node, str) else node


def dtype_of_node(node: str) -> np.dtype:
    """The numpy dtype of a node; weak nodes give numpy's dtype of int/float/complex."""
    if node in _WEAK_TYPE_OF:
        return np.dtype(_WEAK_TYPE_OF[node])
    try:
        return _DTYPE_OF[node]
    except KeyError:
        raise ValueError(
            f"unknown dtype name {node!r}; expected one of: {', '.join(lattice.NODES)}"
        ) from None


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


def is_weakly_typed(x: Any) -> bool:
    """Whether ``x`` is weakly typed, as JAX reads it: a Python int/float/complex
    value, a value of a weak scalar type JAX registered (symbolic dimensions),
    or the value of ``x.aval.weak_type`` (JAX arrays and tracers; like JAX, the
    value itself is returned, so a truthy non-bool counts).  jaxtypes also reads
    a ``weak_type`` attribute of objects without ``aval``."""
    if type(x) in _WEAK_NODE_OF_TYPE or type(x) in _registered_weak_types():
        return True
    try:
        return x.aval.weak_type  # type: ignore[no-any-return]
    except AttributeError:
        pass
    return getattr(x, "weak_type", False)


def _registered_weak_types() -> Any:
    """JAX's registered weak scalar types (jax._src.dtypes), when JAX is loaded."""
    module = sys.modules.get("jax._src.dtypes")
    return getattr(module, "_registered_weak_types", ()) if module is not None else ()


# ------------------------------------------------------------------ dtype()
def _invalid_value(x: Any, dt: np.dtype) -> TypeError:
    return TypeError(
        f"Value '{x}' with dtype {dt} is not a valid JAX array type. "
        "Only arrays of numeric types are supported by JAX."
    )


def _canonical(node: str, x64: bool) -> str:
    return node if x64 else lattice.canonicalize(node, False)


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
    if jd is None:
        return False
    return isinstance(x, getattr(jd, "_types_whose_dtype_should_not_be_canonicalized", ()))


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
    canonical = lattice.canonicalize(node, False)
    if canonical == node:
        return node
    where = " requested in dtype"
    if mode == "error":
        raise ValueError(_EXPLICIT_ERROR.format(_DTYPE_OF[node], where))
    warnings.warn(
        _EXPLICIT_WARNING.format(_DTYPE_OF[node], where, _DTYPE_OF[canonical].name),
        UserWarning, stacklevel=_user_stacklevel(),
    )
    if warned is not None:
        warned.append(node)  # an answer that warns is not cached: JAX warns every time
    return canonical


def _user_stacklevel() -> int:
    """The stack level of the first frame outside jaxtypes (for warnings)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("jaxtypes"):
        frame, level = frame.f_back, level + 1  # type: ignore[assignment]
    return level


def _node_of_value(x: Any, resolved: Resolved, warned: list[str] | None = None) -> _Token:
    """JAX's ``dtypes.dtype(x)`` as a node name (canonicalized as JAX does), or
    the dtype itself where JAX accepts one outside the lattice."""
    x64 = resolved.variant.x64
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    if isinstance(x, type):
        node = _scalar_node(x)
        if node is not None:
            return _canonical(node, x64)
        if issubclass(x, np.generic):
            # JAX checks nothing here: np.str_, np.object_ ... give their dtype.
            dt = np.dtype(x)
            node = _NODE_OF.get(dt)
            return dt if node is None else _explicit(node, resolved, warned)
    else:
        node = _scalar_node(type(x))
        if node is not None:
            return _canonical(node, x64)
        if _keeps_its_dtype(x):
            # JAX keeps the dtype of an existing array or typed literal,
            # canonical or not (PRNG key arrays have extended dtypes).
            return _NODE_OF.get(x.dtype) or x.dtype
    if isinstance(x, (str, np.dtype)):
        dt = np.dtype(x)
        node = _NODE_OF.get(dt)
        if node is None:
            if dt in _OPAQUE_DTYPES:
                return dt
            raise _invalid_value(x, dt)
        return _explicit(node, resolved, warned)
    dt_attr = getattr(x, "dtype", None)
    if isinstance(dt_attr, np.dtype):
        dt = dt_attr
    elif _is_extended(dt_attr):
        return dt_attr
    else:
        try:
            dt = np.result_type(x)
        except TypeError as err:
            raise TypeError(f"Cannot determine dtype of {x}") from err
    node = _NODE_OF.get(dt)
    if node is None:
        if dt in _OPAQUE_DTYPES:
            return dt
        raise _invalid_value(x, dt)
    return _canonical(node, x64)


def dtype(x: Any) -> np.dtype:
    """The dtype JAX gives a value or type (``jax.dtypes.dtype``).

    Python scalars and types, numpy scalar types, dtypes, names and arrays are
    canonicalized for the x64 setting in force; a 64-bit dtype named or given
    as a numpy type follows ``jax_explicit_x64_dtypes`` when x64 is off; JAX
    arrays and JAX's typed literals keep their dtype.
    """
    return _dtype_of_token(_node_of_value(x, current_resolved()))


def canonicalize_dtype(dtype: Any, allow_extended_dtype: bool = False) -> Any:
    """``jax.dtypes.canonicalize_dtype``: 64-bit dtypes become 32-bit with x64 off.

    JAX's extended dtypes (PRNG keys) are returned as they are with
    ``allow_extended_dtype=True`` and refused otherwise, as in JAX.
    """
    if _is_extended(dtype):
        if not allow_extended_dtype:
            raise ValueError(f"Internal: canonicalize_dtype called on extended dtype {dtype} "
                             "with allow_extended_dtype=False")
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
    a_tp = a if any(a is t for t in _WEAK_NODE_OF_TYPE) else np.dtype(a)
    b_tp = b if any(b is t for t in _WEAK_NODE_OF_TYPE) else np.dtype(b)
    for obj in {a_tp, b_tp}:  # JAX reports the first invalid one in set order
        if _node_name(obj) is None:
            raise ValueError(f"dtype={obj!r} is not a valid dtype for JAX type promotion.")
    variant = resolved.variant
    joined = lattice.join(_node_name(a_tp), _node_name(b_tp), variant)  # type: ignore[arg-type]
    if joined is None:
        raise _no_join_error((a_tp, b_tp), variant)
    result = dtype_of_node(joined)
    # Were int's hash ever dtype('int64')'s, a cached dtype could answer for
    # the weak type: then nothing is cached (never seen; the guard is cheap).
    if _WEAK_KEYS_DISTINCT and isinstance(a, _CACHEABLE) and isinstance(b, _CACHEABLE):
        resolved.promote_cache.setdefault(a, {})[b] = result
    return result


def _node_name(obj: Any) -> str | None:
    """The node of a promote_types operand (a weak type or a numpy dtype)."""
    return _WEAK_NODE_OF_TYPE.get(obj) if isinstance(obj, type) else _NODE_OF.get(obj)


# Inputs whose hash and equality identify the dtype they stand for.  numpy
# dtypes compare equal to their names and scalar types, which is harmless
# (they promote alike) except for dtype('int64') == int and its float and
# complex twins; their hashes differ, which the guard below checks once.
_CACHEABLE: Final = (np.dtype, str, type)
_WEAK_KEYS_DISTINCT: Final = all(
    hash(t) != hash(np.dtype(t)) for t in _WEAK_NODE_OF_TYPE
)


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
def _token(arg: Any, resolved: Resolved, warned: list[str]) -> tuple[_Token, Any]:
    """(node, weak) of one ``result_type`` argument, as JAX's _dtype_and_weaktype
    (the weak flag as JAX reads it: possibly a truthy non-bool)."""
    node = _node_of_value(arg, resolved, warned)
    return node, any(arg is t for t in _WEAK_NODE_OF_TYPE) or is_weakly_typed(arg)


def _invalid_for_promotion(objects: Any) -> ValueError:
    # JAX names the first object of set(nodes) that is not in the lattice.
    bad = next(o for o in set(tuple(objects)) if _node_name(o) is None)
    return ValueError(f"dtype={bad!r} is not a valid dtype for JAX type promotion.")


def _lattice_result(
    tokens: list[tuple[_Token, bool]], resolved: Resolved, warned: list[str]
) -> tuple[_Token, bool]:
    """JAX's ``lattice_result_type`` and ``result_type`` on (node, weak) pairs."""
    variant = resolved.variant
    no_join = outside = None
    try:
        # JAX calls dtype() on a strong join: jax_explicit_x64_dtypes applies.
        out, weak = lattice.lattice_result_type(
            tokens, variant, lambda node: _explicit(node, resolved, warned)
        )
    except lattice.NoJoin as err:
        no_join = err.nodes
    except lattice.OutsideLattice as err:
        outside = err.nodes
    # Raised here: no internal exception chained to them.
    if no_join is not None:
        raise _no_join_error({_node_object(n) for n in no_join}, variant)
    if outside is not None:
        raise _invalid_for_promotion({_node_object(n) for n in outside})
    if weak:
        # JAX: default_types['f' if custom float else dtype.kind], a dict of the
        # kinds b, i, u, f, c.  ml_dtypes' int1/2/4 and uint1/2/4 are of kind
        # 'V', so a weakly typed one alone (or joined weakly) raises KeyError('V').
        kind_letter = "f" if out in lattice.CUSTOM_FLOATS else _dtype_of_token(out).kind
        if kind_letter not in "biufc":
            raise KeyError(kind_letter)
        out = lattice.default_dtype(kind_letter, variant.x64)
    return out, weak


def _result_type_slow(
    args: tuple[Any, ...], resolved: Resolved, key: tuple[Any, ...] | None
) -> tuple[np.dtype, bool]:
    if not args:
        raise ValueError("at least one array or dtype is required")
    variant = resolved.variant
    x64 = variant.x64
    default_float = lattice.default_dtype("f", x64)
    warned: list[str] = []
    tokens = [(default_float, False) if a is None else _token(a, resolved, warned) for a in args]
    flags = [w for _, w in tokens]
    node, weak = _lattice_result([(n, bool(w)) for n, w in tokens], resolved, warned)
    if len(tokens) == 1 and tokens[0][0] != lattice.BOOL:
        weak = flags[0]  # JAX returns the operand's own flag, a non-bool one included
    result = (_dtype_of_token(node), weak)
    if key is not None and not warned:
        resolved.result_cache[key] = result
    for a in args:
        if type(a) not in _jax_types_seen and _is_jax_array(a) and hasattr(a, "aval"):
            _jax_types_seen.add(type(a))  # keyed by (dtype, weak) from now on
    return result


# result_type's cache keys: each argument becomes a token that determines its
# (node, weak): Python scalars and None their type; a numpy array a small int
# from its dtype (strong, canonicalized alike); a JAX array or tracer a small
# int from its aval's (weak_type, dtype), a separate range because JAX keeps
# an array's dtype uncanonicalized.  Anything else takes the slow path.
_KEYED_BY_TYPE: Final = frozenset({bool, int, float, complex, type(None)})
_NUMPY_ARRAY_TOKEN: Final = {dt: i for i, dt in enumerate(_NODE_OF)}
_JAX_ARRAY_TOKEN: Final = {
    weak: {dt: i + (2 + weak) * len(_NODE_OF) for i, dt in enumerate(_NODE_OF)}
    for weak in (False, True)
}
_jax_types_seen: set[type] = set()


def result_type(*args: Any, return_weak_type_flag: bool = False) -> Any:
    """``jax.dtypes.result_type``: the dtype JAX promotes the arguments to.

    Arguments may be dtypes, dtype names, numpy and ml_dtypes scalar types,
    Python scalars and the types int/float/complex (weak), bool, None (the
    default float), numpy arrays and scalars, and any object with a ``dtype``
    (with a true ``weak_type`` it is weak, as JAX arrays and tracers can be).
    With ``return_weak_type_flag=True`` the answer is ``(dtype, weak)``.
    """
    resolved = current_resolved()  # one snapshot: compute and store with it
    key: list[Any] | tuple[Any, ...] | None = []
    try:
        for a in args:
            t = type(a)
            if t in _jax_types_seen:
                aval = a.aval  # a.dtype and a.weak_type cost twice as much
                key.append(_JAX_ARRAY_TOKEN[aval.weak_type][aval.dtype])  # type: ignore[union-attr]
            elif t is np.ndarray:
                key.append(_NUMPY_ARRAY_TOKEN[a.dtype])  # type: ignore[union-attr]
            elif t in _KEYED_BY_TYPE:
                key.append(t)  # type: ignore[union-attr]
            else:
                key = None
                break
    except (KeyError, TypeError):  # a dtype outside the lattice
        key = None
    if key is not None:
        key = tuple(key)
        cached = resolved.result_cache.get(key)
        # Outside the except clause: an error raised here has no KeyError context.
        dt, weak = cached if cached is not None else _result_type_slow(args, resolved, key)
    else:
        dt, weak = _result_type_slow(args, resolved, None)
    return (dt, weak) if return_weak_type_flag else dt


# ------------------------------------------------------------ C fast paths
# The Python functions above answer everything and cache their answers.  When
# jaxtypes._speedups is built (it is, in wheels built with a C compiler), the
# public names become C callables that serve cache hits themselves and call
# these for everything else; they take the same arguments.
_promote_types_py: Final = promote_types
_result_type_py: Final = result_type

try:
    from jaxtypes import _speedups
except ImportError:  # built without a C compiler: the Python paths serve all
    ACCELERATED = False
else:
    ACCELERATED = True
    if not TYPE_CHECKING:  # for type checkers these stay the functions above
        promote_types = update_wrapper(
            _speedups.promote_types_fast(
                _promote_types_py, state_var, State, process_holder, Resolved
            ),
            _promote_types_py,
        )
        result_type = update_wrapper(
            _speedups.result_type_fast(
                _result_type_py, state_var, State, process_holder, Resolved,
                _jax_types_seen, np.ndarray,
                _NUMPY_ARRAY_TOKEN, _JAX_ARRAY_TOKEN, _KEYED_BY_TYPE,
            ),
            _result_type_py,
        )
