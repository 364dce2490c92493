"""The silent bug of Flax's FLIP 1777 ("Default dtypes"): a complex input through float32 params must not
come out as float32.  Promotion keeps the complex dtype, and forcing it into
a float32 annotation is reported."""

from typing_extensions import assert_type

from jaxtypes import Array, bfloat16, complex64, float32


def dense(x: Array[complex64], kernel: Array[float32], bias: Array[float32]) -> Array[complex64]:
    y = x @ kernel + bias
    assert_type(y, Array[complex64])
    return y


def truncating_dense(x: Array[complex64], kernel: Array[float32]) -> Array[float32]:
    return x @ kernel  # E: return


def store(x: Array[complex64], kernel: Array[bfloat16]) -> None:
    y: Array[float32] = x * kernel  # E: assignment
    z: Array[float32] = (x * kernel).real
    assert_type(abs(x * kernel), Array[float32])


def explicit(x: Array[complex64], kernel: Array[float32]) -> Array[float32]:
    # Dropping the imaginary part has to be written out.
    return (x @ kernel).real
