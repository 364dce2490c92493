"""``lax.neg(1 << 32)`` with x64 off: the Python int does not fit int32 (it
used to be silently zeroed; JAX now raises OverflowError)
(https://github.com/jax-ml/jax/issues/3840)."""

from jax import lax

from jaxtypes import Array, weak_int


def negate_large() -> Array[weak_int]:
    return lax.neg(1 << 32)  # bug: OverflowError, 2**32 is no int32


def main() -> Array[weak_int]:
    return negate_large()
