"""Live differential test: jaxtypes against the installed JAX, in this process.

JAX is the oracle.  Every comparison runs the same inputs through JAX
(``jax.numpy.promote_types``, ``jax.dtypes.result_type``) and through jaxtypes,
under the same configuration, and compares the dtype, the weak flag
(``return_weak_type_flag=True``), the error class and the error message.
JAX's configuration is switched in-process with its own context managers
(``jax.numpy_dtype_promotion``, ``jax.enable_x64``), which restore it on exit;
jaxtypes' with ``jaxtypes.numpy_dtype_promotion`` / ``jaxtypes.enable_x64``.

Every jaxtypes call is made twice and both answers must agree: the first
fills the per-configuration cache and the second is served by
``promote_types``/``result_type``'s fast path where the inputs allow it.

(i)  Exhaustive: every ordered pair of the 35 lattice nodes in the four
     configurations, for ``promote_types`` (numpy dtypes, dtype names and the
     weak types int/float/complex) and for ``result_type`` (representative
     inputs of each node: its numpy dtype, a strong and a weakly typed JAX
     array of that dtype, and for the weak nodes the Python type and a Python
     value).
(ii) Random: seeded argument lists of length 1..5 drawn from every input kind
     (see ``POOL``), each compared in all four configurations; also random
     ``promote_types`` operand pairs and ``jaxtypes.dtype`` on the whole pool.
Then tracers (jit, vmap, grad), and a check that inputs the caches key are
really served from the cache on the second call, with JAX's answer.

The pool includes inputs JAX accepts outside the lattice (numpy's StringDType,
JAX's float0, np.str_ and other non-numeric numpy scalar types, a PRNG key
array) and weakly typed sub-byte integer arrays, for which JAX 0.10 raises
``KeyError('V')``: the comparisons hold jaxtypes to JAX's answers there too.

Objects that merely *look* like arrays: JAX decides weakness only from
``x.aval.weak_type``, jaxtypes also reads a ``weak_type`` attribute.  The fake
arrays used here therefore carry both, with the same value (``FakeArray``), or
only ``aval`` (``FakeTracer``), so that the two semantics coincide and every
answer, weak flag included, is compared.  (An object with a true
``weak_type`` and no ``aval``, such as ``jax.ShapeDtypeStruct(...,
weak_type=True)``, is strong to JAX and weak to jaxtypes; it is left out.)

Messages are compared everywhere: JAX's messages are deterministic within a
process (some list the inputs in set order, which depends only on the inputs,
and jaxtypes builds the same sets).

Run ``pytest -s tests/test_jax_differential.py`` to see the one-line summary
of the counts.
"""

from __future__ import annotations

import contextlib
import random
import types
import warnings
from typing import Any, Callable, Iterator

import jax  # a required test dependency: no skip when it is missing
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from jax import dtypes as jax_dtypes
from jax._src import dtypes as jax_dtypes_internal  # jax.dtypes does not export dtype()
from jax._src.lax import lax as jax_lax_internal

import jaxtypes
from jaxtypes import lattice
from jaxtypes.config import current_variant

SEED = 20240611
N_RANDOM_LISTS = 2500
CONFIGS = [(mode, x64) for mode in ("standard", "strict") for x64 in (True, False)]
WEAK_TYPES = {"i*": int, "f*": float, "c*": complex}
PY_VALUES = {"i*": 3, "f*": 0.5, "c*": 1j}


def node_dtype(node: str) -> np.dtype:
    return np.dtype(getattr(ml_dtypes, node, None) or node)


@pytest.fixture(autouse=True)
def _quiet_x64_warnings() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Explicitly requested dtype", category=UserWarning)
        # np.str_('a') names numpy's deprecated 'a' alias; JAX and jaxtypes both warn.
        warnings.filterwarnings("ignore", message="Data type alias 'a'", category=DeprecationWarning)
        # promote_types(array, ...) goes through numpy.dtype(array) on both sides.
        warnings.filterwarnings(
            "ignore", message="Implicit conversion of an array to a dtype", category=DeprecationWarning
        )
        yield


