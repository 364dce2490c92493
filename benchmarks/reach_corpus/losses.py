"""Classification and regression losses, with the metrics a training loop logs."""

import jax
import jax.numpy as jnp
from jaxtypes import Array, bfloat16, bool_, float32, int32


def cross_entropy(logits: Array[float32], labels: Array[int32]) -> Array[float32]:
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    picked = jnp.take_along_axis(log_probs, labels[..., None], axis=-1)
    nll = -picked[..., 0]
    loss = jnp.mean(nll)
    return loss


def cross_entropy_bf16(logits: Array[bfloat16], labels: Array[int32]) -> Array[float32]:
    logits32 = logits.astype(jnp.float32)
    lse = jax.nn.logsumexp(logits32, axis=-1)
    one_hot = jax.nn.one_hot(labels, logits.shape[-1])
    correct = jnp.sum(one_hot * logits32, axis=-1)
    per_token = lse - correct
    return per_token.mean()


def smoothed_cross_entropy(logits: Array[float32], labels: Array[int32],
                           smoothing: float) -> Array[float32]:
    classes = logits.shape[-1]
    targets = jax.nn.one_hot(labels, classes, dtype=jnp.float32)
    soft = targets * (1.0 - smoothing) + smoothing / classes
    log_probs = jax.nn.log_softmax(logits)
    loss = -jnp.sum(soft * log_probs, axis=-1)
    return jnp.mean(loss)


def masked_mean(values: Array[float32], mask: Array[bool_]) -> Array[float32]:
    weights = mask.astype(jnp.float32)
    total = jnp.sum(values * weights)
    count = jnp.maximum(jnp.sum(weights), 1.0)
    return total / count


def mse(pred: Array[float32], target: Array[float32]) -> Array[float32]:
    err = pred - target
    sq = err ** 2
    loss = jnp.mean(sq)
    return loss


def huber(pred: Array[float32], target: Array[float32], delta: float = 1.0) -> Array[float32]:
    abs_err = jnp.abs(pred - target)
    quadratic = jnp.minimum(abs_err, delta)
    linear = abs_err - quadratic
    loss = 0.5 * quadratic ** 2 + delta * linear
    return jnp.mean(loss)


def accuracy(logits: Array[float32], labels: Array[int32]) -> Array[float32]:
    predicted = jnp.argmax(logits, axis=-1)
    hits = predicted == labels
    acc = jnp.mean(hits.astype(jnp.float32))
    return acc


def sigmoid_bce(logits: Array[float32], labels: Array[float32]) -> Array[float32]:
    log_p = jax.nn.log_sigmoid(logits)
    log_not_p = jax.nn.log_sigmoid(-logits)
    loss = -(labels * log_p + (1.0 - labels) * log_not_p)
    return jnp.mean(loss)


def main() -> dict[str, jax.Array]:
    key = jax.random.PRNGKey(2)
    k1, k2, k3 = jax.random.split(key, 3)
    logits = jax.random.normal(k1, (4, 10), jnp.float32)
    labels = jax.random.randint(k2, (4,), 0, 10, dtype=jnp.int32)
    ce = cross_entropy(logits, labels)
    ce16 = cross_entropy_bf16(logits.astype(jnp.bfloat16), labels)
    smooth = smoothed_cross_entropy(logits, labels, 0.1)
    mask = labels > 2
    masked = masked_mean(logits[:, 0], mask)
    target = jax.random.uniform(k3, (4, 10), jnp.float32)
    sq = mse(logits, target)
    hub = huber(logits, target)
    acc = accuracy(logits, labels)
    bce = sigmoid_bce(logits, target)
    ce_grad = jax.grad(cross_entropy)(logits, labels)
    return {"ce": ce, "ce16": ce16, "smooth": smooth, "masked": masked, "mse": sq,
            "huber": hub, "acc": acc, "bce": bce, "ce_grad": ce_grad}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
