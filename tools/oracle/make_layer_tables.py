"""Regenerate tools/data/layer_dtypes.json: the dtype each Flax and Equinox
layer returns, as the pinned flax, equinox and JAX compute it, the oracle of
tests/test_layer_rules.py.

Run by hand, with the test extra installed (a few minutes)::

    .venv/bin/python -m tools.oracle.make_layer_tables
    .venv/bin/python -m tools.oracle.make_layer_tables --only flax.linen.Dense   # re-probe some, merged

Each layer (``LAYERS``) is built and called inside ``jax.eval_shape`` on an
abstract input of one lattice node (``tools/oracle/lattice_facts.py``), for
JAX's default configuration (``standard-x32``) and x64 on (``standard-x64``),
and under strict promotion (``strict-x32``, ``strict-x64``: the layers compute
with JAX's operators, which refuse implicit promotions there), and the
output's dtype is recorded as a node name (or the class of the exception
raised).  What is probed:

* every strong node as the input with the layer's defaults but
  ``param_dtype`` (Flax) or ``dtype`` (Equinox, its parameters' dtype) set to
  each of ``PARAM_DTYPES``, and also left out (``default``);
* Flax's computation ``dtype`` set to each of ``DTYPES`` for the inputs of
  ``DTYPE_INPUTS``, with the default and with a bfloat16 ``param_dtype``.

Probe keys: ``input|dtype|param_dtype`` with ``-`` for an argument left out.
A layer that takes token ids (``Embed``'s call) is probed on the integer
nodes only.  With x64 off the 64-bit nodes are not probed as inputs (JAX
makes no such array), but are passed as dtype arguments, which JAX
canonicalizes.

This script deliberately does not import jaxtypes: the data must come from
flax, equinox and JAX alone.
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import equinox as eqx
import flax
import jax
import jax.numpy as jnp
import numpy as np
from flax import linen, nnx

from tools.oracle.lattice_facts import ALL_INTS, BIT64, STRONG_NODES
from tools.oracle.provenance import provenance

DATA = Path(__file__).resolve().parent.parent / "data"
OUT = DATA / "layer_dtypes.json"
# (label, promotion, x64)
CONFIGS = (
    ("standard-x32", "standard", False),
    ("standard-x64", "standard", True),
    ("strict-x32", "strict", False),
    ("strict-x64", "strict", True),
)
PARAM_DTYPES = ("float32", "bfloat16", "float16", "float64")
DTYPES = ("bfloat16", "float16", "float32", "float64", "float8_e4m3fn", "complex64", "int32")
DTYPE_INPUTS = (
    "bool",
    "int8",
    "int32",
    "uint8",
    "bfloat16",
    "float16",
    "float32",
    "float64",
    "complex64",
    "float8_e4m3fn",
)
LEFT_OUT = "-"

# A layer's probe: its arguments as (input, dtype, param_dtype), each a dtype
# name or None (left out), and what it returns.
Build = Callable[[Any, dict[str, Any]], Any]


@dataclass(frozen=True)
class Layer:
    """One layer as code calls it: ``run(x, kwargs)`` builds it with the
    dtype keyword arguments ``kwargs`` and applies it to ``x``."""

    run: Build
    shape: tuple[int, ...] = (2, 4)
    # Flax layers have a computation dtype and a param_dtype; Equinox's
    # layers one dtype, their parameters'.
    computation_dtype: bool = True
    param_keyword: str = "param_dtype"
    ids: bool = False  # the input is token ids


def _key() -> Any:
    return jax.random.key(0)


def _linen(
    module: Callable[..., Any],
    *,
    method: str | None = None,
    mutable: Any = False,
    rngs: bool = False,
    init_input: Callable[[Any], Any] | None = None,
) -> Build:
    def run(x: Any, kwargs: dict[str, Any]) -> Any:
        m = module(**kwargs)
        first = x if init_input is None else init_input(x)
        variables = m.init({"params": _key(), "dropout": _key()}, first)
        extra: dict[str, Any] = {"rngs": {"dropout": _key()}} if rngs else {}
        out = m.apply(variables, x, method=method, mutable=mutable, **extra)
        return out[0] if mutable else out

    return run


# How the oracle builds each NNX layer it probes (given dtype=, param_dtype=
# and rngs=), also what tests/test_layer_stubs.py builds to read their parameters.
NNX_MODULES: Final[dict[str, Callable[..., Any]]] = {
    "flax.nnx.Linear": lambda **k: nnx.Linear(4, 3, **k),
    "flax.nnx.LinearGeneral": lambda **k: nnx.LinearGeneral(4, (2, 3), **k),
    "flax.nnx.Einsum": lambda **k: nnx.Einsum("bi,ij->bj", (4, 3), **k),
    "flax.nnx.Conv": lambda **k: nnx.Conv(4, 3, (2,), **k),
    "flax.nnx.ConvTranspose": lambda **k: nnx.ConvTranspose(4, 3, (2,), **k),
    "flax.nnx.Embed": lambda **k: nnx.Embed(5, 4, **k),
    "flax.nnx.LayerNorm": lambda **k: nnx.LayerNorm(4, **k),
    "flax.nnx.RMSNorm": lambda **k: nnx.RMSNorm(4, **k),
    "flax.nnx.GroupNorm": lambda **k: nnx.GroupNorm(4, num_groups=2, **k),
    "flax.nnx.BatchNorm": lambda **k: nnx.BatchNorm(4, use_running_average=False, **k),
    "flax.nnx.MultiHeadAttention": lambda **k: nnx.MultiHeadAttention(num_heads=1, in_features=4, decode=False, **k),
}


def _nnx(module: Callable[..., Any], *, method: str | None = None) -> Build:
    def run(x: Any, kwargs: dict[str, Any]) -> Any:
        m = module(**kwargs, rngs=nnx.Rngs(0))
        return getattr(m, method)(x) if method else m(x)

    return run


def _eqx(module: Callable[..., Any], *, call: Callable[[Any, Any], Any] | None = None) -> Build:
    def run(x: Any, kwargs: dict[str, Any]) -> Any:
        m = module(**kwargs, key=_key())
        return call(m, x) if call else m(x)

    return run


def _tokens(x: Any) -> Any:
    return jnp.zeros(x.shape, jnp.int32)


def _linen_promote(x: Any, kwargs: dict[str, Any]) -> Any:
    # Flax's own helper, on an input and a parameter of param_dtype.
    param = jnp.zeros((4,), kwargs.get("param_dtype", jnp.float32))
    return linen.dtypes.promote_dtype(x, param, dtype=kwargs.get("dtype"))


def _nnx_promote(x: Any, kwargs: dict[str, Any]) -> Any:
    param = jnp.zeros((4,), kwargs.get("param_dtype", jnp.float32))
    return nnx.nn.dtypes.promote_dtype((x, param), dtype=kwargs.get("dtype"))


LAYERS: dict[str, Layer] = {
    # flax.linen
    "flax.linen.Dense": Layer(_linen(lambda **k: linen.Dense(3, **k))),
    "flax.linen.DenseGeneral": Layer(_linen(lambda **k: linen.DenseGeneral((2, 3), **k))),
    "flax.linen.Einsum": Layer(_linen(lambda **k: linen.Einsum((4, 3), "bi,ij->bj", **k))),
    "flax.linen.Conv": Layer(_linen(lambda **k: linen.Conv(3, (2,), **k)), shape=(1, 5, 4)),
    "flax.linen.ConvTranspose": Layer(_linen(lambda **k: linen.ConvTranspose(3, (2,), **k)), shape=(1, 5, 4)),
    "flax.linen.Embed": Layer(_linen(lambda **k: linen.Embed(5, 4, **k)), ids=True),
    "flax.linen.Embed.attend": Layer(_linen(lambda **k: linen.Embed(5, 4, **k), method="attend", init_input=_tokens)),
    "flax.linen.LayerNorm": Layer(_linen(lambda **k: linen.LayerNorm(**k))),
    "flax.linen.RMSNorm": Layer(_linen(lambda **k: linen.RMSNorm(**k))),
    "flax.linen.GroupNorm": Layer(_linen(lambda **k: linen.GroupNorm(num_groups=2, **k))),
    "flax.linen.BatchNorm": Layer(
        _linen(lambda **k: linen.BatchNorm(use_running_average=False, **k), mutable=["batch_stats"])
    ),
    "flax.linen.Dropout": Layer(
        _linen(lambda **k: linen.Dropout(0.5, deterministic=False, **k), rngs=True),
        computation_dtype=False,
        param_keyword="",
    ),
    "flax.linen.MultiHeadDotProductAttention": Layer(
        _linen(lambda **k: linen.MultiHeadDotProductAttention(num_heads=1, **k)), shape=(1, 2, 4)
    ),
    "flax.linen.dtypes.promote_dtype": Layer(_linen_promote),
    # Flax's pooling functions (flax.linen.pooling, re-exported by flax.linen and flax.nnx)
    **{
        f"flax.linen.pooling.{name}": Layer(
            lambda x, kwargs, name=name: getattr(linen.pooling, name)(x, (2,), strides=(2,)),
            shape=(1, 4, 2),
            computation_dtype=False,
            param_keyword="",
        )
        for name in ("avg_pool", "max_pool", "min_pool")
    },
    # flax.nnx
    "flax.nnx.Linear": Layer(_nnx(NNX_MODULES["flax.nnx.Linear"])),
    "flax.nnx.LinearGeneral": Layer(_nnx(NNX_MODULES["flax.nnx.LinearGeneral"])),
    "flax.nnx.Einsum": Layer(_nnx(NNX_MODULES["flax.nnx.Einsum"])),
    "flax.nnx.Conv": Layer(_nnx(NNX_MODULES["flax.nnx.Conv"]), shape=(1, 5, 4)),
    "flax.nnx.ConvTranspose": Layer(_nnx(NNX_MODULES["flax.nnx.ConvTranspose"]), shape=(1, 5, 4)),
    "flax.nnx.Embed": Layer(_nnx(NNX_MODULES["flax.nnx.Embed"]), ids=True),
    "flax.nnx.Embed.attend": Layer(_nnx(NNX_MODULES["flax.nnx.Embed"], method="attend")),
    "flax.nnx.LayerNorm": Layer(_nnx(NNX_MODULES["flax.nnx.LayerNorm"])),
    "flax.nnx.RMSNorm": Layer(_nnx(NNX_MODULES["flax.nnx.RMSNorm"])),
    "flax.nnx.GroupNorm": Layer(_nnx(NNX_MODULES["flax.nnx.GroupNorm"])),
    "flax.nnx.BatchNorm": Layer(_nnx(NNX_MODULES["flax.nnx.BatchNorm"])),
    "flax.nnx.Dropout": Layer(
        _nnx(lambda **k: nnx.Dropout(0.5, deterministic=False, **k)), computation_dtype=False, param_keyword=""
    ),
    "flax.nnx.MultiHeadAttention": Layer(_nnx(NNX_MODULES["flax.nnx.MultiHeadAttention"]), shape=(1, 2, 4)),
    "flax.nnx.nn.dtypes.promote_dtype": Layer(_nnx_promote),
    # equinox: one dtype, its parameters'
    "equinox.nn.Linear": Layer(
        _eqx(lambda **k: eqx.nn.Linear(4, 3, **k)), shape=(4,), computation_dtype=False, param_keyword="dtype"
    ),
    "equinox.nn.Conv1d": Layer(
        _eqx(lambda **k: eqx.nn.Conv1d(4, 3, 2, **k)), shape=(4, 5), computation_dtype=False, param_keyword="dtype"
    ),
    "equinox.nn.ConvTranspose1d": Layer(
        _eqx(lambda **k: eqx.nn.ConvTranspose1d(4, 3, 2, **k)),
        shape=(4, 5),
        computation_dtype=False,
        param_keyword="dtype",
    ),
    **{
        f"equinox.nn.{conv}{n}d": Layer(
            _eqx(lambda conv=conv, n=n, **k: getattr(eqx.nn, f"{conv}{n}d")(4, 3, 2, **k)),
            shape=(4, *(5,) * n),
            computation_dtype=False,
            param_keyword="dtype",
        )
        for conv in ("Conv", "ConvTranspose")
        for n in (2, 3)
    },
    "equinox.nn.Embedding": Layer(
        _eqx(lambda **k: eqx.nn.Embedding(5, 4, **k)),
        shape=(),
        computation_dtype=False,
        param_keyword="dtype",
        ids=True,
    ),
    "equinox.nn.LayerNorm": Layer(
        _eqx(lambda key, **k: eqx.nn.LayerNorm(4, **k)), shape=(4,), computation_dtype=False, param_keyword="dtype"
    ),
    "equinox.nn.RMSNorm": Layer(
        _eqx(lambda key, **k: eqx.nn.RMSNorm(4, **k)), shape=(4,), computation_dtype=False, param_keyword="dtype"
    ),
    "equinox.nn.GroupNorm": Layer(
        _eqx(lambda key, **k: eqx.nn.GroupNorm(2, 4, **k)), shape=(4,), computation_dtype=False, param_keyword="dtype"
    ),
    "equinox.nn.Dropout": Layer(
        _eqx(lambda key, **k: eqx.nn.Dropout(0.5, **k), call=lambda m, x: m(x, key=_key())),
        shape=(4,),
        computation_dtype=False,
        param_keyword="",
    ),
    "equinox.nn.MultiheadAttention": Layer(
        _eqx(lambda **k: eqx.nn.MultiheadAttention(1, 4, **k), call=lambda m, x: m(x, x, x)),
        shape=(2, 4),
        computation_dtype=False,
        param_keyword="dtype",
    ),
    "equinox.nn.MLP": Layer(
        _eqx(lambda **k: eqx.nn.MLP(4, 3, 8, 1, **k)), shape=(4,), computation_dtype=False, param_keyword="dtype"
    ),
    # Equinox's pooling layers: no parameters, no dtype
    **{
        f"equinox.nn.{kind}Pool{n}d": Layer(
            _eqx(lambda key, n=n, kind=kind, **k: getattr(eqx.nn, f"{kind}Pool{n}d")(2, 2, **k)),
            shape=(2, *(4,) * n),
            computation_dtype=False,
            param_keyword="",
        )
        for kind in ("Max", "Avg")
        for n in (1, 2, 3)
    },
}


def cell_of(out: Any) -> str:
    """An output's dtype as a node name; several outputs joined by ','."""
    leaves = jax.tree_util.tree_leaves(out)
    names = []
    for leaf in leaves:
        name = str(np.dtype(leaf.dtype)) if not jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key) else "key"
        names.append("bool" if name == "bool" else name)
    distinct = list(dict.fromkeys(names))
    return ",".join(distinct)


