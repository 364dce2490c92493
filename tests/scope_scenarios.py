"""Programs that open configuration scopes in threads, asyncio tasks, thread
pools and copied contexts, probing the configuration as they go.

Each scenario takes two sets of scopes, ``a`` and ``b`` (JAX's or jaxtypes':
``Scopes``), used at different places (``a`` usually outside, ``b`` inside),
and a ``probe`` that answers a few promotion questions; it returns what the
probes saw, in order.  tests/test_config_scopes_like_jax.py runs each scenario
with JAX's scopes asking JAX, and with jaxtypes' scopes (and mixes of the two
kinds) asking jaxtypes: the answers must be the same.  This module imports
neither JAX nor jaxtypes, so that a fresh interpreter without JAX can run it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import threading
from dataclasses import dataclass
from typing import Any, Callable

TIMEOUT = 30  # a safety net: a broken scope must not hang the run

# The questions: x64 shows in the Python int's and float's dtypes and in
# uint32 with int8 (int64 under x64, int32 without); strict mode in float32
# with int32 (an error); jax_explicit_x64_dtypes in int64 asked for by name
# with x64 off (kept, truncated to int32, or an error).
QUESTIONS: tuple[tuple[str, tuple[Any, ...]], ...] = (
    ("result_type", (1,)),
    ("result_type", (1.0,)),
    ("promote_types", ("uint32", "int8")),
    ("promote_types", ("float32", "int32")),
    ("result_type", ("int64", "int8")),
)

Probe = Callable[[], tuple[str, ...]]


def make_probe(promote_types: Callable[..., Any], result_type: Callable[..., Any]) -> Probe:
    """A probe asking these two functions every question: dtype names, or
    ``error: <class>``."""
    functions = {"promote_types": promote_types, "result_type": result_type}

    def probe() -> tuple[str, ...]:
        answers = []
        for name, args in QUESTIONS:
            try:
                answers.append(str(functions[name](*args)))
            except Exception as err:  # noqa: BLE001 - an error is an answer
                answers.append(f"error: {type(err).__name__}")
        return tuple(answers)

    return probe


@dataclass(frozen=True)
class Scopes:
    """One kind of scope: JAX's or jaxtypes'."""

    name: str
    enable_x64: Callable[[Any], Any]
    numpy_dtype_promotion: Callable[[Any], Any]
    explicit_x64_dtypes: Callable[[Any], Any]


def _in_thread(fn: Callable[[], Any]) -> Any:
    """fn() in a new thread, its result (or its exception, raised here)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["result"] = fn()
        except BaseException as err:  # noqa: BLE001 - raised again below
            box["error"] = err

    t = threading.Thread(target=run)
    t.start()
    t.join(TIMEOUT)
    assert not t.is_alive()
    if "error" in box:
        raise box["error"]
    return box["result"]


# ------------------------------------------------------------ one thread
def nested(a: Scopes, b: Scopes, probe: Probe) -> list[Any]:
    seen = [probe()]
    with a.numpy_dtype_promotion("strict"):
        seen.append(probe())
        with b.enable_x64(True):
            seen.append(probe())
            with a.numpy_dtype_promotion("standard"):
                seen.append(probe())
                with b.enable_x64(False):
                    seen.append(probe())
                    with a.explicit_x64_dtypes("error"):
                        seen.append(probe())
                        with b.explicit_x64_dtypes("allow"):
                            seen.append(probe())
                        seen.append(probe())
                    seen.append(probe())
                seen.append(probe())
            seen.append(probe())
        seen.append(probe())
    seen.append(probe())
    return seen


def same_setting_nested(a: Scopes, b: Scopes, probe: Probe) -> list[Any]:
    seen = []
    with a.enable_x64(True):
        seen.append(probe())
        with b.enable_x64(False):
            seen.append(probe())
            with a.enable_x64(True):
                seen.append(probe())
            seen.append(probe())
        seen.append(probe())
    seen.append(probe())
    return seen


