"""Promotion configuration: defaults, scopes, process-wide updates, threads,
asyncio tasks, bad values and the environment variables read at import.

Each configuration is observed two ways: through ``current_variant()`` and
through behaviour (strict mode rejects float32 with int32; x64 makes
``result_type(1.0)`` float64 and ``promote_types('uint32', 'int8')`` int64,
as JAX does; with x64 off they are float32 and int32).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import jaxtypes
from jaxtypes import config, enable_x64, numpy_dtype_promotion
from jaxtypes.config import current_variant
from jaxtypes.lattice import Variant

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 30  # safety net for barriers/joins so a broken scope cannot hang the run


def observed() -> tuple[str, bool]:
    """(mode, x64) as seen through the promotion functions, checked against current_variant()."""
    try:
        jaxtypes.promote_types("float32", "int32")
        mode = "standard"
    except jaxtypes.TypePromotionError:
        mode = "strict"
    f = jaxtypes.result_type(1.0)
    assert f in (np.dtype("float32"), np.dtype("float64"))
    x64 = f == np.dtype("float64")
    if mode == "standard":
        # the x32 lattice edge uint32 -> int32 as a second witness
        assert jaxtypes.promote_types("uint32", "int8") == np.dtype("int64" if x64 else "int32")
    assert current_variant() == Variant(mode, x64)
    return mode, x64


@pytest.fixture(autouse=True)
def clean_process_config():
    """Start every test at standard / x64 off; put back what was there."""
    before = (config.read("jax_numpy_dtype_promotion"), config.read("jax_enable_x64"))
    config.update("jax_numpy_dtype_promotion", "standard")
    config.update("jax_enable_x64", False)
    try:
        yield
    finally:
        config.update("jax_numpy_dtype_promotion", before[0])
        config.update("jax_enable_x64", before[1])


def run_python(code: str, **env_vars: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")}
    env["PYTHONPATH"] = str(REPO)
    env.update(env_vars)
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, cwd=str(REPO)
    )


REPORT = """
import json, numpy as np, jaxtypes
from jaxtypes.config import current_variant
try:
    jaxtypes.promote_types('float32', 'int32'); mode = 'standard'
except jaxtypes.TypePromotionError:
    mode = 'strict'
