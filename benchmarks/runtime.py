"""Times jaxtypes' runtime promotion against numpy's and JAX's, in one process.

Run by hand, from the checkout's root: ``python -m benchmarks.runtime``.  For every input kind the
functions accept, prints the time per call and the ratio the project's
targets are stated in:

* ``jaxtypes.promote_types`` within 1.5x of ``numpy.promote_types``;
* ``jaxtypes.result_type`` at least 20x faster than ``jax.dtypes.result_type``;
* a call the cache does not answer (the uncached path) at most 3 us.

Repeated questions are answered from the cache; the uncached rows empty the
configuration's cache before each call, so every call computes its answer
(the emptying is counted in).  Two colder cases are shown for information:
the first call of a combination of dtypes in a configuration ("new dtypes",
the lattice's memo emptied too), and the first call with inputs never seen
("new inputs", what the slow path learns about its arguments forgotten too).

The references are measured in the same run, on the same inputs, in
alternation with jaxtypes, so load from elsewhere on the machine falls on both
alike and the ratios hold whatever the machine.  Times are the process's CPU
time (time.process_time), not wall time: time spent waiting for a core on a
shared machine is not the cost of a call.  Answers are compared with JAX's
before timing.  On a loaded machine take the best of several runs.
"""

from __future__ import annotations

import argparse
import os
import time
import timeit
import warnings
from typing import Any, Callable

import numpy as np

PROMOTE_TARGET = 1.5  # at most this many times numpy.promote_types' time
RESULT_TARGET = 20.0  # at least this many times faster than jax.dtypes.result_type
UNCACHED_TARGET_NS = 3000.0


def timer(fn: Callable[..., Any], args: tuple[Any, ...]) -> timeit.Timer:
    # A plain call statement: no wrapper adds its own overhead to either side.
    names = {f"a{i}": a for i, a in enumerate(args)}
    return timeit.Timer(f"fn({', '.join(names)})", timer=time.process_time, globals={"fn": fn, **names})


def calls_per_timing(t: timeit.Timer, seconds: float) -> int:
    """Enough calls for one timing to last about ``seconds``."""
    n = 1
    while True:
        if t.timeit(n) >= seconds / 10 or n >= 1 << 22:
            return max(1, int(n * seconds / max(t.timeit(n), 1e-9)))
        n *= 10


def per_call_ns(
    ours: Callable[..., Any],
    ref: Callable[..., Any],
    args: tuple[Any, ...],
    repeat: int,
    seconds: float,
    ref_args: tuple[Any, ...] | None = None,
) -> tuple[float, float]:
    """Best-of-``repeat`` time per call of each side, in nanoseconds; the two
    sides alternate.  The reference takes ``ref_args`` where given."""
    t_ours, t_ref = timer(ours, args), timer(ref, args if ref_args is None else ref_args)
    n_ours, n_ref = calls_per_timing(t_ours, seconds), calls_per_timing(t_ref, seconds)
    best_ours = best_ref = float("inf")
    for _ in range(repeat):
        best_ours = min(best_ours, t_ours.timeit(n_ours) / n_ours)
        best_ref = min(best_ref, t_ref.timeit(n_ref) / n_ref)
    return best_ours * 1e9, best_ref * 1e9