def crossed_exits(a: Scopes, b: Scopes, probe: Probe) -> list[Any]:
    """Scopes left in another order than they were entered, in one thread."""
    seen = []
    outer, inner = a.enable_x64(True), b.enable_x64(False)
    outer.__enter__()
    inner.__enter__()
    seen.append(probe())
    outer.__exit__(None, None, None)  # back to the value before `outer`
    seen.append(probe())
    # JAX's `inner` puts back `outer`'s value, which then stays; a jaxtypes
    # scope among them leaves JAX's own value instead (not probed here:
    # tests/test_scope_exit_orders.py).
    inner.__exit__(None, None, None)
    return seen


def crossed_exits_of_two_settings(a: Scopes, b: Scopes, probe: Probe) -> list[Any]:
    """Scopes of two settings left in another order than they were entered."""
    seen = []
    mode, x64 = a.numpy_dtype_promotion("strict"), b.enable_x64(True)
    mode.__enter__()
    x64.__enter__()
    mode.__exit__(None, None, None)
    seen.append(probe())
    x64.__exit__(None, None, None)
    seen.append(probe())
    return seen


def decorators(a: Scopes, b: Scopes, probe: Probe) -> list[Any]:
    @a.numpy_dtype_promotion("strict")
    def strict() -> Any:
        return probe()

    @b.enable_x64(True)
    def x64() -> Any:
        return [probe(), strict(), probe()]

    seen = [strict(), x64()]
    with b.enable_x64(True):
        seen.append(strict())
    with a.numpy_dtype_promotion("strict"):
        seen.append(x64())
    seen.append(probe())
    return seen


# ------------------------------------------------------------ asyncio
def task_created_inside_a_scope_runs_after_it(a: Scopes, b: Scopes, probe: Probe) -> list[Any]:
    async def probed() -> Any:
        return probe()

    async def main() -> list[Any]:
        with a.enable_x64(True):
            task = asyncio.ensure_future(probed())
            inside = probe()
        with b.numpy_dtype_promotion("strict"):
            strict_task = asyncio.ensure_future(probed())
        return [inside, probe(), await task, await strict_task]

    return asyncio.run(main())


def task_created_outside_a_scope_runs_inside_it(a: Scopes, b: Scopes, probe: Probe) -> list[Any]:
    async def probed() -> Any:
        return probe()

    async def main() -> list[Any]:
        task, other = asyncio.ensure_future(probed()), asyncio.ensure_future(probed())
        with a.enable_x64(True):
            first = await task
            with b.numpy_dtype_promotion("strict"):
                second = await other
        return [first, second, probe()]

    return asyncio.run(main())


def tasks_interleaved(a: Scopes, b: Scopes, probe: Probe) -> list[Any]:
    """Scopes held across awaits while other tasks run in the same thread."""

    async def main() -> dict[str, Any]:
        a_in, b_in, a_out = asyncio.Event(), asyncio.Event(), asyncio.Event()
        seen: dict[str, Any] = {}

        async def task_a() -> None:
            with a.numpy_dtype_promotion("strict"):
                a_in.set()
                await b_in.wait()
                await asyncio.sleep(0)
                seen["a inside"] = probe()
            seen["a after"] = probe()
            a_out.set()

        async def task_b() -> None:
            await a_in.wait()
            with b.enable_x64(True):
                b_in.set()
                await a_out.wait()
                await asyncio.sleep(0)
                seen["b inside"] = probe()
            seen["b after"] = probe()

        async def task_c() -> None:
            await b_in.wait()
            seen["c, without a scope"] = probe()

        await asyncio.gather(task_a(), task_b(), task_c())
        seen["main"] = probe()
        return seen

    return sorted(asyncio.run(main()).items())


def task_exits_a_scope_the_caller_entered(a: Scopes, b: Scopes, probe: Probe) -> list[Any]:
    scope = a.numpy_dtype_promotion("strict")
    scope.__enter__()
    seen = [probe()]

    async def leave() -> Any:
        scope.__exit__(None, None, None)
        return probe()

    seen.append(asyncio.run(leave()))
    seen.append(probe())  # the task ran in this thread: the scope is left here
    return seen


def executor_from_a_coroutine(a: Scopes, b: Scopes, probe: Probe) -> list[Any]:
    async def main() -> list[Any]:
        loop = asyncio.get_running_loop()
        with a.enable_x64(True):
            in_executor = await loop.run_in_executor(None, probe)
            to_thread = await asyncio.to_thread(probe)  # copies the context
            here = probe()
        return [in_executor, to_thread, here]

    return asyncio.run(main())


