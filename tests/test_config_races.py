"""Configuration changes racing with promotion calls and with scopes.

Deterministic interleavings first: a profiler or tracer hook forces the
switch at the worst moment (a ``config.update`` while a call is inside the
lattice, scopes entered while ``config.update`` runs).  These run in a fresh
interpreter without JAX, so the caches are cold and the answer really is
computed while the configuration changes.  Then a bounded stress test:
threads and asyncio tasks asking questions under their own scopes and at
process level while other threads flip the process-wide configuration and
empty the caches; every answer is compared with a table JAX computes in a
single thread beforehand, and after the run every cached answer is checked
again in each configuration.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import random
import subprocess
import sys
import textwrap
import threading
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from jax import dtypes as jax_dtypes

import jaxtypes
from jaxtypes import config, enable_x64, numpy_dtype_promotion, promotion


def run_fresh(code: str, tmp_path: Path) -> dict[str, Any]:
    """Run ``code`` in a fresh interpreter on the installed jaxtypes (no JAX, cold caches)."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(tmp_path),
        env={"PATH": "/usr/bin:/bin", "PYTHONNOUSERSITE": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------ deterministic
@pytest.mark.parametrize(
    "operands",
    [
        "np.zeros(1, np.float32), np.zeros(1, np.int32)",
        "np.dtype('float32'), np.dtype('int32')",
        "'float32', 'int32'",
        "np.float32, np.int32",
        "np.float32(1), np.int32(1)",
    ],
)
def test_update_inside_result_type_does_not_poison_the_strict_cache(tmp_path: Path, operands: str) -> None:
    # The update lands while result_type is in lattice_result_type;
    # for every input kind the cache keys.
    report = run_fresh(
        """
        import json, sys
        import numpy as np
        import jaxtypes as jt
        a, b = OPERANDS
        fired = []
        def hook(frame, event, arg):
            if event == "call" and frame.f_code.co_name == "lattice_result_type" and not fired:
                fired.append(True)
                jt.config.update("jax_numpy_dtype_promotion", "strict")
        sys.setprofile(hook)
        try:
            during = jt.result_type(a, b).name
        finally:
            sys.setprofile(None)
        def answer():
            try:
                return jt.result_type(a, b).name
            except jt.TypePromotionError:
                return "TypePromotionError"
        after = [answer(), answer()]  # the second from the fast path's cache
        with jt.numpy_dtype_promotion("strict"):
            scoped = [answer(), answer()]
        jt.config.update("jax_numpy_dtype_promotion", "standard")
        standard = [answer(), answer()]
        print(json.dumps({"fired": bool(fired), "during": during, "after": after,
                          "scoped": scoped, "standard": standard}))
    """.replace("OPERANDS", operands),
        tmp_path,
    )
    assert report["fired"]
    # The call began under standard: its answer is standard's, stored as standard's.
    assert report["during"] == "float32"
    assert report["after"] == ["TypePromotionError"] * 2  # JAX raises under strict
    assert report["scoped"] == ["TypePromotionError"] * 2
    assert report["standard"] == ["float32"] * 2


def test_x64_flipped_inside_promote_types_does_not_poison_the_x64_cache(tmp_path: Path) -> None:
    report = run_fresh(
        """
        import json, sys
        import jaxtypes as jt
        fired = []
        def hook(frame, event, arg):
            if event == "call" and frame.f_code.co_name == "join" and not fired:
                fired.append(True)
                jt.config.update("jax_enable_x64", True)
        sys.setprofile(hook)
        try:
            during = jt.promote_types("uint32", "int32").name
        finally:
            sys.setprofile(None)
        after = [jt.promote_types("uint32", "int32").name for _ in range(2)]
        with jt.enable_x64(True):
            scoped = [jt.promote_types("uint32", "int32").name for _ in range(2)]
        with jt.enable_x64(False):
            x32 = [jt.promote_types("uint32", "int32").name for _ in range(2)]
        print(json.dumps({"fired": bool(fired), "during": during, "after": after,
                          "scoped": scoped, "x32": x32}))
    """,
        tmp_path,
    )
    assert report["fired"]
    assert report["during"] == "int32"  # begun with x64 off
    assert report["after"] == ["int64", "int64"]  # JAX under x64
    assert report["scoped"] == ["int64", "int64"]
    assert report["x32"] == ["int32", "int32"]


def test_scopes_entered_while_update_runs(tmp_path: Path) -> None:
    # Scopes are entered while config.update runs (here: at every
    # line it executes; copied contexts make no difference, scopes being per
    # thread).  The update must neither fail nor leave any answer stale.
    report = run_fresh(
        """
        import contextvars, json, sys
        import jaxtypes as jt
        from jaxtypes.config import current_variant
        contexts = []
        def enter_elsewhere():
            ctx = contextvars.copy_context()
            ctx.run(jt.enable_x64(True).__enter__)
            contexts.append(ctx)
        def tracer(frame, event, arg):
            return local if len(contexts) < 300 else None
        def local(frame, event, arg):
            if event == "line" and len(contexts) < 300:
                enter_elsewhere()
            return local
        error = None
        enter_elsewhere()
        sys.settrace(tracer)
        try:
            jt.config.update("jax_numpy_dtype_promotion", "strict")
        except Exception as err:
            error = repr(err)
        finally:
            sys.settrace(None)
        try:
            jt.promote_types("float32", "int32"); here = "standard"
        except jt.TypePromotionError:
            here = "strict"
        print(json.dumps({
            "error": error, "entered": len(contexts),
            "read": jt.config.read("jax_numpy_dtype_promotion"), "here": here,
            "elsewhere": sorted({tuple(ctx.run(current_variant)) for ctx in contexts}),
        }))
    """,
        tmp_path,
    )
    assert report["error"] is None
    assert report["entered"] > 1
    assert report["read"] == "strict"
    assert report["here"] == "strict"
    assert report["elsewhere"] == [["strict", True]]


def test_update_from_many_threads_entering_scopes_never_fails() -> None:
    errors: list[BaseException] = []
    stop = threading.Event()

    def enter_scopes() -> None:
        while not stop.is_set():
            with numpy_dtype_promotion("standard"), enable_x64(False):
                pass

    def update() -> None:
        try:
            for i in range(300):
                config.update("jax_numpy_dtype_promotion", ("strict", "standard")[i % 2])
        except BaseException as err:  # noqa: BLE001 - the failure being tested for
            errors.append(err)

    enterers = [threading.Thread(target=enter_scopes) for _ in range(4)]
    for t in enterers:
        t.start()
    try:
        update()
    finally:
        stop.set()
        for t in enterers:
            t.join(30)
    assert errors == []
    config.update("jax_numpy_dtype_promotion", "strict")
    with pytest.raises(jaxtypes.TypePromotionError):
        jaxtypes.promote_types("float32", "int32")
    config.update("jax_numpy_dtype_promotion", "standard")
    assert jaxtypes.promote_types("float32", "int32") == np.dtype("float32")


# ------------------------------------------------------------ stress
CONFIGS = [(mode, x64) for mode in ("standard", "strict") for x64 in (False, True)]
STRESS_SECONDS = 4.0
N_QUESTIONS = 240


def _node_dtype(node: str) -> np.dtype:
    return np.dtype(getattr(ml_dtypes, node, None) or node)


def _pool() -> list[Any]:
    # No 64-bit dtypes: with x64 off, their answers depend on a third setting
    # (jax_explicit_x64_dtypes, tested elsewhere); 64-bit results still occur.
    names = [
        "bool",
        "int8",
        "uint8",
        "int16",
        "uint16",
        "uint32",
        "int32",
        "float16",
        "bfloat16",
        "float32",
        "complex64",
        "float8_e4m3fn",
    ]
    dts = [_node_dtype(n) for n in names]
    # Every input kind result_type keys: dtypes, names, scalar types, arrays,
    # numpy scalars, Python scalars and types, None.
    return (
        dts
        + names
        + [d.type for d in dts]
        + [np.zeros(1, d) for d in dts]
        + [d.type(1) for d in dts]
        + [int, float, complex, 3, 0.5, 1j, True, None]
    )


def _questions(seed: int = 14) -> list[tuple[str, tuple[Any, ...]]]:
    rng = random.Random(seed)
    pool = _pool()
    dts = [a for a in pool if isinstance(a, (np.dtype, str))] + [int, float, complex, None]
    out: list[tuple[str, tuple[Any, ...]]] = []
    for i in range(N_QUESTIONS):
        if i % 3 == 0:
            out.append(("promote_types", (rng.choice(dts), rng.choice(dts))))
        else:
            out.append(("result_type", tuple(rng.choice(pool) for _ in range(rng.randint(1, 4)))))
    return out


def _outcome(fn: Callable[..., Any], args: tuple[Any, ...], **kw: Any) -> tuple[Any, ...]:
    try:
        r = fn(*args, **kw)
    except Exception as err:  # noqa: BLE001 - errors are answers
        return ("error", type(err).__name__, str(err))
    return ("ok", str(r))


def _jax_table(questions: list[tuple[str, tuple[Any, ...]]]) -> dict[tuple[str, bool], list[Any]]:
    """JAX's answer to every question in every configuration, in this thread."""
    fns = {
        "promote_types": jnp.promote_types,
        "result_type": lambda *a: jax_dtypes.result_type(*a, return_weak_type_flag=True),
    }
    table = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for mode, x64 in CONFIGS:
            with jax.numpy_dtype_promotion(mode), jax.enable_x64(x64):
                table[(mode, x64)] = [_outcome(fns[f], a) for f, a in questions]
    return table


def _ours(fn_name: str, args: tuple[Any, ...]) -> tuple[Any, ...]:
    if fn_name == "promote_types":
        return _outcome(jaxtypes.promote_types, args)
    return _outcome(jaxtypes.result_type, args, return_weak_type_flag=True)


def _clear_caches() -> None:
    config_module = importlib.import_module("jaxtypes.config")  # jaxtypes.config is the Config
    for resolved in list(config_module._resolved_by_key.values()):
        resolved.promote_cache.clear()
        resolved.result_cache.clear()
    # What the slow path learns and memoises too (it holds for every configuration).
    promotion._TOKEN_OF_TYPE.clear()
    promotion._lattice_join.cache_clear()


def test_stress_threads_and_tasks_against_a_single_threaded_table() -> None:
    questions = _questions()
    table = _jax_table(questions)
    counts = {"scoped": 0, "process": 0, "task": 0, "flips": 0, "clears": 0}
    wrong: list[str] = []
    lock = threading.Lock()
    deadline = time.monotonic() + STRESS_SECONDS

    def check(where: str, cfg: tuple[str, bool], i: int, got: tuple[Any, ...]) -> None:
        if got != table[cfg][i]:
            with lock:
                wrong.append(f"{where} {cfg} {questions[i]}: {got} != {table[cfg][i]}")

    def scoped_worker(seed: int) -> None:
        rng = random.Random(seed)
        n = 0
        while time.monotonic() < deadline:
            cfg = rng.choice(CONFIGS)
            with numpy_dtype_promotion(cfg[0]), enable_x64(cfg[1]):
                for _ in range(20):
                    i = rng.randrange(len(questions))
                    check("thread", cfg, i, _ours(*questions[i]))
                    n += 1
        with lock:
            counts["scoped"] += n

    def process_worker(seed: int) -> None:
        # Follows the flipping process configuration: each answer must be the
        # table's answer of one configuration (which one is up to the timing).
        rng = random.Random(seed)
        n = 0
        while time.monotonic() < deadline:
            i = rng.randrange(len(questions))
            got = _ours(*questions[i])
            if not any(got == table[cfg][i] for cfg in CONFIGS):
                with lock:
                    wrong.append(f"process {questions[i]}: {got}")
            n += 1
        with lock:
            counts["process"] += n

    def flipper() -> None:
        rng = random.Random(1)
        while time.monotonic() < deadline:
            mode, x64 = rng.choice(CONFIGS)
            config.update("jax_numpy_dtype_promotion", mode)
            config.update("jax_enable_x64", x64)
            counts["flips"] += 1
            time.sleep(0.0005)

    def clearer() -> None:
        while time.monotonic() < deadline:
            _clear_caches()
            counts["clears"] += 1
            time.sleep(0.002)

    async def task(seed: int) -> int:
        # Scopes are per thread, as JAX's are: a scope held across an await
        # would be seen by the other tasks, so each task awaits outside them.
        rng = random.Random(seed)
        n = 0
        while time.monotonic() < deadline:
            cfg = rng.choice(CONFIGS)
            for _ in range(5):
                with numpy_dtype_promotion(cfg[0]), enable_x64(cfg[1]):
                    i = rng.randrange(len(questions))
                    check("task", cfg, i, _ours(*questions[i]))
                    n += 1
                await asyncio.sleep(0)
        return n

    async def tasks() -> None:
        counts["task"] = sum(await asyncio.gather(*(task(100 + k) for k in range(40))))

    def guarded(fn: Callable[..., Any], *args: Any) -> threading.Thread:
        def run() -> None:
            try:
                fn(*args)
            except BaseException as err:  # noqa: BLE001 - reported as a failure
                with lock:
                    wrong.append(f"{fn.__name__} raised {err!r}")

        return threading.Thread(target=run)

    threads = (
        [guarded(scoped_worker, k) for k in range(4)]
        + [guarded(process_worker, 10 + k) for k in range(2)]
        + [guarded(flipper), guarded(clearer), guarded(asyncio.run, tasks())]
    )
    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads often: more interleavings
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    finally:
        sys.setswitchinterval(old_interval)
        config.update("jax_numpy_dtype_promotion", "standard")
        config.update("jax_enable_x64", False)
    assert not any(t.is_alive() for t in threads)

    # Afterwards, in one thread: every answer, cached (asked twice) or not, is JAX's.
    for cfg in CONFIGS:
        with numpy_dtype_promotion(cfg[0]), enable_x64(cfg[1]):
            for i, q in enumerate(questions):
                check("after", cfg, i, _ours(*q))
                check("after (cached)", cfg, i, _ours(*q))
    total = counts["scoped"] + counts["process"] + counts["task"]
    print(f"\nstress: {total} answers checked ({counts}), {len(wrong)} wrong")
    assert wrong == []
    assert counts["scoped"] > 0 and counts["process"] > 0 and counts["task"] > 0
    assert counts["flips"] > 10 and counts["clears"] > 10