@pytest.fixture(scope="module", autouse=True)
def _jax_config_restored() -> Iterator[None]:
    before = (jax.config.jax_enable_x64, jax.config.jax_numpy_dtype_promotion)
    yield
    assert (jax.config.jax_enable_x64, jax.config.jax_numpy_dtype_promotion) == before


SUMMARY: dict[str, int] = {}


@pytest.fixture(scope="module", autouse=True)
def _print_summary() -> Iterator[None]:
    yield
    get = SUMMARY.get
    print(
        f"\njaxtypes-vs-JAX differential (JAX {jax.__version__}): "
        f"promote_types node pairs={get('promote_pairs', 0)} ({get('promote_calls', 0)} calls), "
        f"result_type node pairs={get('result_pairs', 0)} ({get('result_calls', 0)} calls), "
        f"random result_type lists={get('random_lists', 0)} "
        f"(x4 configurations = {get('random_comparisons', 0)} comparisons), "
        f"random promote_types pairs x4 configurations={get('random_promote_comparisons', 0)}, "
        f"tracer comparisons={get('tracer_comparisons', 0)}, "
        f"cache-hit checks={get('cache_checks', 0)}, mismatches={get('mismatches', 0)}"
    )


@contextlib.contextmanager
def both_configured(mode: str, x64: bool) -> Iterator[None]:
    """JAX and jaxtypes in the same configuration, for a block."""
    with jax.numpy_dtype_promotion(mode), jax.enable_x64(x64):
        with jaxtypes.numpy_dtype_promotion(mode), jaxtypes.enable_x64(x64):
            yield


# ------------------------------------------------------------ comparing
def outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, ...]:
    """A comparable summary of a call: its answer, or its error's class and message."""
    try:
        result = fn(*args, **kwargs)
    except Exception as err:  # noqa: BLE001 - errors are part of the answer
        return ("error", type(err).__name__, str(err), isinstance(err, ValueError))
    if isinstance(result, tuple):
        dt, weak = result
        return ("ok", str(dt), dt, type(weak).__name__, bool(weak))
    return ("ok", str(result), result)


def same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "error":
        return a[1:] == b[1:]
    # dtypes: the same printed name and equal (== on the dtype objects).  numpy's
    # equal aliases (dtype(np.longlong) and dtype('int64')) are not told apart.
    return a[1] == b[1] and a[2] == b[2] and a[3:] == b[3:]


def jaxtypes_twice(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, ...]:
    first = outcome(fn, *args, **kwargs)
    second = outcome(fn, *args, **kwargs)
    if not same(first, second):
        return ("cache-inconsistent", first, second)
    return first


def describe(args: tuple[Any, ...]) -> str:
    return "(" + ", ".join(_describe_one(a) for a in args) + ")"


def _describe_one(a: Any) -> str:
    if isinstance(a, jax.Array):
        return f"jax.Array[{a.dtype}{', weak' if getattr(a, 'weak_type', False) else ''}]"
    if isinstance(a, np.ndarray):
        return f"np.ndarray[{a.dtype}, shape={a.shape}]"
    return repr(a)


# ------------------------------------------------------ input objects
class HasDtype:
    """An object with only a ``dtype`` attribute (array-like to JAX)."""

    def __init__(self, dtype: Any) -> None:
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"HasDtype({self.dtype!r})"


class FakeArray:
    """An array look-alike with ``dtype``, ``weak_type`` and ``aval.weak_type`` agreeing."""

    def __init__(self, dtype: np.dtype, weak: bool) -> None:
        self.dtype = dtype
        self.weak_type = weak
        self.aval = types.SimpleNamespace(weak_type=weak, dtype=dtype)

    def __repr__(self) -> str:
        return f"FakeArray({self.dtype}, weak={self.weak_type})"


class FakeTracer:
    """A tracer look-alike: ``dtype`` and ``aval.weak_type`` only."""

    def __init__(self, dtype: np.dtype, weak: bool) -> None:
        self.dtype = dtype
        self.aval = types.SimpleNamespace(weak_type=weak, dtype=dtype)

    def __repr__(self) -> str:
        return f"FakeTracer({self.dtype}, weak={self.aval.weak_type})"


