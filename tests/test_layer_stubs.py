"""The stubs of Flax's and Equinox's layers (jaxtypes/_stubgen/layer_stubs.py):
what they are generated from, and the scenario files the checkers run on them
(typecheck_cases/jax_interop/scenarios/flax_layers.py, equinox_layers.py and
generic_modules.py,
checked in the six set-ups by tests/test_jax_stubs.py), run here with JAX,
flax and equinox so that each ``assert_type`` in them is the library's
answer; and the mypy plugin's answers for Equinox's layers under strict
promotion and x64, run with JAX too."""

from __future__ import annotations

import ast
import importlib.util
import itertools
import shutil
import sys
import typing
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typing_extensions

from jaxtypes import layer_rules
from jaxtypes._stubgen import layer_stubs

REPO = Path(__file__).resolve().parent.parent
SCENARIO = REPO / "typecheck_cases" / "jax_interop" / "scenarios" / "flax_layers.py"
EQUINOX_SCENARIO = SCENARIO.with_name("equinox_layers.py")
GENERIC_SCENARIO = SCENARIO.with_name("generic_modules.py")
needs_flax = pytest.mark.skipif(sys.version_info < (3, 11), reason="flax 0.12 needs Python 3.11")


def _checked_assert_type(checked: list[str]) -> Any:
    def check(value: Any, typ: Any) -> Any:
        (arg,) = typing.get_args(typ)
        if arg is not Any:
            assert value.dtype == np.dtype(arg), f"assert_type({value.dtype}, {typ})"
            checked.append(str(value.dtype))
        return value

    return check


