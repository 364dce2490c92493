"""The modules of jaxtypes/ import downwards only, and in no cycle.

Each module sits in a layer (``LAYERS``, lowest first); a module may import
from its own layer or a lower one, never from a higher one, and no chain of
imports leads back to where it started.  So the lattice, the rules and the
call plans stay importable without the runtime configuration, the stub
generator or mypy, and a new module has to say where it belongs.  The one
exception is the C speed-up, ``jaxtypes._speedups``, which the configuration
and the promotion API import (it is built from ``_speedups.c``, not a module
of this tree).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "jaxtypes"

# Lowest first.  A name ending in ".*" is every module of that subpackage.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("lattice", "operation_table", "array_surface", "_version", "_bad_environment", "dtype_recorder"),
    ("operation_rules", "markers"),
    ("function_rules", "layer_rules"),
    ("call_plans",),
    ("config",),
    ("promotion", "_generic_jax_array", "_array", "render"),
    ("common_dtype", "typing", "dtype_check"),
    ("",),  # the package's __init__: the public API
    ("_stubgen.*", "mypy_plugin.*", "annotation_rewriter"),
    ("annotate",),
    ("cli", "__main__"),
)
SPEED_UP = "_speedups"


def modules() -> dict[str, Path]:
    """Every module of the package, by its name relative to it ("" for the package)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def layer_of(name: str) -> int:
    for i, layer in enumerate(LAYERS):
        for entry in layer:
            if entry == name or (entry.endswith(".*") and (name + ".").startswith(entry[:-1])):
                return i
    raise LookupError(f"jaxtypes.{name} is in no layer of tests/test_module_layers.py's LAYERS")


def imports(name: str, path: Path, known: Mapping[str, Path]) -> set[str]:
    """The modules of the package that ``name`` imports, anywhere in it ("":
    the package's own namespace, ``import jaxtypes``, ``from jaxtypes import
    promote_types``), by name too (``importlib.import_module("jaxtypes._speedups")``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and ast.unparse(node.func) == "importlib.import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and node.args[0].value.startswith("jaxtypes.")
        ):
            out.add(node.args[0].value.removeprefix("jaxtypes."))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "jaxtypes" or alias.name.startswith("jaxtypes."):
                    out.add(alias.name.removeprefix("jaxtypes").removeprefix("."))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ["jaxtypes", *package.split(".")] if package else ["jaxtypes"]
                module = ".".join(base[: len(base) - (node.level - 1)] + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module != "jaxtypes" and not module.startswith("jaxtypes."):
                continue
            relative = module.removeprefix("jaxtypes").removeprefix(".")
            for alias in node.names:
                sub = f"{relative}.{alias.name}".lstrip(".")
                out.add(sub if sub in known or sub == SPEED_UP else relative)
    return out - {name}


def problems(graph: Mapping[str, set[str]]) -> list[str]:
    """Imports that go up a layer, and import cycles."""
    out = []
    for name, deps in sorted(graph.items()):
        for dep in sorted(deps):
            if dep == SPEED_UP:
                continue
            if layer_of(dep) > layer_of(name):
                out.append(f"jaxtypes.{name} (layer {layer_of(name)}) imports jaxtypes.{dep} (layer {layer_of(dep)})")
    state: dict[str, int] = {}

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for dep in sorted(graph.get(name, ())):
            if state.get(dep) == 1:
                cycle = path[path.index(dep) :] + [dep] if dep in path else [name, dep]
                out.append("cycle: " + " -> ".join(f"jaxtypes.{m}".rstrip(".") for m in cycle))
            elif dep in graph and not state.get(dep):
                visit(dep, [*path, dep])
        state[name] = 2

    for name in sorted(graph):
        if not state.get(name):
            visit(name, [name])
    return out


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_every_module_has_a_layer(graph: dict[str, set[str]]) -> None:
    for name in graph:
        layer_of(name)


def test_imports_go_down_and_close_no_cycle(graph: dict[str, set[str]]) -> None:
    assert problems(graph) == []


def test_the_speed_up_is_the_one_exception(graph: dict[str, set[str]]) -> None:
    assert {name for name, deps in graph.items() if SPEED_UP in deps} == {"config", "promotion"}


def test_an_upward_import_or_a_cycle_is_found() -> None:
    assert problems({"lattice": {"config"}, "config": set()}) == [
        "jaxtypes.lattice (layer 0) imports jaxtypes.config (layer 4)"
    ]
    found = problems({"_stubgen.a": {"_stubgen.b"}, "_stubgen.b": {"_stubgen.a"}})
    assert found == ["cycle: jaxtypes._stubgen.a -> jaxtypes._stubgen.b -> jaxtypes._stubgen.a"]
    with pytest.raises(LookupError, match="jaxtypes.new_module is in no layer"):
        layer_of("new_module")
