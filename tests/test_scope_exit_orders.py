"""Every exit order of two and three mixed scopes, in a thread and in asyncio tasks.

JAX's scopes ("jax.enable_x64",
https://docs.jax.dev/en/latest/_autosummary/jax.enable_x64.html) keep their
values per thread, and an exit puts back the value its entry found, even out
of order.  Scopes held across an ``await`` by interleaved asyncio tasks are
left in whatever order the tasks finish, so out-of-order exits are ordinary
there.  jaxtypes' scopes and JAX's mixed in one thread must:

* answer as if all the scopes were JAX's while a jaxtypes scope is open in the
  thread (the README's scope model: the innermost wins, as in JAX);
* answer as JAX itself does once every jaxtypes scope has closed, whatever
  order the two kinds were left in.

Each case is run three times in fresh threads: with JAX's scopes only (the
model), and mixed, asking jaxtypes and JAX at each step.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
from typing import Any, Callable, Iterator

import jax
import jax.numpy as jnp
import pytest

import jaxtypes

import scope_scenarios as sc

pytestmark = pytest.mark.filterwarnings("ignore:Explicitly requested dtype")

SETTINGS = (("enable_x64", True), ("enable_x64", False), ("numpy_dtype_promotion", "strict"))
MAKERS = {
    "jax": {"enable_x64": jax.enable_x64, "numpy_dtype_promotion": jax.numpy_dtype_promotion},
    "jaxtypes": {"enable_x64": jaxtypes.enable_x64, "numpy_dtype_promotion": jaxtypes.numpy_dtype_promotion},
}
JAX_PROBE = sc.make_probe(jnp.promote_types, jnp.result_type)
JAXTYPES_PROBE = sc.make_probe(jaxtypes.promote_types, jaxtypes.result_type)

Case = tuple[tuple[str, ...], tuple[tuple[str, Any], ...], tuple[int, ...]]


def cases(n: int) -> Iterator[Case]:
    """(kinds, settings, exit order) of n scopes with at least one of each kind."""
    for kinds in itertools.product(MAKERS, repeat=n):
        if len(set(kinds)) < 2:
            continue
        for settings in itertools.product(SETTINGS, repeat=n):
            for order in itertools.permutations(range(n)):
                yield kinds, settings, order


Step = tuple[bool, tuple[str, ...], tuple[str, ...]]  # (a jaxtypes scope open, jaxtypes, JAX)


def in_one_thread(kinds: tuple[str, ...], settings: tuple[tuple[str, Any], ...], order: tuple[int, ...]) -> list[Step]:
    scopes = [MAKERS[k][name](value) for k, (name, value) in zip(kinds, settings)]
    open_ = set(range(len(scopes)))
    steps = []
    for s in scopes:
        s.__enter__()
    steps.append((True, JAXTYPES_PROBE(), JAX_PROBE()))
    for i in order:
        scopes[i].__exit__(None, None, None)
        open_.discard(i)
        steps.append((any(kinds[j] == "jaxtypes" for j in open_), JAXTYPES_PROBE(), JAX_PROBE()))
    return steps


def in_tasks(kinds: tuple[str, ...], settings: tuple[tuple[str, Any], ...], order: tuple[int, ...]) -> list[Step]:
    """Each scope held across awaits by a task of its own, the tasks finishing in ``order``."""

    async def main() -> list[Step]:
        go = [asyncio.Event() for _ in kinds]
        entered = [asyncio.Event() for _ in kinds]

        async def hold(i: int) -> None:
            with MAKERS[kinds[i]][settings[i][0]](settings[i][1]):
                entered[i].set()
                await go[i].wait()

        tasks = []
        for i in range(len(kinds)):
            tasks.append(asyncio.create_task(hold(i)))
            await entered[i].wait()
        steps = [(True, JAXTYPES_PROBE(), JAX_PROBE())]
        open_ = set(range(len(kinds)))
        for i in order:
            go[i].set()
            await tasks[i]
            open_.discard(i)
            steps.append((any(kinds[j] == "jaxtypes" for j in open_), JAXTYPES_PROBE(), JAX_PROBE()))
        return steps

    return asyncio.run(main())


RUNNERS: dict[str, Callable[..., list[Step]]] = {"thread": in_one_thread, "asyncio": in_tasks}


@pytest.mark.parametrize("runner", sorted(RUNNERS))
@pytest.mark.parametrize("n", [2, 3])
def test_every_exit_order(n: int, runner: str) -> None:
    run = RUNNERS[runner]
    wrong = []
    count = 0
    for kinds, settings, order in cases(n):
        model = sc._in_thread(functools.partial(run, ("jax",) * n, settings, order))
        steps = sc._in_thread(functools.partial(run, kinds, settings, order))
        for step, ((jt_open, got, jax_live), (_, as_if_jax, _)) in enumerate(zip(steps, model)):
            count += 1
            expected = as_if_jax if jt_open else jax_live
            if got != expected:
                wrong.append((kinds, settings, order, step, got, expected))
    assert count == len(list(cases(n))) * (n + 1)
    assert not wrong, f"{len(wrong)} of {count} answers differ; first: {wrong[:3]}"


def test_the_sweep_sees_jax_differ_from_the_model() -> None:
    """The two expectations differ in some cases: the sweep tells them apart."""
    differ = 0
    for kinds, settings, order in cases(2):
        model = sc._in_thread(functools.partial(in_one_thread, ("jax",) * 2, settings, order))
        steps = sc._in_thread(functools.partial(in_one_thread, kinds, settings, order))
        differ += sum(m[1] != s[2] for m, s in zip(model, steps))
    assert differ > 0
