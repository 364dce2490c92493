"""jaxtypes.layer_rules (the dtype each Flax and Equinox layer returns) against what
the layers returned when run, committed in tools/data/layer_dtypes.json by
tools/oracle/make_layer_tables.py; and a sample of them run again here, so
that the committed answers are those of the installed flax and equinox."""

from __future__ import annotations

import json
import sys
import warnings
from functools import cache
from typing import Any

import pytest

import tools
from jaxtypes import lattice, layer_rules

DATA = tools.DATA / "layer_dtypes.json"
CONFIGS = ("standard-x32", "standard-x64", "strict-x32", "strict-x64")
# flax 0.12 needs Python 3.11 (the test extra installs it from there); where it
# is installed, a missing flax or equinox is a failure, not a skip.
needs_flax = pytest.mark.skipif(sys.version_info < (3, 11), reason="flax 0.12 needs Python 3.11")


@cache
def recorded() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text())
    return data


def parse(key: str) -> tuple[str, str | None, str | None]:
    node, dtype, param = key.split("|")
    return node, None if dtype == "-" else dtype, None if param == "-" else param


def ours(name: str, key: str, v: lattice.Variant) -> str:
    node, dtype, param = parse(key)
    out = layer_rules.result(name, node, v, dtype=dtype, param_dtype=param)
    return out.node if out.node is not None else "error" if out.error is not None else "unknown"


def theirs(cell: str) -> str:
    return "error" if cell.startswith("error:") else cell


@pytest.mark.parametrize("config", CONFIGS)
def test_every_layer_rule_agrees_with_what_the_layer_returns(config: str) -> None:
    conf = recorded()["configs"][config]
    v = lattice.variant(conf["promotion"], conf["x64"])
    wrong = []
    answered = 0
    for name, cells in conf["results"].items():
        for key, cell in cells.items():
            got = ours(name, key, v)
            answered += 1
            if got != theirs(cell):
                wrong.append(f"{name}({key}): layer {cell}, rule {got}")
    assert answered > 1500
    assert not wrong, f"{len(wrong)} disagree in {config}:\n" + "\n".join(wrong[:40])


def test_every_layer_with_a_rule_was_run_and_every_run_layer_has_a_rule() -> None:
    for config in CONFIGS:
        assert set(recorded()["configs"][config]["results"]) == set(layer_rules.RULES)


@needs_flax
def test_the_recorded_answers_are_those_of_the_installed_flax_and_equinox() -> None:
    import equinox
    import flax

    assert (recorded()["flax_version"], recorded()["equinox_version"]) == (flax.__version__, equinox.__version__)
    from tools.oracle import make_layer_tables

    # A few cells of each layer, run again (the whole table takes a minute).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for config in CONFIGS:
            conf = recorded()["configs"][config]
            for name, cells in conf["results"].items():
                keys = sorted(cells)[::97][:4]
                again = make_layer_tables.probe(
                    name, conf["x64"], keys=[parse(k) for k in keys], promotion=conf["promotion"]
                )
                assert again == {k: cells[k] for k in keys}, name


def test_an_unknown_layer_or_node_is_a_clear_error() -> None:
    v = lattice.variant()
    with pytest.raises(ValueError, match=r"no dtype rule for layer 'flax.linen.Nope'.*flax.linen.Dense"):
        layer_rules.result("flax.linen.Nope", "float32", v)
    with pytest.raises(ValueError, match=r"param_dtype 'f\*' is not a strong lattice node"):
        layer_rules.result("flax.linen.Dense", "float32", v, param_dtype="f*")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # complex to real casts, as Flax does them
@pytest.mark.parametrize("x64", [False, True])
@needs_flax
def test_jaxtypes_promote_dtype_casts_as_flax_s(x64: bool) -> None:
    """jaxtypes.promote_dtype is Flax's helper without JAX: on the same
    arrays both cast to one dtype (an all-integer call lifts to float32,
    x64 or not)."""
    import flax.linen.dtypes as linen_dtypes
    import jax
    import jax.numpy as jnp

    import jaxtypes

    names = ["bool", "uint8", "int8", "int16", "int32", "uint32", "bfloat16", "float16", "float32", "complex64"]
    if x64:
        names += ["int64", "uint64", "float64", "complex128"]
    checked = 0
    with jax.enable_x64(x64):
        for a in names:
            for b in names:
                args = (jnp.zeros(2, a), jnp.zeros(2, b))
                for dtype in (None, "bfloat16", "float32"):
                    theirs = [x.dtype for x in linen_dtypes.promote_dtype(*args, dtype=dtype)]
                    ours = [x.dtype for x in jaxtypes.promote_dtype(*args, dtype=dtype)]
                    assert ours == theirs, (a, b, dtype, x64)
                    checked += 1
    assert checked == 3 * len(names) ** 2
