"""With x64 on (the thread's context, "outside x64 mode"), the int is int64
(https://github.com/jax-ml/jax/issues/3840)."""

from jax import lax

from jaxtypes import Array, int64


def negate_large() -> Array[int64]:
    return lax.neg(1 << 32)


def main() -> Array[int64]:
    return negate_large()
