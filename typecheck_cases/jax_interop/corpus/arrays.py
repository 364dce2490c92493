"""Array manipulation: .at[] updates, indexing, masks, random numbers, dtypes,
device placement and the other members of jax.Array."""

from __future__ import annotations

import numpy as np

import jax
import jax.numpy as jnp


def one_hot_rows(indices: jax.Array, depth: int) -> jax.Array:
    out = jnp.zeros((indices.shape[0], depth))
    return out.at[jnp.arange(indices.shape[0]), indices].set(1.0)


def scatter_add(values: jax.Array, segments: jax.Array, num_segments: int) -> jax.Array:
    return jnp.zeros(num_segments, values.dtype).at[segments].add(values)


def clamp_first(x: jax.Array) -> jax.Array:
    x = x.at[0].set(jnp.clip(x[0], -1.0, 1.0))
    x = x.at[-1].multiply(2.0)
    x = x.at[1:3].min(0.5)
    return x.at[2].get(mode="clip")


def update_diagonal(m: jax.Array, value: float) -> jax.Array:
    idx = jnp.arange(min(m.shape))
    return m.at[idx, idx].set(value)


def masked_mean(x: jax.Array, mask: jax.Array) -> jax.Array:
    total = jnp.sum(jnp.where(mask, x, 0.0))
    count = jnp.maximum(mask.sum(), 1)
    return total / count


def top_k_mask(scores: jax.Array, k: int) -> jax.Array:
    threshold = jnp.sort(scores)[-k]
    return scores >= threshold


def normalize_rows(x: jax.Array) -> jax.Array:
    norms = jnp.linalg.norm(x, axis=1, keepdims=True)
    return x / jnp.maximum(norms, 1e-12)


def to_numpy(x: jax.Array) -> np.ndarray:
    return np.asarray(x)


def from_numpy(a: np.ndarray) -> jax.Array:
    return jnp.asarray(a)


def describe(x: jax.Array) -> str:
    return f"{x.shape} {x.dtype} ndim={x.ndim} size={x.size} weak={x.weak_type}"


def device_info(x: jax.Array) -> list[str]:
    x = x.block_until_ready()
    info = [str(d) for d in x.devices()]
    info.append(str(x.sharding))
    info.append(str(x.is_fully_addressable))
    return info


def place(x: jax.Array) -> jax.Array:
    device = jax.devices()[0]
    return jax.device_put(x, device)


def casts(x: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    return x.astype(jnp.float32), x.astype("int32"), x.astype(jnp.bfloat16)


def reductions(x: jax.Array) -> dict[str, jax.Array]:
    return {
        "sum": x.sum(),
        "mean": x.mean(axis=0),
        "max": x.max(),
        "argmin": x.argmin(),
        "std": x.std(),
        "cumsum": x.cumsum(),
        "any": (x > 0).any(),
    }


def arithmetic(x: jax.Array, y: jax.Array) -> jax.Array:
    z = x * 2 + y / 3 - 1
    z = z ** 2 % 7
    z = -z + abs(y)
    z = z @ y.T if z.ndim == 2 else z
    return jnp.where(z > 0, z, 0) + (x >= y) * 1.0


def integer_ops(i: jax.Array, j: jax.Array) -> jax.Array:
    return (i // 2) + (i & j) + (i | 1) + (i ^ j) + (i << 1) + (j >> 1) + ~i


def random_tensors(key: jax.Array) -> dict[str, jax.Array]:
    keys = jax.random.split(key, 5)
    return {
        "uniform": jax.random.uniform(keys[0], (3, 3), minval=-1.0, maxval=1.0),
        "normal": jax.random.normal(keys[1], (4,)),
        "ints": jax.random.randint(keys[2], (5,), 0, 10),
        "choice": jax.random.choice(keys[3], jnp.arange(10), (3,), replace=False),
        "perm": jax.random.permutation(keys[4], 6),
    }


def stack_and_split(xs: list[jax.Array]) -> list[jax.Array]:
    stacked = jnp.stack(xs)
    halves = jnp.split(stacked, 2, axis=0)
    return [h.squeeze() for h in halves]


def gather_rows(table: jax.Array, ids: jax.Array) -> jax.Array:
    return jnp.take(table, ids, axis=0)


def iterate_rows(x: jax.Array) -> float:
    total = 0.0
    for row in x:
        total += float(row.sum())
    return total


def python_scalars(x: jax.Array) -> tuple[float, int, bool]:
    return float(x[0]), int(x.argmax()), bool(x.all())


def sorting(x: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    return jnp.sort(x), jnp.argsort(x), x.sort()


def tolist_roundtrip(x: jax.Array) -> jax.Array:
    values = x.tolist()
    return jnp.array(values)


def einsum_attention(q: jax.Array, k: jax.Array, v: jax.Array) -> jax.Array:
    scores = jnp.einsum("bqd,bkd->bqk", q, k) / jnp.sqrt(q.shape[-1])
    weights = jax.nn.softmax(scores, axis=-1)
    return jnp.einsum("bqk,bkd->bqd", weights, v)


def causal_mask(n: int) -> jax.Array:
    return jnp.tril(jnp.ones((n, n), dtype=bool))


def masked_attention(q: jax.Array, k: jax.Array, v: jax.Array) -> jax.Array:
    scores = q @ k.swapaxes(-1, -2) / jnp.sqrt(q.shape[-1])
    mask = causal_mask(q.shape[-2])
    scores = jnp.where(mask, scores, -1e9)
    return jax.nn.softmax(scores, axis=-1) @ v


def dtype_checks(x: jax.Array) -> bool:
    return jnp.issubdtype(x.dtype, jnp.floating) and x.dtype != jnp.float64
