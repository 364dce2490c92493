"""The corpus's test suite: each module's ``main()`` runs, and a few dtypes
and values that the code decides hold (as a project's own tests would check
them)."""

import importlib

import jax
import jax.numpy as jnp
import pytest

import config
import linen_model
import ops

MODULES = ["ops", "attention", "linen_model", "nnx_model", "eqx_model", "optim", "train", "sampling"]


@pytest.mark.parametrize("name", MODULES)
def test_main_runs(name: str) -> None:
    module = importlib.import_module(name)
    result = module.main()
    assert jnp.isfinite(result)


def test_rms_norm_keeps_the_input_dtype() -> None:
    x = jnp.ones((2, 4), jnp.bfloat16)
    assert ops.rms_norm(x, jnp.zeros(4)).dtype == jnp.bfloat16


def test_bfloat16_model_gives_float32_logits() -> None:
    cfg = config.bfloat16_config()
    model, params = linen_model.init_model(jax.random.PRNGKey(0), cfg)
    logits = model.apply({"params": params}, jnp.zeros((1, 4), jnp.int32))
    assert logits.dtype == jnp.float32
    assert params["embed"]["embedding"].dtype == jnp.float32