def make_jax_array(dt: np.dtype, weak: bool) -> jax.Array | None:
    """A 0-d JAX array of dtype ``dt`` (64-bit ones made with x64 on), or None
    where this backend cannot hold the dtype."""
    with jax.enable_x64(True):
        try:
            x = jax_lax_internal._convert_element_type(0, dt, weak_type=weak)
        except Exception:  # noqa: BLE001 - e.g. XLA:CPU has no float6 arrays
            return None
    assert x.dtype == dt and bool(x.weak_type) is weak
    return x


STRONG_DTYPES = {n: node_dtype(n) for n in lattice.STRONG}
JAX_STRONG = {n: make_jax_array(dt, False) for n, dt in STRONG_DTYPES.items()}
JAX_WEAK = {n: make_jax_array(dt, True) for n, dt in STRONG_DTYPES.items()}
# XLA:CPU cannot create float6 arrays; every other node must have its JAX arrays.
MISSING_JAX = {n for n, x in JAX_STRONG.items() if x is None} | {n for n, x in JAX_WEAK.items() if x is None}


def test_jax_arrays_exist_for_the_nodes() -> None:
    assert MISSING_JAX <= {"float6_e2m3fn", "float6_e3m2fn"}, MISSING_JAX
    assert len(STRONG_DTYPES) == len(lattice.STRONG) == 32


# ------------------------------------------- (i) exhaustive node pairs
def promote_operands(node: str) -> list[Any]:
    if node in WEAK_TYPES:
        return [WEAK_TYPES[node]]
    return [STRONG_DTYPES[node], node]


def result_operands(node: str) -> list[Any]:
    if node in WEAK_TYPES:
        return [WEAK_TYPES[node], PY_VALUES[node]]
    reps: list[Any] = [STRONG_DTYPES[node]]
    for pool in (JAX_STRONG, JAX_WEAK):
        if pool[node] is not None:
            reps.append(pool[node])
    return reps


def _fail(kind: str, mismatches: list[str], compared: int) -> None:
    SUMMARY["mismatches"] = SUMMARY.get("mismatches", 0) + len(mismatches)
    assert not mismatches, f"{len(mismatches)} of {compared} {kind} comparisons differ from JAX:\n  " + "\n  ".join(
        mismatches[:30]
    )


def test_promote_types_every_node_pair_every_configuration() -> None:
    mismatches: list[str] = []
    pairs = 0
    calls = 0
    for mode, x64 in CONFIGS:
        with both_configured(mode, x64):
            for a in lattice.NODES:
                for b in lattice.NODES:
                    pairs += 1
                    for x in promote_operands(a):
                        for y in promote_operands(b):
                            calls += 1
                            want = outcome(jnp.promote_types, x, y)
                            got = jaxtypes_twice(jaxtypes.promote_types, x, y)
                            if not same(want, got):
                                mismatches.append(
                                    f"[{mode}, x64={x64}] promote_types({x!r}, {y!r}): JAX {want}, jaxtypes {got}"
                                )
    SUMMARY["promote_pairs"], SUMMARY["promote_calls"] = pairs, calls
    assert pairs == 4 * len(lattice.NODES) ** 2 == 4 * 35 * 35
    assert calls >= pairs
    _fail("promote_types", mismatches, calls)


def test_result_type_every_node_pair_every_configuration() -> None:
    mismatches: list[str] = []
    pairs = 0
    calls = 0
    for mode, x64 in CONFIGS:
        with both_configured(mode, x64):
            for a in lattice.NODES:
                for x in result_operands(a):  # one argument alone
                    calls += 1
                    want = outcome(jax_dtypes.result_type, x, return_weak_type_flag=True)
                    got = jaxtypes_twice(jaxtypes.result_type, x, return_weak_type_flag=True)
                    if not same(want, got):
                        mismatches.append(
                            f"[{mode}, x64={x64}] result_type{describe((x,))}: JAX {want}, jaxtypes {got}"
                        )
                for b in lattice.NODES:
                    pairs += 1
                    for x in result_operands(a):
                        for y in result_operands(b):
                            calls += 1
                            want = outcome(jax_dtypes.result_type, x, y, return_weak_type_flag=True)
                            got = jaxtypes_twice(jaxtypes.result_type, x, y, return_weak_type_flag=True)
                            if not same(want, got):
                                mismatches.append(
                                    f"[{mode}, x64={x64}] result_type{describe((x, y))}: JAX {want}, jaxtypes {got}"
                                )
    SUMMARY["result_pairs"], SUMMARY["result_calls"] = pairs, calls
    assert pairs == 4 * len(lattice.NODES) ** 2 == 4 * 35 * 35
    assert calls >= 2 * pairs
    _fail("result_type", mismatches, calls)


