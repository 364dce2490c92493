"""A Gemma-style decoder as Gemma's Flax implementation writes it
("gemma/modules.py", "layers.py", "positional_embeddings.py" and
"transformer.py" of https://github.com/google-deepmind/gemma, and Flax's
examples/gemma): an ``Einsum`` layer holding one ``self.param``, RMSNorm
with a zero-initialised scale, rotary position embeddings, grouped-query
attention with a key/value cache held in a dict, a gated-GeLU feed-forward,
logit soft-capping, a dataclass config with a ``dtype``-valued field, and
the layers stacked with ``nn.scan`` over ``nn.remat`` as MaxText stacks
them.  Shrunk to tiny sizes (see mnist.py)."""

import dataclasses
import enum
from typing import Any

import jax
import jax.numpy as jnp
from flax import linen as nn

K_MASK = -2.3819763e38  # Set to a large negative number.
LayerCache = dict[str, jax.Array]
Cache = dict[str, LayerCache]


class AttentionType(enum.Enum):
    GLOBAL = 1
    LOCAL_SLIDING = 2


@dataclasses.dataclass(frozen=True)
class TransformerConfig:
    """Configuration for the gemma transformer."""

    num_layers: int
    num_embed: int
    embed_dim: int
    hidden_dim: int
    num_heads: int
    head_dim: int
    num_kv_heads: int
    final_logit_softcap: float | None = None
    attn_logits_soft_cap: float | None = None
    sliding_window_size: int | None = None
    query_pre_attn_norm_scalar: float | None = None
    dtype: Any = jnp.float32
    attention_types: tuple[AttentionType, ...] = (AttentionType.GLOBAL,)

    @classmethod
    def tiny(cls, dtype: Any = jnp.float32) -> "TransformerConfig":
        return cls(
            num_layers=2, num_embed=32, embed_dim=16, hidden_dim=32, num_heads=4, head_dim=4, num_kv_heads=2,
            final_logit_softcap=30.0, attn_logits_soft_cap=50.0, sliding_window_size=4, dtype=dtype,
            attention_types=(AttentionType.LOCAL_SLIDING, AttentionType.GLOBAL),
        )


class Einsum(nn.Module):
    """Einsum is a convenience module for parameterized tensor multiplication."""

    shape: tuple[int, ...]
    weight_name: str = "w"
    initializer: nn.initializers.Initializer = nn.initializers.normal()
    dtype: jnp.dtype | None = None

    @nn.compact
    def __call__(self, eqn: str, x: jax.Array) -> jax.Array:
        w = self.param(self.weight_name, self.initializer, self.shape, self.dtype if self.dtype is not None else None)
        return jnp.einsum(eqn, x, w)


class RMSNorm(nn.Module):
    """RMSNorm layer."""

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        scale = self.param("scale", nn.initializers.zeros_init(), (x.shape[-1]))
        var = jnp.mean(jnp.square(x), axis=-1, keepdims=True)

        # Jax.lax.rsqrt is used because it returns different floats than
        # jnp.reciprocal(jnp.sqrt(var + 1e-06))
        normed_inputs = x * jax.lax.rsqrt(var + 1e-06)

        # normed_inputs is a rank-K tensor, K > 1 (K is typically 2 or 3). scale is
        # a rank-1 tensor. To avoid implicit rank-promotion, reshape scale to
        # a (1, ..., 1, D) tensor, so the rank of scale matches normed_inputs.
        scale = jnp.expand_dims(scale, axis=range(len(x.shape) - 1))
        normed_inputs = normed_inputs * (1 + scale)
        return normed_inputs


