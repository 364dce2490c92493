"""Flax module code written as Flax's examples, Gemma and RecurrentGemma write
it: initializers reached through ``nn.initializers`` and ``nnx.initializers``,
``self.param`` and ``self.variable``, ``nn.compact``, module fields typed
``Dtype = jnp.float32``, ``nn.scan`` and ``nn.remat``, ``nnx.Param``, and
submodules reached through ``flax.linen`` and ``flax.nnx``.

Correct code (``demo()`` runs it under JAX): the stubs must add no error to
it in any checker (tests/test_user_contexts.py)."""

from __future__ import annotations

import functools
from typing import Any, Callable

import flax.linen as nn
import jax
import jax.numpy as jnp
from flax import nnx
from flax.linen import initializers
from flax.typing import Dtype

Initializer = Callable[..., jax.Array]


class RMSNorm(nn.Module):
    """Gemma's norm: a scale parameter made by an initializer, computed in float32."""

    param_dtype: Dtype = jnp.float32
    epsilon: float = 1e-6

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        scale = self.param("scale", nn.initializers.zeros_init(), (x.shape[-1],), self.param_dtype)
        var = jnp.mean(jnp.square(x.astype(jnp.float32)), axis=-1, keepdims=True)
        normed = x * jax.lax.rsqrt(var + self.epsilon).astype(x.dtype)
        return normed * (1 + scale)


class Embedder(nn.Module):
    vocab_size: int
    embed_dim: int
    dtype: Dtype = jnp.float32
    embedding_init: Initializer = nn.initializers.normal(stddev=1.0)

    def setup(self) -> None:
        self.input_embedding = self.param("input_embedding", self.embedding_init, (self.vocab_size, self.embed_dim))

    def encode(self, tokens: jax.Array) -> jax.Array:
        x = self.input_embedding[(tokens,)]
        return (x * jnp.sqrt(self.embed_dim)).astype(self.dtype)

    def decode(self, x: jax.Array) -> jax.Array:
        return jnp.dot(x, self.input_embedding.T)


class MlpBlock(nn.Module):
    hidden: int
    out: int
    dtype: Dtype = jnp.float32
    param_dtype: Dtype = jnp.float32
    kernel_init: Initializer = nn.initializers.xavier_uniform()
    bias_init: Initializer = nn.initializers.normal(stddev=1e-6)
    deterministic: bool = True

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        y = nn.Dense(
            self.hidden,
            dtype=self.dtype,
            param_dtype=self.param_dtype,
            kernel_init=self.kernel_init,
            bias_init=self.bias_init,
        )(x)
        y = nn.gelu(y)
        y = nn.Dropout(rate=0.1)(y, deterministic=self.deterministic)
        return nn.Dense(self.out, dtype=self.dtype, kernel_init=initializers.lecun_normal())(y)


class Counter(nn.Module):
    """A batch-statistics-like variable, read and written through ``.value``."""

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        count = self.variable("counter", "count", jnp.zeros, (), jnp.int32)
        mean = self.variable("batch_stats", "mean", lambda s: jnp.zeros(s, jnp.float32), x.shape[-1:])
        if not self.is_initializing():
            count.value += 1
        mean.value = 0.9 * mean.value + 0.1 * jnp.mean(x, axis=0)
        return x - mean.value


class ScannedCell(nn.Module):
    features: int

    @nn.compact
    def __call__(self, carry: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        h = nn.tanh(nn.Dense(self.features)(carry) + nn.Dense(self.features, use_bias=False)(x))
        return h, h


class Recurrent(nn.Module):
    features: int

    @nn.compact
    def __call__(self, xs: jax.Array) -> jax.Array:
        scan = nn.scan(
            ScannedCell, variable_broadcast="params", split_rngs={"params": False}, in_axes=0, out_axes=0
        )
        carry = jnp.zeros((xs.shape[1], self.features), xs.dtype)
        _, ys = scan(self.features)(carry, xs)
        return ys


class Block(nn.Module):
    width: int
    dtype: Dtype = jnp.bfloat16

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        mlp = nn.remat(MlpBlock)(self.width * 2, self.width, dtype=self.dtype)
        return x + mlp(RMSNorm()(x))


class Model(nn.Module):
    vocab_size: int = 16
    width: int = 8
    dtype: Dtype = jnp.bfloat16

    @nn.compact
    def __call__(self, tokens: jax.Array) -> jax.Array:
        embedder = Embedder(self.vocab_size, self.width, dtype=self.dtype)
        x = embedder.encode(tokens)
        x = Block(self.width, dtype=self.dtype)(x)
        x = nn.LayerNorm(dtype=self.dtype, scale_init=nn.initializers.ones)(x)
        return embedder.decode(x.astype(jnp.float32))


# NNX: parameters held as nnx.Param, initializers from nnx.initializers.
class NnxLinear(nnx.Module):
    def __init__(self, din: int, dout: int, *, rngs: nnx.Rngs, dtype: Dtype = jnp.float32) -> None:
        init = nnx.initializers.lecun_normal()
        self.w = nnx.Param(init(rngs.params(), (din, dout), dtype))
        self.b = nnx.Param(jnp.zeros((dout,), dtype))
        self.dtype = dtype

    def __call__(self, x: jax.Array) -> jax.Array:
        return x @ self.w[...] + self.b[...]


class NnxMlp(nnx.Module):
    def __init__(self, din: int, hidden: int, *, rngs: nnx.Rngs) -> None:
        self.up = NnxLinear(din, hidden, rngs=rngs)
        self.down = nnx.Linear(hidden, din, kernel_init=nnx.initializers.zeros_init(), rngs=rngs)
        self.norm = nnx.RMSNorm(din, rngs=rngs)
        self.count = nnx.Variable(jnp.array(0, jnp.int32))

    def __call__(self, x: jax.Array) -> jax.Array:
        self.count.value += 1
        return self.down(nnx.relu(self.up(self.norm(x))))


def make_optimizer_free_step(model: nn.Module) -> Callable[..., Any]:
    @functools.partial(jax.jit, static_argnums=())
    def step(params: Any, tokens: jax.Array) -> jax.Array:
        logits = model.apply({"params": params}, tokens)
        return jnp.mean(jax.nn.log_softmax(logits))

    return step


def demo() -> None:
    key = jax.random.PRNGKey(0)
    tokens = jnp.arange(6).reshape(2, 3) % 16
    model = Model()
    variables = model.init(key, tokens)
    step = make_optimizer_free_step(model)
    assert step(variables["params"], tokens).dtype == jnp.float32

    counter = Counter()
    x = jnp.ones((4, 3), jnp.float32)
    counter_vars = counter.init(key, x)
    y, _ = counter.apply(counter_vars, x, mutable=["counter", "batch_stats"])
    assert y.dtype == jnp.float32

    rec = Recurrent(4)
    xs = jnp.ones((5, 2, 3), jnp.float32)
    rec_vars = rec.init(key, xs)
    assert rec.apply(rec_vars, xs).shape == (5, 2, 4)

    mlp = NnxMlp(3, 8, rngs=nnx.Rngs(0))
    assert mlp(jnp.ones((2, 3), jnp.float32)).dtype == jnp.float32
    assert mlp.count.value == 1


if __name__ == "__main__":
    demo()