# ------------------------------------------------- (ii) random argument lists
FLOAT0 = np.dtype([("float0", np.void, 0)])
assert FLOAT0 == jax_dtypes.float0

ODD_DTYPES = [
    np.dtype("O"),
    np.dtype("U5"),
    np.dtype("S3"),
    np.dtype("V8"),
    np.dtype("M8[s]"),
    np.dtype("m8[ms]"),
    np.dtype(">i4"),
    np.dtype(">f8"),
    np.dtypes.StringDType(),
    FLOAT0,
]
DTYPE_NAMES = [
    *lattice.STRONG,
    "float",
    "int",
    "complex",
    "bool",
    "f4",
    "f8",
    "i8",
    "u2",
    "c16",
    "?",
    "d",
    "half",
    "double",
    "single",
    "longlong",
    "intp",
    "uint",
    "T",
    "O",
    "U",
    "S3",
    "datetime64[s]",
    "nonsense",
]
NUMPY_SCALAR_TYPES = [
    np.bool_,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
    np.longlong,
    np.intp,
    np.str_,
    np.bytes_,
    np.object_,
    np.void,
    np.datetime64,
    np.timedelta64,
    np.floating,
    np.integer,
    np.generic,
]
ML_SCALAR_TYPES = [getattr(ml_dtypes, n) for n in lattice.STRONG if hasattr(ml_dtypes, n)]
PYTHON_VALUES = [0, 1, -7, 2**40, 2**70, 0.0, 2.5, float("inf"), 1j, complex(1, -2), True, False]
NUMPY_ARRAYS = (
    [np.zeros((2,), dt) for dt in STRONG_DTYPES.values()]
    + [np.zeros((), dt) for dt in STRONG_DTYPES.values()]
    + [
        np.array(["a"]),
        np.array([object()], dtype=object),
        np.array([1, 2], dtype=">i2"),
        np.array(["x"], dtype=np.dtypes.StringDType()),
    ]
)
NUMPY_SCALARS = [dt.type(1) for dt in STRONG_DTYPES.values()] + [
    np.str_("float32"),
    np.str_("a"),
    np.datetime64("2020"),
    np.bool_(True),
]
JAX_ARRAYS = [x for x in (*JAX_STRONG.values(), *JAX_WEAK.values()) if x is not None]


def _default_jax_arrays() -> list[jax.Array]:
    out = []
    for x64 in (False, True):
        with jax.enable_x64(x64), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # float64 truncated with x64 off
            out += [
                jnp.asarray(1.0),
                jnp.asarray(1),
                jnp.asarray(1j),
                jnp.asarray(True),
                jnp.asarray(1.0, jnp.bfloat16),
                jnp.asarray(1, jnp.int16),
                jnp.asarray([1.0, 2.0]),
                jnp.zeros((2,), jnp.float64),
            ]
    return out


JAX_ARRAYS += _default_jax_arrays()
JAX_ARRAYS += [jax.random.key(0)]  # an extended (PRNG key) dtype
DTYPE_ATTR_OBJECTS = (
    [HasDtype(dt) for dt in STRONG_DTYPES.values()]
    + [HasDtype(np.dtype("O")), HasDtype("int16"), HasDtype(None)]
    + [jnp.int8, jnp.int64, jnp.float64, jnp.bfloat16, jnp.complex128, jnp.bool_]
)
FAKE_WEAK_OBJECTS = [FakeArray(dt, w) for dt in STRONG_DTYPES.values() for w in (True, False)] + [
    FakeTracer(dt, w) for dt in STRONG_DTYPES.values() for w in (True, False)
]

