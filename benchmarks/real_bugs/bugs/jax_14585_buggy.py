"""An int8 convolution gives int8 (it overflows); the user wanted int8 inputs
and an int32 output (https://github.com/jax-ml/jax/issues/14585)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, int8, int32


def int8_conv(img: Array[int8], kernel: Array[int8]) -> Array[int32]:
    out: Array[int32] = jax.lax.conv(  # bug: int8
        lhs=jnp.transpose(img, [0, 3, 1, 2]), rhs=jnp.transpose(kernel, [3, 2, 0, 1]), window_strides=(1, 1), padding="SAME"
    )
    return out


def main() -> Array[int32]:
    kernel = jnp.arange(3 * 3 * 3 * 64).reshape(3, 3, 3, 64).astype(jnp.int8)
    img = jnp.arange(2 * 16 * 16 * 3).reshape(2, 16, 16, 3).astype(jnp.int8)
    return int8_conv(img, kernel)
