"""The C fast paths (jaxtypes._speedups) of promote_types and result_type.

They answer a call from the caches the Python functions fill, and hand every
other call to those functions.  JAX's answers themselves are checked through
the public functions in test_jax_differential.py (each question asked twice, so
the second answer comes from here); these tests check the fast paths' own
contract: they are built, they serve every input kind the caches key without
calling Python, anything else reaches Python unchanged, and they leak nothing.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, Callable

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import jaxtypes
from jaxtypes import lattice, promotion
from jaxtypes.config import Resolved, State, current_resolved, default_state, process_holder

CONFIGS = [(mode, x64) for mode in ("standard", "strict") for x64 in (True, False)]


def _speedups() -> Any:
    from jaxtypes import _speedups  # built by hatch_build.py into the wheel

    return _speedups


def node_dtype(node: str) -> np.dtype:
    return np.dtype(getattr(ml_dtypes, node, None) or node)


STRONG_DTYPES = [node_dtype(n) for n in lattice.STRONG]


class Counting:
    """Wraps a Python function and counts the calls that reach it; ``also``
    counts the calls of another Counting (the public function and its slow
    path: a call reaches Python through one or the other)."""

    def __init__(self, fn: Callable[..., Any], also: Counting | None = None) -> None:
        self.fn, self.own_calls = fn, 0
        self.also = also

    @property
    def calls(self) -> int:
        return self.own_calls + (self.also.own_calls if self.also is not None else 0)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.own_calls += 1
        return self.fn(*args, **kwargs)


def counted_fast_paths() -> tuple[Any, Counting, Any, Counting]:
    """Fresh C callables over counting wrappers of the Python functions and
    their slow paths."""
    sp = _speedups()
    promote_slow = Counting(promotion._promote_types_slow)
    result_slow = Counting(promotion._result_type_slow)
    promote_py = Counting(promotion._promote_types_py, also=promote_slow)
    result_py = Counting(promotion._result_type_py, also=result_slow)
    namespace = {"_promote_types_slow": promote_slow, "_result_type_slow": result_slow}
    promote_c = sp.promote_types_fast(
        promote_py, namespace, "_promote_types_slow", default_state, State, process_holder, Resolved
    )
    result_c = sp.result_type_fast(
        result_py,
        namespace,
        "_result_type_slow",
        default_state,
        State,
        process_holder,
        Resolved,
        promotion._TOKEN_OF_TYPE,
        promotion._NUMPY_ARRAY_TOKEN,
        promotion._JAX_ARRAY_TOKEN,
        promotion._KEY_BASE,
    )
    return promote_c, promote_py, result_c, result_py


def outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, ...]:
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as err:  # noqa: BLE001 - errors are part of the answer
        return ("error", type(err), str(err))


def test_the_installed_package_has_its_c_fast_paths() -> None:
    # The wheel is built with a C compiler here; without one it would fall back
    # to the Python paths silently, and this is what notices.
    sp = _speedups()
    assert promotion.ACCELERATED
    assert isinstance(jaxtypes.promote_types, sp.FastPath)
    assert isinstance(jaxtypes.result_type, sp.FastPath)
    # They read as the functions they accelerate.
    assert jaxtypes.promote_types.__wrapped__ is promotion._promote_types_py
    assert jaxtypes.result_type.__name__ == "result_type"
    assert jaxtypes.result_type.__doc__ == promotion._result_type_py.__doc__


def keyed_arguments() -> dict[str, list[Any]]:
    """One list per input kind that result_type keys."""
    # XLA:CPU cannot create float6 arrays (test_jax_differential checks that
    # every other node has its JAX arrays).
    jax_arrays = [jnp.zeros((2,), dt) for dt in STRONG_DTYPES if "float6" not in dt.name]
    jax_arrays += [jnp.asarray(v) for v in (True, 1, 1.5, 1j)]  # weakly typed
    return {
        "numpy array": [np.zeros((2,), dt) for dt in STRONG_DTYPES],
        "JAX array": jax_arrays,
        "Python scalar": [True, 3, 0.5, 2j],
        "None": [None],
        "dtype": list(STRONG_DTYPES),
        "name": [dt.name for dt in STRONG_DTYPES] + ["f4", "i8", "?", "double"],
        "numpy scalar type": [dt.type for dt in STRONG_DTYPES],  # ml_dtypes' too
        "JAX scalar type": [jnp.float32, jnp.bfloat16, jnp.int8, jnp.float64, jnp.bool_],
        "Python type": [bool, int, float, complex],
        "numpy scalar": [dt.type(1) for dt in STRONG_DTYPES],
    }


def test_cache_hits_never_reach_python() -> None:
    """Every input kind the caches key, in every configuration: once Python
    has answered, the C path answers alone, with Python's answer.  The
    exceptions are errors and answers JAX warns about (a 64-bit dtype asked
    for with x64 off), which Python gives afresh each time, as JAX does."""
    promote_c, promote_py, result_c, result_py = counted_fast_paths()
    kinds = keyed_arguments()
    kind_of = {id(a): kind for kind, items in kinds.items() for a in items}
    arguments = [a for items in kinds.values() for a in items]
    # Lists of one to three arguments, drawn deterministically.
    lists = [(a,) for a in arguments]
    lists += [(a, b) for a, b in zip(arguments, reversed(arguments))]
    lists += [(a, b, c) for a, b, c in zip(arguments, arguments[3:], arguments[7:])]
    operands = [dt for dt in STRONG_DTYPES] + [int, float, complex, None, "bfloat16", "int8"]
    served = 0
    kinds_served: set[str] = set()
    for mode, x64 in CONFIGS:
        with jaxtypes.numpy_dtype_promotion(mode), jaxtypes.enable_x64(x64):
            for args in lists:
                for flag in (False, True):
                    # Twice: the first call of a new input only teaches the
                    # Python path to key it.
                    with warnings.catch_warnings(record=True) as warned:
                        warnings.simplefilter("always")
                        outcome(promotion._result_type_py, *args, return_weak_type_flag=flag)
                        want = outcome(promotion._result_type_py, *args, return_weak_type_flag=flag)
                        before = result_py.calls
                        got = outcome(result_c, *args, return_weak_type_flag=flag)
                    assert got == want, (mode, x64, args)
                    if want[0] == "ok" and not warned:
                        assert result_py.calls == before, f"not served in C: {args}"
                        served += 1
                        kinds_served |= {kind_of[id(a)] for a in args}
                    else:
                        assert result_py.calls == before + 1, f"served in C: {args}"
    assert served > 2000
    assert kinds_served == set(kinds), set(kinds) - kinds_served
    for mode, x64 in CONFIGS:
        with jaxtypes.numpy_dtype_promotion(mode), jaxtypes.enable_x64(x64):
            for a in operands:
                for b in operands:
                    want = outcome(promotion._promote_types_py, a, b)
                    before = promote_py.calls
                    assert outcome(promote_c, a, b) == want, (mode, x64, a, b)
                    if want[0] == "ok":
                        assert promote_py.calls == before, f"not served in C: {a!r}, {b!r}"
                        served += 1
                        kinds_served |= {f"promote {type(a).__name__}", f"promote {type(b).__name__}"}
    assert {"promote type", "promote str", "promote NoneType"} <= kinds_served
    assert any(k.startswith("promote dtype") or "DType" in k for k in kinds_served), kinds_served


def test_tracers_are_served_in_c() -> None:
    """Inside jit, vmap and grad: the second question about a tracer's kind
    of value is answered in C, with Python's answer."""
    _, _, result_c, result_py = counted_fast_paths()
    checked = []

    def check(*tracers: Any) -> None:
        for args in [tracers, (tracers[0], 1.0), (np.float32, tracers[-1])]:
            want = outcome(promotion._result_type_py, *args, return_weak_type_flag=True)
            before = result_py.calls
            assert outcome(result_c, *args, return_weak_type_flag=True) == want
            if want[0] == "ok":  # strict promotion refuses some
                assert result_py.calls == before, args
                checked.append(tuple(type(a).__name__ for a in args))

    for mode, x64 in CONFIGS:
        with jax.numpy_dtype_promotion(mode), jax.enable_x64(x64):
            jax.jit(lambda x, y: check(x, y))(jnp.asarray(1.0), jnp.asarray(1, jnp.int8))
            jax.vmap(lambda x, y: check(x, y))(jnp.ones(3), jnp.ones(3, jnp.int8))
            jax.grad(lambda x: (check(x), x)[1])(1.0)
    tracer_types = {n for types in checked for n in types if n.endswith("Tracer")}
    assert len(tracer_types) == 3, tracer_types  # jit's, vmap's and grad's
    assert len(checked) >= 4 * 7, checked