POOL: dict[str, list[Any]] = {
    "numpy dtype": list(STRONG_DTYPES.values()) + ODD_DTYPES,
    "dtype name": DTYPE_NAMES,
    "numpy scalar type": NUMPY_SCALAR_TYPES,
    "ml_dtypes scalar type": ML_SCALAR_TYPES,
    "python scalar": PYTHON_VALUES,
    "python type": [int, float, complex, bool],
    "None": [None],
    "numpy array": NUMPY_ARRAYS,
    "numpy scalar": NUMPY_SCALARS,
    "jax array": JAX_ARRAYS,
    "object with dtype": DTYPE_ATTR_OBJECTS,
    "object with weak_type and aval": FAKE_WEAK_OBJECTS,
}
KINDS = list(POOL)


def random_lists(n: int, seed: int = SEED) -> list[tuple[tuple[str, ...], tuple[Any, ...]]]:
    """n argument lists of length 1..5; each kind of input leads some lists."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        length = rng.randint(1, 5)
        kinds = [KINDS[i % len(KINDS)]] + [rng.choice(KINDS) for _ in range(length - 1)]
        rng.shuffle(kinds)
        args = tuple(rng.choice(POOL[k]) for k in kinds)
        out.append((tuple(kinds), args))
    return out


def test_random_lists_are_reproducible_and_cover_every_kind() -> None:
    first = random_lists(N_RANDOM_LISTS)
    again = random_lists(N_RANDOM_LISTS)
    assert [k for k, _ in first] == [k for k, _ in again]
    assert all(x is y for (_, a), (_, b) in zip(first, again) for x, y in zip(a, b))
    seen = {k for kinds, _ in first for k in kinds}
    assert seen == set(KINDS)
    lengths = {len(args) for _, args in first}
    assert lengths == {1, 2, 3, 4, 5}


def test_result_type_random_argument_lists() -> None:
    lists = random_lists(N_RANDOM_LISTS)
    mismatches: list[str] = []
    comparisons = 0
    outcomes = {"ok": 0, "error": 0}
    weak_results = 0
    for mode, x64 in CONFIGS:
        with both_configured(mode, x64):
            for kinds, args in lists:
                comparisons += 1
                want = outcome(jax_dtypes.result_type, *args, return_weak_type_flag=True)
                got = jaxtypes_twice(jaxtypes.result_type, *args, return_weak_type_flag=True)
                plain_want = outcome(jax_dtypes.result_type, *args)
                plain_got = jaxtypes_twice(jaxtypes.result_type, *args)
                outcomes[want[0]] += 1
                weak_results += want[0] == "ok" and want[4]
                if not same(want, got) or not same(plain_want, plain_got):
                    mismatches.append(
                        f"[{mode}, x64={x64}] result_type{describe(args)} kinds={kinds}: JAX {want}, jaxtypes {got}"
                    )
    SUMMARY["random_lists"] = len(lists)
    SUMMARY["random_comparisons"] = comparisons
    assert len(lists) >= 2000
    assert comparisons == 4 * len(lists)
    # The lists exercise answers, errors and weak answers alike.
    assert outcomes["ok"] >= 1000 and outcomes["error"] >= 1000 and weak_results >= 100, (outcomes, weak_results)
    _fail("random result_type", mismatches, comparisons)


def test_promote_types_random_operand_pairs() -> None:
    """promote_types on any two inputs of the pool (numpy.dtype sees them all)."""
    rng = random.Random(SEED + 2)
    flat = [(kind, x) for kind, items in POOL.items() for x in items]
    pairs = [(rng.choice(flat), rng.choice(flat)) for _ in range(1500)]
    mismatches: list[str] = []
    for mode, x64 in CONFIGS:
        with both_configured(mode, x64):
            for (ka, a), (kb, b) in pairs:
                want = outcome(jnp.promote_types, a, b)
                got = jaxtypes_twice(jaxtypes.promote_types, a, b)
                if not same(want, got):
                    mismatches.append(
                        f"[{mode}, x64={x64}] promote_types{describe((a, b))} kinds=({ka}, {kb}): "
                        f"JAX {want}, jaxtypes {got}"
                    )
    SUMMARY["random_promote_comparisons"] = 4 * len(pairs)
    _fail("random promote_types", mismatches, 4 * len(pairs))


def test_dtype_of_every_pool_input() -> None:
    """jaxtypes.dtype is jax.dtypes.dtype (canonicalized as JAX does, errors included)."""
    mismatches: list[str] = []
    compared = 0
    for mode, x64 in CONFIGS:
        with both_configured(mode, x64):
            for kind, items in POOL.items():
                for x in items:
                    compared += 1
                    want = outcome(jax_dtypes_internal.dtype, x)
                    got = jaxtypes_twice(jaxtypes.dtype, x)
                    if not same(want, got):
                        mismatches.append(
                            f"[{mode}, x64={x64}] dtype({_describe_one(x)}) ({kind}): JAX {want}, jaxtypes {got}"
                        )
    assert compared >= 4 * 400
    _fail("dtype()", mismatches, compared)


def test_result_type_no_arguments() -> None:
    for mode, x64 in CONFIGS:
        with both_configured(mode, x64):
            want = outcome(jax_dtypes.result_type)
            assert want[0] == "error"
            assert same(want, jaxtypes_twice(jaxtypes.result_type)), want


def test_configuration_is_restored() -> None:
    x64, mode = jax.config.jax_enable_x64, jax.config.jax_numpy_dtype_promotion
    with both_configured("strict", not x64):
        assert jax.config.jax_numpy_dtype_promotion == "strict"
        assert current_variant() == lattice.Variant("strict", not x64)
    assert (jax.config.jax_enable_x64, jax.config.jax_numpy_dtype_promotion) == (x64, mode)
    assert current_variant() == lattice.variant(
        jaxtypes.config.jax_numpy_dtype_promotion, jaxtypes.config.jax_enable_x64
    )


# ----------------------------------------------------------- JAX tracers
def test_result_type_on_tracers() -> None:
    """Tracers under jit, vmap and grad (weak and strong), in every configuration."""
    partners: list[Any] = [
        None,
        1,
        2.5,
        1j,
        True,
        np.int16,
        "bfloat16",
        np.zeros(2, np.uint8),
        jnp.asarray(1.0, jnp.bfloat16),
        jnp.asarray(1.0),
    ]
    mismatches: list[str] = []
    compared = 0

    def compare(*tracers: Any) -> None:
        nonlocal compared
        for t in tracers:
            for args in [(t,), *((t, p) for p in partners), *((p, t) for p in partners), tracers]:
                compared += 1
                want = outcome(jax_dtypes.result_type, *args, return_weak_type_flag=True)
                got = jaxtypes_twice(jaxtypes.result_type, *args, return_weak_type_flag=True)
                if not same(want, got):
                    mismatches.append(f"{describe(args)} [{type(t).__name__}]: JAX {want}, jaxtypes {got}")

    for mode, x64 in CONFIGS:
        with both_configured(mode, x64):
            strong = jnp.asarray(1, jnp.int8)
            weak = jnp.asarray(1.0)
            jax.jit(lambda x, y: compare(x, y))(weak, strong)
            jax.vmap(lambda x, y: compare(x, y))(jnp.ones(3), jnp.ones(3, jnp.int8))
            jax.grad(lambda x: (compare(x), x)[1])(1.0)
    SUMMARY["tracer_comparisons"] = compared
    assert compared >= 4 * 3 * 20
    _fail("tracer result_type", mismatches, compared)


# ------------------------------------------------------ the cached fast path
@pytest.fixture
def slow_calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count the calls that miss the per-configuration caches."""
    from jaxtypes import promotion

    counts = {"result_type": 0, "promote_types": 0}
    for name, key in (("_result_type_slow", "result_type"), ("_promote_types_slow", "promote_types")):
        real = getattr(promotion, name)  # the slow paths the caches exist to skip

        def counting(*args: Any, _real: Any = real, _key: str = key, **kwargs: Any) -> Any:
            counts[_key] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(promotion, name, counting)
    return counts


