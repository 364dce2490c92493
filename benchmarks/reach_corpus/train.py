"""A small classifier trained with jit, grad and vmap: bfloat16 compute with a
float32 master copy, per-example gradients, and an evaluation step."""

import functools

import jax
import jax.numpy as jnp
from jaxtypes import Array, bfloat16, float32, int32

Params = dict[str, Array[float32]]


def init_params(key: jax.Array, n_in: int, hidden: int, classes: int) -> Params:
    k1, k2 = jax.random.split(key)
    w1 = jax.random.normal(k1, (n_in, hidden), jnp.float32) / jnp.sqrt(n_in)
    w2 = jax.random.normal(k2, (hidden, classes), jnp.float32) / jnp.sqrt(hidden)
    b1 = jnp.zeros((hidden,), jnp.float32)
    b2 = jnp.zeros((classes,), jnp.float32)
    return {"w1": w1, "b1": b1, "w2": w2, "b2": b2}


def forward(params: Params, x: Array[bfloat16]) -> Array[float32]:
    w1 = params["w1"].astype(jnp.bfloat16)
    w2 = params["w2"].astype(jnp.bfloat16)
    h = jnp.dot(x, w1, preferred_element_type=jnp.float32) + params["b1"]
    h = jax.nn.relu(h)
    h16 = h.astype(jnp.bfloat16)
    logits = jnp.dot(h16, w2, preferred_element_type=jnp.float32) + params["b2"]
    return logits


def loss_fn(params: Params, x: Array[bfloat16], y: Array[int32]) -> Array[float32]:
    logits = forward(params, x)
    log_probs = jax.nn.log_softmax(logits)
    labels = jax.nn.one_hot(y, logits.shape[-1])
    per_example = -jnp.sum(labels * log_probs, axis=-1)
    return jnp.mean(per_example)


@jax.jit
def train_step(params: Params, x: Array[bfloat16], y: Array[int32]) -> tuple[Params, Array[float32]]:
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    new_params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
    return new_params, loss


@functools.partial(jax.jit, static_argnames="lr")
def sgd_step(params: Params, x: Array[bfloat16], y: Array[int32], lr: float) -> Params:
    grads = jax.grad(loss_fn)(params, x, y)
    gw1 = grads["w1"]
    norm = jnp.sqrt(jnp.sum(gw1 * gw1))
    scale = jnp.minimum(1.0, 1.0 / (norm + 1e-6))
    updated = {k: params[k] - lr * scale * grads[k] for k in params}
    return updated


def per_example_loss(params: Params, x: Array[bfloat16], y: Array[int32]) -> Array[float32]:
    logits = forward(params, x[None])
    log_probs = jax.nn.log_softmax(logits[0])
    nll = -log_probs[y]
    return nll


def per_example_grad_norms(params: Params, x: Array[bfloat16], y: Array[int32]) -> Array[float32]:
    grad_fn = jax.vmap(jax.grad(per_example_loss), in_axes=(None, 0, 0))
    grads = grad_fn(params, x, y)
    gw = grads["w1"]
    norms = jnp.sqrt(jnp.sum(gw * gw, axis=(1, 2)))
    return norms


@jax.jit
def evaluate(params: Params, x: Array[bfloat16], y: Array[int32]) -> tuple[Array[float32], Array[float32]]:
    logits = forward(params, x)
    predictions = jnp.argmax(logits, axis=-1)
    correct = (predictions == y).astype(jnp.float32)
    accuracy = jnp.mean(correct)
    confidence = jnp.max(jax.nn.softmax(logits), axis=-1).mean()
    return accuracy, confidence


def batched_predict(params: Params, xs: Array[bfloat16]) -> Array[float32]:
    predict = jax.vmap(forward, in_axes=(None, 0))
    logits = predict(params, xs)
    probs = jax.nn.softmax(logits, axis=-1)
    return probs


def main() -> dict[str, jax.Array]:
    key = jax.random.PRNGKey(7)
    k_params, k_x, k_y = jax.random.split(key, 3)
    params = init_params(k_params, 12, 16, 5)
    x = jax.random.normal(k_x, (8, 12), dtype=jnp.bfloat16)
    y = jax.random.randint(k_y, (8,), 0, 5)
    params, loss = train_step(params, x, y)
    params = sgd_step(params, x, y, lr=0.05)
    norms = per_example_grad_norms(params, x, y)
    accuracy, confidence = evaluate(params, x, y)
    probs = batched_predict(params, x.reshape(2, 4, 12))
    return {"loss": loss, "norms": norms, "accuracy": accuracy, "confidence": confidence,
            "probs": probs}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