def loop_ns(body: Callable[[], Any], number: int) -> float:
    """The CPU time of one ``body()``, in nanoseconds, over ``number`` calls."""
    start = time.process_time()
    for _ in range(number):
        body()
    return (time.process_time() - start) / number * 1e9


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="timings per row; the best is kept")
    parser.add_argument("--seconds", type=float, default=0.02, help="length of one timing")
    opts = parser.parse_args()

    import jax
    import jax.numpy as jnp
    from jax import dtypes as jax_dtypes

    import jaxtypes
    from jaxtypes import promotion
    from jaxtypes.config import current_resolved

    warnings.simplefilter("ignore")  # JAX's x64 truncation warnings
    f32, i8, bf16 = np.dtype("float32"), np.dtype("int8"), np.dtype(jnp.bfloat16)

    # (input kind, jaxtypes' arguments, numpy's arguments where they differ)
    promote_cases: list[tuple[str, tuple[Any, ...], tuple[Any, ...] | None]] = [
        ("dtypes", (f32, i8), None),
        ("names", ("float32", "int8"), None),
        ("numpy scalar types", (np.float32, np.int8), None),
        ("ml_dtypes scalar type", (jaxtypes.bfloat16, np.float32), None),
        ("JAX scalar types", (jnp.float32, jnp.int8), None),
        ("Python types", (int, float), None),
        ("None", (None, f32), (np.dtype(None), f32)),  # numpy refuses None: its dtype
    ]

    # jnp.ones and jax.jit are partly unannotated in JAX (jaxlib's Device, a
    # bare Callable): each use is a pyright error in strict mode.
    def result_cases() -> list[tuple[str, tuple[Any, ...]]]:
        return [
            ("dtypes", (bf16, f32)),
            ("names", ("bfloat16", "float32")),
            ("numpy scalar types", (np.float32, np.int8)),
            ("ml_dtypes scalar type", (jaxtypes.bfloat16, np.float32)),
            ("JAX scalar types", (jnp.bfloat16, jnp.float32)),
            ("Python types", (int, float)),
            ("numpy scalars", (np.float32(1), np.int8(2))),
            ("numpy arrays", (np.ones(3, np.int8), np.ones(3, np.float32))),
            ("JAX arrays", (jnp.ones(3, jnp.bfloat16), jnp.ones(3, jnp.float32))),  # pyright: ignore[reportUnknownMemberType]
            ("Python scalars", (1, 2.0)),
            ("None", (None, 1)),
            ("dtype, Python scalar", (bf16, 3)),
            ("JAX arrays, float", (jnp.ones(3, jnp.bfloat16), jnp.ones(3, jnp.float32), 1.0)),  # pyright: ignore[reportUnknownMemberType]
        ]

    # The runtime's internals used here are not in its interface stub
    # (promotion.pyi), which pyright reads: they are taken from the module.
    accelerated: bool = getattr(promotion, "ACCELERATED")
    print(
        f"jax {jax.__version__}, numpy {np.__version__}, C fast path "
        f"{'on' if accelerated else 'OFF'}; best of {opts.repeat} timings "
        f"of ~{opts.seconds * 1000:g} ms each; load average {os.getloadavg()[0]:.1f}"
    )
    failed = False

    def report(label: str, t_ours: float, ref_name: str, t_ref: float, ok: bool, text: str) -> None:
        nonlocal failed
        failed |= not ok
        print(f"{'ok  ' if ok else 'MISS'} {label:24} jaxtypes {t_ours:7.0f} ns | {ref_name} {t_ref:7.0f} ns | {text}")

    print(f"\npromote_types, cached (target: at most {PROMOTE_TARGET:g}x numpy.promote_types' time)")
    for label, args, np_args in promote_cases:
        assert jaxtypes.promote_types(*args) == jnp.promote_types(*args), label
        t_ours, t_ref = per_call_ns(jaxtypes.promote_types, np.promote_types, args, opts.repeat, opts.seconds, np_args)
        ratio = t_ours / t_ref
        report(label, t_ours, "numpy", t_ref, ratio <= PROMOTE_TARGET, f"{ratio:5.2f}x numpy's time")

    print(f"\nresult_type, cached (target: at least {RESULT_TARGET:g}x faster than jax.dtypes.result_type)")

    def time_result_type(label: str, args: tuple[Any, ...]) -> None:
        want = jax_dtypes.result_type(*args, return_weak_type_flag=True)
        assert jaxtypes.result_type(*args, return_weak_type_flag=True) == want, label
        t_ours, t_ref = per_call_ns(jaxtypes.result_type, jax_dtypes.result_type, args, opts.repeat, opts.seconds)
        ratio = t_ref / t_ours
        report(label, t_ours, "JAX", t_ref, ratio >= RESULT_TARGET, f"{ratio:5.1f}x faster than JAX")

    for label, args in result_cases():
        time_result_type(label, args)

    def under_trace(x: Any, y: Any) -> Any:
        for label, args in [("tracers (jit)", (x, y)), ("tracer, float", (x, 2.0))]:
            time_result_type(label, args)
        return x

    jax.jit(under_trace).trace(jnp.ones(3, jnp.bfloat16), jnp.ones(3, jnp.float32))  # pyright: ignore[reportUnknownMemberType]

    resolved = current_resolved()
    number = max(200, int(opts.seconds * 1e5))
    empty_promote, empty_result = resolved.promote_cache.clear, resolved.result_cache.clear
    # the lattice's memo; what the slow path learned of its inputs
    forget_dtypes: Callable[[], None] = getattr(promotion, "_lattice_join").cache_clear
    forget_inputs: Callable[[], None] = getattr(promotion, "_TOKEN_OF_TYPE").clear

    def uncached(fn: Callable[..., Any], args: tuple[Any, ...], *empty: Callable[[], Any]) -> Callable[[], None]:
        def body() -> None:
            for e in empty:
                e()
            fn(*args)

        return body

    # (label, [the uncached call, then colder ones])
    rows: list[tuple[str, list[Callable[[], None]]]] = [
        ("promote_types " + label, [uncached(jaxtypes.promote_types, args, empty_promote)])
        for label, args, _ in promote_cases
    ] + [
        (
            "result_type " + label,
            [
                uncached(jaxtypes.result_type, args, empty_result),
                uncached(jaxtypes.result_type, args, empty_result, forget_dtypes),
                uncached(jaxtypes.result_type, args, empty_result, forget_dtypes, forget_inputs),
            ],
        )
        for label, args in result_cases()
    ]
    # Rounds over all rows, the best of each kept: a burst of load elsewhere
    # falls on one timing of many rows, not on every timing of one row.
    best = [[float("inf")] * len(bodies) for _, bodies in rows]
    for _ in range(opts.repeat):
        for (_, bodies), row_best in zip(rows, best):
            for i, body in enumerate(bodies):
                row_best[i] = min(row_best[i], loop_ns(body, number))
    print(
        f"\nthe uncached path (target: at most {UNCACHED_TARGET_NS / 1000:g} us; the cache is "
        "emptied before each call);\nfor information, colder: new dtypes, new inputs"
    )
    for (label, _), (t, *colder) in zip(rows, best):
        ok = t <= UNCACHED_TARGET_NS
        failed |= not ok
        more = f" | new dtypes {colder[0]:6.0f} ns | new inputs {colder[1]:6.0f} ns" if colder else ""
        print(f"{'ok  ' if ok else 'MISS'} {label:36} {t:6.0f} ns{more}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