print(json.dumps({
    'mode': jaxtypes.config.read('jax_numpy_dtype_promotion'),
    'x64': jaxtypes.config.read('jax_enable_x64'),
    'variant': list(current_variant()),
    'observed_mode': mode,
    'float': jaxtypes.result_type(1.0).name,
}))
"""


# ---------------------------------------------------------------- defaults
def test_defaults_in_a_fresh_process_are_standard_and_x32():
    proc = run_python(REPORT)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        "mode": "standard",
        "x64": False,
        "variant": ["standard", False],
        "observed_mode": "standard",
        "float": "float32",
    }


def test_process_values_are_readable_three_ways():
    assert config.read("jax_numpy_dtype_promotion") == "standard"
    assert config.jax_numpy_dtype_promotion == "standard"
    assert config.read("jax_enable_x64") is False
    assert config.jax_enable_x64 is False
    assert observed() == ("standard", False)


# ---------------------------------------------------------- context managers
def test_strict_scope_as_context_manager():
    with numpy_dtype_promotion("strict"):
        assert observed() == ("strict", False)
        # strict still allows weak-to-strong
        assert jaxtypes.result_type(np.float32(1), 1) == np.dtype("float32")
    assert observed() == ("standard", False)


def test_x64_scope_as_context_manager():
    with enable_x64(True):
        assert observed() == ("standard", True)
        assert jaxtypes.dtype(np.int64) == np.dtype("int64")
    assert observed() == ("standard", False)
    assert jaxtypes.dtype(np.int64) == np.dtype("int32")


def test_enable_x64_without_argument_means_true():
    with enable_x64():
        assert observed() == ("standard", True)


def test_enable_x64_false_overrides_a_process_wide_true():
    config.update("jax_enable_x64", True)
    with enable_x64(False):
        assert observed() == ("standard", False)
    assert observed() == ("standard", True)


def test_standard_scope_overrides_a_process_wide_strict():
    config.update("jax_numpy_dtype_promotion", "strict")
    with numpy_dtype_promotion("standard"):
        assert observed() == ("standard", False)
    assert observed() == ("strict", False)


def test_scopes_do_not_change_the_process_values():
    with numpy_dtype_promotion("strict"), enable_x64(True):
        assert config.read("jax_numpy_dtype_promotion") == "standard"
        assert config.read("jax_enable_x64") is False
        assert observed() == ("strict", True)


# ------------------------------------------------------------------ nesting
def test_nesting_inner_overrides_and_outer_is_restored():
    with numpy_dtype_promotion("strict"):
        assert observed() == ("strict", False)
        with enable_x64(True):
            assert observed() == ("strict", True)  # inherits the outer mode
            with numpy_dtype_promotion("standard"):
                assert observed() == ("standard", True)
                with enable_x64(False):
                    assert observed() == ("standard", False)
                assert observed() == ("standard", True)
            assert observed() == ("strict", True)
        assert observed() == ("strict", False)
    assert observed() == ("standard", False)


def test_same_scope_object_can_be_nested_and_reused():
    strict = numpy_dtype_promotion("strict")
    x64 = enable_x64(True)
    with strict:
        with x64:
            with strict:
                assert observed() == ("strict", True)
            assert observed() == ("strict", True)
        assert observed() == ("strict", False)
    assert observed() == ("standard", False)
    with x64:
        assert observed() == ("standard", True)
    assert observed() == ("standard", False)


# --------------------------------------------------------------- exceptions
def test_scope_is_restored_when_the_body_raises():
    with pytest.raises(RuntimeError, match="boom"):
        with numpy_dtype_promotion("strict"):
            with enable_x64(True):
                assert observed() == ("strict", True)
                raise RuntimeError("boom")
    assert observed() == ("standard", False)


def test_scope_is_restored_when_promotion_fails_inside_it():
    with pytest.raises(jaxtypes.TypePromotionError):
        with numpy_dtype_promotion("strict"):
            jaxtypes.promote_types("int8", "uint8")
    assert observed() == ("standard", False)
    assert jaxtypes.promote_types("int8", "uint8") == np.dtype("int16")


def test_scope_does_not_swallow_exceptions():
    class Marker(Exception):
        pass

    with pytest.raises(Marker):
        with enable_x64(True):
            raise Marker


def test_decorated_function_restores_scope_when_it_raises():
    @numpy_dtype_promotion("strict")
    def f():
        raise KeyError("inside")

    with pytest.raises(KeyError):
        f()
    assert observed() == ("standard", False)


# ---------------------------------------------------------------- decorators
def test_sync_decorators():
    @numpy_dtype_promotion("strict")
    def strict_fn(a, *, b):
        """doc of strict_fn"""
        return a, b, observed()

    @enable_x64(True)
    def x64_fn():
        return observed()

    @enable_x64(True)
    @numpy_dtype_promotion("strict")
    def both():
        return observed()

    assert strict_fn(1, b=2) == (1, 2, ("strict", False))
    assert strict_fn.__name__ == "strict_fn"
    assert strict_fn.__doc__ == "doc of strict_fn"
    assert x64_fn() == ("standard", True)
    assert both() == ("strict", True)
    assert observed() == ("standard", False)
    # Called inside another scope, the decorator still wins for its own setting.
    with enable_x64(True):
        assert strict_fn(0, b=0)[2] == ("strict", True)
    with numpy_dtype_promotion("strict"):
        assert x64_fn() == ("strict", True)


def test_decorated_function_can_recurse():
    @numpy_dtype_promotion("strict")
    def down(n):
        assert observed() == ("strict", False)
        return 0 if n == 0 else 1 + down(n - 1)

    assert down(5) == 5
    assert observed() == ("standard", False)


def test_async_decorators_hold_the_scope_across_awaits():
    @numpy_dtype_promotion("strict")
    async def strict_coro(x):
        first = observed()
        await asyncio.sleep(0)
        second = observed()
        return x, first, second

    @enable_x64(True)
    async def x64_coro():
        await asyncio.sleep(0)
        return observed()

    assert inspect.iscoroutinefunction(strict_coro)
    assert inspect.iscoroutinefunction(x64_coro)
    assert strict_coro.__name__ == "strict_coro"
    assert asyncio.run(strict_coro(7)) == (7, ("strict", False), ("strict", False))
    assert asyncio.run(x64_coro()) == ("standard", True)
    assert observed() == ("standard", False)


def test_async_decorator_restores_scope_when_coroutine_raises():
    @enable_x64(True)
    async def failing():
        await asyncio.sleep(0)
        raise ValueError("async boom")

    async def main():
        with pytest.raises(ValueError, match="async boom"):
            await failing()
        return observed()

    assert asyncio.run(main()) == ("standard", False)


# --------------------------------------------------------- config.update
def test_config_update_is_process_wide_and_seen_at_once():
    # Results are cached per configuration: a warm cache must not go stale.
    assert jaxtypes.promote_types("uint32", "int8") == np.dtype("int32")
    assert jaxtypes.result_type(np.zeros(2, np.int64), 1) == np.dtype("int32")
    config.update("jax_enable_x64", True)
    assert config.read("jax_enable_x64") is True
    assert observed() == ("standard", True)
    assert jaxtypes.promote_types("uint32", "int8") == np.dtype("int64")
    assert jaxtypes.result_type(np.zeros(2, np.int64), 1) == np.dtype("int64")
    config.update("jax_numpy_dtype_promotion", "strict")
    assert config.read("jax_numpy_dtype_promotion") == "strict"
    assert observed() == ("strict", True)
    config.update("jax_numpy_dtype_promotion", "standard")
    config.update("jax_enable_x64", False)
    assert observed() == ("standard", False)
    assert jaxtypes.promote_types("uint32", "int8") == np.dtype("int32")


def test_config_update_reaches_other_threads():
    seen = {}

    def worker():
        seen["value"] = observed()

    config.update("jax_numpy_dtype_promotion", "strict")
    t = threading.Thread(target=worker)
    t.start()
    t.join(TIMEOUT)
    assert seen["value"] == ("strict", False)


def test_config_update_inside_a_mode_scope_changes_x64_there():
    with numpy_dtype_promotion("strict"):
        assert observed() == ("strict", False)
        config.update("jax_enable_x64", True)
        assert observed() == ("strict", True)  # the scope only pins the mode
    assert observed() == ("standard", True)


def test_config_update_inside_an_x64_scope_changes_only_the_mode():
    with enable_x64(False):
        config.update("jax_enable_x64", True)
        assert observed() == ("standard", False)  # the scope pins x64
        config.update("jax_numpy_dtype_promotion", "strict")
        assert observed() == ("strict", False)
    assert observed() == ("strict", True)


def test_config_update_reaches_a_scope_active_in_another_thread():
    barrier = threading.Barrier(2, timeout=TIMEOUT)
    seen = {}

    def worker():
        with numpy_dtype_promotion("strict"):
            seen["before"] = observed()
            barrier.wait()  # main updates x64 now
            barrier.wait()
            seen["after"] = observed()

    t = threading.Thread(target=worker)
    t.start()
    barrier.wait()
    config.update("jax_enable_x64", True)
    barrier.wait()
    t.join(TIMEOUT)
    assert seen == {"before": ("strict", False), "after": ("strict", True)}


# ------------------------------------------------------------------ threads
def _run_threads(targets):
    errors = []

    def wrap(fn):
        def run():
            try:
                fn()
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        return run

    threads = [threading.Thread(target=wrap(fn)) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
    assert not any(t.is_alive() for t in threads)
    if errors:
        raise errors[0]


def test_threads_each_keep_their_own_mode():
    barrier = threading.Barrier(4, timeout=TIMEOUT)
    seen: dict[str, list] = {"strict": [], "x64": [], "both": [], "none": []}

    def strict_thread():
        with numpy_dtype_promotion("strict"):
            barrier.wait()  # all four threads are inside their scopes
            seen["strict"].append(observed())
            barrier.wait()
            seen["strict"].append(observed())
        barrier.wait()  # everyone has left their scope
        seen["strict"].append(observed())

    def x64_thread():
        with enable_x64(True):
            barrier.wait()
            seen["x64"].append(observed())
            barrier.wait()
            seen["x64"].append(observed())
        barrier.wait()
        seen["x64"].append(observed())

    def both_thread():
        with enable_x64(True), numpy_dtype_promotion("strict"):
            barrier.wait()
            seen["both"].append(observed())
            barrier.wait()
            seen["both"].append(observed())
        barrier.wait()
        seen["both"].append(observed())

    def plain_thread():
        barrier.wait()
        seen["none"].append(observed())
        barrier.wait()
        seen["none"].append(observed())
        barrier.wait()
        seen["none"].append(observed())

    _run_threads([strict_thread, x64_thread, both_thread, plain_thread])
    assert seen == {
        "strict": [("strict", False), ("strict", False), ("standard", False)],
        "x64": [("standard", True), ("standard", True), ("standard", False)],
        "both": [("strict", True), ("strict", True), ("standard", False)],
        "none": [("standard", False)] * 3,
    }
    assert observed() == ("standard", False)


def test_threads_exiting_scopes_in_a_crossed_order():
    # A enters, B enters, A leaves while B is still inside, then B leaves.
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def a():
        try:
            with numpy_dtype_promotion("strict"):
                a_in.set()
                assert b_in.wait(TIMEOUT)
                seen["a_inside"] = observed()
            seen["a_after"] = observed()
        finally:
            a_out.set()

    def b():
        assert a_in.wait(TIMEOUT)
        with enable_x64(True):
            b_in.set()
            assert a_out.wait(TIMEOUT)
            seen["b_inside"] = observed()
        seen["b_after"] = observed()

    _run_threads([a, b])
    assert seen == {
        "a_inside": ("strict", False),
        "a_after": ("standard", False),
        "b_inside": ("standard", True),
        "b_after": ("standard", False),
    }


def test_one_scope_object_shared_by_overlapping_threads():
    # A module-level ``STRICT = numpy_dtype_promotion('strict')`` used by
    # several threads; their scopes overlap and the first one in leaves first.
    # (JAX's context manager object survives this pattern.)
    strict = numpy_dtype_promotion("strict")
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def a():
        try:
            with strict:
                a_in.set()
                assert b_in.wait(TIMEOUT)
                seen["a_inside"] = observed()
            seen["a_after"] = observed()
        finally:
            a_out.set()  # do not leave b waiting if leaving the scope fails

    def b():
        assert a_in.wait(TIMEOUT)
        with strict:
            b_in.set()
            assert a_out.wait(TIMEOUT)
            seen["b_inside"] = observed()
        seen["b_after"] = observed()

    _run_threads([a, b])
    assert seen == {
        "a_inside": ("strict", False),
        "a_after": ("standard", False),
        "b_inside": ("strict", False),
        "b_after": ("standard", False),
    }


# ------------------------------------------------------------------ asyncio
# Scopes are per thread, as JAX's are: the tasks of one thread see the scopes
# open in it when they run (JAX's scopes give these same answers, side by
# side in tests/test_config_scopes_like_jax.py).
def test_asyncio_tasks_see_the_scopes_open_in_their_thread():
    async def main():
        a_in, b_in, a_out = asyncio.Event(), asyncio.Event(), asyncio.Event()
        seen = {}

        async def a():
            with numpy_dtype_promotion("strict"):
                a_in.set()
                await b_in.wait()
                await asyncio.sleep(0)
                seen["a_inside"] = observed()
            seen["a_after"] = observed()
            a_out.set()

        async def b():
            await a_in.wait()
            with enable_x64(True):
                b_in.set()
                await a_out.wait()  # A has left its scope by now
                await asyncio.sleep(0)
                seen["b_inside"] = observed()
            seen["b_after"] = observed()

        async def c():
            await b_in.wait()
            seen["c"] = observed()  # a task with no scope of its own

        await asyncio.gather(a(), b(), c())
        seen["main"] = observed()
        return seen

    assert asyncio.run(main()) == {
        "a_inside": ("strict", True),
        "a_after": ("standard", True),
        "b_inside": ("standard", True),
        "b_after": ("standard", False),
        "c": ("strict", True),
        "main": ("standard", False),
    }


def test_asyncio_overlapping_decorated_coroutines():
    order = []

    @numpy_dtype_promotion("strict")
    async def strict_task(started, other_started):
        started.set()
        await other_started.wait()
        order.append("strict")
        return observed()

    @enable_x64(True)
    async def x64_task(started, other_started):
        started.set()
        await other_started.wait()
        await asyncio.sleep(0)
        order.append("x64")
        return observed()

    async def main():
        s1, s2 = asyncio.Event(), asyncio.Event()
        results = await asyncio.gather(strict_task(s1, s2), x64_task(s2, s1))
        return results, observed()

    results, after = asyncio.run(main())
    # Each decorator holds its scope while its coroutine runs, as a ``with``
    # block in the coroutine would: the other task sees it meanwhile.
    assert results == [("strict", True), ("standard", True)]
    assert after == ("standard", False)
    assert sorted(order) == ["strict", "x64"]


def test_asyncio_tasks_sharing_one_scope_object():
    # ``STRICT = numpy_dtype_promotion('strict')`` at module level, entered by
    # two overlapping tasks; the first task in leaves first.  Each exit puts
    # back the value its own entry found (A's exit B's, B's A's), so the
    # setting is back to standard at the end; JAX keeps one found value per
    # scope object and leaves strict in force (tests/test_config_scopes_like_jax.py).
    strict = numpy_dtype_promotion("strict")

    async def main():
        a_in, b_in = asyncio.Event(), asyncio.Event()

        async def a():
            with strict:
                a_in.set()
                await b_in.wait()
                inside = observed()
            return inside, observed()

        async def b():
            await a_in.wait()
            with strict:
                b_in.set()
                await asyncio.sleep(0)
                await asyncio.sleep(0)
                inside = observed()
            return inside, observed()

        return await asyncio.gather(a(), b())

    assert asyncio.run(main()) == [(("strict", False), ("strict", False)), (("strict", False), ("standard", False))]
    assert observed() == ("standard", False)


# --------------------------------------------------------------- bad values
# What JAX 0.10.2 does (run it): the enum options take their string values or
# JAX's enum members, a bad string is a ValueError and any other type a
# TypeError; jax_enable_x64 takes any value and reads it as bool(value).
@pytest.mark.parametrize(
    ("bad", "error"),
    [("loose", ValueError), ("STRICT", ValueError), ("", ValueError), (None, TypeError), (1, TypeError)],
)
def test_bad_promotion_mode_scope(bad, error):
    with pytest.raises(error) as info:
        numpy_dtype_promotion(bad)
    msg = str(info.value)
    assert repr(bad) in msg
    assert "'standard'" in msg and "'strict'" in msg
    assert observed() == ("standard", False)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (np.True_, True),
        (np.False_, False),
        (1, True),
        (0, False),
        (2, True),
        ("yes", True),
        (None, False),
        (1.5, True),
        (np.int64(1), True),
    ],
)
def test_enable_x64_reads_any_value_as_bool_like_jax(value, expected):
    with enable_x64(value):
        assert observed() == ("standard", expected)
    config.update("jax_enable_x64", value)
    assert config.read("jax_enable_x64") is expected
    assert observed() == ("standard", expected)


@pytest.mark.parametrize(("bad", "error"), [("loose", ValueError), ("Standard", ValueError), (None, TypeError)])
def test_bad_config_update_mode_leaves_config_unchanged(bad, error):
    with pytest.raises(error) as info:
        config.update("jax_numpy_dtype_promotion", bad)
    msg = str(info.value)
    assert repr(bad) in msg and "jax_numpy_dtype_promotion" in msg
    assert "'standard'" in msg and "'strict'" in msg
    assert config.read("jax_numpy_dtype_promotion") == "standard"
    assert observed() == ("standard", False)


def test_unknown_config_option():
    # JAX: AttributeError('Unrecognized config option: jax_enable_x32'); with
    # JAX imported (other test modules import it) the name goes to jax.config.
    with pytest.raises(AttributeError) as info:
        config.update("jax_enable_x32", True)
    msg = str(info.value)
    assert msg.startswith("Unrecognized config option: ") and "jax_enable_x32" in msg
    with pytest.raises(AttributeError, match="jax_nonsense"):
        config.read("jax_nonsense")
    assert observed() == ("standard", False)


def test_a_long_bad_value_is_shortened_in_the_message():
    with pytest.raises(ValueError) as info:
        config.update("jax_numpy_dtype_promotion", "x" * 100_000)
    assert len(str(info.value)) < 300


def test_config_update_accepts_bools_and_0_1():
    config.update("jax_enable_x64", 1)
    assert config.read("jax_enable_x64") is True
    assert observed() == ("standard", True)
    config.update("jax_enable_x64", 0)
    assert config.read("jax_enable_x64") is False
    config.update("jax_enable_x64", True)
    assert config.read("jax_enable_x64") is True


# --------------------------------------------------------------- environment
@pytest.mark.parametrize(
    ("x64_env", "expected"),
    [
        ("1", True),
        ("true", True),
        ("True", True),
        ("yes", True),
        ("on", True),
        ("0", False),
        ("false", False),
        ("FALSE", False),
        ("no", False),
        ("off", False),
    ],
)
def test_env_x64_is_read_at_import(x64_env, expected):
    proc = run_python(REPORT, JAX_ENABLE_X64=x64_env)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["x64"] is expected
    assert report["variant"] == ["standard", expected]
    assert report["float"] == ("float64" if expected else "float32")


@pytest.mark.parametrize("mode", ["strict", "standard"])
def test_env_promotion_mode_is_read_at_import(mode):
    proc = run_python(REPORT, JAX_NUMPY_DTYPE_PROMOTION=mode, JAX_ENABLE_X64="1")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        "mode": mode,
        "x64": True,
        "variant": [mode, True],
        "observed_mode": mode,
        "float": "float64",
    }


def test_env_is_read_only_at_import():
    code = """
