"""The fix: the embedding is given the model's ``dtype``
(https://github.com/huggingface/transformers/pull/18462)."""

from typing import Any, cast

import flax.linen as nn
import jax
import jax.numpy as jnp

from jaxtypes import Array, bfloat16, int32


class FlaxGPT2Embeddings(nn.Module):
    vocab_size: int = 64
    hidden_size: int = 16
    dtype: jnp.dtype = jnp.bfloat16

    def setup(self) -> None:
        self.wte = nn.Embed(
            self.vocab_size, self.hidden_size, embedding_init=jax.nn.initializers.normal(0.02), dtype=self.dtype
        )

    def __call__(self, input_ids: Array[int32]) -> Array[bfloat16]:
        input_embeds = self.wte(input_ids.astype("i4"))
        return input_embeds


def main() -> Array[bfloat16]:
    model = FlaxGPT2Embeddings()
    input_ids = jnp.arange(6, dtype=jnp.int32).reshape(2, 3)
    variables = model.init(jax.random.key(0), input_ids)
    # Module.apply is declared to return Any or a tuple (with mutable=...): the module's own output here.
    out: Array[bfloat16] = cast(Any, model.apply(variables, input_ids))
    return out
