"""NNX's variable classes in the stub of ``flax.nnx``, reading back their array's dtype.

Flax types ``Variable.__getitem__`` for an array as ``(self:
Variable[jax.Array], key) -> jax.Array`` (flax/nnx/variablelib.py, "proxy
methods"), so ``param[...]`` of an ``nnx.Param[jax.Array[bfloat16]]`` is
``Array[Any]`` once ``jax.Array`` is generic.  The stub of ``flax.nnx``
declares, in place of the re-exports of ``Variable``'s subclasses
(``Param``, ``BatchStat``, ``Cache``...), a subclass of each real class (as
``layer_stubs`` does for layers) whose ``__getitem__`` overloads are Flax's
own with the array's dtype kept: ``(self: Param[Array[D]], key) ->
Array[D]``; everything else is the real class's, inherited.  ``Variable``
itself stays Flax's: Flax's own code makes values of it and of its other
subclasses (``RngKey``), which must stay assignable to ``nnx.Variable``.
Flax's layers declare their parameters ``nnx.Param``, the stub's class.
"""

from __future__ import annotations

import ast
import copy
import functools
from pathlib import Path
from typing import Final

from jaxtypes._stubgen.syntax import absolute_module, parse_expr

__all__ = ["MODULE", "PACKAGE", "declarations", "render_variables", "variable_classes"]

PACKAGE: Final = "nnx/__init__.py"  # the package whose stub declares them
MODULE: Final = "flax.nnx.variablelib"
_SOURCE: Final = "nnx/variablelib.py"
_BASE: Final = "Variable"
_ALIAS: Final = "_jaxtypes_src_variablelib"
_ITEMS: Final = "_JaxtypesVariableItems"  # the overloads, a base of each class
_A, _B, _D = "_JaxtypesVariableA", "_JaxtypesVariableB", "_JaxtypesVariableD"
_JAX_ARRAY: Final = "jax.Array"


@functools.lru_cache(maxsize=None)
def _variablelib(root: Path) -> ast.Module:
    """Flax's variablelib, parsed once for the classes, their overloads and docstrings."""
    return ast.parse((root / _SOURCE).read_text(encoding="utf-8"))


def variable_classes(root: Path) -> dict[str, str]:
    """{class: its base class} for each class of Flax's variablelib deriving
    from ``Variable`` that ``flax.nnx`` re-exports, bases first."""
    package = ast.parse((root / PACKAGE).read_text(encoding="utf-8"))
    exported = {
        alias.name
        for node in package.body
        if isinstance(node, ast.ImportFrom) and absolute_module(node, "flax.nnx") == MODULE
        for alias in node.names
        if alias.asname in (None, alias.name)
    }
    source = _variablelib(root)
    bases: dict[str, str] = {}
    for node in source.body:
        if not isinstance(node, ast.ClassDef):
            continue
        if node.name == _BASE:
            bases[_BASE] = ""
            continue
        for base in node.bases:
            name = base.value.id if isinstance(base, ast.Subscript) and isinstance(base.value, ast.Name) else None
            if name in bases:  # defined after its base in the module
                bases[node.name] = name
                break
    return {name: base for name, base in bases.items() if name in exported and name != _BASE}


class _Retyped(ast.NodeTransformer):
    """Flax's annotation in the stub's names; ``jax.Array`` given the dtype ``_D``."""

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        spelled = ast.unparse(node)
        if spelled == _JAX_ARRAY:
            return parse_expr(f"_jaxtypes_jax.Array[{_D}]")
        if spelled == "tp.Any":
            return ast.Name("_JaxtypesAny")
        return node

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return ast.Name({"B": _B, _BASE: _ITEMS}.get(node.id, node.id))


def _annotation(node: ast.expr | None) -> str:
    # (a copy: the transformer rewrites in place, and the parsed source is shared)
    return ast.unparse(_Retyped().visit(copy.deepcopy(node))) if node is not None else "_JaxtypesAny"


def _getitem_overloads(root: Path) -> list[str]:
    """Flax's overloads of ``Variable.__getitem__``, an array's dtype kept."""
    source = _variablelib(root)
    variable = next(n for n in source.body if isinstance(n, ast.ClassDef) and n.name == _BASE)
    found: list[str] = []
    for fn in variable.body:
        if not (isinstance(fn, ast.FunctionDef) and fn.name == "__getitem__" and fn.decorator_list):
            continue  # the implementation, after its overloads
        this, key = fn.args.args[:2]
        this_part = f"self: {_annotation(this.annotation)}" if this.annotation is not None else "self"
        found.append(
            "    @_jaxtypes_overload\n"
            f"    def __getitem__({this_part}, key: {_annotation(key.annotation)}) -> {_annotation(fn.returns)}:\n"
            "        ...\n"
        )
    return found


def render_variables(root: Path) -> str:
    """The stub's declarations of NNX's variable classes (``_PRELUDE`` of
    layer_stubs is above them)."""
    classes = variable_classes(root)
    lines = [
        f"import {MODULE} as {_ALIAS}",
        *(f"{var} = _JaxtypesTypeVar({var!r})" for var in (_A, _B, _D)),
        "",
        "@_jaxtypes_type_check_only",
        f"class {_ITEMS}(_JaxtypesGeneric[{_A}]):",
        *_getitem_overloads(root),
    ]
    for name, base in classes.items():
        # A subclass of a subclass (Perturbation of Intermediate) reaches the
        # overloads through the stub's base, which is also what it derives from.
        bases = f"{_ITEMS}[{_A}], {_ALIAS}.{name}[{_A}]" if base == _BASE else f"{_ALIAS}.{name}[{_A}], {base}[{_A}]"
        lines.append(f"class {name}({bases}):\n    ...\n")
    return "\n".join(lines) + "\n"


def declarations(root: Path) -> list[ast.stmt]:
    """``render_variables`` as statements, each class with Flax's docstring
    (an IDE shows the stub's class on hover)."""
    docs = {
        node.name: ast.get_docstring(node, clean=False)
        for node in _variablelib(root).body
        if isinstance(node, ast.ClassDef)
    }
    body = ast.parse(render_variables(root)).body
    for node in body:
        doc = docs.get(node.name) if isinstance(node, ast.ClassDef) else None
        if isinstance(node, ast.ClassDef) and doc:
            node.body = [ast.Expr(ast.Constant(doc))]  # in place of its ``...``
    return body
