"""``jax.image.resize`` of a uint8 image returns float32 with the linear method
(uint8 with nearest): the user expected the input's type back
(https://github.com/jax-ml/jax/issues/3811)."""

import jax
import jax.numpy as jnp

from jaxtypes import Array, uint8


def downscale(image: Array[uint8]) -> Array[uint8]:
    resized: Array[uint8] = jax.image.resize(image, (4, 4, 3), method="linear")  # bug: float32
    return resized


def main() -> Array[uint8]:
    return downscale(jnp.full((8, 8, 3), 200, dtype=jnp.uint8))
