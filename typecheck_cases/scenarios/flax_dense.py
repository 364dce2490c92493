"""A Flax-style mixed-precision Dense layer: bfloat16 activations, float32 params."""

from typing_extensions import assert_type

import jaxtypes
from jaxtypes import Array, bfloat16, float32


class Dense:
    kernel: Array[float32]
    bias: Array[float32]

    def __call__(self, x: Array[bfloat16]) -> Array[float32]:
        y = x @ self.kernel + self.bias
        assert_type(y, Array[float32])
        return y

    def half(self, x: Array[bfloat16]) -> Array[bfloat16]:
        # Computing in the activations' dtype takes an explicit cast of the params.
        y = x @ self.kernel.astype(bfloat16) + self.bias.astype(bfloat16)
        assert_type(y, Array[bfloat16])
        return y

    def wrong(self, x: Array[bfloat16]) -> Array[bfloat16]:
        # deviation (mypy): mypy infers the operator in the return type's context
        return x @ self.kernel  # E: return


def layer_norm(x: Array[bfloat16], eps: float = 1e-6) -> Array[bfloat16]:
    mean = x.mean()
    assert_type(mean, Array[bfloat16])
    centred = x - mean
    assert_type(centred * 0.5, Array[bfloat16])
    return centred / (centred * centred + 1e-6)


def loss(logits: Array[bfloat16], labels: Array[jaxtypes.int32]) -> Array[float32]:
    upcast = logits.astype(float32)
    assert_type(upcast.sum(), Array[float32])
    assert_type(labels.sum(), Array[jaxtypes.int32])
    assert_type(upcast - labels, Array[float32])
    return (upcast - labels).mean()
