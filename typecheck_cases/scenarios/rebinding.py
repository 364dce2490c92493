"""A parameter re-bound to another dtype, as normalisation layers do (an
RMSNorm upcasts its bfloat16 input to float32): the name keeps its declared
type, so the re-binding is an error where it is written; a new name keeps
the new dtype."""

from typing_extensions import assert_type

from jaxtypes import Array, bfloat16, float32


def rms_norm_with_a_new_name(x: Array[bfloat16], scale: Array[float32]) -> Array[bfloat16]:
    x32 = x.astype(float32)
    assert_type(x32, Array[float32])
    normed = x32 * (x32 * x32).mean()
    assert_type(normed * scale, Array[float32])
    return (normed * scale).astype(bfloat16)


def rms_norm_re_bound(x: Array[bfloat16]) -> Array[bfloat16]:
    # deviation (mypy): mypy without the plugin solves astype against the declared type, then falls back to Array[Any]
    x = x.astype(float32)  # E: assignment
    return x
