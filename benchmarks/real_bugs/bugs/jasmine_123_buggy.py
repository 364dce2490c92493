"""jasmine's sampling script divided a NumPy bfloat16 video by 255.0: NumPy
promotes bfloat16 with a Python float to float32, so the model saw float32
frames at sampling and bfloat16 ones in training
(https://github.com/p-doom/jasmine/pull/123)."""

import ml_dtypes
import numpy as np
from numpy.typing import NDArray

from jaxtypes import Array, bfloat16


def prepare(video: NDArray[np.uint8]) -> Array[bfloat16]:
    frames: Array[bfloat16] = video.astype(ml_dtypes.bfloat16) / 255.0  # bug: a NumPy float32 array
    return frames


def main() -> Array[bfloat16]:
    return prepare(np.zeros((2, 4, 4, 3), dtype=np.uint8))
