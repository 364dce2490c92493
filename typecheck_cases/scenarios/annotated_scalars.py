"""Python scalars held in annotated variables promote as literals do.

ty reads a value annotated ``float`` as ``int | float`` (and ``complex`` as
``int | float | complex``) and splits the operator over that union; those
lines are listed in deviations.toml."""

from typing_extensions import assert_type

from jaxtypes import Array, bfloat16, complex64, float32, int8, weak_complex, weak_float


def scalars(x: Array[int8], b: Array[bfloat16], pi: int, pf: float, pc: complex, pb: bool) -> None:
    assert_type(x + pi, Array[int8])
    assert_type(x + pb, Array[int8])
    # deviation (ty): ty reads float as int | float
    assert_type(x * pf, Array[weak_float])
    # deviation (ty): ty reads float as int | float
    assert_type(pf * x, Array[weak_float])
    assert_type(b * pf, Array[bfloat16])
    # deviation (ty): ty reads complex as int | float | complex
    assert_type(x + pc, Array[weak_complex])
    # deviation (ty): ty reads complex as int | float | complex
    assert_type(b + pc, Array[complex64])
    # deviation (ty): ty reads complex as int | float | complex
    assert_type(pc - b, Array[complex64])


def mixed(f: Array[float32], pf: float) -> Array[float32]:
    return f * pf + 1
