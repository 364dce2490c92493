"""jaxtypes follows JAX's configuration however a program sets it.

No jaxtypes scope and no environment variable is used to configure the
comparisons here: JAX is configured the ways users configure it, and every
jaxtypes answer (``promote_types``, ``result_type`` with its weak flag,
``dtype`` with its warnings, ``canonicalize_dtype``) is compared with JAX's
answer in the same configuration, errors by class and message.  The ways:

* ``jax.config.update`` of the three options;
* JAX's scopes: ``jax.numpy_dtype_promotion``, ``jax.enable_x64`` and the
  ``jax_explicit_x64_dtypes`` state's context manager, as ``with`` blocks;
* the same as decorators;
* JAX's thread-local config contexts (``config_states[name](value)``, as
  ``jax._src.test_util.thread_local_config_context`` enters them);
* JAX's scopes in several threads at once, each thread its own configuration;
* ``jaxtypes.config.update``, which sets JAX's process-wide value too.

Each way runs every configuration: promotion mode x x64 x
``jax_explicit_x64_dtypes`` (allow / warn / error).  ``pytest -s`` prints the
number of comparisons per way.
"""

from __future__ import annotations

import contextlib
import itertools
import random
import threading
import warnings
from typing import Any, Callable, Iterator

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from jax import dtypes as jax_dtypes
from jax._src import config as jax_config_internal
from jax._src import dtypes as jax_dtypes_internal  # dtype() is not exported
from jax._src import literals as jax_literals

import jaxtypes
from jaxtypes import lattice

CONFIGS = list(itertools.product(("standard", "strict"), (False, True), ("allow", "warn", "error")))
OPTION = {"mode": "jax_numpy_dtype_promotion", "x64": "jax_enable_x64", "explicit": "jax_explicit_x64_dtypes"}
COUNTS: dict[str, int] = {}


def node_dtype(node: str) -> np.dtype:
    return np.dtype(getattr(ml_dtypes, node, None) or node)


@pytest.fixture(scope="module", autouse=True)
def _summary() -> Iterator[None]:
    before = {k: getattr(jax.config, v) for k, v in OPTION.items()}
    yield
    after = {k: getattr(jax.config, v) for k, v in OPTION.items()}
    assert after == before
    print("\njaxtypes-vs-JAX by way of configuring JAX: " + ", ".join(f"{way}={n}" for way, n in COUNTS.items()))


# ------------------------------------------------------------ inputs
def _inputs() -> dict[str, list[Any]]:
    """The questions, built once under x64 so that 64-bit JAX arrays exist."""
    nodes = [n for n in lattice.STRONG]
    dts = [node_dtype(n) for n in nodes]
    with jax.enable_x64(True):
        jax_arrays = [jnp.zeros(1, d) for d in ("int64", "uint64", "float64", "complex128")]
    jax_arrays += [jnp.zeros(1, d) for d in ("int8", "uint32", "bfloat16", "float32")]
    jax_arrays += [jnp.asarray(1.0), jnp.asarray(2)]  # weakly typed
    (sym,) = jax.export.symbolic_shape("a")
    key = jax.random.key(0)
    literals = [
        jax_literals.TypedInt(3, np.dtype("int64")),
        jax_literals.TypedInt(3, np.dtype("int32")),
        jax_literals.TypedFloat(0.5, np.dtype("float64")),
        jax_literals.TypedComplex(1j, np.dtype("complex128")),
    ]
    values = (
        [n for n in nodes]
        + dts
        + [np.int64, np.uint64, np.float64, np.complex128, np.int32, np.float16, np.bool_]
        + [int, float, complex, bool, 3, 0.5, 1j, True]
        + [np.zeros(1, d) for d in ("int64", "float64", "int8", "bfloat16", "uint32")]
        + [np.float64(1.0), np.int64(2)]
        + jax_arrays
        + literals
        + [sym, key]
    )
    operands = [
        n
        for n in (
            "bool",
            "int8",
            "uint32",
            "int64",
            "uint64",
            "float16",
            "bfloat16",
            "float32",
            "float64",
            "complex64",
            "float8_e4m3fn",
            "int4",
        )
    ]
    rng = random.Random(16)
    lists = [tuple(rng.choice(values + [None]) for _ in range(rng.randint(1, 3))) for _ in range(300)]
    return {
        "promote": [(a, b) for a in operands for b in operands]
        + [(a, t) for a in operands for t in (int, float, complex)],
        "result": [(v,) for v in values] + [(v, w) for v in values[::3] for w in values[1::4]] + lists,
        "dtype": [v for v in values],
        "canonicalize": dts + [key.dtype, "int64", np.float64, "nonsense"],
    }


