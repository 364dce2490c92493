"""Optax's losses and global_norm as the stubs type them
(jaxtypes/_stubgen/optax_stubs.py): every typed overload of the generated
stubs called with arrays of its dtypes, whose result must have the dtype it
declares (the answers are Optax's, x64 off and on); the scenario file
typecheck_cases/jax_interop/scenarios/optax_losses.py, checked in the six
set-ups by tests/test_jax_stubs.py, run here; and the stubs declaring
every name Optax's packages export."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import typing
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typing_extensions

from jaxtypes import lattice
from jaxtypes._stubgen import optax_stubs, record, syntax

REPO = Path(__file__).resolve().parent.parent
SCENARIO = REPO / "typecheck_cases" / "jax_interop" / "scenarios" / "optax_losses.py"
optax = pytest.importorskip("optax")
pytestmark = pytest.mark.skipif(
    optax.__version__ not in record.LAYER_LIBRARIES["optax"], reason="the stubs type only the pinned Optax"
)
_MARKER_NODE = {name: node for node, name in lattice.MARKER_NAME.items()}


def _root() -> Path:
    return Path(optax.__file__).parent


def _stubs() -> dict[str, ast.Module]:
    return {rel: ast.parse(text) for rel, text in optax_stubs.render(_root()).items()}


def _nodes(annotation: str) -> list[str] | None:
    """The dtypes an annotation of the stubs names: ``Array[markers.bfloat16]``
    (and its mapping and sequence forms) one, a union of markers each of
    them, the LossDtype TypeVar each of its bound; None when it names no array."""
    if "_JaxtypesLossT" in annotation:
        line = optax_stubs.marker_typevar_lines()[0]
        return [_MARKER_NODE[n.strip()] for n in line.split("bound=")[1].rstrip(")").split("|")]
    if "_JaxtypesLossPairT" in annotation:
        line = optax_stubs.marker_typevar_lines()[1]
        return [_MARKER_NODE[n.strip()] for n in line.split('"LossPairDtype", ')[1].rstrip(")").split(",")]
    found = re.findall(r"_jaxtypes_markers\.(\w+)", annotation)
    return list(dict.fromkeys(_MARKER_NODE[n] for n in found)) or None


def _array(node: str, shape: tuple[int, ...] = (3, 4)) -> Any:
    import jax.numpy as jnp

    return jnp.ones(shape, jnp.float32).astype(node)


def _calls(function: optax_stubs.TypedFunction, fn: ast.FunctionDef) -> Iterator[tuple[str, dict[str, Any]]]:
    """(the dtype the overload declares, keyword arguments) of each call of
    the dtypes of a typed overload ``fn``."""
    returns = ast.unparse(fn.returns) if fn.returns is not None else ""
    results = _nodes(returns)
    if results is None or "_JaxtypesUnknownT" in ast.unparse(fn.args):
        return
    params = {a.arg: ast.unparse(a.annotation) for a in syntax.all_params(fn) if a.annotation is not None}
    for result in results:
        base: dict[str, Any] = {}
        for name in function.scalars:
            base[name] = {"delta": 2.0, "epsilon": 1e-6}[name]
        for name in function.arrays[1:]:
            if params.get(name) != "None":
                base[name] = _array(result)
        for name in function.labels:
            for label in _nodes(params[name]) or []:
                yield result, {**base, function.arrays[0]: _array(result), name: np.zeros(3, label)}
        if function.labels:
            continue
        first = _array(result)
        if function.tree:
            for tree in (first, {"w": first, "b": _array(result, (2,))}, [first, first], (first,)):
                yield result, {**base, function.arrays[0]: tree}
        else:
            yield result, {**base, function.arrays[0]: first}


def _typed_overloads() -> Iterator[tuple[optax_stubs.TypedFunction, ast.FunctionDef]]:
    stubs = _stubs()
    for function in optax_stubs.FUNCTIONS:
        stub = stubs[function.package[: -len(".py")] + ".pyi"]
        for node in stub.body:
            if isinstance(node, ast.FunctionDef) and node.name == function.name:
                yield function, node


@pytest.mark.parametrize("x64", [False, True])
def test_every_typed_overload_declares_what_optax_returns(x64: bool) -> None:
    import jax
    import jax.numpy as jnp

    wrong: list[str] = []
    checked: set[tuple[str, str]] = set()
    with jax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # global_norm's deprecation
        for function, fn in _typed_overloads():
            for declared, kwargs in _calls(function, fn):
                kwargs = {k: jnp.asarray(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
                got = str(getattr(optax, function.name)(**kwargs).dtype)
                checked.add((function.name, declared))
                if got != declared:
                    wrong.append(f"{function.name}({', '.join(f'{k}={_dtype(v)}' for k, v in kwargs.items())}): {got}")
    assert not wrong, "\n".join(wrong)
    # every function, in every dtype the stubs type
    assert checked == {(f.name, n) for f in optax_stubs.FUNCTIONS for n in optax_stubs.LOSS_DTYPES}


def _dtype(value: Any) -> str:
    if isinstance(value, (dict, list, tuple)):
        return f"{type(value).__name__} of {_dtype(next(iter(value.values() if isinstance(value, dict) else value)))}"
    return str(getattr(value, "dtype", value))


def test_float6_arrays_cannot_be_made_on_this_backend() -> None:
    """Why LOSS_DTYPES leaves the float6 types out: no array of them runs here."""
    import jax

    for node in lattice.FLOAT6:
        with pytest.raises(jax.errors.JaxRuntimeError, match="Invalid XLA PrimitiveType"):
            _array(node).block_until_ready()


@pytest.mark.parametrize("rel", sorted(optax_stubs.PACKAGES))
def test_the_stubs_declare_every_name_optax_exports(rel: str) -> None:
    module = importlib.import_module(optax_stubs.PACKAGES[rel])
    stub = _stubs()[rel[: -len(".py")] + ".pyi"]
    declared = syntax.exported_names(stub.body, stub=True) | {
        t.id for n in stub.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)
    }
    public = {n for n in dir(module) if not n.startswith("_")} | {"__version__"} & set(dir(module))
    assert public - declared == set()
    assert set(getattr(module, "__all__", ())) <= declared


def test_an_unknown_version_keeps_optax_s_own_typing() -> None:
    line = optax_stubs.status(record.PackageInstall(Path("/nowhere"), "0.2.5"))
    assert line == (
        "optax 0.2.5 is not a version these stubs know "
        f"(supported: {', '.join(record.LAYER_LIBRARIES['optax'])}): its losses keep optax's own typing"
    )


# -- the scenario file, run
_RUNS: dict[str, int] = {"integer_labels": 1, "classification": 1, "regression": 1, "norms": 1, "optimizer_step": 1}
_KNOWN_DTYPE = re.compile(r"Array\[(?!Any\])\w+\]")


def _check(value: Any, expected: Any, dtypes: list[str]) -> None:
    import jax

    (arg,) = typing.get_args(expected)
    assert isinstance(value, jax.Array), f"{type(value).__name__}, not {expected}"
    assert value.dtype == np.dtype(arg), f"{value.dtype}, not {expected}"
    dtypes.append(str(value.dtype))


def test_every_function_of_the_scenario_is_run() -> None:
    tree = ast.parse(SCENARIO.read_text())
    assert {n.name for n in tree.body if isinstance(n, ast.FunctionDef)} == set(_RUNS)


@pytest.mark.parametrize("x64", [False, True])
def test_the_scenario_holds_when_run(x64: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    import jax
    import jax.numpy as jnp

    dtypes: list[str] = []
    monkeypatch.setattr(typing_extensions, "assert_type", lambda v, t: _check(v, t, dtypes) or v)
    spec = importlib.util.spec_from_file_location("optax_losses_scenario", SCENARIO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    with jax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec.loader.exec_module(module)
        x, h, w = _array("bfloat16"), _array("float16"), _array("float32")
        module.integer_labels(x, w, jnp.zeros(3, jnp.int32), jnp.zeros(3, jnp.uint8))
        module.classification(x, h, w)
        module.regression(x, h, w)
        module.norms({"a": x, "b": x}, [h, h], w, x)
        module.optimizer_step({"w": w}, {"w": w})
    tree = ast.parse(SCENARIO.read_text())
    expected = sum(
        1
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "assert_type"
        and _KNOWN_DTYPE.search(ast.unparse(node.args[1]))
    )
    assert len(dtypes) == expected
    assert set(dtypes) == {"bfloat16", "float16", "float32"}


def test_the_buggy_statements_have_the_dtype_the_scenario_reports() -> None:
    """The lines marked E are wrong when run: their value's dtype is not the
    declared one (Optax's answers, x64 off)."""
    import jax.numpy as jnp

    x, h = _array("bfloat16"), _array("float16")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert optax.softmax_cross_entropy_with_integer_labels(x, jnp.zeros(3, jnp.int32)).dtype == jnp.bfloat16
        assert optax.sigmoid_binary_cross_entropy(x, x).dtype == jnp.bfloat16
        assert optax.huber_loss(h).dtype == jnp.float16
        assert optax.global_norm({"a": x}).dtype == jnp.bfloat16
        # the lines the stubs leave to Optax's own signature: promoted
        assert optax.softmax_cross_entropy(x, _array("float32")).dtype == jnp.float32
        assert optax.global_norm({"x": x, "w": _array("float32")}).dtype == jnp.float32


def test_without_optax_no_optax_stubs_are_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """As for flax: a library not installed gets no stub package, and the
    command says nothing of it."""
    from jaxtypes._stubgen import jax_stubs, layer_stubs

    real = layer_stubs.locate
    monkeypatch.setattr(layer_stubs, "locate", lambda library: None if library == "optax" else real(library))
    files = jax_stubs.render(jax_stubs.locate_jax())
    assert not [rel for rel in files if rel.split("/", 1)[0] == "optax-stubs" or "/optax/" in rel]
    assert "flax-stubs/py.typed" in files
    assert not [line for line in jax_stubs.layer_status() if line.startswith("optax")]
