"""The fix: make the video a JAX array before the cast, so that JAX's promotion
keeps bfloat16 (https://github.com/p-doom/jasmine/pull/123)."""

import jax.numpy as jnp
import numpy as np
from numpy.typing import NDArray

from jaxtypes import Array, bfloat16


def prepare(video: NDArray[np.uint8]) -> Array[bfloat16]:
    frames: Array[bfloat16] = jnp.asarray(video).astype(jnp.bfloat16) / 255.0
    return frames


def main() -> Array[bfloat16]:
    return prepare(np.zeros((2, 4, 4, 3), dtype=np.uint8))