INPUTS = _inputs()
KEY_DTYPE = jax.random.key(0).dtype


def outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, ...]:
    """The answer or the error (class, message, JAX's promotion error or not), and
    the warnings the call emitted."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = fn(*args, **kwargs)
        except Exception as err:  # noqa: BLE001 - errors are answers
            answer: tuple[Any, ...] = (
                "error",
                type(err).__name__,
                str(err),
                isinstance(err, jax_dtypes.TypePromotionError),
            )
        else:
            if isinstance(r, tuple):
                answer = ("ok", str(r[0]), r[0], type(r[1]).__name__, bool(r[1]))
            else:
                answer = ("ok", str(r), r)
    return answer + (tuple(str(w.message) for w in caught if "Explicitly requested" in str(w.message)),)


def questions() -> list[tuple[str, Callable[..., Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]]:
    out = []
    for args in INPUTS["promote"]:
        out.append(("promote_types", jnp.promote_types, jaxtypes.promote_types, args, {}))
    flag = {"return_weak_type_flag": True}
    for args in INPUTS["result"]:
        out.append(("result_type", jax_dtypes.result_type, jaxtypes.result_type, args, flag))
    for x in INPUTS["dtype"]:
        out.append(("dtype", jax_dtypes_internal.dtype, jaxtypes.dtype, (x,), {}))
    for x in INPUTS["canonicalize"]:
        out.append(("canonicalize_dtype", jax_dtypes.canonicalize_dtype, jaxtypes.canonicalize_dtype, (x,), {}))
        out.append(
            (
                "canonicalize_dtype",
                jax_dtypes.canonicalize_dtype,
                jaxtypes.canonicalize_dtype,
                (x,),
                {"allow_extended_dtype": True},
            )
        )
    return out


QUESTIONS = questions()


def compare_all(way: str, record_warnings: bool = True) -> list[str]:
    """Every question in the configuration now in force (in this thread)."""
    wrong = []
    for name, theirs, ours, args, kwargs in QUESTIONS:
        expected = outcome(theirs, *args, **kwargs)
        got = outcome(ours, *args, **kwargs)
        again = outcome(ours, *args, **kwargs)  # the second answer may come from a cache
        if not record_warnings:
            expected, got, again = expected[:-1], got[:-1], again[:-1]
        for g in (got, again):
            if not _same(expected, g):
                wrong.append(f"{way}: {name}{args!r} {kwargs}: jaxtypes {g} != JAX {expected}")
    COUNTS[way] = COUNTS.get(way, 0) + 2 * len(QUESTIONS)
    return wrong


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "error":
        return a[1:] == b[1:]
    return a[1] == b[1] and a[2] == b[2] and a[3:] == b[3:]


def describe(cfg: tuple[str, bool, str]) -> str:
    return f"{cfg[0]}/{'x64' if cfg[1] else 'x32'}/{cfg[2]}"


# ------------------------------------------------------------ the ways
@contextlib.contextmanager
def by_update(cfg: tuple[str, bool, str], update: Callable[[str, Any], None]) -> Iterator[None]:
    before = {k: getattr(jax.config, v) for k, v in OPTION.items()}
    for (_k, name), value in zip(OPTION.items(), cfg):
        update(name, value)
    try:
        yield
    finally:
        for k, name in OPTION.items():
            jax.config.update(name, before[k])


def jax_scopes(cfg: tuple[str, bool, str]) -> contextlib.ExitStack:
    stack = contextlib.ExitStack()
    stack.enter_context(jax.numpy_dtype_promotion(cfg[0]))
    stack.enter_context(jax.enable_x64(cfg[1]))
    stack.enter_context(jax_config_internal.explicit_x64_dtypes(cfg[2]))
    return stack


def thread_local_contexts(cfg: tuple[str, bool, str]) -> contextlib.ExitStack:
    stack = contextlib.ExitStack()
    for name, value in zip(OPTION.values(), cfg):
        stack.enter_context(jax_config_internal.config_states[name](value))
    return stack


@pytest.mark.parametrize("cfg", CONFIGS, ids=describe)
def test_jax_config_update(cfg: tuple[str, bool, str]) -> None:
    with by_update(cfg, jax.config.update):
        assert compare_all("jax.config.update") == []


@pytest.mark.parametrize("cfg", CONFIGS, ids=describe)
def test_jax_scopes(cfg: tuple[str, bool, str]) -> None:
    with jax_scopes(cfg):
        assert compare_all("JAX scopes") == []


@pytest.mark.parametrize("cfg", CONFIGS, ids=describe)
def test_jax_scopes_as_decorators(cfg: tuple[str, bool, str]) -> None:
    @jax.numpy_dtype_promotion(cfg[0])
    @jax.enable_x64(cfg[1])
    @jax_config_internal.explicit_x64_dtypes(cfg[2])
    def run() -> list[str]:
        return compare_all("JAX scope decorators")

    assert run() == []


@pytest.mark.parametrize("cfg", CONFIGS, ids=describe)
def test_jax_thread_local_config_contexts(cfg: tuple[str, bool, str]) -> None:
    with thread_local_contexts(cfg):
        assert compare_all("JAX thread-local config contexts") == []


@pytest.mark.parametrize("cfg", CONFIGS, ids=describe)
def test_jaxtypes_config_update_sets_jax_too(cfg: tuple[str, bool, str]) -> None:
    with by_update(cfg, jaxtypes.config.update):
        assert (jax.config.jax_numpy_dtype_promotion, jax.config.jax_enable_x64) == cfg[:2]
        assert jaxtypes.config.read("jax_explicit_x64_dtypes") == cfg[2]
        assert compare_all("jaxtypes.config.update") == []


def test_jax_scopes_in_threads_at_once() -> None:
    """One thread per configuration, all comparing at the same time under JAX's
    thread-local scopes (warnings are not compared: the filters are process-wide)."""
    results: dict[tuple[str, bool, str], list[str]] = {}
    barrier = threading.Barrier(len(CONFIGS))

    def run(cfg: tuple[str, bool, str]) -> None:
        try:
            with jax_scopes(cfg):
                barrier.wait(60)
                results[cfg] = compare_all("JAX scopes in threads", record_warnings=False)
        except Exception as err:  # noqa: BLE001 - reported below
            results[cfg] = [f"{describe(cfg)} raised {err!r}"]

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Explicitly requested dtype")
        threads = [threading.Thread(target=run, args=(cfg,)) for cfg in CONFIGS]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
    assert sorted(results) == sorted(CONFIGS)
    assert [w for cfg in CONFIGS for w in results[cfg]] == []


# ------------------------------------------------------------ which wins
def test_the_innermost_scope_wins_jaxtypes_or_jax() -> None:
    # As if jaxtypes' scopes were JAX's (tests/test_config_scopes_like_jax.py
    # runs more mixes side by side with JAX).
    with jax.numpy_dtype_promotion("strict"), jax.enable_x64(True):
        with jaxtypes.numpy_dtype_promotion("standard"):
            assert jaxtypes.promote_types("float32", "int32") == np.dtype("float32")
            assert jaxtypes.result_type(1.0) == np.dtype("float64")  # x64 still JAX's
        with pytest.raises(jax_dtypes.TypePromotionError):
            jaxtypes.promote_types("float32", "int32")
    with jaxtypes.enable_x64(True):
        with jax.enable_x64(False):  # JAX's scope, inside: JAX's answer
            assert jaxtypes.result_type(1.0) == jnp.result_type(1.0) == np.dtype("float32")
        assert jaxtypes.result_type(1.0) == np.dtype("float64")
    assert jaxtypes.result_type(1.0) == np.dtype("float32")


def test_promotion_error_is_jax_s_class_and_a_value_error_without_chaining() -> None:
    for call in (
        lambda: jaxtypes.promote_types("float32", "int32"),
        lambda: jaxtypes.result_type(np.float32(1), np.int32(1)),
    ):
        for _ in range(2):  # a cache miss, then a hit
            with jax.numpy_dtype_promotion("strict"):
                with pytest.raises(jax_dtypes.TypePromotionError) as info:
                    call()
            assert isinstance(info.value, ValueError)
            assert isinstance(info.value, jaxtypes.TypePromotionError)
            assert info.value.__context__ is None and info.value.__cause__ is None


# ------------------------------------------------------------ values as JAX reads them
@pytest.mark.parametrize("value", [np.True_, np.False_, 1, 0, 2, "yes", "", None, np.int64(1)])
def test_x64_values_are_read_as_jax_reads_them(value: Any) -> None:
    with jax.enable_x64(value):
        expected = jax.config.jax_enable_x64
    with jaxtypes.enable_x64(value):
        assert (jaxtypes.result_type(1.0) == np.dtype("float64")) is expected
    before = jax.config.jax_enable_x64
    try:
        jaxtypes.config.update("jax_enable_x64", value)
        assert jax.config.jax_enable_x64 is expected
        assert jaxtypes.config.read("jax_enable_x64") is expected
    finally:
        jax.config.update("jax_enable_x64", before)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("jax_numpy_dtype_promotion", "STRICT"),
        ("jax_numpy_dtype_promotion", None),
        ("jax_numpy_dtype_promotion", 1),
        ("jax_explicit_x64_dtypes", "ALLOW"),
        ("jax_explicit_x64_dtypes", True),
        ("jax_no_such_option", 1),
    ],
)
def test_bad_values_and_names_are_refused_as_jax_refuses_them(name: str, value: Any) -> None:
    with pytest.raises(Exception) as theirs:
        jax.config.update(name, value)
    with pytest.raises(type(theirs.value)):
        jaxtypes.config.update(name, value)


def test_jax_s_other_options_pass_through() -> None:
    before = jax.config.jax_disable_jit
    try:
        jaxtypes.config.update("jax_disable_jit", not before)
        assert jax.config.jax_disable_jit is (not before)
        for name in ("jax_platforms", "jax_default_matmul_precision", "jax_no_such_option"):
            assert outcome(jaxtypes.config.read, name) == outcome(jax.config.read, name)
    finally:
        jax.config.update("jax_disable_jit", before)


def test_enum_members_of_jax_are_accepted() -> None:
    with jaxtypes.numpy_dtype_promotion(jax_config_internal.NumpyDtypePromotion.STRICT):
        with pytest.raises(jax_dtypes.TypePromotionError):
            jaxtypes.promote_types("float32", "int32")
    with jaxtypes.explicit_x64_dtypes(jax_config_internal.ExplicitX64Mode.ERROR):
        with pytest.raises(ValueError, match="Explicitly requested dtype int64"):
            jaxtypes.dtype("int64")


class _Aval:
    def __init__(self, weak_type: Any) -> None:
        self.weak_type = weak_type


class DuckTracer:
    """An object JAX reads through ``.dtype`` and ``.aval.weak_type`` only."""

    def __init__(self, dt: str, weak_type: Any) -> None:
        self.dtype = np.dtype(dt)
        self.aval = _Aval(weak_type)

    def __repr__(self) -> str:
        return f"DuckTracer({self.dtype}, {self.aval.weak_type!r})"


@pytest.mark.parametrize("flag", [1, "yes", np.True_, 2.5, 0, "", np.False_, None])
def test_truthy_non_bool_weak_type_is_read_as_jax_reads_it(flag: Any) -> None:
    for dt in ("int16", "float32", "bool"):
        x = DuckTracer(dt, flag)
        for args in ((x,), (x, np.zeros(1, np.int8)), (x, 1.0)):
            assert outcome(jaxtypes.result_type, *args, return_weak_type_flag=True) == outcome(
                jax_dtypes.result_type, *args, return_weak_type_flag=True
            ), args
        assert outcome(jaxtypes.is_weakly_typed, x) == outcome(jax_dtypes_internal.is_weakly_typed, x)
    COUNTS["duck-typed weak_type"] = COUNTS.get("duck-typed weak_type", 0) + 12


class _WeakTypeRaises:
    @property
    def weak_type(self) -> bool:
        raise RuntimeError("no weak_type here")


@pytest.mark.parametrize(
    "x",
    [jaxtypes.Array, jax.Array, DuckTracer, _WeakTypeRaises, _WeakTypeRaises()],
    ids=["jaxtypes.Array", "jax.Array", "a class with aval", "a class whose weak_type raises", "weak_type raises"],
)
def test_is_weakly_typed_of_classes_and_failing_attributes_as_jax(x: Any) -> None:
    """A class's weak_type is a descriptor, and JAX reads only aval.weak_type: both are strong to JAX."""
    assert outcome(jaxtypes.is_weakly_typed, x) == outcome(jax_dtypes_internal.is_weakly_typed, x)
    # result_type: the same answer or error class (for a class JAX's message names
    # the dtype property it tried to read, jaxtypes' the class).
    assert outcome(jaxtypes.result_type, x, 1)[:2] == outcome(jax_dtypes.result_type, x, 1)[:2]


