"""The JAX stubs' modules made for the mypy plugin (``.mypy-plugin/``): they
declare what the typed modules declare, without the typed overloads of the
functions the plugin answers, and mypy with the plugin reads them in both
layouts mypy reads the stubs from, where mypy alone reads the typed ones."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mypy.options import Options

from jaxtypes import call_plans
from jaxtypes._stubgen import record
from jaxtypes.mypy_plugin import plugin_stubs
from tools.checkers import checker_env

import project_runs

LAYOUTS = ("jax-stubs", ".mypy-path/jax")


@pytest.fixture(scope="module")
def typings() -> Path:
    return project_runs.typings()


def _functions(tree: ast.Module) -> dict[str, list[ast.FunctionDef]]:
    out: dict[str, list[ast.FunctionDef]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out.setdefault(node.name, []).append(node)
    return out


def _top_level_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(a.asname or a.name for a in node.names)
    return names


def test_each_plugin_module_declares_what_its_typed_module_declares(typings: Path) -> None:
    lighter = typings / "jax-stubs" / record.PLUGIN_DIR
    modules = sorted(lighter.rglob("*.pyi"))
    assert {m.relative_to(lighter).as_posix() for m in modules} >= {"numpy/__init__.pyi", "lax/__init__.pyi"}
    answered = 0
    for module in modules:
        rel = module.relative_to(lighter)
        text = module.read_text()
        for layout in LAYOUTS[1:]:  # the same module in each layout mypy reads
            assert (typings / layout / record.PLUGIN_DIR / rel).read_text() == text
        plugin, typed = ast.parse(text), ast.parse((typings / "jax-stubs" / rel).read_text())
        assert _top_level_names(plugin) == _top_level_names(typed), rel
        plugin_functions = _functions(plugin)
        for name, declarations in _functions(typed).items():
            if not call_plans.answered_by_plugin(
                f"jax.{'.'.join(rel.with_suffix('').parts)}".removesuffix(".__init__") + f".{name}"
            ):
                continue
            kept = plugin_functions[name]
            if len(kept) == len(declarations):
                continue  # untyped (JAX's own declarations), or a NamedTuple's result (svd): kept as typed
            # JAX's declarations alone, none naming jaxtypes' markers
            answered += 1
            assert not [f for f in kept if "_jaxtypes_markers" in ast.unparse(f)], (rel, name)
    assert answered > 400


# lax's functions that require one dtype, whose JAX declaration the typed
# module narrows (function_overloads._equal_dtype_overloads): theirs.
NARROWED = {
    "add": "def add(x: ArrayLike, y: ArrayLike) -> Array:",
    "select": "def select(pred: ArrayLike, on_true: ArrayLike, on_false: ArrayLike) -> Array:",
    "select_n": "def select_n(which: ArrayLike, *cases: ArrayLike) -> Array:",
    "dynamic_update_slice": (
        "def dynamic_update_slice(operand: Array | np.ndarray, update: ArrayLike, start_indices: Array |"
        " Sequence[ArrayLike], *, allow_negative_indices: bool | Sequence[bool]=...) -> Array:"
    ),
}


def test_narrowed_declarations_stay_jax_own_for_the_plugin(typings: Path) -> None:
    """The typed module has no declaration of these taking two jax Arrays of
    any dtypes (JAX's, narrowed); the plugin's module has JAX's, alone."""
    rel = Path("lax") / "__init__.pyi"
    plugin = _functions(ast.parse((typings / "jax-stubs" / record.PLUGIN_DIR / rel).read_text()))
    typed = _functions(ast.parse((typings / "jax-stubs" / rel).read_text()))
    for name, declaration in NARROWED.items():
        assert [ast.unparse(f).splitlines()[0] for f in plugin[name]] == [declaration], name
        assert declaration not in [ast.unparse(f).splitlines()[1] for f in typed[name]], name
        assert len(typed[name]) > 4, name


def test_the_plugin_reads_them_in_each_layout(typings: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    options = Options()
    options.mypy_path = [str(typings / record.MYPY_DIR)]
    monkeypatch.setattr(record, "installed_stubs", lambda: typings / "jax-stubs" / record.BASEARRAY)
    pairs = plugin_stubs.shadow_pairs(options)
    for layout in LAYOUTS:
        stub = typings / layout / "numpy" / "__init__.pyi"
        assert [str(stub), str(typings / layout / record.PLUGIN_DIR / "numpy" / "__init__.pyi")] in pairs
    assert all(Path(stub).is_file() and Path(light).is_file() for stub, light in pairs)
    # stubs made before there were plugin modules: nothing to read instead
    shutil.copytree(typings / record.MYPY_DIR, tmp_path / record.MYPY_DIR)
    shutil.rmtree(tmp_path / record.MYPY_DIR / "jax" / record.PLUGIN_DIR)
    options.mypy_path = [str(tmp_path / record.MYPY_DIR)]
    monkeypatch.setattr(record, "installed_stubs", lambda: None)
    assert plugin_stubs.shadow_pairs(options) == []


CALL = """\
import jax.numpy as jnp
jnp.tanh("x")
reveal_type(jnp.tanh(jnp.zeros(3, jnp.bfloat16)))
"""


@pytest.mark.parametrize("plugin", [True, False])
def test_mypy_reads_the_plugin_modules_only_with_the_plugin(typings: Path, tmp_path: Path, plugin: bool) -> None:
    """What mypy says of a bad argument tells which module it read: JAX's one
    declaration of ``tanh`` (an incompatible argument) or its typed overloads
    (no overload matches); the answer is the same."""
    shutil.copytree(typings, tmp_path / "typings", symlinks=True)
    (tmp_path / "mypy.ini").write_text(
        "[mypy]\nmypy_path = typings/.mypy-path\n" + ("plugins = jaxtypes.mypy_plugin\n" if plugin else "")
    )
    (tmp_path / "m.py").write_text(CALL)
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "m.py"],
        cwd=tmp_path,
        env=checker_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = proc.stdout
    assert 'Revealed type is "jax._src.basearray.Array[jaxtypes.markers.bfloat16]"' in out, out
    if plugin:
        assert 'Argument 1 to "tanh" has incompatible type "str"' in out, out
    else:
        assert 'No overload variant of "tanh" matches argument type "str"' in out, out
