"""The stubs of Flax's layers (jaxtypes/_stubgen/layer_stubs.py): what they
are generated from, and the scenario file the checkers run on them
(typecheck_cases/jax_interop/scenarios/flax_layers.py, checked in the six
set-ups by tests/test_jax_stubs.py), run here with JAX and flax so that each
``assert_type`` in it is flax's answer."""

from __future__ import annotations

import ast
import importlib.util
import shutil
import sys
import typing
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typing_extensions

from jaxtypes import layers
from jaxtypes._stubgen import layer_stubs

REPO = Path(__file__).resolve().parent.parent
SCENARIO = REPO / "typecheck_cases" / "jax_interop" / "scenarios" / "flax_layers.py"
needs_flax = pytest.mark.skipif(sys.version_info < (3, 11), reason="flax 0.12 needs Python 3.11")


def _checked_assert_type(checked: list[str]) -> Any:
    def check(value: Any, typ: Any) -> Any:
        (arg,) = typing.get_args(typ)
        if arg is not Any:
            assert value.dtype == np.dtype(arg), f"assert_type({value.dtype}, {typ})"
            checked.append(str(value.dtype))
        return value

    return check


@needs_flax
def test_the_flax_scenarios_hold_when_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import jax
    import jax.numpy as jnp
    from flax import nnx

    checked: list[str] = []
    monkeypatch.setattr(typing_extensions, "assert_type", _checked_assert_type(checked))
    spec = importlib.util.spec_from_file_location("flax_layers_scenario", SCENARIO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # (dataclasses look their module up)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec.loader.exec_module(module)
        x = jnp.ones((5, 4), jnp.bfloat16)
        tokens = jnp.zeros((5,), jnp.int32)
        key = jax.random.key(0)
        module.Block().init_with_output(key, x, tokens)
        module.WithSetup().init_with_output(key, x.astype(jnp.float32))
        module.NnxBlock(nnx.Rngs(0))(x, tokens)
    text = SCENARIO.read_text()
    assert len(checked) == text.count("assert_type(") - text.count("jax.Array[Any])")  # each one ran


def test_every_typed_layer_has_a_rule_checked_against_flax() -> None:
    for _, typed in layer_stubs.PACKAGES.values():
        for layer in typed:
            assert layer.rule in layers.RULES, layer
            assert layer.attend is None or layer.attend in layers.RULES, layer


@needs_flax
def test_the_stubs_type_each_layer_in_place_of_its_import() -> None:
    flax = layer_stubs.locate_flax()
    assert flax is not None and flax.supported, flax
    for rel, text in layer_stubs.render(flax).items():
        tree = ast.parse(text)
        package, typed = layer_stubs.PACKAGES[rel[:-1]]
        classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
        assert {layer.name for layer in typed} <= classes, rel
        imported = {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
        assert not imported & {layer.name for layer in typed}, rel
        # everything else the package exports is still there
        source = ast.parse((flax.root / rel[:-1]).read_text())
        exported = {a.asname or a.name for n in source.body if isinstance(n, ast.ImportFrom) for a in n.names}
        assert exported <= imported | classes, sorted(exported - imported - classes)


def test_an_unknown_flax_version_is_named_with_the_supported_ones() -> None:
    line = layer_stubs.status(layer_stubs.FlaxInstall(Path("/nowhere"), "0.1.0"))
    assert line == (
        "flax 0.1.0 is not a version these stubs know (supported: 0.12.8): its layers keep flax's own typing"
    )
    assert layer_stubs.status(None) is None


@needs_flax
def test_stubs_made_for_another_flax_or_without_its_layers_are_stale(tmp_path: Path) -> None:
    from jaxtypes._stubgen import jax_stubs, record

    jax_stubs.write(tmp_path, jax_stubs.render(jax_stubs.locate_jax()))
    fresh = record.staleness(tmp_path)
    assert fresh is not None and not fresh.stale and fresh.flax == ("0.12.8", "0.12.8"), fresh
    assert fresh.message().endswith("the versions installed, with flax 0.12.8's layers"), fresh.message()
    for module in (
        tmp_path / "flax-stubs" / record.FLAX_RECORD,
        tmp_path / record.MYPY_DIR / "flax" / record.FLAX_RECORD,
    ):
        module.write_text(module.read_text().replace("(flax 0.12.8)", "(flax 0.12.7)", 1))
    older = record.staleness(tmp_path)
    assert older is not None and older.stale and older.flax == ("0.12.7", "0.12.8"), older
    assert "with flax 0.12.7's layers, but this environment has flax 0.12.8: refresh" in older.message()
    for top in ("flax-stubs", f"{record.MYPY_DIR}/flax", f"{record.SEARCH_DIR}/flax"):
        shutil.rmtree(tmp_path / top)
    without = record.staleness(tmp_path)
    assert without is not None and without.stale and without.flax == (None, "0.12.8"), without
    assert "without flax layers, but this environment has flax 0.12.8: refresh" in without.message()


@needs_flax
def test_the_command_says_what_it_does_for_the_installed_flax(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from jaxtypes.cli import main

    assert main(["jax-stubs", "--out", str(tmp_path / "typings")]) == 0
    said = capsys.readouterr().out.splitlines()
    assert said[-1] == "flax 0.12.8: the layers of flax.linen, flax.nnx are typed (24 classes)", said
    assert (tmp_path / "typings" / "flax-stubs" / "linen" / "__init__.pyi").is_file()
    assert (tmp_path / "typings" / "flax-stubs" / "py.typed").read_text() == "partial\n"
