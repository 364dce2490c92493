"""jaxtyping's annotations that carry their dtype to every checker: the
annotated array written with its dtype, ``Float32[jaxtypes.Array[float32],
"n"]``.  To a checker without plugins jaxtyping's ``Float32`` is
``typing.Annotated``, so the dtype must be in the array it annotates;
jaxtyping's runtime check reads that array as ``jax.Array`` and checks the
dtype its own name gives.  (The mypy plugin also reads ``Float32[Array,
"n"]``: tests/test_jaxtyping_annotations.py.)

A line marked E (in a trailing comment) must get an error in every checker;
every other line must get none (a failed ``assert_type`` is an error).
Checked by tests/test_jax_stubs.py with the generated stubs, and run by
tests/test_jaxtyping_annotations.py under jaxtyping's runtime check.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from beartype import beartype
from jaxtyping import BFloat16, Float32, Int8, jaxtyped
from typing_extensions import assert_type

from jaxtypes import Array, bfloat16, float32, int8


@jaxtyped(typechecker=beartype)
def mix(x: Float32[Array[float32], "n"], h: BFloat16[Array[bfloat16], "n"]) -> Float32[Array[float32], "n"]:
    assert_type(x, Array[float32])
    assert_type(h * 2, Array[bfloat16])
    return assert_type(x + h, Array[float32])


@jaxtyped(typechecker=beartype)
def count(t: Int8[Array[int8], "n"]) -> Int8[Array[int8], "n"]:
    return assert_type(t + 1, Array[int8])


def main() -> None:
    x = jnp.ones(3, jnp.float32)
    h = jnp.ones(3, jnp.bfloat16)
    t = jnp.ones(3, jnp.int8)
    assert_type(mix(x, h), Array[float32])
    assert_type(count(t), Array[int8])
    mixed: jax.Array = mix(x, h)
    del mixed
    mix(h, h)  # E: argument
    count(x)  # E: argument
