"""The candidate encodings ``benchmarks.encodings`` times: each keeps the
overloads it says it keeps, and the result is a stub a checker can read."""

from __future__ import annotations

import ast
from pathlib import Path

from benchmarks.encodings import array_inputs, derive, derive_module, jax_declaration, shared_callables

# The shape `jaxtypes jax-stubs` gives a typed function (its array overload,
# its NumPy and Python-scalar overloads, JAX's declaration last), beside an
# untyped function and a class whose overloaded methods are not JAX's functions.
STUB = '''\
from typing import Any, overload
import builtins
import numpy as _np

@overload
def exp(x: Array[_Has_fn_inexact[_V]], /) -> Array[_V]:
    ...

@overload
def exp(x: _np.generic | _np.ndarray[Any, Any], /) -> Array:
    ...

@overload
def exp(x: builtins.float, /) -> Array[weak_float]:
    ...

@overload
def exp(x: ArrayLike, /) -> Array:
    ...

def untyped(x: ArrayLike) -> Array:
    ...

@overload
def sum(a: Array[_Has_fn_sum[_V]], axis: int | None = ..., keepdims: builtins.bool = ...) -> Array[_V]:
    ...

@overload
def sum(a: builtins.int, axis: int | None = ..., keepdims: builtins.bool = ...) -> Array[int32]:
    ...

@overload
def sum(a: ArrayLike, axis: int | None = ..., keepdims: builtins.bool = ...) -> Array:
    ...

class Array:
    @overload
    def __add__(self, other: int) -> Array: ...
    @overload
    def __add__(self, other: float) -> Array: ...
'''


def _signatures(text: str) -> dict[str, list[str]]:
    """{function name: the first parameter's annotation of each of its
    declarations, in order} for the module's top-level functions."""
    found: dict[str, list[str]] = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef):
            first = (node.args.posonlyargs + node.args.args)[0].annotation
            assert first is not None
            overloaded = any(ast.unparse(d) == "overload" for d in node.decorator_list)
            found.setdefault(node.name, []).append(("@" if overloaded else "") + ast.unparse(first))
    return found


def test_operators_only_keeps_jax_s_declaration_alone() -> None:
    text = derive_module(STUB, jax_declaration)
    assert _signatures(text) == {"exp": ["ArrayLike"], "untyped": ["ArrayLike"], "sum": ["ArrayLike"]}
    assert text.count("def __add__") == 2  # a class's methods are not JAX's functions


def test_array_inputs_drops_the_numpy_and_python_scalar_overloads() -> None:
    text = derive_module(STUB, array_inputs)
    assert _signatures(text) == {
        "exp": ["@Array[_Has_fn_inexact[_V]]", "@ArrayLike"],
        "untyped": ["ArrayLike"],
        "sum": ["@Array[_Has_fn_sum[_V]]", "@ArrayLike"],
    }
    # keepdims' bool is not an input: the overload that has it and an array input stays
    assert "keepdims: builtins.bool" in text


def test_derive_rewrites_every_copy_of_jax_s_modules(tmp_path: Path) -> None:
    """`jaxtypes jax-stubs --out` writes JAX's modules three times (the stub
    package and each checker's search path): a candidate rewrites all three,
    leaves jaxtypes' own stubs alone, and "full" is the tree as it was."""
    stubs = tmp_path / "out"
    copies = [
        "jax-stubs/numpy/__init__.pyi",
        ".search-path/jax/numpy/__init__.pyi",
        ".mypy-path/jax/numpy/__init__.pyi",
    ]
    for rel in [*copies, "jaxtypes-stubs/markers.pyi"]:
        (stubs / rel).parent.mkdir(parents=True, exist_ok=True)
        (stubs / rel).write_text(STUB)
    lean = derive(stubs, tmp_path / "lean", "operators-only")
    for rel in copies:
        assert _signatures((lean / rel).read_text())["exp"] == ["ArrayLike"], rel
    assert (lean / "jaxtypes-stubs/markers.pyi").read_text() == STUB
    full = derive(stubs, tmp_path / "full", "full")
    assert all((full / rel).read_text() == STUB for rel in copies)


def test_shared_callables_gives_functions_of_the_same_overloads_one_class() -> None:
    twin = STUB.split("def untyped")[0].replace("def exp(", "def log(")  # exp's overloads, named log
    text = derive_module("# mypy: ignore-errors\n" + STUB + twin, lambda fns: fns)  # the text, as it is
    shared = shared_callables(text)
    tree = ast.parse(shared)
    declared = {ast.unparse(n.target): ast.unparse(n.annotation) for n in tree.body if isinstance(n, ast.AnnAssign)}
    assert declared["exp"] == declared["log"] != declared["sum"]
    calls = {
        n.name: [
            ast.unparse((m.args.posonlyargs + m.args.args)[1].annotation or ast.Constant(None))
            for m in n.body
            if isinstance(m, ast.FunctionDef)
        ]
        for n in tree.body
        if isinstance(n, ast.ClassDef) and n.name != "Array"
    }
    assert calls[declared["exp"]] == [
        "Array[_Has_fn_inexact[_V]]",
        "_np.generic | _np.ndarray[Any, Any]",
        "builtins.float",
        "ArrayLike",
    ]
    assert shared.startswith("# mypy: ignore-errors\n")  # the module's comments stay
    assert _signatures(shared) == {"untyped": ["ArrayLike"]}