def apply_rope(inputs: jax.Array, positions: jax.Array, *, base_frequency: int = 10_000, scale_factor: float = 1.0) -> jax.Array:
    """Applies RoPE.

    Let B denote batch size, L denote sequence length, N denote number of heads,
    and H denote head dimension. Note that H must be divisible by 2.

    Args:
      inputs: Array of shape [B, L, N, H].
      positions:  Array of shape [B, L].
      base_frequency: Base frequency used to compute rotations.
      scale_factor: The scale factor used for positional interpolation.

    Returns:
      Array of shape [B, L, N, H].
    """
    first_half, second_half = jnp.split(inputs, 2, axis=-1)
    head_dim = inputs.shape[-1]
    fraction = 2 * jnp.arange(0, head_dim // 2) / head_dim
    timescale = base_frequency**fraction

    sinusoid_inp = positions[..., jnp.newaxis] / timescale[jnp.newaxis, jnp.newaxis, :]
    sinusoid_inp = sinusoid_inp[..., jnp.newaxis, :]
    sinusoid_inp /= scale_factor

    sin = jnp.sin(sinusoid_inp)
    cos = jnp.cos(sinusoid_inp)

    first_part = first_half * cos - second_half * sin
    second_part = second_half * cos + first_half * sin
    out = jnp.concatenate([first_part, second_part], axis=-1)
    return out.astype(inputs.dtype)


class Embedder(nn.Module):
    """Embedder module."""

    vocab_size: int
    embed_dim: int

    def setup(self):
        self.input_embedding_table = self.param(
            "input_embedding", nn.initializers.normal(), (self.vocab_size, self.embed_dim)
        )

    def encode(self, x: jax.Array) -> jax.Array:
        x = self.input_embedding_table[(x,)]
        x *= jnp.sqrt(self.embed_dim).astype(x.dtype)
        return x

    def decode(self, x: jax.Array) -> jax.Array:
        return jnp.dot(x, self.input_embedding_table.T)


class Attention(nn.Module):
    """Attention module."""

    num_heads: int
    num_kv_heads: int
    features: int
    head_dim: int
    attn_type: AttentionType
    query_pre_attn_scalar: float
    attn_logits_soft_cap: float | None = None
    sliding_window_size: int | None = None

    @property
    def use_qkv_einsum(self):
        return self.num_kv_heads == self.num_heads

    @property
    def use_gqa(self):
        return self.num_kv_heads != self.num_heads and self.num_kv_heads > 1

    def setup(self):
        self.attn_vec_einsum = Einsum(shape=(self.num_heads, self.head_dim, self.features))
        if self.use_qkv_einsum:
            self.qkv_einsum = Einsum(shape=(3, self.num_heads, self.features, self.head_dim))
        else:
            self.q_einsum = Einsum(shape=(self.num_heads, self.features, self.head_dim))
            self.kv_einsum = Einsum(shape=(2, self.num_kv_heads, self.features, self.head_dim))

    def __call__(
        self, x: jax.Array, segment_pos: jax.Array, cache: LayerCache | None, attn_mask: jax.Array
    ) -> tuple[LayerCache | None, jax.Array]:
        if self.use_qkv_einsum:
            query_proj, key_proj, value_proj = self.qkv_einsum("BTD,SNDH->SBTNH", x)
        else:
            query_proj = self.q_einsum("BTD,NDH->BTNH", x)
            key_proj, value_proj = self.kv_einsum("BSD,CKDH->CBSKH", x)

        query_proj = apply_rope(query_proj, segment_pos)
        query_scaled = query_proj * self.query_pre_attn_scalar
        key_proj = apply_rope(key_proj, segment_pos)

        # Cache is left aligned.
        if cache is not None:
            end_index = cache["end_index"][0]
            slice_indices = (0, end_index % cache["v"].shape[1], 0, 0)
            value_proj = jax.lax.dynamic_update_slice(cache["v"], value_proj, slice_indices)
            key_proj = jax.lax.dynamic_update_slice(cache["k"], key_proj, slice_indices)

        if self.use_gqa:
            # Reshape matrices to enable einsums over groups.
            b, t, kg, h = query_scaled.shape
            query_scaled = query_scaled.reshape((b, t, self.num_kv_heads, int(kg / self.num_kv_heads), h))
            logits = jnp.einsum("BTKGH,BSKH->BTKGS", query_scaled, key_proj)
            b, t, k, g, s = logits.shape
            logits = logits.reshape((b, t, k * g, s))
        else:
            logits = jnp.einsum("BTNH,BSNH->BTNS", query_scaled, key_proj)

        if self.attn_logits_soft_cap is not None:
            logits = jnp.tanh(logits / self.attn_logits_soft_cap)
            logits = logits * self.attn_logits_soft_cap
        if self.attn_type == AttentionType.LOCAL_SLIDING:
            if self.sliding_window_size is None:
                raise ValueError("Sliding_window_size must be set if Local Sliding attention type")
            all_ones = jnp.ones_like(attn_mask)
            sliding_mask = jnp.triu(all_ones, -1 * self.sliding_window_size + 1) * jnp.tril(
                all_ones, self.sliding_window_size - 1
            )
            attn_mask = sliding_mask * attn_mask

        padded_logits = jnp.where((jnp.expand_dims(attn_mask, -2)), logits, K_MASK)
        probs = jax.nn.softmax(padded_logits, axis=-1).astype(key_proj.dtype)

        if self.use_gqa:
            # Reshape matrices to enable einsums over groups.
            b, t, kg, h = probs.shape
            probs = probs.reshape((b, t, self.num_kv_heads, int(kg / self.num_kv_heads), h))
            encoded = jnp.einsum("BTKGS,BSKH->BTKGH", probs, value_proj)
            b, t, k, g, h = encoded.shape
            encoded = encoded.reshape((b, t, k * g, h))
        else:
            encoded = jnp.einsum("BTNS,BSNH->BTNH", probs, value_proj)
        attn_output = self.attn_vec_einsum("BTNH,NHD->BTD", encoded)

        if cache is not None:
            new_cache = {"v": value_proj, "k": key_proj, "end_index": cache["end_index"] + x.shape[1]}
        else:
            new_cache = None

        return new_cache, attn_output

    @classmethod
    def init_cache(cls, cache_size: int, num_heads: int, head_dim: int, batch_size: int, dtype: jnp.dtype = jnp.bfloat16) -> LayerCache:
        del cls  # not used
        return {
            "v": jnp.zeros((batch_size, cache_size, num_heads, head_dim), dtype=dtype),
            "k": jnp.zeros((batch_size, cache_size, num_heads, head_dim), dtype=dtype),
            "end_index": jnp.zeros((batch_size,), dtype=jnp.int32),
        }


class FeedForward(nn.Module):
    """Feed forward module."""

    features: int
    hidden_dim: int
    transpose_gating_einsum: bool = False

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        w_gating = self.param("gating_einsum", nn.initializers.normal(), ((2, self.features, self.hidden_dim)))
        ff_gate = jnp.dot(x, w_gating[0])
        gate_value = nn.gelu(ff_gate)

        ff1 = jnp.dot(x, w_gating[1])
        activations = gate_value * ff1

        w_linear = self.param("linear", nn.initializers.zeros_init(), (self.hidden_dim, self.features))
        outputs = jnp.dot(activations, w_linear)
        return outputs


class Block(nn.Module):
    """Transformer block."""

    num_heads: int
    num_kv_heads: int
    embed_dim: int
    head_dim: int
    hidden_dim: int
    attn_type: AttentionType
    query_pre_attn_scalar: float
    attn_logits_soft_cap: float | None = None
    sliding_window_size: int | None = None

    def setup(self):
        self.pre_attention_norm = RMSNorm()
        self.attn = Attention(
            num_heads=self.num_heads,
            features=self.embed_dim,
            head_dim=self.head_dim,
            num_kv_heads=self.num_kv_heads,
            attn_type=self.attn_type,
            query_pre_attn_scalar=self.query_pre_attn_scalar,
            attn_logits_soft_cap=self.attn_logits_soft_cap,
            sliding_window_size=self.sliding_window_size,
        )
        self.pre_ffw_norm = RMSNorm()
        self.mlp = FeedForward(features=self.embed_dim, hidden_dim=self.hidden_dim)

    def __call__(
        self, x: jax.Array, segment_pos: jax.Array, cache: LayerCache | None, attn_mask: jax.Array
    ) -> tuple[LayerCache | None, jax.Array]:
        inputs_normalized = self.pre_attention_norm(x)
        cache, attn_output = self.attn(inputs_normalized, segment_pos, cache, attn_mask)
        attn_output += x
        outputs = self.pre_ffw_norm(attn_output)
        outputs = self.mlp(outputs)
        outputs += attn_output
        return cache, outputs


class Transformer(nn.Module):
    """Gemma transformer."""

    config: TransformerConfig

    def setup(self):
        self.embedder = Embedder(vocab_size=self.config.num_embed, embed_dim=self.config.embed_dim)
        self.blocks = [
            Block(
                name=f"layer_{i}",
                num_heads=self.config.num_heads,
                num_kv_heads=self.config.num_kv_heads,
                embed_dim=self.config.embed_dim,
                head_dim=self.config.head_dim,
                hidden_dim=self.config.hidden_dim,
                sliding_window_size=self.config.sliding_window_size,
                attn_logits_soft_cap=self.config.attn_logits_soft_cap,
                attn_type=attn_type,
                query_pre_attn_scalar=self.config.head_dim**-0.5,
            )
            for i, attn_type in zip(range(self.config.num_layers), self.config.attention_types)
        ]
        self.final_norm = RMSNorm()

    def __call__(
        self, last_tokens: jax.Array, positions: jax.Array, cache: Cache | None, attention_mask: jax.Array
    ) -> tuple[jax.Array, Cache | None]:
        x = self.embedder.encode(last_tokens)
        x = x.astype(self.config.dtype)
        new_cache = None if cache is None else {}
        for i, block in enumerate(self.blocks):
            layer_name = f"layer_{i}"
            layer_cache = cache[layer_name] if cache else None
            layer_cache, x = block(x, positions, layer_cache, attention_mask)
            if cache is not None:
                new_cache[layer_name] = layer_cache  # pytype: disable=container-type-mismatch

        x = self.final_norm(x)
        logits = self.embedder.decode(x)

        if self.config.final_logit_softcap is not None:
            logits /= self.config.final_logit_softcap
            logits = jnp.tanh(logits) * self.config.final_logit_softcap

        return logits, new_cache

    def init_cache(self, batch_size: int, cache_size: int, dtype: Any = jnp.float32) -> Cache:
        return {
            f"layer_{i}": Attention.init_cache(cache_size, self.config.num_kv_heads, self.config.head_dim, batch_size, dtype)
            for i in range(self.config.num_layers)
        }


class ScanBlock(nn.Module):
    """One uniform layer as a scan body: (carry, per-layer input) -> (carry, output)."""

    config: TransformerConfig

    @nn.compact
    def __call__(self, x: jax.Array, positions: jax.Array) -> tuple[jax.Array, None]:
        mask = jnp.tril(jnp.ones((x.shape[0], x.shape[1], x.shape[1]), dtype=jnp.bool_))
        block = Block(
            num_heads=self.config.num_heads,
            num_kv_heads=self.config.num_kv_heads,
            embed_dim=self.config.embed_dim,
            head_dim=self.config.head_dim,
            hidden_dim=self.config.hidden_dim,
            attn_type=AttentionType.GLOBAL,
            query_pre_attn_scalar=self.config.head_dim**-0.5,
        )
        _, x = block(x, positions, None, mask)
        return x, None


class ScannedTransformer(nn.Module):
    """The layers' parameters stacked on a leading axis: one trace of the block."""

    config: TransformerConfig

    @nn.compact
    def __call__(self, tokens: jax.Array) -> jax.Array:
        positions = jnp.broadcast_to(jnp.arange(tokens.shape[1]), tokens.shape)
        x = Embedder(self.config.num_embed, self.config.embed_dim, name="embedder").encode(tokens)
        blocks = nn.scan(
            nn.remat(ScanBlock),
            variable_axes={"params": 0},
            split_rngs={"params": True},
            in_axes=nn.broadcast,
            length=self.config.num_layers,
        )
        x, _ = blocks(self.config, name="layers")(x, positions)
        x = RMSNorm(name="final_norm")(x)
        logits = x @ self.variables["params"]["embedder"]["input_embedding"].T
        return logits


def make_causal_attn_mask(input_mask: jax.Array) -> jax.Array:
    """Attention mask in batch mode: causal and padding-aware."""
    seq_len = input_mask.shape[-1]
    attn_mask = input_mask[..., None, :]
    causal_mask = jnp.tril(jnp.ones((seq_len, seq_len), dtype=jnp.bool_))
    # Prefixes can be attended by all tokens
    attn_mask *= causal_mask[None, ...]
    return attn_mask


def build_positions_from_mask(input_mask: jax.Array) -> jax.Array:
    """Computes the `positions` from the `input_mask`."""
    positions = jnp.cumsum(input_mask, axis=-1)
    # Subtract one for all positions from the first valid one as they are
    # 0-indexed
    return positions - (positions >= 1)


def greedy_decode(model: Transformer, params: Any, prompt: jax.Array, steps: int, cache_size: int) -> jax.Array:
    """Prefill the cache with the prompt, then decode ``steps`` tokens one at a time."""
    batch_size, prompt_len = prompt.shape
    input_mask = prompt != 0
    positions = build_positions_from_mask(input_mask)
    cache = model.init_cache(batch_size, cache_size)
    full_mask = jnp.zeros((batch_size, prompt_len, cache_size), dtype=jnp.bool_)
    full_mask = full_mask.at[:, :, :prompt_len].set(make_causal_attn_mask(input_mask))
    logits, cache = model.apply({"params": params}, prompt, positions, cache, full_mask)
    last = jnp.argmax(logits[:, -1], axis=-1)

    def step(carry, _):
        token, position, cache = carry
        mask = (jnp.arange(cache_size) <= position[:, None])[:, None, :]
        step_logits, cache = model.apply({"params": params}, token[:, None], position[:, None], cache, mask)
        next_token = jnp.argmax(step_logits[:, -1], axis=-1)
        return (next_token, position + 1, cache), next_token

    start = positions[:, -1] + 1
    _, generated = jax.lax.scan(step, (last, start, cache), None, length=steps)
    return jnp.concatenate([prompt, generated.T], axis=1)


def main() -> dict[str, Any]:
    config = TransformerConfig.tiny()
    model = Transformer(config)
    tokens = jnp.array([[3, 4, 5, 6], [7, 8, 9, 10]], dtype=jnp.int32)
    input_mask = tokens != 0
    positions = build_positions_from_mask(input_mask)
    attn_mask = make_causal_attn_mask(input_mask)
    params = model.init(jax.random.PRNGKey(0), tokens, positions, None, attn_mask)["params"]
    logits, _ = model.apply({"params": params}, tokens, positions, None, attn_mask)
    decoded = greedy_decode(model, params, tokens, steps=3, cache_size=8)
    scanned = ScannedTransformer(TransformerConfig.tiny())
    scanned_logits, _ = scanned.init_with_output(jax.random.PRNGKey(1), tokens)
    return {"logits": logits, "decoded": decoded, "scanned": scanned_logits}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
