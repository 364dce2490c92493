"""Pytrees: NamedTuples, registered dataclasses, tree_map over nested dicts."""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jax import tree_util


class Gaussian(NamedTuple):
    mean: jax.Array
    log_std: jax.Array

    def sample(self, key: jax.Array) -> jax.Array:
        eps = jax.random.normal(key, self.mean.shape)
        return self.mean + jnp.exp(self.log_std) * eps

    def log_prob(self, x: jax.Array) -> jax.Array:
        z = (x - self.mean) / jnp.exp(self.log_std)
        return jnp.sum(-0.5 * z ** 2 - self.log_std - 0.5 * jnp.log(2 * jnp.pi))


@tree_util.register_pytree_node_class
@dataclasses.dataclass
class Linear:
    weight: jax.Array
    bias: jax.Array

    def __call__(self, x: jax.Array) -> jax.Array:
        return x @ self.weight + self.bias

    def tree_flatten(self) -> tuple[tuple[jax.Array, jax.Array], None]:
        return (self.weight, self.bias), None

    @classmethod
    def tree_unflatten(cls, aux: None, children: tuple[jax.Array, jax.Array]) -> Linear:
        return cls(*children)


@dataclasses.dataclass(frozen=True)
class Config:
    hidden: int = 32
    layers: int = 2


def make_layers(key: jax.Array, cfg: Config, d_in: int) -> list[Linear]:
    layers = []
    for k in jax.random.split(key, cfg.layers):
        layers.append(Linear(jax.random.normal(k, (d_in, cfg.hidden)) * 0.1, jnp.zeros(cfg.hidden)))
        d_in = cfg.hidden
    return layers


def apply_layers(layers: list[Linear], x: jax.Array) -> jax.Array:
    for layer in layers:
        x = jax.nn.relu(layer(x))
    return x


def tree_add(a: Any, b: Any) -> Any:
    return jax.tree_util.tree_map(jnp.add, a, b)


def tree_scale(tree: Any, s: float) -> Any:
    return jax.tree_util.tree_map(lambda x: x * s, tree)


def tree_dot(a: Any, b: Any) -> jax.Array:
    products = jax.tree_util.tree_map(lambda x, y: jnp.vdot(x, y), a, b)
    return sum(jax.tree_util.tree_leaves(products), jnp.zeros(()))


def tree_norm(tree: Any) -> jax.Array:
    return jnp.sqrt(tree_dot(tree, tree))


def flatten_params(params: dict[str, Any]) -> tuple[jax.Array, Any]:
    leaves, treedef = jax.tree_util.tree_flatten(params)
    flat = jnp.concatenate([jnp.ravel(leaf) for leaf in leaves])
    return flat, treedef


def unflatten_params(flat: jax.Array, like: dict[str, Any]) -> dict[str, Any]:
    leaves, treedef = jax.tree_util.tree_flatten(like)
    out = []
    offset = 0
    for leaf in leaves:
        size = leaf.size
        out.append(flat[offset:offset + size].reshape(leaf.shape))
        offset += size
    return jax.tree_util.tree_unflatten(treedef, out)


def kl_divergence(p: Gaussian, q: Gaussian) -> jax.Array:
    var_p, var_q = jnp.exp(2 * p.log_std), jnp.exp(2 * q.log_std)
    return jnp.sum(q.log_std - p.log_std + (var_p + (p.mean - q.mean) ** 2) / (2 * var_q) - 0.5)


def nested_state(key: jax.Array) -> dict[str, Any]:
    k1, k2 = jax.random.split(key)
    return {
        "encoder": {"w": jax.random.normal(k1, (4, 4)), "b": jnp.zeros(4)},
        "decoder": [jax.random.normal(k2, (4, 2)), jnp.zeros(2)],
        "step": jnp.array(0),
    }


def structure_matches(a: Any, b: Any) -> bool:
    return jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b)


def average_trees(trees: list[Any]) -> Any:
    return jax.tree_util.tree_map(lambda *xs: jnp.mean(jnp.stack(xs), axis=0), *trees)
