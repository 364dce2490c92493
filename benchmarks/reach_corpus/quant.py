"""int8 quantisation: symmetric per-channel weights, an int8 matmul with int32
accumulation, dynamic activation quantisation and dequantisation."""

import jax
import jax.numpy as jnp
from jaxtypes import Array, bfloat16, float32, int8, int32


def quantize_per_channel(w: Array[float32]) -> tuple[Array[int8], Array[float32]]:
    max_abs = jnp.max(jnp.abs(w), axis=0, keepdims=True)
    scale = jnp.maximum(max_abs, 1e-8) / 127.0
    scaled = w / scale
    rounded = jnp.round(scaled)
    clipped = jnp.clip(rounded, -127, 127)
    q = clipped.astype(jnp.int8)
    return q, scale


def dequantize(q: Array[int8], scale: Array[float32]) -> Array[float32]:
    values = q.astype(jnp.float32)
    restored = values * scale
    return restored


def quantize_activations(x: Array[bfloat16]) -> tuple[Array[int8], Array[float32]]:
    x32 = x.astype(jnp.float32)
    amax = jnp.max(jnp.abs(x32), axis=-1, keepdims=True)
    scale = amax / 127.0 + 1e-12
    q = jnp.round(x32 / scale).astype(jnp.int8)
    return q, scale


def int8_matmul(xq: Array[int8], wq: Array[int8]) -> Array[int32]:
    acc = jax.lax.dot_general(xq, wq, (((1,), (0,)), ((), ())),
                              preferred_element_type=jnp.int32)
    return acc


def quantized_dense(x: Array[bfloat16], wq: Array[int8], w_scale: Array[float32]) -> Array[bfloat16]:
    xq, x_scale = quantize_activations(x)
    acc = int8_matmul(xq, wq)
    acc32 = acc.astype(jnp.float32)
    out = acc32 * x_scale * w_scale
    return out.astype(jnp.bfloat16)


def quantization_error(w: Array[float32], restored: Array[float32]) -> Array[float32]:
    diff = w - restored
    rel = jnp.linalg.norm(diff) / jnp.linalg.norm(w)
    return rel


def int8_sum(q: Array[int8]) -> Array[int32]:
    total = jnp.sum(q, axis=0)
    widened = q.astype(jnp.int32) * 2 + 1
    return total + widened[0]


def stochastic_round(key: jax.Array, x: Array[float32]) -> Array[int8]:
    noise = jax.random.uniform(key, x.shape, jnp.float32)
    floored = jnp.floor(x + noise)
    q = jnp.clip(floored, -128, 127).astype(jnp.int8)
    return q


def main() -> dict[str, jax.Array]:
    key = jax.random.PRNGKey(6)
    k1, k2, k3 = jax.random.split(key, 3)
    w = jax.random.normal(k1, (16, 8), jnp.float32)
    wq, w_scale = quantize_per_channel(w)
    restored = dequantize(wq, w_scale)
    err = quantization_error(w, restored)
    x = jax.random.normal(k2, (4, 16), jnp.bfloat16)
    y = quantized_dense(x, wq, w_scale)
    reference = x.astype(jnp.float32) @ w
    gap = jnp.max(jnp.abs(y.astype(jnp.float32) - reference))
    sums = int8_sum(wq)
    sq = stochastic_round(k3, w * 10.0)
    return {"err": err, "y": y, "gap": gap, "sums": sums, "sq": sq}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