def test_exiting_a_scope_in_another_thread_or_task_is_not_an_error() -> None:
    import asyncio

    scope = jaxtypes.numpy_dtype_promotion("strict")
    scope.__enter__()
    errors: list[BaseException] = []

    def exit_elsewhere() -> None:
        try:
            scope.__exit__(None, None, None)
            assert jaxtypes.promote_types("float32", "int32") == np.dtype("float32")
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    t = threading.Thread(target=exit_elsewhere)
    t.start()
    t.join(30)

    async def in_a_task() -> None:
        exit_elsewhere()

    assert errors == []
    with pytest.raises(jaxtypes.TypePromotionError):  # still in force here
        jaxtypes.promote_types("float32", "int32")
    asyncio.run(in_a_task())  # a task of this thread: it leaves the scope here
    assert errors == []
    assert jaxtypes.promote_types("float32", "int32") == np.dtype("float32")
    scope.__exit__(None, None, None)  # left already: nothing changes
    assert jaxtypes.promote_types("float32", "int32") == np.dtype("float32")
    # JAX does not raise either when its scope is exited in another thread or
    # in a task; a task of this thread leaves it here too.
    jax_scope = jax.numpy_dtype_promotion("strict")
    jax_scope.__enter__()
    t = threading.Thread(target=lambda: jax_scope.__exit__(None, None, None))
    t.start()
    t.join(30)
    assert jax.config.jax_numpy_dtype_promotion == "strict"  # still in force here too

    async def jax_in_a_task() -> None:
        jax_scope.__exit__(None, None, None)

    asyncio.run(jax_in_a_task())
    assert jax.config.jax_numpy_dtype_promotion == "standard"
    assert jaxtypes.promote_types("float32", "int32") == np.dtype("float32")


