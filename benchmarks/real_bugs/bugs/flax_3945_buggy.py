"""``nn.Dense(dtype=jnp.float16)`` computes in float16 but keeps its parameters
in ``param_dtype``, float32 by default: the user expected float16 parameters
(https://github.com/google/flax/issues/3945)."""

from typing import Any, cast

import flax.linen as nn
import jax
import jax.numpy as jnp

from jaxtypes import Array, float16


def dense_kernel() -> Array[float16]:
    dense = nn.Dense(features=4, dtype=jnp.float16)
    variables = dense.init(jax.random.key(0), jnp.ones((3, 4), dtype=jnp.float16))
    kernel: Array[float16] = cast(Any, variables)["params"]["kernel"]  # bug: float32
    return kernel


def main() -> Array[float16]:
    return dense_kernel()
