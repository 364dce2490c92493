"""Flax layers as the public examples use them: the MNIST CNN of Flax's
examples/mnist, a Linen transformer block with a config carrying its dtype
(examples/lm1b, wmt), a weight-tied embedding, and the NNX MLP of Flax's NNX
basics (see norms.py for the corpus as a whole)."""

import dataclasses
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
from flax import nnx
from jaxtypes import Array, bfloat16, float32, int32


class CNN(nn.Module):
    """Flax's examples/mnist/train.py."""

    @nn.compact
    def __call__(self, x: Array[float32]) -> Array[float32]:
        x = nn.Conv(features=8, kernel_size=(3, 3))(x)
        x = nn.relu(x)
        x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
        x = nn.Conv(features=16, kernel_size=(3, 3))(x)
        x = nn.relu(x)
        x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
        x = x.reshape((x.shape[0], -1))
        x = nn.Dense(features=32)(x)
        x = nn.relu(x)
        x = nn.Dense(features=10)(x)
        return x


@dataclasses.dataclass(frozen=True)
class TransformerConfig:
    vocab_size: int = 32
    emb_dim: int = 16
    mlp_dim: int = 32
    dtype: Any = jnp.bfloat16
    dropout_rate: float = 0.1
    deterministic: bool = True


class MlpBlock(nn.Module):
    """examples/lm1b/models.py: the dtype comes from the config."""

    config: TransformerConfig

    @nn.compact
    def __call__(self, inputs: Array[bfloat16]) -> Array[Any]:
        cfg = self.config
        x = nn.Dense(cfg.mlp_dim, dtype=cfg.dtype)(inputs)
        x = nn.relu(x)
        x = nn.Dropout(rate=cfg.dropout_rate)(x, deterministic=cfg.deterministic)
        output = nn.Dense(inputs.shape[-1], dtype=cfg.dtype)(x)
        output = nn.Dropout(rate=cfg.dropout_rate)(output, deterministic=cfg.deterministic)
        return output


class EncoderBlock(nn.Module):
    config: TransformerConfig

    @nn.compact
    def __call__(self, inputs: Array[bfloat16]) -> Array[Any]:
        x = nn.LayerNorm(dtype=jnp.bfloat16)(inputs)
        y = nn.Dense(self.config.emb_dim, dtype=jnp.bfloat16)(x)
        mixed = inputs + y
        normed = nn.LayerNorm()(mixed)
        out = MlpBlock(config=self.config)(mixed)
        return out + normed


class TiedLM(nn.Module):
    """An embedding whose table also gives the logits (``attend``)."""

    vocab: int = 32
    dim: int = 16

    def setup(self) -> None:
        self.embed = nn.Embed(self.vocab, self.dim)
        self.proj = nn.Dense(self.dim, dtype=jnp.bfloat16)
        self.norm = nn.RMSNorm()

    def __call__(self, tokens: Array[int32]) -> Array[float32]:
        emb = self.embed(tokens)
        h = self.proj(emb)
        normed = self.norm(h)
        logits = self.embed.attend(normed)
        return logits


class MLP(nnx.Module):
    """Flax's NNX basics: layers held as attributes."""

    def __init__(self, din: int, dmid: int, dout: int, *, rngs: nnx.Rngs) -> None:
        self.linear1 = nnx.Linear(din, dmid, rngs=rngs)
        self.dropout = nnx.Dropout(rate=0.1, deterministic=True, rngs=rngs)
        self.bn = nnx.BatchNorm(dmid, use_running_average=True, rngs=rngs)
        self.linear2 = nnx.Linear(dmid, dout, rngs=rngs)

    def __call__(self, x: Array[float32]) -> Array[float32]:
        h = self.linear1(x)
        h = self.dropout(h)
        h = self.bn(h)
        h = nnx.gelu(h)
        return self.linear2(h)


class HalfMLP(nnx.Module):
    def __init__(self, din: int, dout: int, *, rngs: nnx.Rngs) -> None:
        self.up = nnx.Linear(din, dout, dtype=jnp.bfloat16, param_dtype=jnp.bfloat16, rngs=rngs)
        self.norm = nnx.LayerNorm(dout, rngs=rngs)
        self.embed = nnx.Embed(10, din, rngs=rngs)

    def __call__(self, tokens: Array[int32]) -> Array[float32]:
        emb = self.embed(tokens)
        up = self.up(emb)
        normed = self.norm(up)
        return normed


def main() -> dict[str, Any]:
    key = jax.random.PRNGKey(0)
    images = jnp.ones((2, 8, 8, 1), jnp.float32)
    cnn_logits, _ = CNN().init_with_output(key, images)
    config = TransformerConfig()
    x = jnp.ones((2, 4, config.emb_dim), jnp.bfloat16)
    encoded, _ = EncoderBlock(config).init_with_output(key, x)
    tokens = jnp.zeros((2, 4), jnp.int32)
    lm_logits, _ = TiedLM().init_with_output(key, tokens)
    mlp = MLP(16, 32, 10, rngs=nnx.Rngs(0))
    features = jnp.ones((2, 16), jnp.float32)
    mlp_out = mlp(features)
    half = HalfMLP(16, 16, rngs=nnx.Rngs(1))
    half_out = half(tokens)
    return {"cnn": cnn_logits, "encoded": encoded, "lm": lm_logits, "mlp": mlp_out, "half": half_out}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
