"""diffusers' Flax PNDM scheduler: with a bfloat16 UNet the model output is
bfloat16 while the scheduler's ``ets`` stay float32, and ``lax.select_n``
refuses the mix (https://github.com/huggingface/diffusers/issues/3039)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, bfloat16, float32, int32


def cur_model_output(model_output: Array[bfloat16], ets: Array[float32], counter: Array[int32]) -> Array[float32]:
    return jax.lax.select_n(  # bug: TypeError, bfloat16 and float32 cases
        jnp.clip(counter, 0, 4),
        model_output,  # counter 0
        (model_output + ets[-1]) / 2,  # counter 1
        (3 * ets[-1] - ets[-2]) / 2,  # counter 2
        (23 * ets[-1] - 16 * ets[-2] + 5 * ets[-3]) / 12,  # counter 3
        (1 / 24) * (55 * ets[-1] - 59 * ets[-2] + 37 * ets[-3] - 9 * ets[-4]),  # counter >= 4
    )


def main() -> Array[float32]:
    model_output = jnp.ones((2, 4), dtype=jnp.bfloat16)
    ets = jnp.ones((4, 2, 4), dtype=jnp.float32)
    return cur_model_output(model_output, ets, jnp.asarray(1, dtype=jnp.int32))