# ------------------------------------------------------------ threads
def thread_started_inside_a_scope(a: Scopes, b: Scopes, probe: Probe) -> list[Any]:
    seen = []
    with a.enable_x64(True), a.numpy_dtype_promotion("strict"):
        seen.append(_in_thread(probe))
        seen.append(probe())
    entered, probed = threading.Event(), threading.Event()

    def own_scope() -> Any:
        with b.enable_x64(True):
            entered.set()
            assert probed.wait(TIMEOUT)
            return probe()

    t_result: list[Any] = []
    t = threading.Thread(target=lambda: t_result.append(own_scope()))
    t.start()
    assert entered.wait(TIMEOUT)
    seen.append(probe())  # the other thread's scope is not seen here
    probed.set()
    t.join(TIMEOUT)
    return seen + t_result


def thread_pools(a: Scopes, b: Scopes, probe: Probe) -> list[Any]:
    seen = []
    with a.enable_x64(True):  # a pool made and used inside a scope
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            seen.append(pool.submit(probe).result(TIMEOUT))
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        seen.append(pool.submit(probe).result(TIMEOUT))  # its worker starts outside
        with a.enable_x64(True):
            seen.append(pool.submit(probe).result(TIMEOUT))
        # A job that enters a scope and does not leave it: the worker thread
        # keeps it for its next jobs, and only there.
        scope = b.numpy_dtype_promotion("strict")
        seen.append(pool.submit(scope.__enter__).result(TIMEOUT))
        seen.append(pool.submit(probe).result(TIMEOUT))
        seen.append(probe())
        seen.append(pool.submit(scope.__exit__, None, None, None).result(TIMEOUT))
        seen.append(pool.submit(probe).result(TIMEOUT))
    return seen


def scope_left_in_another_thread(a: Scopes, b: Scopes, probe: Probe) -> list[Any]:
    scope = a.numpy_dtype_promotion("strict")
    scope.__enter__()
    seen = [_in_thread(lambda: (scope.__exit__(None, None, None), probe())[1])]
    seen.append(probe())  # still in force here
    scope.__exit__(None, None, None)
    seen.append(probe())
    return seen


# ------------------------------------------------------------ contexts
def copied_contexts(a: Scopes, b: Scopes, probe: Probe) -> list[Any]:
    seen = []
    before = contextvars.copy_context()
    with a.enable_x64(True):
        inside = contextvars.copy_context()
        seen.append(inside.run(probe))
        seen.append(before.run(probe))
    seen.append(inside.run(probe))
    seen.append(before.run(probe))
    # A scope entered inside Context.run stays in force in the thread after it.
    scope = b.numpy_dtype_promotion("strict")
    contextvars.copy_context().run(scope.__enter__)
    seen.append(probe())
    contextvars.copy_context().run(scope.__exit__, None, None, None)
    seen.append(probe())
    return seen


SCENARIOS: tuple[Callable[[Scopes, Scopes, Probe], list[Any]], ...] = (
    nested,
    same_setting_nested,
    crossed_exits,
    crossed_exits_of_two_settings,
    decorators,
    task_created_inside_a_scope_runs_after_it,
    task_created_outside_a_scope_runs_inside_it,
    tasks_interleaved,
    task_exits_a_scope_the_caller_entered,
    executor_from_a_coroutine,
    thread_started_inside_a_scope,
    thread_pools,
    scope_left_in_another_thread,
    copied_contexts,
)


def run(scenario: Callable[[Scopes, Scopes, Probe], list[Any]], a: Scopes, b: Scopes, probe: Probe) -> list[Any]:
    """The scenario's probes (JSON-able), run in a thread of its own: what a
    scenario leaves in force in its thread (as JAX's scopes may: a scope left
    out of order puts back a value) ends with the thread."""
    return _plain(_in_thread(lambda: scenario(a, b, probe)))


def run_all(a: Scopes, b: Scopes, probe: Probe) -> dict[str, Any]:
    """Every scenario's probes, by scenario name."""
    return {scenario.__name__: run(scenario, a, b, probe) for scenario in SCENARIOS}


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
