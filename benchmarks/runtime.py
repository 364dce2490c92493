"""Times jaxtypes' runtime promotion against JAX's and numpy's, in one process.

Run by hand: ``python benchmarks/runtime.py``.  Prints the time per call of
each function and the ratios the project's targets are stated in:

* ``jaxtypes.promote_types`` within 1.5x of ``numpy.promote_types``;
* ``jaxtypes.result_type`` at least 20x faster than ``jax.dtypes.result_type``.

The references are measured in the same run, on the same inputs, so the ratios
hold whatever the machine.  Answers are compared before timing.
"""

from __future__ import annotations

import argparse
import timeit
import warnings

import numpy as np


def timer(fn, args) -> timeit.Timer:
    # A plain call statement: no wrapper adds its own overhead to either side.
    names = {f"a{i}": a for i, a in enumerate(args)}
    return timeit.Timer(f"fn({', '.join(names)})", globals={"fn": fn, **names})


def per_call_ns(ours, ref, args, number: int, repeat: int) -> tuple[float, float]:
    """Best-of-``repeat`` time per call of each side, in nanoseconds.

    The two sides alternate, so that load from elsewhere on the machine falls
    on both alike and the ratio stays meaningful.
    """
    t_ours, t_ref = timer(ours, args), timer(ref, args)
    best_ours = best_ref = float("inf")
    for _ in range(repeat):
        best_ours = min(best_ours, t_ours.timeit(number))
        best_ref = min(best_ref, t_ref.timeit(number))
    return best_ours / number * 1e9, best_ref / number * 1e9


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=50_000, help="calls per timing")
    parser.add_argument("--repeat", type=int, default=15, help="timings; the best is kept")
    opts = parser.parse_args()

    import jax
    import jax.numpy as jnp
    from jax import dtypes as jax_dtypes

    import jaxtypes

    warnings.simplefilter("ignore")  # JAX's x64 truncation warnings
    f32, i8 = np.dtype("float32"), np.dtype("int8")
    bf16, f16 = np.dtype(jnp.bfloat16), np.dtype("float16")
    jax_arrays = (jnp.ones(3, jnp.bfloat16), jnp.ones(3, jnp.float32), 1.0)
    np_arrays = (np.ones(3, np.int8), np.ones(3, np.float32), 1)

    cases = [
        # (label, jaxtypes call, reference call, args, ratio target text, target, higher_is_better)
        ("promote_types(f32, i8)", jaxtypes.promote_types, np.promote_types, (f32, i8),
         "numpy.promote_types", 1.5, False),
        ("promote_types(f16, f32)", jaxtypes.promote_types, np.promote_types, (f16, f32),
         "numpy.promote_types", 1.5, False),
        ("promote_types(bf16, f16)", jaxtypes.promote_types, jnp.promote_types, (bf16, f16),
         "jax.numpy.promote_types", None, True),
        ("promote_types(f32, i8)", jaxtypes.promote_types, jnp.promote_types, (f32, i8),
         "jax.numpy.promote_types", None, True),
        ("result_type(jax bf16, jax f32, 1.0)", jaxtypes.result_type, jax_dtypes.result_type,
         jax_arrays, "jax.dtypes.result_type", 20.0, True),
        ("result_type(np i8, np f32, 1)", jaxtypes.result_type, jax_dtypes.result_type,
         np_arrays, "jax.dtypes.result_type", 20.0, True),
        ("result_type(np i8, np f32, 1)", jaxtypes.result_type, np.result_type,
         np_arrays, "numpy.result_type", None, True),
    ]
    print(f"jax {jax.__version__}, numpy {np.__version__}; best of {opts.repeat} x {opts.number} calls")
    failed = False
    for label, ours, ref, args, ref_name, target, higher in cases:
        if ref_name.startswith("jax"):
            assert ours(*args) == ref(*args), (label, ours(*args), ref(*args))
        t_ours, t_ref = per_call_ns(ours, ref, args, opts.number, opts.repeat)
        if higher:
            ratio = t_ref / t_ours
            text = f"{ratio:6.1f}x faster than {ref_name}"
            ok = target is None or ratio >= target
            goal = f"(target >= {target:g}x)" if target else ""
        else:
            ratio = t_ours / t_ref
            text = f"{ratio:6.2f}x the time of {ref_name}"
            ok = target is None or ratio <= target
            goal = f"(target <= {target:g}x)" if target else ""
        failed |= not ok
        mark = "" if target is None else ("ok  " if ok else "MISS")
        print(f"{mark:4} {label:38} jaxtypes {t_ours:8.0f} ns | {ref_name} {t_ref:8.0f} ns | {text} {goal}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