import os, jaxtypes
os.environ['JAX_NUMPY_DTYPE_PROMOTION'] = 'strict'
os.environ['JAX_ENABLE_X64'] = '1'
import importlib, jaxtypes.config
print(jaxtypes.config.read('jax_numpy_dtype_promotion'), jaxtypes.config.read('jax_enable_x64'),
      jaxtypes.result_type(1.0).name)
"""
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["standard", "False", "float32"]


def test_env_values_can_be_overridden_by_scopes_and_update():
    code = """
import jaxtypes
from jaxtypes.config import current_variant
out = [list(current_variant())]
with jaxtypes.numpy_dtype_promotion('standard'), jaxtypes.enable_x64(False):
    out.append(list(current_variant()))
jaxtypes.config.update('jax_numpy_dtype_promotion', 'standard')
out.append(list(current_variant()))
print(out)
"""
    proc = run_python(code, JAX_NUMPY_DTYPE_PROMOTION="strict", JAX_ENABLE_X64="true")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ("[['strict', True], ['standard', False], ['standard', True]]")


@pytest.mark.parametrize("bad", ["loose", "STRICT", ""])
def test_bad_env_promotion_mode_fails_import_clearly(bad):
    proc = run_python("import jaxtypes", JAX_NUMPY_DTYPE_PROMOTION=bad)
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ValueError: ")
    assert repr(bad) in last
    assert "JAX_NUMPY_DTYPE_PROMOTION" in last
    assert "standard" in last and "strict" in last


@pytest.mark.parametrize("bad", ["maybe", "2", ""])
def test_bad_env_x64_fails_import_clearly(bad):
    proc = run_python("import jaxtypes", JAX_ENABLE_X64=bad)
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ValueError: ")
    assert repr(bad) in last
    assert "JAX_ENABLE_X64" in last
    assert "true" in last and "false" in last


# ------------------------------------------------------- jax_explicit_x64_dtypes
# JAX 0.10.2 (run it): with x64 off, dtype() of a 64-bit dtype asked for by name
# or numpy type is kept ('allow'), truncated with a UserWarning ('warn', the
# default) or refused with a ValueError ('error'); values are not affected.
EXPLICIT_ERROR = (
    "Explicitly requested dtype int64 requested in dtype is not available. To enable more "
    "dtypes, set the jax_enable_x64 or allow_explicit_x64_dtypes configuration options."
    "See https://github.com/jax-ml/jax#current-gotchas for more."
)
EXPLICIT_WARNING = (
    "Explicitly requested dtype int64 requested in dtype is not available, and will be "
    "truncated to dtype int32. To enable more dtypes, set the jax_enable_x64 configuration "
    "option or the JAX_ENABLE_X64 shell environment variable. "
    "See https://github.com/jax-ml/jax#current-gotchas for more."
)


def test_explicit_x64_dtypes_scope_three_modes():
    import warnings

    with jaxtypes.explicit_x64_dtypes("allow"):
        assert jaxtypes.dtype("int64") == np.dtype("int64")
        assert jaxtypes.dtype(np.int64) == np.dtype("int64")
        assert jaxtypes.result_type("int64", "int8") == np.dtype("int64")
    with jaxtypes.explicit_x64_dtypes("error"):
        with pytest.raises(ValueError) as info:
            jaxtypes.dtype("int64")
        assert str(info.value) == EXPLICIT_ERROR
        assert jaxtypes.dtype(np.zeros(1, np.int64)) == np.dtype("int32")  # values canonicalize
        assert jaxtypes.dtype(int) == np.dtype("int32")
        with enable_x64(True):
            assert jaxtypes.dtype("int64") == np.dtype("int64")
    with jaxtypes.explicit_x64_dtypes("warn"):
        for _ in range(2):  # warned every time, as JAX does
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                assert jaxtypes.dtype("int64") == np.dtype("int32")
            assert [str(w.message) for w in caught] == [EXPLICIT_WARNING]
            assert caught[0].category is UserWarning
            assert caught[0].filename == __file__  # points at the caller


def test_explicit_x64_dtypes_config_update_and_bad_values():
    try:
        config.update("jax_explicit_x64_dtypes", "error")
        assert config.read("jax_explicit_x64_dtypes") == "error"
        with pytest.raises(ValueError, match="Explicitly requested dtype int64"):
            jaxtypes.dtype("int64")
        with jaxtypes.explicit_x64_dtypes("allow"):
            assert jaxtypes.dtype("int64") == np.dtype("int64")
    finally:
        config.update("jax_explicit_x64_dtypes", "warn")
    with pytest.raises(ValueError, match="'ALLOW'.*'allow', 'warn', 'error'"):
        jaxtypes.explicit_x64_dtypes("ALLOW")
    with pytest.raises(TypeError, match="jax_explicit_x64_dtypes"):
        config.update("jax_explicit_x64_dtypes", True)
    assert config.read("jax_explicit_x64_dtypes") == "warn"


@pytest.mark.parametrize("mode", ["allow", "warn", "error"])
def test_env_explicit_x64_dtypes_is_read_at_import(mode):
    code = (
        "import warnings, jaxtypes\n"
        "warnings.simplefilter('ignore')\n"
        "try:\n    out = jaxtypes.dtype('int64').name\n"
        "except ValueError:\n    out = 'ValueError'\n"
        "print(jaxtypes.config.read('jax_explicit_x64_dtypes'), out)\n"
    )
    proc = run_python(code, JAX_EXPLICIT_X64_DTYPES=mode)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [mode, {"allow": "int64", "warn": "int32", "error": "ValueError"}[mode]]


def test_bad_env_explicit_x64_dtypes_fails_import_clearly():
    proc = run_python("import jaxtypes", JAX_EXPLICIT_X64_DTYPES="sometimes")
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ValueError: ") and "'sometimes'" in last
    assert "JAX_EXPLICIT_X64_DTYPES" in last and "allow, warn, error" in last


# ------------------------------------------------------- following JAX once imported
FOLLOW = """
import json, sys
{first}
jax.config.update('jax_enable_x64', True)
a = jaxtypes.result_type(1.0).name
with jax.numpy_dtype_promotion('strict'):
    try:
        jaxtypes.promote_types('float32', 'int32'); b = 'float32'
    except jax.dtypes.TypePromotionError:
        b = 'TypePromotionError'
