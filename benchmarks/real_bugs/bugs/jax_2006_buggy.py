"""``jax.random.randint(key, (), 0, 2**31)``: the default dtype is int32, which
2**31 overflows (it used to return 0 for every key; JAX now raises)
(https://github.com/jax-ml/jax/issues/2006)."""

import jax

from jaxtypes import Array, int64


def draw(key: jax.Array) -> Array[int64]:
    return jax.random.randint(key, (), 0, 2**31)  # bug: OverflowError, 2**31 is no int32


def main() -> Array[int64]:
    return draw(jax.random.PRNGKey(1))
