"""An MLP of ``nn.Dense(feat, dtype=jnp.bfloat16)`` layers run on TPU in
bfloat16, but its parameters stayed float32: ``dtype`` is the computation's
dtype, the parameters' is ``param_dtype`` (https://github.com/google/flax/issues/2384)."""

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
            x = nn.relu(nn.Dense(feat, dtype=jnp.bfloat16)(x))
        x = nn.Dense(self.features[-1], dtype=jnp.bfloat16)(x)
        return x


def first_kernel() -> Array[bfloat16]:
    model = MLP([12, 8, 4])
    batch = jnp.ones((32, 10), dtype=jnp.bfloat16)
    variables = model.init(jax.random.PRNGKey(0), batch)
    kernel: Array[bfloat16] = cast(Any, variables)["params"]["Dense_0"]["kernel"]  # bug: float32
    return kernel


def main() -> Array[bfloat16]:
    return first_kernel()
