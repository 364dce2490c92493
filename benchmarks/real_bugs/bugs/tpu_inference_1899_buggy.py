"""tpu-inference's Flax NNX models gave ``nnx.Einsum`` only ``dtype``: its
weights are made in ``param_dtype`` (float32 by default) instead of bfloat16,
and the attention kernel then refused the mismatched dtypes
(https://github.com/vllm-project/tpu-inference/pull/1899)."""

from flax import nnx
import jax.numpy as jnp

from jaxtypes import Array, bfloat16


def projection_kernel() -> Array[bfloat16]:
    proj = nnx.Einsum("td,dnh->tnh", (16, 2, 8), dtype=jnp.bfloat16, rngs=nnx.Rngs(0))
    kernel: Array[bfloat16] = proj.kernel.value  # bug: float32
    return kernel


def main() -> Array[bfloat16]:
    return projection_kernel()
