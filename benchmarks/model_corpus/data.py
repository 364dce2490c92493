"""An input pipeline: NumPy batches turned into device arrays, augmentation,
packing and masking, as Flax's and big_vision's examples write them (see
norms.py for the corpus as a whole)."""

from typing import Any, Iterator

import jax
import jax.numpy as jnp
import numpy as np
from jaxtypes import Array, float32, int32, uint8

Batch = dict[str, Any]


def numpy_batches(num_batches: int, batch_size: int, seed: int = 0) -> Iterator[dict[str, np.ndarray[Any, Any]]]:
    rs = np.random.RandomState(seed)
    for _ in range(num_batches):
        images = rs.randint(0, 256, size=(batch_size, 8, 8, 3)).astype(np.uint8)
        labels = rs.randint(0, 10, size=(batch_size,)).astype(np.int64)
        yield {"image": images, "label": labels}


def to_device(np_batch: dict[str, np.ndarray[Any, Any]]) -> Batch:
    images = jnp.asarray(np_batch["image"], dtype=jnp.uint8)
    labels = jnp.asarray(np_batch["label"], dtype=jnp.int32)
    return {"image": images, "label": labels}


def normalize_images(images: Array[uint8], mean: tuple[float, ...] = (0.485, 0.456, 0.406),
                     std: tuple[float, ...] = (0.229, 0.224, 0.225)) -> Array[float32]:
    x = images.astype(jnp.float32) / 255.0
    x = (x - jnp.array(mean, dtype=jnp.float32)) / jnp.array(std, dtype=jnp.float32)
    return x


def random_flip(rng: Array[Any], images: Array[float32]) -> Array[float32]:
    flip = jax.random.bernoulli(rng, 0.5, (images.shape[0], 1, 1, 1))
    flipped = jnp.flip(images, axis=2)
    return jnp.where(flip, flipped, images)


def random_crop(rng: Array[Any], image: Array[float32], size: int) -> Array[float32]:
    padded = jnp.pad(image, ((2, 2), (2, 2), (0, 0)), mode="reflect")
    offsets = jax.random.randint(rng, (2,), 0, 4)
    crop = jax.lax.dynamic_slice(padded, (offsets[0], offsets[1], 0), (size, size, image.shape[-1]))
    return crop


def mixup(rng: Array[Any], images: Array[float32], labels: Array[int32], num_classes: int,
          alpha: float = 0.2) -> tuple[Array[float32], Array[float32]]:
    lam = jax.random.beta(rng, alpha, alpha)
    one_hot = jax.nn.one_hot(labels, num_classes, dtype=images.dtype)
    mixed_images = lam * images + (1 - lam) * jnp.roll(images, 1, axis=0)
    mixed_labels = lam * one_hot + (1 - lam) * jnp.roll(one_hot, 1, axis=0)
    return mixed_images, mixed_labels


def pad_batch(batch: Batch, batch_size: int) -> Batch:
    def pad(x: Array[Any]) -> Array[Any]:
        padding = batch_size - x.shape[0]
        return jnp.concatenate([x, jnp.zeros((padding, *x.shape[1:]), x.dtype)], axis=0)
    mask = jnp.arange(batch_size) < batch["label"].shape[0]
    padded = jax.tree.map(pad, batch)
    padded["mask"] = mask
    return padded


def make_segment_ids(tokens: Array[int32], eos_id: int = 1) -> tuple[Array[int32], Array[int32]]:
    is_eos = tokens == eos_id
    segment_ids = jnp.cumsum(is_eos, axis=-1) - is_eos + 1
    positions = jnp.arange(tokens.shape[-1])[None, :]
    starts = jnp.where(is_eos, positions + 1, 0)
    segment_starts = jax.lax.cummax(starts, axis=1)
    segment_positions = positions - segment_starts
    return segment_ids.astype(jnp.int32), segment_positions.astype(jnp.int32)


def shift_right(x: Array[int32], axis: int = 1) -> Array[int32]:
    pad_widths = [(0, 0)] * len(x.shape)
    pad_widths[axis] = (1, 0)
    padded = jnp.pad(x, pad_widths, mode="constant", constant_values=x.dtype.type(0))
    return jax.lax.dynamic_slice_in_dim(padded, 0, padded.shape[axis] - 1, axis)


def shard(batch: Batch, num_devices: int) -> Batch:
    return jax.tree.map(lambda x: x.reshape((num_devices, -1) + x.shape[1:]), batch)


def main() -> dict[str, Any]:
    rng = jax.random.PRNGKey(6)
    np_batch = next(numpy_batches(1, 4))
    batch = to_device(np_batch)
    images = normalize_images(batch["image"])
    rng, flip_rng, crop_rng, mix_rng = jax.random.split(rng, 4)
    images = random_flip(flip_rng, images)
    crop_rngs = jax.random.split(crop_rng, images.shape[0])
    cropped = jax.vmap(random_crop, in_axes=(0, 0, None))(crop_rngs, images, 8)
    mixed, soft_labels = mixup(mix_rng, cropped, batch["label"], 10)
    padded = pad_batch({"image": mixed, "label": batch["label"]}, 6)
    tokens = jnp.asarray(np.array([[5, 6, 1, 7, 8, 1, 0, 0]] * 2), dtype=jnp.int32)
    segment_ids, segment_positions = make_segment_ids(tokens)
    inputs = shift_right(tokens)
    weights = jnp.where(tokens > 0, 1.0, 0.0).astype(jnp.float32)
    sharded = shard(padded, 1)
    mean_pixel = jnp.mean(images, axis=(0, 1, 2))
    return {"mixed": mixed, "soft": soft_labels, "seg": segment_ids, "pos": segment_positions,
            "inputs": inputs, "weights": weights, "sharded": sharded, "mean": mean_pixel}


if __name__ == "__main__":
    print(jax.tree.map(jnp.shape, jax.jit(main)()))
