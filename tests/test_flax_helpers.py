"""Flax's dtype helpers as the stubs type them (jaxtypes/_stubgen/flax_helpers.py):
the scenario file typecheck_cases/jax_interop/scenarios/flax_helpers.py,
checked in the six set-ups by tests/test_jax_stubs.py, run here with JAX and
flax, so that each ``assert_type`` in it is flax's answer, with x64 off and
on (the stubs type only answers that hold in both; ``argsort``'s int32 is
x64 off's, which the plugin's YAML cases check for x64 on).  Also what the
generator reads from flax's source."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
import typing
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typing_extensions

from jaxtypes._stubgen import flax_helpers

REPO = Path(__file__).resolve().parent.parent
SCENARIO = REPO / "typecheck_cases" / "jax_interop" / "scenarios" / "flax_helpers.py"
pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="flax 0.12 needs Python 3.11")


def _check(value: Any, expected: Any, dtypes: list[str]) -> None:
    """``value`` is of the ``expected`` type: a list or tuple of it, element
    by element, a JAX array of its dtype (``Any``: not checked)."""
    if expected is Any:
        return
    origin, args = typing.get_origin(expected), typing.get_args(expected)
    if origin in (list, tuple):
        assert type(value) is origin, f"{type(value).__name__}, not {expected}"
        if origin is tuple and args[-1] is not Ellipsis:
            assert len(value) == len(args), f"{len(value)} elements, not {expected}"
            pairs = list(zip(value, args))
        else:
            pairs = [(v, args[0]) for v in value]
        for v, a in pairs:
            _check(v, a, dtypes)
        return
    (arg,) = args
    if arg is not Any:
        import jax

        assert isinstance(value, jax.Array), f"{type(value).__name__}, not {expected}"
        assert value.dtype == np.dtype(arg), f"{value.dtype}, not {expected}"
        dtypes.append(str(value.dtype))


# The scenario's functions, how many times each is run, and with which x64 settings.
_RUNS: dict[str, tuple[int, tuple[bool, ...]]] = {
    "linen_promote": (2, (False, True)),  # with a bias and with None
    "nnx_promote": (2, (False, True)),
    "onehot_values": (1, (False, True)),
    "argsort_indices": (1, (False,)),  # int32 is x64 off's answer
    "constant_initializers": (1, (False,)),  # float32 is x64 off's default float
    "attention_masks": (1, (False, True)),
    "nnx_value_and_grad": (1, (False, True)),
}
_KNOWN_DTYPE = re.compile(r"Array\[(?!Any\])\w+\]")


def _dtype_checks(function: str) -> int:
    """How many ``assert_type`` calls of a function of the scenario expect a known dtype."""
    tree = ast.parse(SCENARIO.read_text())
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function)
    return sum(
        1
        for node in ast.walk(fn)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "assert_type"
        and _KNOWN_DTYPE.search(ast.unparse(node.args[1]))
    )


def _run(x64: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[set[str], int]:
    """Run the scenario's functions with JAX arrays; (the dtypes the
    ``assert_type`` calls checked, how many calls checked one)."""
    import jax
    import jax.numpy as jnp

    checking: list[bool] = []
    dtypes: list[str] = []

    def assert_type(value: Any, expected: Any) -> Any:
        before = len(dtypes)
        _check(value, expected, dtypes)
        checking.append(len(dtypes) > before)
        return value

    monkeypatch.setattr(typing_extensions, "assert_type", assert_type)
    spec = importlib.util.spec_from_file_location("flax_helpers_scenario", SCENARIO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    with jax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # JAX's warning when it truncates a 64-bit dtype
        spec.loader.exec_module(module)
        x, w = jnp.ones((2, 3), jnp.bfloat16), jnp.ones((2, 3), jnp.float32)
        i, j = jnp.ones((2, 3), jnp.int32), jnp.ones((2, 3), jnp.int8)
        for bias in (w, None):
            module.linen_promote(x, w, i, j, bias, jnp.bfloat16)
            module.nnx_promote(x, w, i, bias)
        module.onehot_values(jnp.array([0, 3, 1], jnp.int32))
        module.attention_masks(jnp.array([[1, 2, 0]], jnp.int32), jnp.bfloat16)
        module.nnx_value_and_grad(jnp.ones((2, 3), jnp.float32))
        if not x64:
            module.argsort_indices(x, w)
            module.constant_initializers(jax.random.key(0))
    return set(dtypes), sum(checking)


def test_every_function_of_the_scenario_is_run() -> None:
    tree = ast.parse(SCENARIO.read_text())
    assert {n.name for n in tree.body if isinstance(n, ast.FunctionDef)} == set(_RUNS)


@pytest.mark.parametrize("x64", [False, True])
def test_the_scenario_holds_when_run(x64: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    dtypes, checked = _run(x64, monkeypatch)
    # each assert_type expecting a dtype checked one, in every run of its function
    assert checked == sum(times * _dtype_checks(fn) for fn, (times, settings) in _RUNS.items() if x64 in settings)
    assert dtypes == {"bfloat16", "bool", "float16", "float32", "int8", "int32"}


def test_the_stubs_are_made_from_flax_s_modules() -> None:
    """Each typed function is found in flax's module (the generator refuses a
    module without it), and the rest of the module is declared too."""
    from jaxtypes._stubgen import layer_stubs

    install = layer_stubs.locate("flax")
    assert install is not None and install.supported
    stubs = flax_helpers.render(install.root)
    assert set(stubs) == {
        "linen/dtypes.pyi",
        "nnx/nn/dtypes.pyi",
        "training/common_utils.pyi",
        "linen/initializers.pyi",
        "nnx/nn/initializers.pyi",
    }
    for rel, text in stubs.items():
        source = ast.parse((install.root / (rel[:-1])).read_text())
        defined = {n.name for n in source.body if isinstance(n, ast.FunctionDef)}
        declared = {n.name for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)}
        assert declared == defined, rel
    assert flax_helpers.typed_functions() == [
        "flax.linen.dtypes.promote_dtype",
        "flax.nnx.nn.dtypes.promote_dtype",
        "flax.training.common_utils.onehot",
        "flax.linen.initializers.zeros_init",
        "flax.linen.initializers.ones_init",
        "flax.nnx.nn.initializers.zeros_init",
        "flax.nnx.nn.initializers.ones_init",
    ]


def test_the_package_stubs_declare_the_functions_in_place_of_their_imports() -> None:
    """Linen's and NNX's masks and NNX's value_and_grad are declared in the
    package's stub, not imported: the typed overloads first, then Flax's
    own declarations with their parameters as Flax names them."""
    from jaxtypes._stubgen import layer_stubs
    from jaxtypes._stubgen.syntax import all_params, declarations, stub_view

    install = layer_stubs.locate("flax")
    assert install is not None and install.supported
    for rel, functions in flax_helpers.PACKAGE_FUNCTIONS.items():
        tree = ast.parse(layer_stubs.render_package(install.root, rel, "flax"))
        imported = {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
        for function in functions:
            assert function.name not in imported, (rel, function.name)
            stub = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function.name]
            source = ast.parse((install.root / function.source).read_text())
            own = declarations(stub_view(source.body))[function.name]
            assert len(stub) > len(own), (rel, function.name)
            for declared, flax in zip(stub[-len(own) :], own):
                assert [a.arg for a in all_params(declared)] == [a.arg for a in all_params(flax)]


def test_a_flax_without_a_typed_function_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "linen").mkdir()
    (tmp_path / "linen" / "attention.py").write_text(
        "def make_attention_mask(query_input, key_input, dtype=None): ...\n"
    )
    with pytest.raises(ValueError, match=r"flax/linen/attention\.py defines no make_causal_mask"):
        flax_helpers.package_declarations(tmp_path, "linen/__init__.py")