jax.config.update('jax_enable_x64', False)
c = jaxtypes.result_type(1.0).name
print(json.dumps([a, b, c, jaxtypes.config.read('jax_enable_x64')]))
"""


@pytest.mark.parametrize(
    "first",
    [
        "import jaxtypes\nimport jax",  # jaxtypes first: it notices JAX when JAX is imported
        "import jax\nimport jaxtypes",
        "import jaxtypes, numpy\njaxtypes.result_type(1.0)\nimport jax",  # caches warm before
    ],
)
def test_jaxtypes_follows_jax_whichever_is_imported_first(first):
    proc = run_python_installed(FOLLOW.format(first=first))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == ["float64", "TypePromotionError", "float32", False]


def test_once_jax_is_imported_its_configuration_is_the_process_configuration():
    code = """
import json, jaxtypes
jaxtypes.config.update('jax_enable_x64', True)
before = jaxtypes.result_type(1.0).name
import jax  # JAX starts with its own value (False, from the environment)
after = jaxtypes.result_type(1.0).name
jaxtypes.config.update('jax_enable_x64', True)  # sets JAX's value too
print(json.dumps([before, after, jax.config.jax_enable_x64, jaxtypes.result_type(1.0).name]))
"""
    proc = run_python_installed(code)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == ["float64", "float32", True, "float64"]


def run_python_installed(code: str) -> subprocess.CompletedProcess:
    """Like run_python, on the installed package (with its C fast paths), from
    a directory where the checkout is not importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_") and k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, cwd="/")
