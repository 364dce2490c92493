"""Plain `jax.Array` code with an attribute typo on every operator's and method's
result (`# typo` lines): each must be reported with the stubs as without them
(tests/test_jax_stubs.py::test_typos_still_reported)."""

import jax
import jax.numpy as jnp


def plain(b: jax.Array) -> None:
    (b + b).nonexistent_attr  # typo
    (b + 2).nonexistent_attr  # typo
    (2 + b).nonexistent_attr  # typo
    (b - b).nonexistent_attr  # typo
    (b - 2).nonexistent_attr  # typo
    (2 - b).nonexistent_attr  # typo
    (b * b).nonexistent_attr  # typo
    (b * 2).nonexistent_attr  # typo
    (2 * b).nonexistent_attr  # typo
    (b / b).nonexistent_attr  # typo
    (b / 2).nonexistent_attr  # typo
    (2 / b).nonexistent_attr  # typo
    (b // b).nonexistent_attr  # typo
    (b // 2).nonexistent_attr  # typo
    (2 // b).nonexistent_attr  # typo
    (b % b).nonexistent_attr  # typo
    (b % 2).nonexistent_attr  # typo
    (2 % b).nonexistent_attr  # typo
    (b ** b).nonexistent_attr  # typo
    (b ** 2).nonexistent_attr  # typo
    (2 ** b).nonexistent_attr  # typo
    (b @ b).nonexistent_attr  # typo
    (b @ 2).nonexistent_attr  # typo
    (2 @ b).nonexistent_attr  # typo
    (b & b).nonexistent_attr  # typo
    (b & 2).nonexistent_attr  # typo
    (2 & b).nonexistent_attr  # typo
    (b | b).nonexistent_attr  # typo
    (b | 2).nonexistent_attr  # typo
    (2 | b).nonexistent_attr  # typo
    (b ^ b).nonexistent_attr  # typo
    (b ^ 2).nonexistent_attr  # typo
    (2 ^ b).nonexistent_attr  # typo
    (b << b).nonexistent_attr  # typo
    (b << 2).nonexistent_attr  # typo
    (2 << b).nonexistent_attr  # typo
    (b >> b).nonexistent_attr  # typo
    (b >> 2).nonexistent_attr  # typo
    (2 >> b).nonexistent_attr  # typo
    (b < b).nonexistent_attr  # typo
    (b < 0.5).nonexistent_attr  # typo
    (b <= b).nonexistent_attr  # typo
    (b <= 0.5).nonexistent_attr  # typo
    (b > b).nonexistent_attr  # typo
    (b > 0.5).nonexistent_attr  # typo
    (b >= b).nonexistent_attr  # typo
    (b >= 0.5).nonexistent_attr  # typo
    (b == b).nonexistent_attr  # typo
    (b == 0.5).nonexistent_attr  # typo
    (b != b).nonexistent_attr  # typo
    (b != 0.5).nonexistent_attr  # typo
    (-b).nonexistent_attr  # typo
    (+b).nonexistent_attr  # typo
    (~b).nonexistent_attr  # typo
    abs(b).nonexistent_attr  # typo
    b.sum().nonexistent_attr  # typo
    b.prod().nonexistent_attr  # typo
    b.mean().nonexistent_attr  # typo
    b.max().nonexistent_attr  # typo
    b.min().nonexistent_attr  # typo
    b.argmax().nonexistent_attr  # typo
    b.argmin().nonexistent_attr  # typo
    b.round().nonexistent_attr  # typo
    b.clip(0, 1).nonexistent_attr  # typo
    b.astype(jnp.float32).nonexistent_attr  # typo
    b.reshape(-1).nonexistent_attr  # typo
    b.T.nonexistent_attr  # typo
    b.real.nonexistent_attr  # typo
    b.imag.nonexistent_attr  # typo
    b.conj().nonexistent_attr  # typo
    b.transpose().nonexistent_attr  # typo
    b.squeeze().nonexistent_attr  # typo
    b.ravel().nonexistent_attr  # typo
    b.flatten().nonexistent_attr  # typo
    b.all().nonexistent_attr  # typo
    b.any().nonexistent_attr  # typo
    b.copy().nonexistent_attr  # typo
    b.at[0].set(1).nonexistent_attr  # typo
    b[0].nonexistent_attr  # typo
    b.nonexistent_attr  # typo