# Every input kind result_type keys, by kind.
KEYED_POOL: dict[str, list[Any]] = {
    "python scalar": PYTHON_VALUES,
    "None": [None],
    "numpy array": [np.zeros((2,), dt) for dt in STRONG_DTYPES.values()],
    "jax array": [x for x in JAX_ARRAYS if x.dtype in STRONG_DTYPES.values()],
    "numpy dtype": list(STRONG_DTYPES.values()),
    "dtype name": list(lattice.STRONG) + ["float", "int", "f4", "i8", "?", "half", "longlong"],
    "numpy scalar type": NUMPY_SCALAR_TYPES[: NUMPY_SCALAR_TYPES.index(np.str_)] + ML_SCALAR_TYPES,
    "jax scalar type": [jnp.int8, jnp.int64, jnp.float64, jnp.bfloat16, jnp.complex128, jnp.bool_],
    "python type": [int, float, complex, bool],
    "numpy scalar": [dt.type(1) for dt in STRONG_DTYPES.values()] + [np.bool_(True)],
}
KIND_OF_KEYED = {id(x): kind for kind, items in KEYED_POOL.items() for x in items}


def test_cached_answers_are_jax_s_answers(slow_calls: dict[str, int]) -> None:
    """Every input kind result_type accepts is keyed (Python scalars and types,
    None, numpy and JAX arrays, numpy scalars, dtypes, names, numpy, ml_dtypes
    and JAX scalar types; dtypes, names, types and None for promote_types):
    the second call is a cache hit, and both calls give JAX's answer."""
    rng = random.Random(SEED + 1)
    kinds = list(KEYED_POOL)  # a kind, then one of its inputs: each kind is drawn alike
    lists = [tuple(rng.choice(KEYED_POOL[rng.choice(kinds)]) for _ in range(rng.randint(1, 4))) for _ in range(1500)]
    lists += [(x,) for items in KEYED_POOL.values() for x in items]
    hits_by_kind: dict[str, int] = dict.fromkeys(KEYED_POOL, 0)
    operands = [op for node in lattice.NODES for op in promote_operands(node)]
    # Scalar types too: JAX's compare equal to numpy's, and share their entries.
    operands += [jnp.int8, jnp.float32, jnp.bfloat16, np.int8, np.float32, ml_dtypes.bfloat16]
    mismatches: list[str] = []
    hits = {"result_type": 0, "promote_types": 0}
    for mode, x64 in CONFIGS:
        with both_configured(mode, x64):
            for args in lists:
                with warnings.catch_warnings(record=True) as jax_warned:
                    warnings.simplefilter("always")
                    want = outcome(jax_dtypes.result_type, *args, return_weak_type_flag=True)
                first = outcome(jaxtypes.result_type, *args, return_weak_type_flag=True)
                before = slow_calls["result_type"]
                second = outcome(jaxtypes.result_type, *args, return_weak_type_flag=True)
                # Answers are cached; errors are raised afresh, and an answer
                # JAX warns about (a 64-bit join truncated with x64 off, under
                # jax_explicit_x64_dtypes='warn') is computed, and warned, afresh.
                if want[0] == "ok":
                    cached = slow_calls["result_type"] == before
                    if cached == bool(jax_warned):
                        mismatches.append(
                            f"[{mode}, x64={x64}] result_type{describe(args)}: "
                            f"cached={cached} though JAX warned={bool(jax_warned)}"
                        )
                    hits["result_type"] += cached
                    for x in args if cached else ():
                        hits_by_kind[KIND_OF_KEYED[id(x)]] += 1
                if not (same(want, first) and same(want, second)):
                    mismatches.append(
                        f"[{mode}, x64={x64}] result_type{describe(args)}: JAX {want}, jaxtypes {first} then {second}"
                    )
            for x in operands + [None]:
                for y in operands + [None]:
                    want = outcome(jnp.promote_types, x, y)
                    first = outcome(jaxtypes.promote_types, x, y)
                    before = slow_calls["promote_types"]
                    second = outcome(jaxtypes.promote_types, x, y)
                    if want[0] == "ok":
                        hits["promote_types"] += 1
                        if slow_calls["promote_types"] != before:
                            mismatches.append(f"[{mode}, x64={x64}] promote_types({x!r}, {y!r}): not cached")
                    if not (same(want, first) and same(want, second)):
                        mismatches.append(
                            f"[{mode}, x64={x64}] promote_types({x!r}, {y!r}): JAX {want}, "
                            f"jaxtypes {first} then {second}"
                        )
    SUMMARY["cache_checks"] = sum(hits.values())
    assert hits["result_type"] >= 3000 and hits["promote_types"] >= 1000, hits
    assert min(hits_by_kind.values()) >= 100, hits_by_kind
    _fail("cached-path", mismatches, sum(hits.values()))
