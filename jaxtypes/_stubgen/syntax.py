"""Syntax-tree helpers the stub generators share: parsing annotation texts,
copying a function's signature into an overload, the view a checker has of a
module (its ``TYPE_CHECKING`` branches, its exported names), and the import
lines a stub keeps of a JAX module."""

from __future__ import annotations

import ast
import builtins
import copy
import functools
from collections.abc import Iterable
from pathlib import Path
from typing import Final


def positional_params(fn: ast.FunctionDef) -> list[ast.arg]:
    return fn.args.posonlyargs + fn.args.args


def all_params(fn: ast.FunctionDef) -> list[ast.arg]:
    return positional_params(fn) + fn.args.kwonlyargs


@functools.lru_cache(maxsize=None)
def parse_expr(text: str) -> ast.expr:
    """The expression ``text`` as a syntax tree (an annotation, a default):
    one tree per text, shared by the signatures that use it, as nothing
    changes an expression in place (``copy_signature``)."""
    return ast.parse(text, mode="eval").body


def copy_signature(fn: ast.FunctionDef) -> ast.FunctionDef:
    """A copy of ``fn`` whose parameter lists and parameters are its own, to
    be changed; the expressions in them (annotations, defaults) and the body
    are shared, as nothing changes those in place.  (A deep copy of every
    overload was a third of ``jaxtypes jax-stubs``' time.)"""
    out = copy.copy(fn)
    args = out.args = copy.copy(fn.args)
    args.posonlyargs = [copy.copy(a) for a in args.posonlyargs]
    args.args = [copy.copy(a) for a in args.args]
    args.kwonlyargs = [copy.copy(a) for a in args.kwonlyargs]
    args.vararg = copy.copy(args.vararg)
    args.kwarg = copy.copy(args.kwarg)
    args.defaults = list(args.defaults)
    args.kw_defaults = list(args.kw_defaults)
    out.decorator_list = list(fn.decorator_list)
    return out


def as_overload(fn: ast.FunctionDef) -> ast.FunctionDef:
    """A copy of ``fn`` (``copy_signature``) decorated ``@overload`` only."""
    out = copy_signature(fn)
    out.decorator_list = [ast.Name("overload", ast.Load())]
    return out


def is_overload(fn: ast.FunctionDef) -> bool:
    """Whether ``fn`` is decorated ``@overload`` (``typing.overload`` too)."""
    return any(ast.unparse(d).split(".")[-1] == "overload" for d in fn.decorator_list)


def declarations(body: Iterable[ast.stmt]) -> dict[str, list[ast.FunctionDef]]:
    """{name: its declarations} of the functions a module (or class) body
    defines: its ``@overload`` signatures where it has some, else its last
    definition (the one that stands at run time)."""
    defs: dict[str, list[ast.FunctionDef]] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef):
            defs.setdefault(node.name, []).append(node)
    return {name: [f for f in fs if is_overload(f)] or fs[-1:] for name, fs in defs.items()}


def without_param(fn: ast.FunctionDef, name: str) -> ast.FunctionDef:
    """A copy of ``fn`` without its parameter ``name`` (one with a default),
    the positional parameters after it keyword-only: a call that passes
    ``name`` by position or keyword then matches none of its signatures."""
    out = copy_signature(fn)
    args = out.args
    if any(a.arg == name for a in args.kwonlyargs):
        i = [a.arg for a in args.kwonlyargs].index(name)
        del args.kwonlyargs[i]
        del args.kw_defaults[i]
        return out
    positional = args.posonlyargs + args.args
    index = [a.arg for a in positional].index(name)
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    tail, tail_defaults = positional[index + 1 :], defaults[index + 1 :]
    kept = positional[:index]
    args.posonlyargs = [a for a in kept if a in args.posonlyargs]
    args.args = [a for a in kept if a not in args.posonlyargs]
    args.defaults = [d for d in defaults[:index] if d is not None]
    args.kwonlyargs = tail + args.kwonlyargs
    args.kw_defaults = tail_defaults + args.kw_defaults
    return out


