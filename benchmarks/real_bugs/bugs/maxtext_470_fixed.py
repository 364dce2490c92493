"""The fix: the weight made in ``self.weight_dtype``
(https://github.com/AI-Hypercomputer/maxtext/pull/470)."""

from typing import Any, cast

import flax.linen as nn
import jax
import jax.numpy as jnp

from jaxtypes import Array, float32


class RMSNorm(nn.Module):
    epsilon: float = 1e-6
    dtype: Any = jnp.bfloat16
    weight_dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        features = x.shape[-1]
        mean2 = jnp.mean(jax.lax.square(x.astype(jnp.float32)), axis=-1, keepdims=True)
        y = jnp.asarray(x * jax.lax.rsqrt(mean2 + self.epsilon), self.dtype)
        scale: Array[float32] = self.param("scale", nn.initializers.ones, (features,), self.weight_dtype)
        return y * jnp.asarray(scale, self.dtype)


def scale_weight() -> Array[float32]:
    variables = RMSNorm().init(jax.random.key(0), jnp.ones((2, 8), dtype=jnp.bfloat16))
    scale: Array[float32] = cast(Any, variables)["params"]["scale"]
    return scale


def main() -> Array[float32]:
    return scale_weight()