# ------------------------------------------------------------ JAX's own value kinds
def test_symbolic_dimensions_prng_keys_and_typed_literals_as_in_jax() -> None:
    (sym,) = jax.export.symbolic_shape("a")
    key = jax.random.key(0)
    typed = jax_literals.TypedInt(3, np.dtype("int64"))
    i8 = jnp.zeros(2, jnp.int8)
    for x64 in (False, True):
        with jax.enable_x64(x64):
            cases = [
                (jax_dtypes.result_type, jaxtypes.result_type, (i8, sym), {}),
                (jax_dtypes.result_type, jaxtypes.result_type, (sym,), {"return_weak_type_flag": True}),
                (jax_dtypes_internal.is_weakly_typed, jaxtypes.is_weakly_typed, (sym,), {}),
                (jax_dtypes_internal.dtype, jaxtypes.dtype, (typed,), {}),
                (jax_dtypes.result_type, jaxtypes.result_type, (typed, i8), {"return_weak_type_flag": True}),
                (jax_dtypes.canonicalize_dtype, jaxtypes.canonicalize_dtype, (key.dtype,), {}),
                (
                    jax_dtypes.canonicalize_dtype,
                    jaxtypes.canonicalize_dtype,
                    (key.dtype,),
                    {"allow_extended_dtype": True},
                ),
                (jax_dtypes_internal.dtype, jaxtypes.dtype, (key,), {}),
            ]
            for theirs, ours, args, kwargs in cases:
                assert outcome(ours, *args, **kwargs) == outcome(theirs, *args, **kwargs), (ours, args)
    assert jaxtypes.result_type(i8, sym) == np.dtype("int8")
    assert jaxtypes.canonicalize_dtype(key.dtype, allow_extended_dtype=True) == key.dtype
    with jax.enable_x64(False):
        assert jaxtypes.dtype(typed) == np.dtype("int64")
