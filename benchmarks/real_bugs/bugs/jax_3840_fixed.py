"""With x64 on (the thread's context, "outside x64 mode"), the int is int64,
weakly typed as JAX makes a Python int, hence ``Array[weak_int]``
(https://github.com/jax-ml/jax/issues/3840)."""

from jax import lax

from jaxtypes import Array, weak_int


def negate_large() -> Array[weak_int]:
    return lax.neg(1 << 32)


def main() -> Array[weak_int]:
    return negate_large()
