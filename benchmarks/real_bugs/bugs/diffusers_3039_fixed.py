"""The scheduler state stays float32 (the maintainers' advice in
https://github.com/huggingface/diffusers/issues/2155): the model output is
cast to it before the cases meet
(https://github.com/huggingface/diffusers/issues/3039)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, bfloat16, float32, int32


def cur_model_output(model_output: Array[bfloat16], ets: Array[float32], counter: Array[int32]) -> Array[float32]:
    output = model_output.astype(jnp.float32)
    return jax.lax.select_n(
        jnp.clip(counter, 0, 4),
        output,  # counter 0
        (output + ets[-1]) / 2,  # counter 1
        (3 * ets[-1] - ets[-2]) / 2,  # counter 2
        (23 * ets[-1] - 16 * ets[-2] + 5 * ets[-3]) / 12,  # counter 3
        (1 / 24) * (55 * ets[-1] - 59 * ets[-2] + 37 * ets[-3] - 9 * ets[-4]),  # counter >= 4
    )


def main() -> Array[float32]:
    model_output = jnp.ones((2, 4), dtype=jnp.bfloat16)
    ets = jnp.ones((4, 2, 4), dtype=jnp.float32)
    return cur_model_output(model_output, ets, jnp.asarray(1, dtype=jnp.int32))
