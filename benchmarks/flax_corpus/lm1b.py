"""The LM1B/WMT decoder-only transformer of Flax's examples
("examples/lm1b/models.py", "temperature_sampler.py" and "train.py",
https://github.com/google/flax/tree/main/examples/lm1b): a
``struct.dataclass`` config with ``dtype`` fields, sinusoidal position
embeddings, ``nn.MultiHeadDotProductAttention`` with a decoding cache kept by
``self.variable``, the shared ``nn.Embed`` as the output layer (``attend``),
weighted losses, and temperature sampling in a ``lax.while_loop``.  Shrunk
to tiny sizes (see mnist.py)."""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import linen as nn
from flax import struct
from flax.training import train_state
from jax import lax


@struct.dataclass
class TransformerConfig:
    """Global hyperparameters used to minimize obnoxious kwarg plumbing."""

    vocab_size: int
    output_vocab_size: int
    logits_via_embedding: bool = False
    dtype: Any = jnp.float32
    emb_dim: int = 512
    num_heads: int = 8
    num_layers: int = 6
    qkv_dim: int = 512
    mlp_dim: int = 2048
    max_len: int = 2048
    dropout_rate: float = 0.1
    attention_dropout_rate: float = 0.1
    deterministic: bool = False
    decode: bool = False
    kernel_init: Callable = nn.initializers.xavier_uniform()
    bias_init: Callable = nn.initializers.normal(stddev=1e-6)
    posemb_init: Callable | None = None


def shift_right(x: jax.Array, axis: int = 1) -> jax.Array:
    """Shift the input to the right by padding and slicing on axis."""
    pad_widths = [(0, 0)] * len(x.shape)
    pad_widths[axis] = (1, 0)
    padded = jnp.pad(x, pad_widths, mode="constant", constant_values=x.dtype.type(0))
    return lax.dynamic_slice_in_dim(padded, 0, padded.shape[axis] - 1, axis)


def shift_inputs(x: jax.Array, segment_ids: jax.Array | None = None, axis: int = 1) -> jax.Array:
    """Shift inputs and replace EOS by 0 for packed inputs."""
    shifted = shift_right(x, axis=axis)
    # For packed targets, the first shifted token of a new sequence is made
    # 0, rather than being the EOS token for the last sequence.
    if segment_ids is not None:
        shifted *= segment_ids == shift_right(segment_ids, axis=axis)
    return shifted


