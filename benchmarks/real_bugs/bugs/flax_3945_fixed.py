"""The parameters' dtype is ``param_dtype`` (the answer in
https://github.com/google/flax/issues/3945)."""

from typing import Any, cast

import flax.linen as nn
import jax
import jax.numpy as jnp

from jaxtypes import Array, float16


def dense_kernel() -> Array[float16]:
    dense = nn.Dense(features=4, dtype=jnp.float16, param_dtype=jnp.float16)
    variables = dense.init(jax.random.key(0), jnp.ones((3, 4), dtype=jnp.float16))
    kernel: Array[float16] = cast(Any, variables)["params"]["kernel"]
    return kernel


def main() -> Array[float16]:
    return dense_kernel()