def probe_keys(layer: Layer, x64: bool) -> list[tuple[str, str | None, str | None]]:
    """(input, dtype, param_dtype) of every probe of ``layer``."""
    inputs = [n for n in STRONG_NODES if (x64 or n not in BIT64) and (not layer.ids or n in ALL_INTS)]
    params: tuple[str | None, ...] = (None, *PARAM_DTYPES) if layer.param_keyword else (None,)
    keys: list[tuple[str, str | None, str | None]] = [(n, None, p) for n in inputs for p in params]
    if layer.computation_dtype:
        sample = [n for n in DTYPE_INPUTS if n in inputs] or inputs[:2]
        keys += [(n, d, p) for n in sample for d in DTYPES for p in (None, "bfloat16")]
    return keys


def key_text(probe: tuple[str, str | None, str | None]) -> str:
    return "|".join(part or LEFT_OUT for part in probe)


def probe(
    name: str, x64: bool, keys: list[tuple[str, str | None, str | None]] | None = None, promotion: str = "standard"
) -> dict[str, str]:
    """The recorded cell of each probe of layer ``name`` (``keys``: these only)."""
    layer = LAYERS[name]
    cells: dict[str, str] = {}
    with jax.numpy_dtype_promotion(promotion), jax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key in probe_keys(layer, x64) if keys is None else keys:
            node, dtype, param = key
            kwargs: dict[str, Any] = {}
            if dtype is not None:
                kwargs["dtype"] = jnp.dtype(dtype)
            if param is not None:
                kwargs[layer.param_keyword] = jnp.dtype(param)
            x = jax.ShapeDtypeStruct(layer.shape, jnp.dtype(node))
            try:
                out = jax.eval_shape(lambda v, kw=kwargs: layer.run(v, kw), x)
                cells[key_text(key)] = cell_of(out)
            except Exception as e:  # noqa: BLE001 - the class is the recorded answer
                cells[key_text(key)] = f"error:{type(e).__name__}"
    return cells


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=sorted(LAYERS), help="re-probe these layers only")
    args = parser.parse_args(argv)
    names = args.only or list(LAYERS)
    old = json.loads(OUT.read_text()) if args.only and OUT.exists() else None
    configs: dict[str, Any] = {}
    for label, promotion, x64 in CONFIGS:
        results = dict(old["configs"].get(label, {}).get("results", {})) if old else {}
        for name in names:
            results[name] = probe(name, x64, promotion=promotion)
            print(label, name, len(results[name]), flush=True)
        configs[label] = {
            "promotion": promotion,
            "x64": x64,
            "results": {n: results[n] for n in LAYERS if n in results},
        }
    data = {
        **provenance("tools/oracle/make_layer_tables.py"),
        "flax_version": flax.__version__,
        "equinox_version": eqx.__version__,
        "keys": "input|dtype|param_dtype, '-' for an argument left out",
        "configs": configs,
    }
    write(data)


def write(data: dict[str, Any]) -> None:
    """The file: one line per layer and configuration (its cells), so that a
    re-probe changes the lines of what changed."""
    head = {k: v for k, v in data.items() if k != "configs"}
    lines = ["{", *(f" {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()), ' "configs": {']
    for i, (label, conf) in enumerate(data["configs"].items()):
        lines.append(
            f'  {json.dumps(label)}: {{"promotion": {json.dumps(conf["promotion"])}, '
            f'"x64": {json.dumps(conf["x64"])}, "results": {{'
        )
        lines.append(",\n".join(f"   {json.dumps(n)}: {json.dumps(c)}" for n, c in conf["results"].items()))
        lines.append("  }}" + ("," if i < len(data["configs"]) - 1 else ""))
    lines += [" }", "}"]
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