def sinusoidal_init(max_len: int = 2048, min_scale: float = 1.0, max_scale: float = 10000.0):
    """1D Sinusoidal Position Embedding Initializer."""

    def init(key, shape, dtype=np.float32):
        """Sinusoidal init."""
        del key, dtype
        d_feature = shape[-1]
        pe = np.zeros((max_len, d_feature), dtype=np.float32)
        position = np.arange(0, max_len)[:, np.newaxis]
        scale_factor = -np.log(max_scale / min_scale) / (d_feature // 2 - 1)
        div_term = min_scale * np.exp(np.arange(0, d_feature // 2) * scale_factor)
        pe[:, : d_feature // 2] = np.sin(position * div_term)
        pe[:, d_feature // 2 : 2 * (d_feature // 2)] = np.cos(position * div_term)
        pe = pe[np.newaxis, :, :]  # [1, max_len, d_feature]
        return jnp.array(pe)

    return init


class AddPositionEmbs(nn.Module):
    """Adds (optionally learned) positional embeddings to the inputs."""

    config: TransformerConfig
    decode: bool = False

    @nn.compact
    def __call__(self, inputs: jax.Array, inputs_positions: jax.Array | None = None) -> jax.Array:
        config = self.config
        # inputs.shape is (batch_size, seq_len, emb_dim)
        assert inputs.ndim == 3, "Number of dimensions should be 3, but it is: %d" % inputs.ndim
        length = inputs.shape[1]
        pos_emb_shape = (1, config.max_len, inputs.shape[-1])
        if config.posemb_init is None:
            # Use a fixed (non-learned) sinusoidal position embedding.
            pos_embedding = sinusoidal_init(max_len=config.max_len)(None, pos_emb_shape, None)
        else:
            pos_embedding = self.param("pos_embedding", config.posemb_init, pos_emb_shape)
        pe = pos_embedding[:, :length, :]

        # We use a cache position index for tracking decoding position.
        if self.decode:
            is_initialized = self.has_variable("cache", "cache_index")
            cache_index = self.variable("cache", "cache_index", lambda: jnp.array(0, dtype=jnp.uint32))
            if is_initialized:
                i = cache_index.value
                cache_index.value = i + 1
                _, _, df = pos_embedding.shape
                pe = lax.dynamic_slice(pos_embedding, jnp.array((0, i, 0)), (1, 1, df))
        if inputs_positions is None:
            # normal unpacked case:
            return inputs + pe
        else:
            # for packed data we need to use known position indices:
            return inputs + jnp.take(pe[0], inputs_positions, axis=0)


class MlpBlock(nn.Module):
    """Transformer MLP / feed-forward block."""

    config: TransformerConfig
    out_dim: int | None = None

    @nn.compact
    def __call__(self, inputs: jax.Array) -> jax.Array:
        config = self.config
        actual_out_dim = inputs.shape[-1] if self.out_dim is None else self.out_dim
        x = nn.Dense(config.mlp_dim, dtype=config.dtype, kernel_init=config.kernel_init, bias_init=config.bias_init)(
            inputs
        )
        x = nn.relu(x)
        x = nn.Dropout(rate=config.dropout_rate)(x, deterministic=config.deterministic)
        output = nn.Dense(
            actual_out_dim, dtype=config.dtype, kernel_init=config.kernel_init, bias_init=config.bias_init
        )(x)
        output = nn.Dropout(rate=config.dropout_rate)(output, deterministic=config.deterministic)
        return output


class EncoderDecoder1DBlock(nn.Module):
    """Transformer encoder-decoder layer."""

    config: TransformerConfig

    @nn.compact
    def __call__(self, inputs: jax.Array, decoder_mask: jax.Array | None = None) -> jax.Array:
        config = self.config

        # Decoder block.
        assert inputs.ndim == 3
        x = nn.LayerNorm(dtype=config.dtype)(inputs)
        x = nn.MultiHeadDotProductAttention(
            num_heads=config.num_heads,
            dtype=config.dtype,
            qkv_features=config.qkv_dim,
            kernel_init=config.kernel_init,
            bias_init=config.bias_init,
            use_bias=False,
            broadcast_dropout=False,
            dropout_rate=config.attention_dropout_rate,
            deterministic=config.deterministic,
            decode=config.decode,
        )(x, mask=decoder_mask)
        x = nn.Dropout(rate=config.dropout_rate)(x, deterministic=config.deterministic)
        x = x + inputs

        # MLP block.
        z = nn.LayerNorm(dtype=config.dtype)(x)
        z = MlpBlock(config=config)(z)

        return x + z


class Decoder(nn.Module):
    """Transformer Model Decoder for sequence to sequence translation."""

    config: TransformerConfig
    shared_embedding: Any = None

    @nn.compact
    def __call__(
        self,
        inputs: jax.Array,
        inputs_positions: jax.Array | None = None,
        inputs_segmentation: jax.Array | None = None,
        decoder_mask: jax.Array | None = None,
    ) -> jax.Array:
        config = self.config
        assert inputs.ndim == 2  # (batch, len)

        # Target Embedding
        if self.shared_embedding is None:
            output_embed = nn.Embed(
                num_embeddings=config.output_vocab_size,
                features=config.emb_dim,
                embedding_init=nn.initializers.normal(stddev=1.0),
            )
        else:
            output_embed = self.shared_embedding

        y = inputs.astype("int32")
        if not config.decode:
            y = shift_inputs(y, segment_ids=inputs_segmentation)
        y = output_embed(y)
        y = AddPositionEmbs(config=config, decode=config.decode, name="posembed_output")(
            y, inputs_positions=inputs_positions
        )
        y = nn.Dropout(rate=config.dropout_rate)(y, deterministic=config.deterministic)

        y = y.astype(config.dtype)

        # Target-Input Decoder
        for lyr in range(config.num_layers):
            y = EncoderDecoder1DBlock(config=config, name=f"encoderdecoderblock_{lyr}")(y, decoder_mask=decoder_mask)
        y = nn.LayerNorm(dtype=config.dtype, name="encoderdecoder_norm")(y)

        # Decoded Logits
        if config.logits_via_embedding:
            # Use the transpose of embedding matrix for logit transform.
            logits = output_embed.attend(y.astype(jnp.float32))
            # Correctly normalize pre-softmax logits for this shared case.
            logits = logits / jnp.sqrt(y.shape[-1])
        else:
            logits = nn.Dense(
                config.output_vocab_size,
                dtype=config.dtype,
                kernel_init=config.kernel_init,
                bias_init=config.bias_init,
                name="logitdense",
            )(y)
        return logits


class TransformerLM(nn.Module):
    """Transformer pure decoder stack for language modelling."""

    config: TransformerConfig

    @nn.compact
    def __call__(
        self, inputs: jax.Array, inputs_positions: jax.Array | None = None, inputs_segmentation: jax.Array | None = None
    ) -> jax.Array:
        config = self.config

        # Make padding attention masks.
        if config.decode:
            # for fast autoregressive decoding we use no decoder mask
            decoder_mask = None
        else:
            decoder_mask = nn.combine_masks(
                nn.make_attention_mask(inputs > 0, inputs > 0, dtype=config.dtype),
                nn.make_causal_mask(inputs, dtype=config.dtype),
            )

        # Add segmentation block-diagonal attention masks if using segmented data.
        if inputs_segmentation is not None:
            decoder_mask = nn.combine_masks(
                decoder_mask,
                nn.make_attention_mask(inputs_segmentation, inputs_segmentation, jnp.equal, dtype=config.dtype),
            )

        logits = Decoder(config=config, shared_embedding=None, name="decoder")(
            inputs,
            inputs_positions=inputs_positions,
            inputs_segmentation=inputs_segmentation,
            decoder_mask=decoder_mask,
        )
        return logits.astype(self.config.dtype)


def compute_weighted_cross_entropy(
    logits: jax.Array, targets: jax.Array, weights: jax.Array | None = None, label_smoothing: float = 0.0
) -> tuple[jax.Array, jax.Array]:
    """Compute weighted cross entropy and entropy for log probs and targets."""
    vocab_size = logits.shape[-1]
    confidence = 1.0 - label_smoothing
    low_confidence = (1.0 - confidence) / (vocab_size - 1)
    normalizing_constant = -(
        confidence * jnp.log(confidence) + (vocab_size - 1) * low_confidence * jnp.log(low_confidence + 1e-20)
    )
    soft_targets = common_utils_onehot(targets, vocab_size, on_value=confidence, off_value=low_confidence)

    loss = -jnp.sum(soft_targets * nn.log_softmax(logits), axis=-1)
    loss = loss - normalizing_constant

    normalizing_factor = np.prod(targets.shape)
    if weights is not None:
        loss = loss * weights
        normalizing_factor = weights.sum()

    return loss.sum(), normalizing_factor


def common_utils_onehot(labels: jax.Array, num_classes: int, on_value: float = 1.0, off_value: float = 0.0) -> jax.Array:
    """flax.training.common_utils.onehot."""
    x = labels[..., None] == jnp.arange(num_classes).reshape((1,) * labels.ndim + (-1,))
    x = lax.select(x, jnp.full(x.shape, on_value), jnp.full(x.shape, off_value))
    return x.astype(jnp.float32)


def compute_weighted_accuracy(logits: jax.Array, targets: jax.Array, weights: jax.Array | None = None):
    """Compute weighted accuracy for log probs and targets."""
    loss = jnp.equal(jnp.argmax(logits, axis=-1), targets)
    normalizing_factor = np.prod(logits.shape[:-1])
    if weights is not None:
        loss = loss * weights
        normalizing_factor = weights.sum()

    return loss.sum(), normalizing_factor


def train_step(state, batch: dict[str, jax.Array], config: TransformerConfig, learning_rate_fn, dropout_rng):
    """Perform a single training step."""
    inputs = batch["inputs"]
    weights = jnp.where(inputs > 0, 1, 0).astype(jnp.float32)
    dropout_rng = jax.random.fold_in(dropout_rng, state.step)

    def loss_fn(params):
        """loss function used for training."""
        logits = TransformerLM(config).apply({"params": params}, inputs, rngs={"dropout": dropout_rng})
        loss, weight_sum = compute_weighted_cross_entropy(logits, inputs, weights)
        mean_loss = loss / weight_sum
        return mean_loss, logits

    step = state.step
    lr = learning_rate_fn(step)
    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
    (_, logits), grads = grad_fn(state.params)
    new_state = state.apply_gradients(grads=grads)
    loss, weight_sum = compute_weighted_cross_entropy(logits, inputs, weights)
    acc, _ = compute_weighted_accuracy(logits, inputs, weights)
    metrics = {"loss": loss, "accuracy": acc, "denominator": weight_sum, "learning_rate": lr}
    return new_state, metrics


# temperature_sampler.py
EOS_ID = 2


def temperature_sample(
    prompt_inputs: jax.Array,
    init_cache: Any,
    tokens_to_logits: Callable,
    prng_key: jax.Array,
    temperature: float = 1.0,
    topk: int = 20,
    eos_token: int = EOS_ID,
) -> jax.Array:
    """Temperature sampling for language model generation."""
    batch_size = prompt_inputs.shape[0]
    max_decode_len = prompt_inputs.shape[1]
    end_marker = jnp.array(eos_token)
    temperature = jnp.array(temperature)

    # Initialize sampling loop state.
    # initial loop PRNGKey
    rng0 = prng_key
    # loop position counter.
    i0 = jnp.array(-1)
    # per batch-item holding current token in loop.
    token0 = jnp.zeros((batch_size, 1), dtype=jnp.int32)
    # per batch-item state bit indicating if sentence has finished.
    ended0 = jnp.zeros((batch_size, 1), dtype=jnp.bool_)
    # (batch, length) array containing prefix prompt tokens for sampling loop
    # as well as the generated output of newly sampled tokens.
    sequences0 = prompt_inputs
    # Sampling loop state is stored in a simple tuple.
    sampling_loop_init_state = (i0, sequences0, init_cache, token0, ended0, rng0)

    def sampling_loop_cond_fn(state):
        """Sampling loop termination condition."""
        (i, _, _, _, ended, _) = state
        # Have we reached max decoding length?
        not_at_end = i < max_decode_len - 1
        # Have all sampled sequences reached an end marker?
        all_sequences_ended = jnp.all(ended)
        return not_at_end & (~all_sequences_ended)

    def sampling_loop_body_fn(state):
        """Sampling loop state update."""
        i, sequences, cache, cur_token, ended, rng = state
        # Split RNG for sampling.
        rng1, rng2 = jax.random.split(rng)
        # Call fast-decoder model on current tokens to get next-position logits.
        logits, new_cache = tokens_to_logits(cur_token, cache)
        # Sample next token from logits.
        if topk:
            # Get top-k logits and their indices, sample within these top-k tokens.
            topk_logits, topk_idxs = lax.top_k(logits, topk)
            topk_token = jnp.expand_dims(jax.random.categorical(rng1, topk_logits / temperature).astype(jnp.int32), axis=-1)
            # Return the original indices corresponding to the sampled top-k tokens.
            next_token = jnp.squeeze(jnp.take_along_axis(topk_idxs, topk_token, axis=-1), axis=-1)
        else:
            next_token = jax.random.categorical(rng1, logits / temperature).astype(jnp.int32)
        # Only use sampled tokens if we're past provided prefix tokens.
        out_of_prompt = sequences[:, i + 1] == 0
        next_token = next_token * out_of_prompt + sequences[:, i + 1] * ~out_of_prompt
        # If end-marker reached for batch item, only emit padding tokens.
        next_token_or_endpad = next_token[:, None] * ~ended
        ended |= next_token_or_endpad == end_marker
        # Add current sampled tokens to recorded sequences.
        new_sequences = lax.dynamic_update_slice(sequences, next_token_or_endpad, (0, i + 1))
        return (i + 1, new_sequences, new_cache, next_token_or_endpad, ended, rng2)

    # Run sampling loop and collect final state.
    final_state = lax.while_loop(sampling_loop_cond_fn, sampling_loop_body_fn, sampling_loop_init_state)

    # Pick part of the state corresponding to the sampled sequences.
    final_sequences = final_state[1]
    return final_sequences


def predict_step(inputs: jax.Array, params: Any, rngkey: jax.Array, eos_id: int, max_decode_len: int,
                 config: TransformerConfig, temperature: float, top_k: int) -> jax.Array:
    """Predict language model on a batch."""
    target_shape = (inputs.shape[0], max_decode_len) + inputs.shape[2:]
    initial_variables = TransformerLM(config).init(jax.random.PRNGKey(0), jnp.ones(target_shape, config.dtype))
    cache = initial_variables["cache"]

    def tokens_ids_to_logits(flat_ids, flat_cache):
        """Token slice to logits from decoder model."""
        # --> [batch * beam, 1, vocab]
        flat_logits, new_vars = TransformerLM(config).apply(
            {"params": params, "cache": flat_cache}, flat_ids, mutable=["cache"]
        )
        new_flat_cache = new_vars["cache"]
        # Remove singleton sequence-length dimension:
        # [batch, 1, vocab] --> [batch, vocab]
        flat_logits = flat_logits.squeeze(axis=1)
        return flat_logits, new_flat_cache

    # Using the above-defined single-step decoder function, run a
    # beam search over possible sequences given input encoding.
    seqs = temperature_sample(
        inputs, cache, tokens_ids_to_logits, rngkey, temperature=temperature, topk=top_k, eos_token=eos_id
    )

    return seqs


def main() -> dict[str, Any]:
    rng = jax.random.PRNGKey(0)
    config = TransformerConfig(
        vocab_size=32, output_vocab_size=32, emb_dim=16, num_heads=2, num_layers=2, qkv_dim=16, mlp_dim=32,
        max_len=16, dropout_rate=0.1, attention_dropout_rate=0.1,
    )
    eval_config = config.replace(deterministic=True)
    predict_config = config.replace(deterministic=True, decode=True)
    inputs = jnp.array([[5, 6, 7, 8, 0, 0], [9, 10, 11, 0, 0, 0]], dtype=jnp.int32)
    init_rng, dropout_rng, sample_rng = jax.random.split(rng, 3)
    initial_variables = jax.jit(TransformerLM(eval_config).init)(init_rng, jnp.ones((1, 16), jnp.float32))
    learning_rate_fn = optax.warmup_cosine_decay_schedule(0.0, 1e-3, 10, 100)
    tx = optax.adamw(learning_rate_fn, b1=0.9, b2=0.98, eps=1e-9, weight_decay=0.1)
    state = train_state.TrainState.create(apply_fn=TransformerLM(config).apply, params=initial_variables["params"], tx=tx)
    state, metrics = train_step(state, {"inputs": inputs}, config, learning_rate_fn, dropout_rng)
    prompt = jnp.zeros((2, 8), jnp.int32).at[:, 0].set(5)
    seqs = predict_step(prompt, state.params, sample_rng, EOS_ID, 8, predict_config, temperature=0.8, top_k=4)
    return {"metrics": metrics, "seqs": seqs}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
