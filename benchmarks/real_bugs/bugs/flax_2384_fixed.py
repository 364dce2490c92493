"""bfloat16 parameters are asked for with ``param_dtype``
(https://github.com/google/flax/issues/2384)."""

from typing import Any, Sequence, cast

import flax.linen as nn
import jax
import jax.numpy as jnp

from jaxtypes import Array, bfloat16


class MLP(nn.Module):
    features: Sequence[int]

    @nn.compact
    def __call__(self, x: Array[bfloat16]) -> Array[bfloat16]:
        for feat in self.features[:-1]:
            x = nn.relu(nn.Dense(feat, dtype=jnp.bfloat16, param_dtype=jnp.bfloat16)(x))
        x = nn.Dense(self.features[-1], dtype=jnp.bfloat16, param_dtype=jnp.bfloat16)(x)
        return x


def first_kernel() -> Array[bfloat16]:
    model = MLP([12, 8, 4])
    batch = jnp.ones((32, 10), dtype=jnp.bfloat16)
    variables = model.init(jax.random.PRNGKey(0), batch)
    kernel: Array[bfloat16] = cast(Any, variables)["params"]["Dense_0"]["kernel"]
    return kernel


def main() -> Array[bfloat16]:
    return first_kernel()
