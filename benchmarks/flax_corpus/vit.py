"""A Vision Transformer as "vit_jax/models_vit.py" writes it
(https://github.com/google-research/vision_transformer/blob/main/vit_jax/models_vit.py):
patch embedding by a strided ``nn.Conv``, a class token and learned position
embeddings made by ``self.param``, pre-norm encoder blocks with
``nn.MultiHeadDotProductAttention``, and ``nn.remat`` over the blocks.
Shrunk to tiny sizes (see mnist.py)."""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import optax
from flax import linen as nn

Array = Any
PRNGKey = Any
Shape = tuple[int, ...]
Dtype = Any


class IdentityLayer(nn.Module):
    """Identity layer, convenient for giving a name to an array."""

    @nn.compact
    def __call__(self, x):
        return x


class AddPositionEmbs(nn.Module):
    """Adds learned positional embeddings to the inputs.

    Attributes:
      posemb_init: positional embedding initializer.
    """

    posemb_init: Callable[[PRNGKey, Shape, Dtype], Array]
    param_dtype: Dtype = jnp.float32

    @nn.compact
    def __call__(self, inputs):
        """Applies the AddPositionEmbs module.

        Args:
          inputs: Inputs to the layer.

        Returns:
          Output tensor with shape `(bs, timesteps, in_dim)`.
        """
        # inputs.shape is (batch_size, seq_len, emb_dim).
        assert inputs.ndim == 3, "Number of dimensions should be 3, but it is: %d" % inputs.ndim
        pos_emb_shape = (1, inputs.shape[1], inputs.shape[2])
        pe = self.param("pos_embedding", self.posemb_init, pos_emb_shape, self.param_dtype)
        return inputs + pe


class MlpBlock(nn.Module):
    """Transformer MLP / feed-forward block."""

    mlp_dim: int
    dtype: Dtype = jnp.float32
    param_dtype: Dtype = jnp.float32
    out_dim: int | None = None
    dropout_rate: float = 0.1
    kernel_init: Callable[[PRNGKey, Shape, Dtype], Array] = nn.initializers.xavier_uniform()
    bias_init: Callable[[PRNGKey, Shape, Dtype], Array] = nn.initializers.normal(stddev=1e-6)

    @nn.compact
    def __call__(self, inputs, *, deterministic):
        """Applies Transformer MlpBlock module."""
        actual_out_dim = inputs.shape[-1] if self.out_dim is None else self.out_dim
        x = nn.Dense(
            features=self.mlp_dim,
            dtype=self.dtype,
            param_dtype=self.param_dtype,
            kernel_init=self.kernel_init,
            bias_init=self.bias_init,
        )(inputs)
        x = nn.gelu(x)
        x = nn.Dropout(rate=self.dropout_rate)(x, deterministic=deterministic)
        output = nn.Dense(
            features=actual_out_dim,
            dtype=self.dtype,
            param_dtype=self.param_dtype,
            kernel_init=self.kernel_init,
            bias_init=self.bias_init,
        )(x)
        output = nn.Dropout(rate=self.dropout_rate)(output, deterministic=deterministic)
        return output


class Encoder1DBlock(nn.Module):
    """Transformer encoder layer.

    Attributes:
      mlp_dim: dimension of the mlp on top of attention block.
      dtype: the dtype of the computation (default: float32).
      dropout_rate: dropout rate.
      attention_dropout_rate: dropout for attention heads.
      num_heads: Number of heads in nn.MultiHeadDotProductAttention
    """

    mlp_dim: int
    num_heads: int
    dtype: Dtype = jnp.float32
    dropout_rate: float = 0.1
    attention_dropout_rate: float = 0.1

    @nn.compact
    def __call__(self, inputs, deterministic):
        # Attention block.
        assert inputs.ndim == 3, f"Expected (batch, seq, hidden) got {inputs.shape}"
        x = nn.LayerNorm(dtype=self.dtype)(inputs)
        x = nn.MultiHeadDotProductAttention(
            dtype=self.dtype,
            kernel_init=nn.initializers.xavier_uniform(),
            broadcast_dropout=False,
            deterministic=deterministic,
            dropout_rate=self.attention_dropout_rate,
            num_heads=self.num_heads,
        )(x, x)
        x = nn.Dropout(rate=self.dropout_rate)(x, deterministic=deterministic)
        x = x + inputs

        # MLP block.
        y = nn.LayerNorm(dtype=self.dtype)(x)
        y = MlpBlock(mlp_dim=self.mlp_dim, dtype=self.dtype, dropout_rate=self.dropout_rate)(
            y, deterministic=deterministic
        )

        return x + y


class Encoder(nn.Module):
    """Transformer Model Encoder for sequence to sequence translation.

    Attributes:
      num_layers: number of layers
      mlp_dim: dimension of the mlp on top of attention block
      num_heads: Number of heads in nn.MultiHeadDotProductAttention
      dropout_rate: dropout rate.
      attention_dropout_rate: dropout rate in self attention.
    """

    num_layers: int
    mlp_dim: int
    num_heads: int
    dropout_rate: float = 0.1
    attention_dropout_rate: float = 0.1
    add_position_embedding: bool = True
    remat: bool = True

    @nn.compact
    def __call__(self, x, *, train):
        """Applies Transformer model on the inputs."""
        assert x.ndim == 3  # (batch, len, emb)

        if self.add_position_embedding:
            x = AddPositionEmbs(
                posemb_init=nn.initializers.normal(stddev=0.02), name="posembed_input"  # from BERT.
            )(x)
            x = nn.Dropout(rate=self.dropout_rate)(x, deterministic=not train)

        block = nn.remat(Encoder1DBlock, static_argnums=(2,)) if self.remat else Encoder1DBlock
        # Input Encoder
        for lyr in range(self.num_layers):
            x = block(
                mlp_dim=self.mlp_dim,
                dropout_rate=self.dropout_rate,
                attention_dropout_rate=self.attention_dropout_rate,
                name=f"encoderblock_{lyr}",
                num_heads=self.num_heads,
            )(x, not train)  # positional: nn.remat's static_argnums counts it
        encoded = nn.LayerNorm(name="encoder_norm")(x)

        return encoded