class RaisingAval:
    @property
    def aval(self) -> Any:
        raise RuntimeError("no aval here")


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((), {}),
        ((np.float32,), {"foo": 1}),
        ((np.float32,), {"return_weak_type_flag": 1}),  # truthy, not a bool
        ((np.float32, [1, 2]), {}),  # unhashable
        (([1.5],), {"return_weak_type_flag": True}),
        ((np.array(["a"]),), {}),  # a dtype outside the lattice
        ((np.zeros(2, np.float16), 1j, "float8_e4m3fn"), {}),  # no join
        ((jnp.zeros(2, ml_dtypes.int4), 1.0), {}),  # JAX's KeyError('V')
    ],
)
def test_everything_else_is_python_s_answer(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    _, _, result_c, result_py = counted_fast_paths()
    for _ in range(2):  # a second call too: nothing may have been cached wrongly
        before = result_py.calls
        assert outcome(result_c, *args, **kwargs) == outcome(promotion._result_type_py, *args, **kwargs)
        assert result_py.calls == before + 1


def test_an_argument_whose_aval_raises_reaches_python() -> None:
    _, _, result_c, result_py = counted_fast_paths()
    promotion._TOKEN_OF_TYPE[RaisingAval] = promotion._JAX_ARRAY_TOKEN  # as if a JAX array
    try:
        got = outcome(result_c, RaisingAval())
        want = outcome(promotion._result_type_py, RaisingAval())
    finally:
        del promotion._TOKEN_OF_TYPE[RaisingAval]
    assert got == want == ("error", RuntimeError, "no aval here")
    assert result_py.calls == 1


@pytest.mark.parametrize(
    "args, kwargs",
    [
        (("float32",), {}),
        (("float32", "int8", "int8"), {}),
        ((), {"a": "bfloat16", "b": "float16"}),
        (("bfloat16",), {"b": "float16"}),
        (([1], "int8"), {}),  # unhashable
        (("float8_e4m3fn", "complex64"), {}),  # no join
        (("not-a-dtype", "int8"), {}),
    ],
)
def test_promote_types_hands_other_calls_to_python(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    promote_c, promote_py, _, _ = counted_fast_paths()
    assert outcome(promote_c, *args, **kwargs) == outcome(promotion._promote_types_py, *args, **kwargs)
    assert promote_py.calls == 1


def test_configuration_changes_are_seen() -> None:
    """The C path reads the configuration in force on every call."""
    i8, u32 = np.zeros(2, np.int32), np.zeros(2, np.uint32)
    answers = {}
    for x64 in (False, True, False):
        with jaxtypes.enable_x64(x64):
            for _ in range(2):
                answers.setdefault(x64, set()).add(str(jaxtypes.result_type(i8, u32)))
    assert answers == {False: {"int32"}, True: {"int64"}}
    with jaxtypes.numpy_dtype_promotion("strict"):
        for _ in range(2):
            with pytest.raises(jaxtypes.TypePromotionError, match="strict"):
                jaxtypes.promote_types("float16", "bfloat16")
    assert jaxtypes.promote_types("float16", "bfloat16") == np.dtype("float32")


def test_no_references_leak() -> None:
    promote_c, _, result_c, _ = counted_fast_paths()
    x = jnp.zeros(2, jnp.bfloat16)
    n = np.zeros(2, np.int8)
    f32 = np.dtype("float32")
    args = (x, n, 1.0)
    answer = result_c(*args)
    result_c(*args, return_weak_type_flag=True)
    promote_c(f32, int)
    resolved = current_resolved()
    key = promotion._result_type_key(args)
    with jaxtypes.numpy_dtype_promotion("strict"):
        outcome(result_c, n, f32)
    watched = [answer, x, n, f32, float, int]
    before = [sys.getrefcount(o) for o in watched]
    for _ in range(1000):
        result_c(*args)
        result_c(*args, return_weak_type_flag=True)
        promote_c(f32, int)
        outcome(result_c, n, [1])  # falls back, raising
        del resolved.result_cache[key]
        result_c(*args)  # a keyed miss: the slow path, caching again
        del resolved.promote_cache[f32][int]
        promote_c(f32, int)
        with jaxtypes.numpy_dtype_promotion("strict"):
            outcome(result_c, n, f32)  # a keyed miss raising
    after = [sys.getrefcount(o) for o in watched]
    # A reference leaked per call shows a thousand times over; a builtin type's
    # count (float, int) also moves by a few through unrelated caches.
    grown = {repr(o): a - b for o, a, b in zip(watched, after, before) if abs(a - b) >= 100}
    assert not grown, f"references gained over 1000 rounds: {grown}"


def test_bad_construction_is_a_clear_error() -> None:
    sp = _speedups()
    fn, slow = promotion._promote_types_py, (vars(promotion), "_promote_types_slow")
    with pytest.raises(TypeError, match="fallback must be callable, not 3"):
        sp.promote_types_fast(3, *slow, default_state, State, process_holder, Resolved)
    with pytest.raises(TypeError, match="default_state must be a State, not 'no State'"):
        sp.promote_types_fast(fn, *slow, "no State", State, process_holder, Resolved)
    with pytest.raises(TypeError):
        sp.promote_types_fast(fn, "not a dict", "_promote_types_slow", default_state, State, process_holder, Resolved)

    class Unslotted:
        promote_cache: dict[Any, Any] = {}
        memo = layer = None

    with pytest.raises(TypeError, match="Unslotted.promote_cache must be a __slots__ entry"):
        sp.promote_types_fast(fn, *slow, default_state, State, process_holder, Unslotted)
    with pytest.raises(TypeError, match="Unslotted.memo must be a __slots__ entry"):
        sp.promote_types_fast(fn, *slow, default_state, Unslotted, process_holder, Resolved)
    with pytest.raises(TypeError, match="Unslotted.layer must be a __slots__ entry"):
        sp.promote_types_fast(fn, *slow, default_state, State, Unslotted(), Resolved)


def test_a_keyed_miss_goes_to_the_slow_path_with_the_configuration_found() -> None:
    """A miss the C path has keyed skips the Python function: the slow path
    gets the Resolved configuration in force and the key, computes the answer
    and caches it there (the next call is a hit)."""
    promote_c, promote_py, result_c, result_py = counted_fast_paths()
    args = (np.dtype("uint32"), "int32")
    promotion._result_type_py(*args)  # the inputs are learned: the C path keys them
    key = promotion._result_type_key(args)
    answers = {}
    for x64 in (False, True):
        with jaxtypes.enable_x64(x64):
            resolved = current_resolved()
            resolved.result_cache.pop(key, None)
            resolved.promote_cache.pop(args[0], None)
            slow_before, own_before = result_py.also.own_calls, result_py.own_calls
            answers[x64] = result_c(*args, return_weak_type_flag=True)
            assert (result_py.also.own_calls, result_py.own_calls) == (slow_before + 1, own_before)
            assert resolved.result_cache[key] == answers[x64]
            assert result_c(*args, return_weak_type_flag=True) == answers[x64]
            assert result_py.calls == slow_before + own_before + 1  # a hit
            slow_before, own_before = promote_py.also.own_calls, promote_py.own_calls
            assert promote_c(*args) == promotion._promote_types_py(*args)
            assert (promote_py.also.own_calls, promote_py.own_calls) == (slow_before + 1, own_before)
    assert answers == {False: (np.dtype("int32"), False), True: (np.dtype("int64"), False)}


def test_without_its_slow_path_a_miss_goes_to_the_python_function() -> None:
    sp = _speedups()
    promote_py = Counting(promotion._promote_types_py)
    result_py = Counting(promotion._result_type_py)
    promote_c = sp.promote_types_fast(
        promote_py, {}, "_promote_types_slow", default_state, State, process_holder, Resolved
    )
    result_c = sp.result_type_fast(
        result_py,
        {},
        "_result_type_slow",
        default_state,
        State,
        process_holder,
        Resolved,
        promotion._TOKEN_OF_TYPE,
        promotion._NUMPY_ARRAY_TOKEN,
        promotion._JAX_ARRAY_TOKEN,
        promotion._KEY_BASE,
    )
    args = (np.dtype("int16"), 1.5)
    promotion._result_type_py(*args)
    resolved = current_resolved()
    resolved.result_cache.pop(promotion._result_type_key(args), None)
    resolved.promote_cache.pop(np.dtype("int16"), None)
    assert result_c(*args) == np.dtype("float32") and result_py.calls == 1
    assert promote_c(np.dtype("int16"), float) == np.dtype("float64") and promote_py.calls == 1


def test_jax_scalar_types_are_cached_under_numpy_s() -> None:
    """jnp.float32 equals np.float32 and hashes alike, through Python methods:
    cached under numpy's type, numpy's types are then still found by identity."""
    resolved = current_resolved()
    for key in (np.float32, np.int8):
        resolved.promote_cache.pop(key, None)
    assert jaxtypes.promote_types(jnp.float32, jnp.int8) == np.dtype("float32")
    outer = [k for k in resolved.promote_cache if isinstance(k, type) and k == np.float32]
    inner = [k for k in resolved.promote_cache[np.float32] if isinstance(k, type) and k == np.int8]
    assert outer == [np.float32] and outer[0] is np.float32
    assert inner == [np.int8] and inner[0] is np.int8
    assert jaxtypes.promote_types(np.float32, np.int8) == np.dtype("float32")
    assert jaxtypes.promote_types(jnp.float32, jnp.int8) == np.dtype("float32")


@pytest.mark.parametrize("n", [1, 2, promotion._INT_KEY_ARGS, promotion._INT_KEY_ARGS + 1, 40])
def test_keys_of_any_length_are_served_in_c(n: int) -> None:
    """Up to _INT_KEY_ARGS arguments the key is one int, beyond a tuple: the C
    path builds the same key either way (the largest tokens included)."""
    _, _, result_c, result_py = counted_fast_paths()
    pool = [np.zeros(1, np.int8), 1.5, "complex64", jnp.asarray(1.0), np.float16, None]
    with jax.enable_x64(True):  # the last dtype (complex128): the largest tokens
        pool.append(jnp.zeros(1, STRONG_DTYPES[-1]))
    assert pool[-1].dtype == STRONG_DTYPES[-1]
    args = tuple(pool[i % len(pool)] for i in range(n))
    with jaxtypes.enable_x64(True):  # with x64 off, a complex128 result is warned about
        want = outcome(promotion._result_type_py, *args, return_weak_type_flag=True)
        key = promotion._result_type_key(args)
        assert isinstance(key, int) == (n <= promotion._INT_KEY_ARGS)
        assert list(promotion._tokens_of_key(key)) == [
            promotion._result_type_key((a,)) - 1
            for a in args  # one argument: its token + 1
        ]
        before = result_py.calls
        assert outcome(result_c, *args, return_weak_type_flag=True) == want
        assert want[0] == "ok" and result_py.calls == before, "not served in C"


def test_bad_key_base_is_a_clear_error() -> None:
    sp = _speedups()
    with pytest.raises(ValueError, match="key_base must be at least 2, not 1"):
        sp.result_type_fast(
            promotion._result_type_py,
            vars(promotion),
            "_result_type_slow",
            default_state,
            State,
            process_holder,
            Resolved,
            promotion._TOKEN_OF_TYPE,
            promotion._NUMPY_ARRAY_TOKEN,
            promotion._JAX_ARRAY_TOKEN,
            1,
        )