def set_keyword(fn: ast.FunctionDef, name: str, annotation: str | None = None, *, default: bool) -> None:
    """Give ``fn``'s keyword-only parameter ``name`` an ``annotation`` (None:
    keep its own) and a default (``...``) or none, in place."""
    names = [a.arg for a in fn.args.kwonlyargs]
    if name not in names:
        raise ValueError(f"{fn.name} has no keyword-only parameter {name!r}; it has {', '.join(names) or 'none'}")
    i = names.index(name)
    if annotation is not None:
        fn.args.kwonlyargs[i] = ast.arg(name, parse_expr(annotation))
    fn.args.kw_defaults[i] = ast.Constant(...) if default else None


def required_overloads(fn: ast.FunctionDef, name: str) -> list[ast.FunctionDef]:
    """``fn`` with parameter ``name`` required, as overloads covering every
    call that passes it: by keyword (a keyword-only parameter), and, for a
    positional one, by position (it and the positional parameters before it
    without defaults).  A default would let a call that omits it match, with
    the parameter's TypeVar unsolved."""
    out: list[ast.FunctionDef] = []
    keyword = copy_signature(fn)
    args = keyword.args
    if any(a.arg == name for a in args.kwonlyargs):
        i = [a.arg for a in args.kwonlyargs].index(name)
        args.kw_defaults[i] = None
        return [keyword]
    positional = args.posonlyargs + args.args
    index = [a.arg for a in positional].index(name)
    if index >= len(args.posonlyargs):  # may be given by keyword
        j = index - len(args.posonlyargs)
        param = args.args[j]
        defaults = [None] * (len(args.args) - len(args.defaults)) + list(args.defaults)
        del args.args[j]
        del defaults[j]
        # it, and the parameters after it (with their defaults), keyword-only
        tail = args.args[j:]
        args.args = args.args[:j]
        args.defaults = [d for d in defaults[:j] if d is not None]
        args.kwonlyargs = tail + [param] + args.kwonlyargs
        args.kw_defaults = [d for d in defaults[j:]] + [None] + args.kw_defaults
        out.append(keyword)
    by_position = copy_signature(fn)
    pargs = by_position.args
    n_positional = len(pargs.posonlyargs) + len(pargs.args)
    first_default = n_positional - len(pargs.defaults)
    kept_defaults = pargs.defaults[max(0, index + 1 - first_default) :]
    pargs.defaults = kept_defaults
    out.append(by_position)
    return out


class ModuleShapeError(Exception):
    """A runtime module holds more than re-exports: no stub is made for it."""