class VisionTransformer(nn.Module):
    """VisionTransformer."""

    num_classes: int
    patches: tuple[int, int]
    hidden_size: int
    num_layers: int
    mlp_dim: int
    num_heads: int
    dropout_rate: float = 0.0
    representation_size: int | None = None
    classifier: str = "token"
    head_bias_init: float = 0.0

    @nn.compact
    def __call__(self, inputs, *, train):
        x = inputs
        n, h, w, c = x.shape

        # We can merge s2d+emb into a single conv; it's the same.
        x = nn.Conv(
            features=self.hidden_size,
            kernel_size=self.patches,
            strides=self.patches,
            padding="VALID",
            name="embedding",
        )(x)

        # Here, x is a grid of embeddings.
        n, h, w, c = x.shape
        x = jnp.reshape(x, [n, h * w, c])

        # If we want to add a class token, add it here.
        if self.classifier in ["token", "token_unpooled"]:
            cls = self.param("cls", nn.initializers.zeros, (1, 1, c))
            cls = jnp.tile(cls, [n, 1, 1])
            x = jnp.concatenate([cls, x], axis=1)

        x = Encoder(
            num_layers=self.num_layers,
            mlp_dim=self.mlp_dim,
            num_heads=self.num_heads,
            dropout_rate=self.dropout_rate,
            name="Transformer",
        )(x, train=train)

        if self.classifier == "token":
            x = x[:, 0]
        elif self.classifier == "gap":
            x = jnp.mean(x, axis=list(range(1, x.ndim - 1)))  # (1,) or (1,2)
        elif self.classifier in ["unpooled", "token_unpooled"]:
            pass
        else:
            raise ValueError(f"Invalid classifier={self.classifier}")

        if self.representation_size is not None:
            x = nn.Dense(features=self.representation_size, name="pre_logits")(x)
            x = nn.tanh(x)
        else:
            x = IdentityLayer(name="pre_logits")(x)

        if self.num_classes:
            x = nn.Dense(
                features=self.num_classes,
                name="head",
                kernel_init=nn.initializers.zeros,
                bias_init=nn.initializers.constant(self.head_bias_init),
            )(x)
        return x


def sigmoid_xent(*, logits: jax.Array, labels: jax.Array) -> jax.Array:
    log_p = jax.nn.log_sigmoid(logits)
    log_not_p = jax.nn.log_sigmoid(-logits)
    nll = -jnp.sum(labels * log_p + (1.0 - labels) * log_not_p, axis=-1)
    return jnp.mean(nll)


def topk_correct(logits: jax.Array, labels: jax.Array, k: int = 1) -> jax.Array:
    top = jax.lax.top_k(logits, k)[1]
    hits = jnp.take_along_axis(labels, top, axis=-1)
    correct = jnp.any(hits > 0, axis=-1)
    return correct


def make_update_fn(model: nn.Module, tx: optax.GradientTransformation, label_smoothing: float = 0.1):
    """Returns the update step, as vit_jax's train.py builds it."""

    def update_fn(params, opt_state, batch, rng):
        rng, dropout_rng = jax.random.split(rng)

        def loss_fn(params, images, labels):
            logits = model.apply({"params": params}, images, train=True, rngs={"dropout": dropout_rng})
            smoothed = optax.smooth_labels(labels, label_smoothing)
            return jnp.mean(optax.softmax_cross_entropy(logits, smoothed))

        l, g = jax.value_and_grad(loss_fn)(params, batch["image"], batch["label"])
        updates, opt_state = tx.update(g, opt_state, params)
        params = optax.apply_updates(params, updates)
        return params, opt_state, l, rng

    return update_fn


def main() -> dict[str, Any]:
    rng = jax.random.PRNGKey(0)
    model = VisionTransformer(
        num_classes=5, patches=(4, 4), hidden_size=8, num_layers=2, mlp_dim=16, num_heads=2, dropout_rate=0.1
    )
    images = jnp.ones((2, 8, 8, 3))
    variables = model.init(rng, images, train=False)
    params = variables["params"]
    logits = model.apply({"params": params}, images, train=False)
    labels = jax.nn.one_hot(jnp.array([1, 3]), 5)
    loss = sigmoid_xent(logits=logits, labels=labels)
    correct = topk_correct(logits, labels, k=2)
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(1e-3, weight_decay=1e-4))
    opt_state = tx.init(params)
    update_fn = make_update_fn(model, tx)
    params, opt_state, train_loss, rng = update_fn(params, opt_state, {"image": images, "label": labels}, rng)
    gap = VisionTransformer(
        num_classes=5, patches=(4, 4), hidden_size=8, num_layers=1, mlp_dim=16, num_heads=2,
        classifier="gap", representation_size=8,
    )
    gap_logits, _ = gap.init_with_output(rng, images, train=False)
    return {"loss": loss, "correct": correct, "train_loss": train_loss, "gap": gap_logits}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