def _run_scenario(path: Path, monkeypatch: pytest.MonkeyPatch, run: Callable[[Any], None]) -> None:
    """Load the scenario file ``path`` with a checking ``assert_type`` and
    ``run(module)``: every ``assert_type`` in it runs and holds."""
    checked: list[str] = []
    monkeypatch.setattr(typing_extensions, "assert_type", _checked_assert_type(checked))
    spec = importlib.util.spec_from_file_location(f"{path.stem}_scenario", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # (dataclasses look their module up)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec.loader.exec_module(module)
        run(module)
    text = path.read_text()
    assert len(checked) == text.count("assert_type(") - text.count("jax.Array[Any])")  # each one ran


@needs_flax
def test_the_flax_scenarios_hold_when_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import jax
    import jax.numpy as jnp
    from flax import nnx

    def run(module: Any) -> None:
        x = jnp.ones((5, 4), jnp.bfloat16)
        tokens = jnp.zeros((5,), jnp.int32)
        key = jax.random.key(0)
        module.Block().init_with_output(key, x, tokens)
        module.WithSetup().init_with_output(key, x.astype(jnp.float32))
        module.Ensemble().init_with_output(key, jnp.ones((3, 5, 4), jnp.bfloat16))
        module.NnxBlock(nnx.Rngs(0))(x, tokens)

    _run_scenario(SCENARIO, monkeypatch, run)


@needs_flax
def test_the_equinox_scenarios_hold_when_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import jax
    import jax.numpy as jnp

    def run(module: Any) -> None:
        key = jax.random.key(0)
        x, h = jnp.ones(4, jnp.float32), jnp.ones(4, jnp.bfloat16)
        seq, image = jnp.ones((4, 5), jnp.float32), jnp.ones((4, 5, 5), jnp.bfloat16)
        module.layers(key, x, h, seq, image, jnp.asarray(3, jnp.int32), jnp.float32)
        module.batched(key, jnp.ones((5, 4), jnp.float32), jnp.ones((5, 4), jnp.bfloat16))
        module.with_state(x, None)  # (a normalization given any state returns it)
        module.fields(key, x, h)

    _run_scenario(EQUINOX_SCENARIO, monkeypatch, run)


@needs_flax
def test_the_generic_module_scenarios_hold_when_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import jax
    import jax.numpy as jnp
    from flax import nnx

    def run(module: Any) -> None:
        key = jax.random.key(0)
        x, wide = jnp.ones((2, 4), jnp.bfloat16), jnp.ones(4, jnp.float32)
        module.initializers(key, x, jnp.bfloat16)
        module.generic_classes(x, wide, nnx.Param(jnp.ones(4, jnp.float32)))
        module.Dense().init_with_output(key, x)
        module.flax_made_variables()

    _run_scenario(GENERIC_SCENARIO, monkeypatch, run)


@needs_flax  # (equinox is installed with flax, from Python 3.11)
def test_attention_of_mixed_inputs_gives_what_each_alone_gives() -> None:
    """Equinox's MultiheadAttention is typed where its query, key and value
    each alone give one dtype (the stubs' overloads, the plugin): equinox
    gives that dtype for every such mix (the layer oracle calls it with one
    array thrice)."""
    import equinox as eqx
    import jax
    import jax.numpy as jnp

    from jaxtypes import lattice

    v = lattice.variant("standard", False)
    inputs = ("bfloat16", "float16", "float32", "int8")
    checked = 0
    for param in (None, "bfloat16", "float16", "float32"):
        layer = eqx.nn.MultiheadAttention(
            1, 4, dtype=None if param is None else jnp.dtype(param), key=jax.random.key(0)
        )
        for triple in itertools.product(inputs, repeat=3):
            alone = {layer_rules.result("equinox.nn.MultiheadAttention", n, v, param_dtype=param).node for n in triple}
            if len(alone) != 1:
                continue  # typed as Array[Any]
            query, key, value = (jnp.ones((2, 4), n) for n in triple)
            assert str(layer(query, key, value).dtype) == alone.pop(), (param, triple)
            checked += 1
    assert checked > 64  # more than the calls of one array thrice


@needs_flax
def test_flax_attention_of_mixed_inputs_gives_what_each_alone_gives() -> None:
    """Linen's MultiHeadDotProductAttention and NNX's MultiHeadAttention given
    keys and values: typed where the query, keys and values each alone give
    one dtype (the layer oracle calls them on the query alone); flax gives
    that dtype for every such mix."""
    import flax.linen as nn
    import jax
    import jax.numpy as jnp
    from flax import nnx

    from jaxtypes import lattice

    v = lattice.variant("standard", False)
    inputs = ("bfloat16", "float16", "float32", "int8")
    settings = ({}, {"dtype": "bfloat16"}, {"param_dtype": "bfloat16"}, {"param_dtype": "float16"})
    checked = 0
    for rule in ("flax.linen.MultiHeadDotProductAttention", "flax.nnx.MultiHeadAttention"):
        for given in settings:
            dtypes = {name: jnp.dtype(value) for name, value in given.items()}
            for triple in itertools.product(inputs, repeat=3):
                alone = {layer_rules.result(rule, n, v, **given).node for n in triple}
                if len(alone) != 1:
                    continue  # typed as Array[Any]
                arrays = [jnp.ones((2, 8), n) for n in triple]
                if rule.startswith("flax.linen"):
                    out, _ = nn.MultiHeadDotProductAttention(num_heads=1, **dtypes).init_with_output(
                        jax.random.key(0), *arrays
                    )
                else:
                    attention = nnx.MultiHeadAttention(1, 8, decode=False, rngs=nnx.Rngs(0), **dtypes)
                    out = attention(*arrays)
                assert str(out.dtype) == alone.pop(), (rule, given, triple)
                checked += 1
    assert checked > 2 * 64


def test_every_typed_layer_has_a_rule_checked_against_its_library() -> None:
    for packages in layer_stubs.LIBRARIES.values():
        for _, typed in packages.values():
            for layer in typed:
                assert layer.rule in layer_rules.RULES, layer
                attend = getattr(layer, "attend", None)
                assert attend is None or attend in layer_rules.RULES, layer


@needs_flax
@pytest.mark.parametrize("library", ["flax", "equinox"])
def test_the_stubs_type_each_layer_in_place_of_its_import(library: str) -> None:
    found = layer_stubs.locate(library)
    assert found is not None and found.supported, found
    for rel, text in layer_stubs.render(found).items():
        tree = ast.parse(text)
        package, typed = layer_stubs.LIBRARIES[library][rel[:-1]]
        declared = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
        assert {layer.name for layer in typed} <= declared, rel
        imported = {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
        assert not imported & {layer.name for layer in typed}, rel
        # everything else the package exports is still there
        source = ast.parse((found.root / rel[:-1]).read_text())
        exported = {a.asname or a.name for n in source.body if isinstance(n, ast.ImportFrom) for a in n.names}
        assert exported <= imported | declared, sorted(exported - imported - declared)


@needs_flax
def test_nnx_layers_declare_the_parameters_jax_makes_in_param_dtype() -> None:
    """The stub of each typed NNX layer declares as ``nnx.Param`` of its
    parameter dtype exactly the parameters the layer holds, and Flax makes
    each in ``param_dtype`` (float32 when not given)."""
    import jax.numpy as jnp
    from flax import nnx

    from tools.oracle.make_layer_tables import NNX_MODULES

    found = layer_stubs.locate("flax")
    assert found is not None
    tree = ast.parse(layer_stubs.render(found)["nnx/__init__.pyi"])
    declared = {
        cls.name: {n.target.id: ast.unparse(n.annotation) for n in cls.body if isinstance(n, ast.AnnAssign)}
        for cls in tree.body
        if isinstance(cls, ast.ClassDef)
    }
    checked = 0
    for rule, build in NNX_MODULES.items():
        fields = declared[rule.rsplit(".", 1)[1]]
        for given in (None, jnp.bfloat16, jnp.float16, jnp.float32):
            module = build(rngs=nnx.Rngs(0), **({} if given is None else {"param_dtype": given}))
            held = {name for name, value in vars(module).items() if isinstance(value, nnx.Param)}
            assert held <= set(fields), (rule, held, fields)
            for name, annotation in fields.items():
                value = getattr(module, name)
                if value is None:  # Einsum's bias without a bias_shape
                    assert annotation.endswith("| None"), (rule, name)
                    continue
                assert annotation.startswith("Param[_jaxtypes_jax.Array[_JaxtypesLayerParamT]]"), (rule, name)
                assert value.get_value().dtype == jnp.dtype(given or jnp.float32), (rule, name, given)
                checked += 1
    assert checked >= 4 * 15, checked  # the kernels, biases, scales and the embedding of 10 layers


def test_an_unknown_version_is_named_with_the_supported_ones() -> None:
    line = layer_stubs.status(layer_stubs.LayerInstall(Path("/nowhere"), "0.1.0", "flax"))
    assert line == (
        "flax 0.1.0 is not a version these stubs know (supported: 0.12.8): its layers keep flax's own typing"
    )
    line = layer_stubs.status(layer_stubs.LayerInstall(Path("/nowhere"), "0.12.0", "equinox"))
    assert line == (
        "equinox 0.12.0 is not a version these stubs know (supported: 0.13.8): its layers keep equinox's own typing"
    )
    assert layer_stubs.status(None) is None


@needs_flax
def test_stubs_made_for_another_release_or_without_its_layers_are_stale(tmp_path: Path) -> None:
    from jaxtypes._stubgen import jax_stubs, record

    jax_stubs.write(tmp_path, jax_stubs.render(jax_stubs.locate_jax()))
    fresh = record.staleness(tmp_path)
    every = (("flax", "0.12.8", "0.12.8"), ("equinox", "0.13.8", "0.13.8"), ("optax", "0.2.8", "0.2.8"))
    assert fresh is not None and not fresh.stale and fresh.layers == every, fresh
    assert fresh.message().endswith(
        "the versions installed, with flax 0.12.8's layers and equinox 0.13.8's layers and optax 0.2.8's losses"
    ), fresh.message()
    for module in (
        tmp_path / "flax-stubs" / record.LAYER_RECORDS["flax"],
        tmp_path / record.MYPY_DIR / "flax" / record.LAYER_RECORDS["flax"],
    ):
        module.write_text(module.read_text().replace("(flax 0.12.8)", "(flax 0.12.7)", 1))
    older = record.staleness(tmp_path)
    assert older is not None and older.stale and older.layers[0] == ("flax", "0.12.7", "0.12.8"), older
    assert "with flax 0.12.7's layers, but this environment has flax 0.12.8: refresh" in older.message()
    for top in ("equinox-stubs", f"{record.MYPY_DIR}/equinox", f"{record.SEARCH_DIR}/equinox"):
        shutil.rmtree(tmp_path / top)
    without = record.staleness(tmp_path)
    assert without is not None and without.stale and without.layers[1] == ("equinox", None, "0.13.8"), without
    assert (
        "with flax 0.12.7's layers, without equinox layers, but this environment has flax 0.12.8, equinox 0.13.8"
    ) in without.message()
    for top in ("optax-stubs", f"{record.MYPY_DIR}/optax", f"{record.SEARCH_DIR}/optax"):
        shutil.rmtree(tmp_path / top)
    no_losses = record.staleness(tmp_path)
    assert no_losses is not None and no_losses.layers[2] == ("optax", None, "0.2.8"), no_losses
    assert "without optax losses, but this environment has flax 0.12.8, equinox 0.13.8, optax 0.2.8" in (
        no_losses.message()
    )


# Equinox's layers under the plugin with strict promotion and x64 on: the
# default float is float64, and an implicit promotion is an error.  Checked by
# mypy with the plugin (each E line an error, no other) and run with JAX in
# that configuration (each assert_type the value's dtype, each E line raising).
EQUINOX_STRICT_X64 = """\
from __future__ import annotations

from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
from typing_extensions import assert_type

from jaxtypes import bfloat16, float32, float64, int32


class Block(eqx.Module):
    # Layers as fields: the plugin reads their dtype from __init__.

    linear: eqx.nn.Linear
    half: eqx.nn.Linear
    norm: eqx.nn.LayerNorm
    loose: eqx.nn.Linear
    either: eqx.nn.Linear

    def __init__(self, key: jax.Array, dtype: Any, wide: bool) -> None:
        self.linear = eqx.nn.Linear(4, 3, key=key)
        self.half = eqx.nn.Linear(4, 3, dtype=jnp.bfloat16, key=key)
        self.norm = eqx.nn.LayerNorm(4)
        self.loose = eqx.nn.Linear(4, 3, dtype=dtype, key=key)
        if wide:
            self.either = eqx.nn.Linear(4, 3, key=key)
        else:
            self.either = eqx.nn.Linear(4, 3, dtype=jnp.bfloat16, key=key)

    def __call__(self, x: jax.Array[bfloat16]) -> jax.Array[bfloat16]:
        return assert_type(self.half(x), jax.Array[bfloat16])


def case(key: jax.Array, x: jax.Array[float32], h: jax.Array[bfloat16], w: jax.Array[float64],
         token: jax.Array[int32]) -> None:
    linear = eqx.nn.Linear(4, 3, key=key)
    assert_type(linear(w), jax.Array[float64])
    linear(x)  # E: promotion
    assert_type(eqx.nn.Linear(4, 3, dtype=jnp.float32, key=key)(x), jax.Array[float32])
    assert_type(eqx.nn.Linear(4, 3, dtype=jnp.bfloat16, key=key)(h), jax.Array[bfloat16])
    eqx.nn.Linear(4, 3, dtype=jnp.bfloat16, key=key)(x)  # E: promotion
    assert_type(eqx.nn.Embedding(10, 4, key=key)(token), jax.Array[float64])
    assert_type(eqx.nn.Embedding(10, 4, key=key)(3), jax.Array[float64])
    assert_type(eqx.nn.Conv1d(4, 3, 2, key=key)(jnp.stack([w, w], axis=1)), jax.Array[float64])
    eqx.nn.Conv1d(4, 3, 2, key=key)(jnp.stack([x, x], axis=1))  # E: unsupported
    assert_type(eqx.nn.Dropout(0.5)(h, key=key), jax.Array[bfloat16])
    block = Block(key, jnp.float32, True)
    assert_type(block.linear(w), jax.Array[float64])
    block.linear(x)  # E: promotion
    assert_type(block(h), jax.Array[bfloat16])
    assert_type(jax.vmap(block.norm)(jnp.stack([h, h])), jax.Array[bfloat16])
    assert_type(block.loose(x), jax.Array[Any])
    assert_type(block.either(w), jax.Array[Any])
    attention = eqx.nn.MultiheadAttention(1, 4, dtype=jnp.bfloat16, key=key)
    hs, xs = jnp.stack([h, h]), jnp.stack([x, x])
    assert_type(attention(hs, hs, hs), jax.Array[bfloat16])
    attention(hs, xs, xs)  # E: promotion
"""


# Flax's layers under the plugin with strict promotion and x64 on: a layer
# that mixes its input's dtype with its parameters' raises; where
# jaxtypes.layer_rules cannot tell (normalizations under strict), Array[Any].
# Checked as EQUINOX_STRICT_X64 is.
FLAX_STRICT_X64 = """\
from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
from flax import nnx
from typing_extensions import assert_type

from jaxtypes import bfloat16, float32, float64, int32


class Block(nn.Module):
    @nn.compact
    def __call__(self, x: jax.Array[float32], h: jax.Array[bfloat16]) -> None:
        nn.Dense(3)(h)  # E: promotion
        assert_type(nn.Dense(3)(x), jax.Array[float32])
        assert_type(nn.Dense(3, param_dtype=jnp.bfloat16)(h), jax.Array[bfloat16])
        assert_type(nn.Dense(3, dtype=jnp.bfloat16)(x), jax.Array[bfloat16])
        assert_type(nn.LayerNorm()(x), jax.Array[float32])
        nn.LayerNorm(dtype=jnp.bfloat16)(x)  # E: promotion
        nn.RMSNorm(param_dtype=jnp.bfloat16)(x)  # E: promotion
        # zeros_init() is JAX's zeros: the default float, x64's float64
        assert_type(self.param("scale", nn.initializers.zeros_init(), (3,)), jax.Array[float64])
        assert_type(self.param("shift", nn.initializers.ones_init(), (3,), jnp.float32), jax.Array[float32])


class Head(nn.Module):
    @nn.compact
    def __call__(self, x: jax.Array[float32]) -> jax.Array[float32]:
        return nn.Dense(3)(x)


def case(key: jax.Array, x: jax.Array[float32], h: jax.Array[bfloat16], w: jax.Array[float64],
         token: jax.Array[int32]) -> None:
    rngs = nnx.Rngs(0)
    linear = nnx.Linear(4, 3, rngs=rngs)
    assert_type(linear(x), jax.Array[float32])
    linear(h)  # E: promotion
    linear(w)  # E: promotion
    half = nnx.Linear(4, 3, param_dtype=jnp.bfloat16, rngs=rngs)
    assert_type(half(h), jax.Array[bfloat16])
    half(x)  # E: promotion
    assert_type(nnx.Linear(4, 3, dtype=jnp.bfloat16, rngs=rngs)(x), jax.Array[bfloat16])
    # an input of unknown dtype: a dtype= given decides, for every input JAX takes
    unknown: jax.Array = x
    assert_type(nnx.Linear(4, 3, dtype=jnp.bfloat16, rngs=rngs)(unknown), jax.Array[bfloat16])
    assert_type(nnx.LayerNorm(4, dtype=jnp.float32, param_dtype=jnp.bfloat16, rngs=rngs)(unknown), jax.Array[float32])
    assert_type(nnx.Linear(4, 3, rngs=rngs)(unknown), jax.Array[Any])
    assert_type(nnx.Embed(10, 4, rngs=rngs)(token), jax.Array[float32])
    assert_type(nnx.LayerNorm(4, rngs=rngs)(x), jax.Array[float32])
    assert_type(nnx.LayerNorm(4, dtype=jnp.float32, param_dtype=jnp.bfloat16, rngs=rngs)(h), jax.Array[float32])
    nnx.LayerNorm(4, param_dtype=jnp.bfloat16, rngs=rngs)(h)  # E: promotion
    nnx.LayerNorm(4, rngs=rngs)(h)  # E: promotion
    Block().init(key, x, h)
    # Module.apply and init_with_output run the module's __call__
    out, variables = Head().init_with_output(key, x)
    assert_type(out, jax.Array[float32])
    assert_type(Head().apply(variables, x), jax.Array[float32])
    assert_type(Head().apply(variables, x, mutable=False), jax.Array[float32])
    # (with mutable collections, a pair: left as Flax declares it)
    pair: tuple[Any, Any] = Head().apply(variables, x, mutable=["intermediates"])
    pair = Head().apply(variables, x, capture_intermediates=True)
    nn.avg_pool(h.reshape(1, 4, 1), (2,))  # E: promotion
    nnx.avg_pool(token.reshape(1, 1, 1), (1,))  # E: promotion
    assert_type(nn.avg_pool(jnp.ones((1, 4, 1), jnp.int64), (2,)), jax.Array[float64])
    nn.avg_pool(w.reshape(1, 4, 1), (2,), count_include_pad=True)  # E: promotion
    assert_type(nn.max_pool(h.reshape(1, 4, 1), (2,)), jax.Array[bfloat16])
"""


def _run_with_jax(case: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[int]]:
    """Run ``case`` in JAX's strict, x64 configuration: the dtypes its
    ``assert_type`` calls checked, and the lines marked E that raised."""
    import jax
    import jax.numpy as jnp

    import expected_errors

    checked: list[str] = []
    monkeypatch.setattr(typing_extensions, "assert_type", _checked_assert_type(checked))
    raised: list[int] = []
    namespace: dict[str, Any] = {"raised": raised}
    with jax.numpy_dtype_promotion("strict"), jax.enable_x64(True), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(expected_errors.catching_marked_lines(case), "case.py", "exec"), namespace)
        namespace["case"](
            jax.random.key(0),
            jnp.ones(4, jnp.float32),
            jnp.ones(4, jnp.bfloat16),
            jnp.ones(4, jnp.float64),
            jnp.asarray(3, jnp.int32),
        )
    return checked, raised


def _check_strict_x64_case(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each assert_type of ``case`` holds and each marked line raises, once,
    under JAX's strict x64 configuration; mypy with the plugin set to it
    reports exactly the marked lines, each with its own error alone."""
    import expected_errors
    import project_runs

    checked, raised = _run_with_jax(case, monkeypatch)
    assert len(checked) == case.count("assert_type(") - case.count("jax.Array[Any])")  # each one ran
    # (sorted: a Linen module's lines run at its init)
    assert sorted(raised) == sorted(n for _, n in expected_errors.expected({"case.py": case}))
    assert len(raised) == len(set(raised))
    files = {"case.py": case}
    errors = project_runs.mypy_with_plugin(tmp_path, files, "strict", x64=True)
    # (exactly the plugin's error on each marked line: no [type-var] of the
    # overload mypy tried, as before the plugin reported past the overloads)
    assert not expected_errors.wrong_answers("mypy-plugin", files, errors, {})


@needs_flax
def test_the_plugin_types_equinox_layers_in_the_configured_promotion_and_x64(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _check_strict_x64_case(EQUINOX_STRICT_X64, tmp_path, monkeypatch)


@needs_flax
def test_the_plugin_types_flax_layers_in_the_configured_promotion_and_x64(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _check_strict_x64_case(FLAX_STRICT_X64, tmp_path, monkeypatch)


@needs_flax
def test_the_command_says_what_it_does_for_the_installed_layer_libraries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from jaxtypes._stubgen.jax_stubs import configuration_lines as jax_stubs_configuration_lines
    from jaxtypes.cli import main

    assert main(["jax-stubs", "--out", str(tmp_path / "typings")]) == 0
    said = capsys.readouterr().out.splitlines()
    # The layer lines, then what the command says of strict promotion and x64.
    layer_lines = said[-3 - len(jax_stubs_configuration_lines()) : -len(jax_stubs_configuration_lines())]
    assert layer_lines == [
        "flax 0.12.8: the layers of flax.linen, flax.nnx are typed (24 classes, 5 functions)",
        "equinox 0.13.8: the layers of equinox.nn are typed (20 classes)",
        "optax 0.2.8: its losses (10 functions of optax.losses, re-exported by optax) and optax.global_norm are typed",
    ], said
    assert (tmp_path / "typings" / "flax-stubs" / "linen" / "__init__.pyi").is_file()
    assert (tmp_path / "typings" / "equinox-stubs" / "nn" / "__init__.pyi").is_file()
    assert (tmp_path / "typings" / "optax-stubs" / "losses" / "__init__.pyi").is_file()
    for library in ("flax", "equinox", "optax"):
        assert (tmp_path / "typings" / f"{library}-stubs" / "py.typed").read_text() == "partial\n"