def absolute_module(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from ... import`` names, absolute: ``package`` is the
    package the importing module is in (the module itself for an ``__init__``)."""
    if not node.level:
        return node.module or ""
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def module_file(root: Path, module: str) -> Path | None:
    """The source of ``jax.<...>`` in the installation rooted at ``root``."""
    parts = module.split(".")
    if parts[0] != "jax":
        return None
    base = root.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def stub_def(fn: ast.FunctionDef) -> ast.FunctionDef:
    """A runtime function as a stub declaration: no decorators, no body, ``...`` defaults."""
    out = copy_signature(fn)
    out.decorator_list = []
    out.body = [ast.Expr(ast.Constant(...))]
    out.args.defaults = [ast.Constant(...) for _ in out.args.defaults]
    out.args.kw_defaults = [None if d is None else ast.Constant(...) for d in out.args.kw_defaults]
    return out


def annotation_names(fn: ast.FunctionDef) -> set[str]:
    """The names ``fn``'s annotations use (in string forward references too):
    what a stub declaring it must import."""
    names: set[str] = set()
    annotations = [
        a.annotation
        for a in all_params(fn) + [fn.args.vararg, fn.args.kwarg]
        if a is not None and a.annotation is not None
    ]
    for annotation in annotations + ([fn.returns] if fn.returns is not None else []):
        literal_values = {
            id(value)
            for node in ast.walk(annotation)
            if isinstance(node, ast.Subscript) and ast.unparse(node.value).split(".")[-1] == "Literal"
            for value in ast.walk(node.slice)
        }
        for node in ast.walk(annotation):
            if id(node) in literal_values:  # Literal['reduced']: a value, not a forward reference
                continue
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):  # "Array" forward refs
                try:
                    names |= {n.id for n in ast.walk(parse_expr(node.value)) if isinstance(n, ast.Name)}
                except SyntaxError:
                    pass
    return names


def _type_checking_test(test: ast.expr) -> bool | None:
    """True for ``TYPE_CHECKING`` (``typing.TYPE_CHECKING``...), False for its
    negation, None for any other test."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    inner = test.operand if isinstance(test, ast.UnaryOp) and negated else test
    name = inner.id if isinstance(inner, ast.Name) else inner.attr if isinstance(inner, ast.Attribute) else ""
    return None if name != "TYPE_CHECKING" else not negated


def checker_view(body: Iterable[ast.stmt]) -> list[ast.stmt]:
    """``body`` as a type checker reads it: an ``if TYPE_CHECKING:`` block
    replaced by its body, an ``if not TYPE_CHECKING:`` one by its ``else``
    (JAX declares deprecated names so, with a module ``__getattr__`` for the
    runtime)."""
    out: list[ast.stmt] = []
    for node in body:
        seen = _type_checking_test(node.test) if isinstance(node, ast.If) else None
        if isinstance(node, ast.If) and seen is not None:
            out += checker_view(node.body if seen else node.orelse)
        else:
            out.append(node)
    return out


def stub_view(body: Iterable[ast.stmt]) -> list[ast.stmt]:
    """``checker_view(body)`` less what a stub leaves out (``pass``), with the
    imports of an ``if`` made of imports only (``if jaxlib_version >= N:
    from ... import thread_guard``) taken out of it: a checker reads such a
    name as declared, possibly unbound."""
    out: list[ast.stmt] = []
    for node in checker_view(body):
        if isinstance(node, ast.Pass):
            continue
        branches = node.body + node.orelse if isinstance(node, ast.If) else []
        if branches and all(isinstance(n, (ast.Import, ast.ImportFrom, ast.Pass)) for n in branches):
            out += [n for n in branches if not isinstance(n, ast.Pass)]
        else:
            out.append(node)
    return out


def exported_names(body: Iterable[ast.stmt], stub: bool = False) -> set[str]:
    """The public names a module body binds, as a checker reads it (``del``
    removes one; names bound in ``try``/``if`` blocks count; ``import m`` binds
    none that counts).  In a ``stub``,
    an import exports a name only in the ``import a as a`` / ``from m import a
    as a`` forms (PEP 484)."""
    names: set[str] = set()
    for node in checker_view(body):
        if isinstance(node, ast.Delete):
            names -= {t.id for t in node.targets if isinstance(t, ast.Name)}
            continue
        bound: list[str] = []
        if isinstance(node, ast.Import):
            # (``import typing``, ``import jax._src.lax``: modules a module uses, not its API)
            bound = [a.asname for a in node.names if a.asname and (not stub or a.asname == a.name)]
        elif isinstance(node, ast.ImportFrom):
            bound = [a.asname or a.name for a in node.names if a.name != "*" and (not stub or a.asname == a.name)]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound = [node.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(node, ast.Try):
            inner = node.body + node.orelse + node.finalbody + [s for h in node.handlers for s in h.body]
            names |= exported_names(inner, stub)
        elif isinstance(node, ast.If):
            names |= exported_names(node.body, stub) | exported_names(node.orelse, stub)
        names |= {n for n in bound if not n.startswith("_")}
    return names


def check_exports(source: ast.Module, stub: ast.Module, where: str) -> None:
    """``ModuleShapeError`` when ``stub`` does not bind every public name
    JAX's ``source`` module binds: a stub must not hide what JAX exports."""
    hidden = exported_names(source.body) - exported_names(stub.body, stub=True)
    if hidden:
        raise ModuleShapeError(f"{where}: the stub would not declare {', '.join(sorted(hidden))}")


def exported_import(node: ast.ImportFrom) -> list[ast.stmt]:
    """``node`` as a stub keeps it, exporting what it binds as JAX's module
    does: ``from m import a as b`` (b public) exports nothing from a stub
    (PEP 484), so it becomes ``from m import a as _jaxtypes_b; b = _jaxtypes_b``."""
    renamed = [a for a in node.names if a.asname and a.asname != a.name and not a.asname.startswith("_")]
    if not renamed:
        return [node]
    out = copy.deepcopy(node)
    out.names = [ast.alias(a.name, f"_jaxtypes_{a.asname}") if a in renamed else a for a in node.names]
    return [out, *(ast.parse(f"{a.asname} = _jaxtypes_{a.asname}").body[0] for a in renamed)]


def is_alias(node: ast.stmt) -> bool:
    """``pvary = _deprecated_pvary``, ``infeed = jax._src.lax.lax.infeed``:
    a public name bound to another name, which a stub can keep as it is."""
    value = node.value if isinstance(node, ast.Assign) else None
    while isinstance(value, ast.Attribute):
        value = value.value
    return (
        isinstance(node, ast.Assign)
        and isinstance(value, ast.Name)
        and all(isinstance(t, ast.Name) for t in node.targets)
    )


def is_private_machinery(node: ast.stmt) -> bool:
    """Deprecation machinery a stub can leave out: ``if not TYPE_CHECKING:``
    blocks, ``del``, assignments to private names."""
    if isinstance(node, ast.Delete):
        return True
    if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test) and not node.orelse:
        return True
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return all(isinstance(t, ast.Name) and t.id.startswith("_") for t in targets)
    return False


BUILTINS: Final = frozenset(dir(builtins))  # names a stub uses without importing them


class Qualifier(ast.NodeTransformer):
    """Names of the defining module, written as attributes of its alias, so
    that an annotation copied from it means the same in the package's stub."""

    def __init__(self, alias: str, names: set[str]) -> None:
        self.alias, self.names = alias, names

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in self.names:
            return ast.copy_location(ast.Attribute(ast.Name(self.alias, ast.Load()), node.id, ast.Load()), node)
        return node


def qualified_stub(fn: ast.FunctionDef, qualify: Qualifier) -> ast.FunctionDef:
    """``fn`` of a library's source as a stub declaration (``stub_def``),
    its annotations qualified, with its docstring as written (an IDE's
    hover shows it, cleaned, as it does the library's own)."""
    out = stub_def(fn)
    doc = ast.get_docstring(fn, clean=False)
    if doc is not None:
        out.body = [ast.Expr(ast.Constant(doc))]
    for a in [*all_params(out), out.args.vararg, out.args.kwarg]:
        if a is not None and a.annotation is not None:
            a.annotation = qualify.visit(copy.deepcopy(a.annotation))
    out.returns = qualify.visit(copy.deepcopy(out.returns)) if out.returns is not None else None
    out.type_comment = None
    return out


def module_names(tree: ast.Module) -> set[str]:
    """The names a module defines at its top level, also inside its ``if``
    and ``try`` blocks (equinox's attention defines ``_Mask`` under ``if
    TYPE_CHECKING``)."""
    names: set[str] = set()
    for node in _top_level(tree.body):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of ``body``, with those of its ``if`` and ``try`` blocks."""
    out: list[ast.stmt] = []
    for node in body:
        out.append(node)
        if isinstance(node, ast.If):
            out += _top_level(node.body) + _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            blocks = [node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)]
            out += [n for block in blocks for n in _top_level(block)]
    return out
