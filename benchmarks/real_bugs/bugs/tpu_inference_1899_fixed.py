"""The fix: the weights' dtype passed as ``param_dtype``
(https://github.com/vllm-project/tpu-inference/pull/1899)."""

from flax import nnx
import jax.numpy as jnp

from jaxtypes import Array, bfloat16


def projection_kernel() -> Array[bfloat16]:
    proj = nnx.Einsum("td,dnh->tnh", (16, 2, 8), dtype=jnp.bfloat16, param_dtype=jnp.bfloat16, rngs=nnx.Rngs(0))
    kernel: Array[bfloat16] = proj.kernel.value
    return kernel


def main() -> Array[bfloat16]:
    return projection_kernel()
