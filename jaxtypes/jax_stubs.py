"""``jaxtypes jax-stubs``: make the installed JAX's own ``jax.Array`` carry its dtype.

JAX declares ``jax.Array`` in the inline stub ``jax/_src/basearray.pyi``.  This
module reads that file from the JAX installed in the current environment and
writes a transformed version into a stub directory (``./typings`` by default).
In it:

* ``Array`` is ``Generic[DT]`` with ``DT`` defaulting to ``Any``, so bare
  ``jax.Array`` (and every JAX function's return type) is ``Array[Any]``;
* every member JAX declares is kept, with JAX's own declaration, except
  - the operators and the methods whose dtype ``jaxtypes`` computes (``sum``,
    ``mean``, ``max``, ``clip``, ``round``, ``item``, ...): the promotion-aware
    descriptors of ``jaxtypes.Array`` (``jaxtypes.stubgen``), which for
    ``Array[Any]`` fall back to JAX's own signature;
  - ``real``, ``imag``, ``__abs__``, ``astype``: ``jaxtypes``'s typed
    signatures (``astype`` keeps JAX's as its last overload);
  - the members that keep the dtype (``reshape``, ``T``, ``__getitem__``,
    ``copy``, ``.at[...].set(...)``, ...), which return ``Array[DT]``, and
    ``all``/``any``, which return ``Array[bool_]``;
* ``jaxtypes``'s table and descriptor classes are defined alongside, and
  ``jaxtypes/_array.pyi`` re-exports the class: with the stubs,
  ``jaxtypes.Array`` *is* ``jax.Array``, interchangeable in both directions.

Each checker needs the override laid out its own way (``render``): partial
stub packages at the top for pyright and basedpyright (whose default
``stubPath`` is ``typings``), regular packages under ``.mypy-path`` for mypy,
namespace packages under ``.search-path`` for pyrefly and ty.  Nothing of JAX
is kept in this repository: what is copied is read from the installation.

The transformation relies on parts of ``basearray.pyi`` (``relied_upon``: the
members it replaces or retypes, the index-update helpers, ``ArrayLike``).  Their
fingerprint must be one of ``SUPPORTED``; otherwise generation is refused
(``UnsupportedJAX``) rather than silently dropping what a new JAX changed.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import importlib.metadata
import importlib.util
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from jaxtypes import stubgen
from jaxtypes.stub_record import (
    BASEARRAY, DISTRIBUTION, MARK, MYPY_DIR, SEARCH_DIR, Staleness, installed_stubs,
    recorded_versions, staleness,
)

__all__ = [
    "SUPPORTED", "UnsupportedJAX", "JaxInstall", "locate_jax", "relied_upon",
    "fingerprint", "check_supported", "supported_versions", "render_basearray",
    "render", "write", "generate", "setup_lines", "BASEARRAY", "LAYOUTS",
    "MYPY_DIR", "SEARCH_DIR", "MARK", "StubsError", "DISTRIBUTION", "build_wheel", "install",
    "recorded_versions", "installed_stubs", "Staleness", "staleness", "Setting", "setup",
]


# fingerprint of the relied-upon parts of jax/_src/basearray.pyi -> the JAX
# versions in which it was seen.  A new JAX whose fingerprint is listed works
# as is; an unknown fingerprint is refused.  To support one: read what changed
# (``relied_upon`` names the parts), adapt this module, add the fingerprint.
# One version of each fingerprint was checked with benchmarks/jax_versions.py
# (the README's table); versions sharing a fingerprint have the same
# relied-upon parts.  The generator renders every JAX from 0.4.30 on; the
# fingerprints not listed (0.4.30-0.4.34, 0.6.x, 0.7.0-0.7.1, 0.8.0-0.8.1) are
# refused only because no version of them has been checked yet.
SUPPORTED: Final[Mapping[str, tuple[str, ...]]] = {
    "cf5586d9089b3e8b": ("0.4.35", "0.4.36", "0.4.37", "0.4.38"),
    "8de33be836123057": ("0.5.0", "0.5.1", "0.5.2", "0.5.3"),
    "e1c1a7169e661ebe": ("0.7.2",),
    "59f38bad6aef4546": ("0.8.2", "0.8.3", "0.9.0", "0.9.0.1", "0.9.1"),
    "4532bf7a5368319d": ("0.9.2",),
    "e420ae4110c67ff7": ("0.10.0", "0.10.1", "0.10.2"),
}

# Members whose JAX signature is kept and only the returned Array gets a dtype.
SAME_DTYPE: Final = frozenset([
    "T", "mT", "reshape", "transpose", "conj", "conjugate", "__getitem__", "copy",
    "flatten", "ravel", "squeeze", "swapaxes", "sort", "diagonal", "repeat", "take",
    "compress", "byteswap", "block_until_ready", "to_device", "addressable_data",
])
BOOL_RESULT: Final = frozenset(["all", "any"])
# Of those, the ones an older supported JAX does not declare (byteswap before
# 0.10, to_device before 0.4.31): not retyped, and not named as absent.
OPTIONAL: Final = frozenset(["byteswap", "to_device"])
# Members jaxtypes declares but JAX's declaration is kept (no dtype involved).
KEEP_JAX: Final = frozenset([
    "dtype", "shape", "ndim", "size", "tolist", "__array__", "__len__", "__bool__",
    "__int__", "__float__", "__complex__", "__index__",
])
# Every other member jaxtypes's Array declares replaces JAX's (the operators'
# and methods' promotion descriptors, real/imag/abs/astype), or is added where
# JAX has none (_dt, __hash__).  The members of JAX's Array the generator
# relies on, as they are or as absent: their declarations make the fingerprint.
# (A jaxtypes whose Array replaces a member not listed here fails generation
# with an internal error, and the tests: list it, and update SUPPORTED.)
RELIED_MEMBERS: Final = frozenset(
    [f"__{op}__" for op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod",
                            "pow", "and", "or", "xor", "lshift", "rshift")]
    + [f"__r{op}__" for op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod",
                               "pow", "and", "or", "xor", "lshift", "rshift")]
    + [f"__{op}__" for op in ("lt", "le", "gt", "ge", "eq", "ne", "neg", "pos", "abs", "invert")]
    + ["sum", "prod", "mean", "max", "min", "argmax", "argmin", "clip", "round", "real",
       "imag", "item", "astype", "at", "__iter__", "_dt", "__hash__"]
) | SAME_DTYPE | BOOL_RESULT
# Index-update helpers: generic in the dtype, every Array they return keeps it.
INDEX_HELPERS: Final = ("_IndexUpdateHelper", "_IndexUpdateRef")

HEADER: Final = (
    MARK + " (jaxtypes {jaxtypes}, JAX {jax}) from\n"
    "# {source}; do not edit.  Regenerate after upgrading JAX or jaxtypes.\n"
    "# mypy: ignore-errors\n"
)


class StubsError(Exception):
    """The stubs cannot be made, written or installed (one line, for the CLI)."""


class UnsupportedJAX(StubsError):
    """The installed JAX is missing, or its stubs are not what the generator knows."""


@dataclass(frozen=True)
class JaxInstall:
    root: Path  # the jax package directory
    version: str

    @property
    def basearray(self) -> Path:
        return self.root / BASEARRAY


def supported_versions() -> list[str]:
    return sorted({v for vs in SUPPORTED.values() for v in vs},
                  key=lambda v: tuple(int(p) if p.isdigit() else 0 for p in v.split(".")))


def locate_jax() -> JaxInstall:
    """The JAX installed in this environment (found without importing it)."""
    spec = importlib.util.find_spec("jax")
    if spec is None or not spec.submodule_search_locations:
        raise UnsupportedJAX(
            "JAX is not installed in this Python environment; install it (pip install jax) "
            "and run `jaxtypes jax-stubs` with that environment's Python"
        )
    root = Path(next(iter(spec.submodule_search_locations)))
    try:
        version = importlib.metadata.version("jax")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return JaxInstall(root, version)


# ---------------------------------------------------------------- reading
def _module_classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}


def _member_name(node: ast.stmt) -> str | None:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.name
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id
    return None


def _members(cls: ast.ClassDef) -> dict[str, list[ast.stmt]]:
    """name -> its definitions (several for overloads), in order."""
    out: dict[str, list[ast.stmt]] = {}
    for node in cls.body:
        name = _member_name(node)
        if name is not None:
            out.setdefault(name, []).append(node)
    return out


def _parse(source: str, what: str) -> ast.Module:
    try:
        return ast.parse(source)
    except SyntaxError as e:
        raise UnsupportedJAX(f"{what} does not parse: {e}") from None


def _canon(x: object) -> str:
    """A dump of an AST that is the same on every Python version: no positions,
    no comments, no empty or None fields, none of the fields newer Pythons add."""
    if isinstance(x, ast.AST):
        fields = []
        for f in x._fields:
            if f in ("type_params", "type_comment", "kind"):
                continue
            v = getattr(x, f, None)
            if v is None or v == []:
                continue
            fields.append(f"{f}={_canon(v)}")
        return f"{type(x).__name__}({', '.join(fields)})"
    if isinstance(x, list):
        return "[" + ", ".join(_canon(v) for v in x) + "]"
    return repr(x)


def relied_upon(source: str) -> dict[str, str]:
    """The parts of basearray.pyi the transformation relies on: name -> their
    canonical AST dump (no positions or comments: formatting does not count).
    A part that is absent is recorded as ``<missing>``."""
    tree = _parse(source, "jax/_src/basearray.pyi")
    classes = _module_classes(tree)
    parts: dict[str, str] = {}
    array = classes.get("Array")
    if array is None:
        return {"class Array": "<missing>"}
    parts["class Array"] = " ".join(
        _canon(n) for n in [*array.bases, *array.keywords, *array.decorator_list])
    members = _members(array)
    for name in sorted(RELIED_MEMBERS):
        nodes = members.get(name)
        parts[f"Array.{name}"] = "\n".join(_canon(n) for n in nodes) if nodes else "<missing>"
    for name in INDEX_HELPERS:
        parts[f"class {name}"] = _canon(classes[name]) if name in classes else "<missing>"
    alias = [n for n in tree.body if isinstance(n, ast.Assign)
             and any(isinstance(t, ast.Name) and t.id == "ArrayLike" for t in n.targets)]
    parts["ArrayLike"] = _canon(alias[0]) if alias else "<missing>"
    return parts


def fingerprint(source: str) -> str:
    """A short hash of ``relied_upon(source)``."""
    text = "\n".join(f"{k}: {v}" for k, v in sorted(relied_upon(source).items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def check_supported(source: str, version: str, where: str = "jax/_src/basearray.pyi") -> str:
    """The fingerprint of ``source``; ``UnsupportedJAX`` if it is not a known one."""
    fp = fingerprint(source)
    if fp in SUPPORTED:
        return fp
    # jaxtypes adds _dt and __hash__; older JAX lacks the members OPTIONAL lists.
    expected_absent = {"Array._dt", "Array.__hash__"} | {f"Array.{m}" for m in OPTIONAL}
    missing = [k for k, v in relied_upon(source).items()
               if v == "<missing>" and k not in expected_absent]
    detail = f" (absent: {', '.join(missing)})" if missing else ""
    versions = supported_versions()
    why = (f"its {where} is not the one JAX {version} ships (modified?)" if version in versions
           else f"its {where} differs from what this jaxtypes knows")
    raise UnsupportedJAX(
        f"the installed JAX {version} is not supported: {why} in the parts the "
        f"generator transforms{detail} (fingerprint {fp}). Supported JAX versions: "
        f"{', '.join(versions)}. Install one of them, or a jaxtypes release that "
        "supports this JAX."
    )


# ------------------------------------------------------------------ writing
def _defined_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _prelude() -> tuple[str, str, list[str]]:
    """jaxtypes's _array.pyi before ``class Array`` (without its header,
    docstring and ``__all__``), the keywords of its class line (``metaclass=``)
    and Array's body lines."""
    head, class_line, body = stubgen.array_stub_parts()
    header = ast.parse(class_line + " ...").body[0]
    assert isinstance(header, ast.ClassDef)
    keywords = "".join(f", {ast.unparse(k)}" for k in header.keywords)
    lines = head.splitlines()
    tree = ast.parse(head)
    drop: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                or isinstance(node, ast.Assign) and _member_name(node) == "__all__":
            drop |= set(range(node.lineno - 1, (node.end_lineno or node.lineno)))
    kept = [line for i, line in enumerate(lines) if i not in drop and not line.startswith("# Generated")]
    return "\n".join(kept).strip("\n") + "\n", keywords, body


def _prelude_names() -> list[str]:
    head, _, _ = _prelude()
    return sorted(_defined_names(ast.parse(head)))


def _reindent(lines: Sequence[str], col: int, indent: str = "    ") -> list[str]:
    out = []
    for line in lines:
        stripped = line[col:] if line[:col].strip() == "" else line.lstrip()
        out.append(indent + stripped if stripped else "")
    return out


class _Source:
    """basearray.pyi's lines, with span replacements applied at the end."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.edits: list[tuple[int, int, int, int, str]] = []

    def replace(self, node: ast.AST, new: str) -> None:
        self.edits.append((node.lineno, node.col_offset,  # type: ignore[attr-defined]
                           node.end_lineno, node.end_col_offset, new))  # type: ignore[attr-defined]

    def text(self, first: int, last: int) -> list[str]:
        """Lines first..last (1-based, inclusive) with the edits inside them."""
        lines = [line.encode() for line in self.lines]  # ast offsets count UTF-8 bytes
        for l0, c0, l1, c1, new in sorted(self.edits, reverse=True):
            if first <= l0 and l1 <= last:
                lines[l0 - 1] = lines[l0 - 1][:c0] + new.encode() + lines[l1 - 1][c1:]
                del lines[l0:l1]
                last -= l1 - l0
        return [b.decode() for b in lines[first - 1:last]]


def _start(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno] + [d.lineno for d in decorators])


def _retype_returns(src: _Source, node: ast.stmt, names: Iterable[str], new: str) -> int:
    """Replace a returned bare ``Array`` (or ``name``) by ``new``; the count done."""
    done = 0
    for fn in ast.walk(node):
        if isinstance(fn, ast.FunctionDef) and isinstance(fn.returns, ast.Name) \
                and fn.returns.id in names:
            src.replace(fn.returns, new.format(name=fn.returns.id))
            done += 1
    return done


def _jaxtypes_members(body: list[str]) -> dict[str, list[str]]:
    """Array's members in jaxtypes's generated stub: name -> lines (4-space indent)."""
    text = "class Array:\n" + "\n".join(body) + "\n"
    tree = ast.parse(text)
    cls = tree.body[0]
    assert isinstance(cls, ast.ClassDef)
    lines = text.splitlines()
    out: dict[str, list[str]] = {}
    for node in cls.body:
        name = _member_name(node)
        if name is not None:
            out.setdefault(name, []).extend(lines[_start(node) - 1:node.end_lineno])
    return out


def _member_policy(ours: Mapping[str, list[str]], jax_members: Mapping[str, list[ast.stmt]]
                   ) -> tuple[set[str], list[str]]:
    """(members of JAX's Array that jaxtypes's declaration replaces, members
    jaxtypes declares that JAX's Array lacks)."""
    retyped = KEEP_JAX | SAME_DTYPE | BOOL_RESULT | {"__iter__"}
    replaced = {n for n in ours if n in jax_members and n not in retyped}
    added = [n for n in ours if n not in jax_members]
    unlisted = sorted((replaced | set(added)) - RELIED_MEMBERS)
    if unlisted:  # a newer jaxtypes.stubgen: this module must learn about it
        raise RuntimeError(
            f"jaxtypes's Array replaces or adds {', '.join(unlisted)}, which "
            "jaxtypes.jax_stubs.RELIED_MEMBERS does not list: add them there and "
            "update SUPPORTED (the fingerprint covers them)")
    return replaced, added


ANY_DTYPE: Final = "_AnyDtype"


def _descriptor_prelude(prelude: str, body: list[str], jax_members: Mapping[str, list[ast.stmt]],
                        src: _Source) -> tuple[str, list[str], set[str]]:
    """The prelude with its operator/method descriptors rebuilt for jax.Array;
    the classes it needs (appended after JAX's module); the descriptors' names.

    * The descriptors dispatch on their own type argument, not on ``obj``:
      Array declares ``__add__: _AddOp[DT]`` and ``_AddOp.__get__``'s
      overloads are keyed on ``self`` (``_AddOp[_Has_add[_F]]``), with ``obj:
      object`` in each.  For a bare ``jax.Array`` (``Array[Any]``) an ``obj``
      containing ``Any`` made every overload match, and mypy, pyrefly and ty
      then answer ``Any`` for an ambiguous match (the typing spec's overload
      rule), so ``(b + b).typo`` went unreported; ``self`` takes no part in that
      rule in mypy and pyrefly, which take the first match.
    * ``Array[Any]`` keeps JAX's own signature: each descriptor's first
      instance overload is for ``_AddOp[_AnyDtype]`` (only ``Any`` matches it,
      no marker derives from ``_AnyDtype``) and returns a table whose
      ``__call__`` is JAX's declaration of the member, so bare arrays give
      ``Array`` (``Array[Any]``) as JAX's stubs do, and JAX's argument types
      are checked.
    * Every descriptor is also callable with anything: pyright matches a
      protocol member (``sum()``'s ``SupportsAdd``, ``max()``'s
      ``SupportsRichComparison``) against the attribute's declared type without
      applying ``__get__``.
    """
    tree = ast.parse(prelude)
    descriptors = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)
                   and any(isinstance(f, ast.FunctionDef) and f.name == "__get__" for f in node.body)}
    users: dict[str, list[str]] = {}
    cls = ast.parse("class Array:\n" + "\n".join(body) + "\n").body[0]
    assert isinstance(cls, ast.ClassDef)
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and isinstance(node.annotation, ast.Name) and node.annotation.id in descriptors:
            users.setdefault(node.annotation.id, []).append(node.target.id)
    lines = prelude.splitlines()
    replace: dict[int, tuple[int, list[str]]] = {}  # first line (1-based) -> (last line, new lines)
    extra = ["@type_check_only",
             f"class {ANY_SCALAR}(np.generic):",
             '    """Matches only an unknown numpy scalar type: ``np.dtype[Any]`` in ``astype``."""',
             "",
             "@type_check_only",
             f"class {ANY_DTYPE}:",
             '    """No dtype marker derives from it: ``_AddOp[_AnyDtype]`` matches only ``_AddOp[Any]``."""',
             ""]
    for name, node in descriptors.items():
        members = users.get(name, [])
        jax_defs = [d for m in members for d in jax_members.get(m, [])
                    if isinstance(d, ast.FunctionDef)]
        jax_table = None
        if members and len(jax_defs) == len(members):
            shapes = {_canon(ast.FunctionDef(name="", args=d.args, body=[], decorator_list=[],
                                             returns=d.returns)) for d in jax_defs}
            if len(shapes) != 1:
                raise UnsupportedJAX(
                    f"JAX declares {', '.join(members)} differently, but jaxtypes "
                    f"types them with one descriptor ({name})")
            first = jax_defs[0]
            text = src.text(first.lineno, first.end_lineno or first.lineno)
            text[0] = text[0].replace(f"def {first.name}(", "def __call__(", 1)
            jax_table = f"_Jax{name}"
            extra += ["@type_check_only", f"class {jax_table}:",
                      f'    """JAX\'s own ``{first.name}``, for ``Array[Any]``."""']
            extra += _reindent(text, first.col_offset) + [""]
        replace[_start(node)] = (node.end_lineno or node.lineno, _self_dispatched(node, jax_table, tree))
    out: list[str] = []
    i = 1
    declared = False
    while i <= len(lines):
        if i in replace:
            if not declared:  # the descriptors' own type parameter
                out += [f"import jaxtypes.markers as {MARKERS_MODULE}", "",
                        f"{DESCRIPTOR_DT} = TypeVar(\"{DESCRIPTOR_DT}\", covariant=True)", ""]
                declared = True
            last, new = replace[i]
            out += new
            i = last + 1
            continue
        out.append(lines[i - 1])
        i += 1
    return "\n".join(out) + "\n", extra, set(descriptors)


DESCRIPTOR_DT: Final = "_DescriptorDT"


MARKERS_MODULE: Final = "_jaxtypes_markers"  # how the stub imports jaxtypes.markers


def _marker_tables() -> tuple[dict[str, dict[str, ast.expr]], set[str]]:
    """{marker: {table attribute (``_add``): its annotation}} from jaxtypes's
    generated markers stub, and every class name that stub defines."""
    tree = ast.parse(stubgen.render_stubs()["jaxtypes/markers.pyi"])
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    marker_names = set(stubgen.MARKER_NAME.values())
    markers = {
        c.name: {n.target.id: n.annotation for n in c.body
                 if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
        for c in classes if c.name in marker_names
    }
    return markers, {c.name for c in classes}


class _Qualify(ast.NodeTransformer):
    """Names defined by jaxtypes.markers, as attributes of the imported module."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in self.names:
            return ast.Attribute(value=ast.Name(MARKERS_MODULE, ast.Load()), attr=node.id, ctx=ast.Load())
        return node


class _Substitute(ast.NodeTransformer):
    def __init__(self, var: str, value: ast.expr) -> None:
        self.var, self.value = var, value

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return self.value if node.id == self.var else node


def _protocol_attribute(prelude: ast.Module, name: str) -> str:
    """The one property of protocol ``name`` (``_Has_add`` -> ``_add``)."""
    for node in prelude.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            props = [f.name for f in node.body if isinstance(f, ast.FunctionDef)]
            if len(props) == 1:
                return props[0]
    raise RuntimeError(f"jaxtypes.stubgen's {name} is not a one-property protocol; "
                       "teach jaxtypes.jax_stubs about it")


def _self_dispatched(node: ast.ClassDef, jax_table: str | None, prelude: ast.Module) -> list[str]:
    """A descriptor class of jaxtypes.stubgen, generic in the array's dtype,
    whose ``__get__`` is keyed on ``self`` (see ``_descriptor_prelude``): one
    overload per marker (``self: _AddOp[float32]`` gives float32's ``_add``
    table; mypy does not bind a ``self`` type through a protocol), then the
    generic fallback of jaxtypes.stubgen for a dtype known only as a TypeVar."""
    name = node.name
    markers, defined = _marker_tables()
    qualify = _Qualify(defined)
    class_access: list[str] = []
    instance: list[str] = []
    for fn in node.body:
        if isinstance(fn, ast.Expr) and isinstance(fn.value, ast.Constant):
            continue  # docstring
        if not (isinstance(fn, ast.FunctionDef) and fn.name == "__get__"):
            raise RuntimeError(f"jaxtypes.stubgen's descriptor {name} has a member other "
                               "than __get__ overloads; teach jaxtypes.jax_stubs about it")
        params = fn.args.posonlyargs + fn.args.args
        obj = params[1].annotation if len(params) == 3 else None
        returns = fn.returns if fn.returns is not None else ast.Name("Any", ast.Load())
        if isinstance(obj, ast.Constant) and obj.value is None:
            class_access += ["    @overload",
                             f"    def __get__(self, obj: None, owner: Any, /) -> {ast.unparse(returns)}: ..."]
            continue
        if not (isinstance(obj, ast.Subscript) and isinstance(obj.value, ast.Name) and obj.value.id == "Array"):
            raise RuntimeError(f"jaxtypes.stubgen's {name}.__get__ takes an unexpected obj: "
                               f"{ast.unparse(obj) if obj is not None else '(none)'}")
        dtype = obj.slice
        if isinstance(dtype, ast.Subscript) and isinstance(dtype.value, ast.Name) \
                and dtype.value.id.startswith("_Has") and isinstance(dtype.slice, ast.Name):
            attribute = _protocol_attribute(prelude, dtype.value.id)
            for marker, tables in markers.items():
                if attribute not in tables:
                    continue
                table = qualify.visit(_Substitute(dtype.slice.id, tables[attribute]).visit(
                    ast.parse(ast.unparse(returns), mode="eval").body))
                instance += ["    @overload",
                             f"    def __get__(self: {name}[{MARKERS_MODULE}.{marker}], obj: object, "
                             f"owner: Any, /) -> {ast.unparse(table)}: ..."]
        else:
            instance += ["    @overload",
                         f"    def __get__(self: {name}[{ast.unparse(dtype)}], obj: object, owner: Any, /)"
                         f" -> {ast.unparse(returns)}: ..."]
    if jax_table is not None:
        instance[:0] = ["    @overload",
                        f"    def __get__(self: {name}[{ANY_DTYPE}], obj: object, owner: Any, /) -> {jax_table}: ..."]
    return (["@type_check_only", f"class {name}(Generic[{DESCRIPTOR_DT}]):"] + instance + class_access
            + ["    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...  # protocols: see jaxtypes.jax_stubs",
               ""])


ANY_SCALAR: Final = "_AnyNumpyScalar"  # no numpy scalar type derives from it
# numpy's scalar types that are lattice dtypes, named as their jaxtypes markers.
NUMPY_DTYPES: Final = ("bool_", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32",
                       "int64", "float16", "float32", "float64", "complex64", "complex128")


def _jax_astype(node: ast.stmt) -> list[str]:
    """JAX's own ``astype``, kept as the last overload for every other dtype
    argument JAX takes (objects with a ``.dtype``, such as ``jnp.float32``),
    with its ``dtype`` parameter narrowed to jaxtypes' dtype arguments and
    JAX's ``SupportsDType``: JAX's ``DTypeLike`` takes any class, which would
    let the weak markers (not dtypes) through."""
    fn = copy.deepcopy(node)
    assert isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
    for arg in fn.args.args + fn.args.kwonlyargs:
        if arg.arg == "dtype":
            arg.annotation = ast.parse("DtypeArgument | SupportsDType", mode="eval").body
    return ast.unparse(fn).splitlines()


def _numpy_astype() -> list[str]:
    """``astype`` overloads for ``np.float32`` and ``np.dtype[np.float32]`` values
    (``np.dtype("float32")``): the marker's dtype (issue 10, item 7)."""
    # First, so that a dtype of unknown scalar type (np.dtype[Any]) is not taken
    # for np.bool_ by a checker that picks the first overload an Any matches.
    out = ["    @overload",
           f"    def astype(self, dtype: np.dtype[{ANY_SCALAR}], copy: bool = False, "
           "device: Any = None) -> Array[Any]: ..."]
    for name in NUMPY_DTYPES:
        out += ["    @overload",
                f"    def astype(self, dtype: type[np.{name}] | np.dtype[np.{name}], copy: bool = False, "
                f"device: Any = None) -> Array[{MARKERS_MODULE}.{name}]: ..."]
    return out


def render_basearray(source: str, jax_version: str) -> str:
    """The transformed ``jax/_src/basearray.pyi`` (call ``check_supported`` first)."""
    from jaxtypes import __version__

    tree = _parse(source, "jax/_src/basearray.pyi")
    src = _Source(source)
    classes = _module_classes(tree)
    array = classes["Array"]
    prelude, keywords, body = _prelude()
    taken = sorted(_defined_names(tree) & _defined_names(ast.parse(prelude)))
    if taken:
        raise UnsupportedJAX(
            f"JAX {jax_version}'s basearray.pyi defines {', '.join(taken)}, which this "
            f"jaxtypes defines too; supported JAX versions: {', '.join(supported_versions())}")
    ours = _jaxtypes_members(body)
    members = _members(array)
    prelude, extra, descriptors = _descriptor_prelude(prelude, body, members, src)

    # The index-update helpers become generic in DT.
    for name in INDEX_HELPERS:
        helper = classes[name]
        header = src.lines[helper.lineno - 1]
        src.edits.append((helper.lineno, 0, helper.lineno, len(header.encode()),
                          header.replace(f"class {name}:", f"class {name}(Generic[DT]):")))
        _retype_returns(src, helper, ("Array", *INDEX_HELPERS), "{name}[DT]")

    # A member an older JAX does not declare (OPTIONAL) is not retyped.
    for name in SAME_DTYPE | {"at"}:
        for node in members.get(name, ()):
            _retype_returns(src, node, ("Array", *INDEX_HELPERS), "{name}[DT]")
    for name in BOOL_RESULT:
        for node in members.get(name, ()):
            _retype_returns(src, node, ("Array",), "Array[bool_]")
    for node in members.get("__iter__", ()):
        if isinstance(node, ast.FunctionDef) and node.returns is not None:
            src.replace(node.returns, "Iterator[Array[DT]]")

    replaced, added = _member_policy(ours, members)
    cls_lines = [f"class Array(Generic[DT]{keywords}):",
                 '    """``jax.Array``, generic in its dtype (a jaxtypes marker; default Any)."""']
    for name in added:
        cls_lines += ours[name]
    emitted: set[str] = set()
    for node in array.body:
        member = _member_name(node)
        if member is None or member in emitted and member in replaced:
            continue
        if member in replaced:
            emitted.add(member)
            # A blanket ignore: ty and pyrefly do not read mypy's error codes
            # (``__eq__: _CompareOp`` overrides object.__eq__ incompatibly).
            cls_lines += [line.replace("# type: ignore[assignment]", "# type: ignore")
                          for line in ours[member]]
            if member == "astype":  # numpy's spellings of a dtype, after the markers'
                first = next(i for i, line in enumerate(cls_lines) if "def astype(" in line)
                cls_lines[first + 1:first + 1] = _numpy_astype()
            if member == "astype":  # JAX's own signature, for any other dtype argument
                cls_lines += ["    @overload"] + _reindent(_jax_astype(node), 0)
            continue
        text = src.text(_start(node), node.end_lineno or node.lineno)
        cls_lines += _reindent(text, node.col_offset)

    # Array's descriptor attributes carry its dtype: ``__add__: _AddOp[DT]``.
    declared = re.compile(r"^(    \w+: )(\w+)(\s*(?:#.*)?)$")
    cls_lines = [declared.sub(r"\1\2[DT]\3", line) if (m := declared.match(line)) and m.group(2) in descriptors
                 else line for line in cls_lines]

    # Assemble: JAX's module with class Array replaced, the prelude after the imports.
    first = _start(array)
    last = array.end_lineno or array.lineno
    last_import = max((n.end_lineno or n.lineno for n in tree.body
                       if isinstance(n, (ast.Import, ast.ImportFrom)) and n.lineno < first), default=0)
    out = [HEADER.format(jaxtypes=__version__, jax=jax_version, source="jax/_src/basearray.pyi").rstrip("\n")]
    out += src.text(1, last_import)
    out += ["from jax._src.typing import SupportsDType  # for astype (_jax_astype)"]
    out += ["", "# ---- jaxtypes: promotion tables and descriptors (jaxtypes.stubgen) ----", ""]
    out += prelude.rstrip("\n").splitlines()
    out += ["", "# ---- JAX's basearray.pyi, with Array generic in its dtype ----", ""]
    out += src.text(last_import + 1, first - 1) if first - 1 > last_import else []
    out += cls_lines
    out += src.text(last + 1, len(src.lines))
    out += ["", "", "# ---- jaxtypes: JAX's own signatures, for Array[Any] ----", ""] + extra
    return "\n".join(out).rstrip("\n") + "\n"


def render_jaxtypes_array(jax_version: str) -> str:
    """``jaxtypes/_array.pyi``: jaxtypes.Array is the generic jax.Array."""
    from jaxtypes import __version__

    names = ["Array"] + [n for n in _prelude_names() if n not in ("Array",)]
    lines = [HEADER.format(jaxtypes=__version__, jax=jax_version, source="jax/_src/basearray.pyi").rstrip("\n"),
             '"""jaxtypes.Array is jax.Array here (made generic in its dtype by `jaxtypes jax-stubs`)."""',
             "",
             "from jax._src.basearray import ("]
    lines += [f"    {n} as {n}," for n in names]
    lines += [")", "", '__all__ = ["Array"]', ""]
    return "\n".join(lines)


# What each checker is pointed at, relative to the output directory.
LAYOUTS: Final = {
    "mypy": MYPY_DIR, "pyright": ".", "basedpyright": ".", "pyrefly": SEARCH_DIR, "ty": SEARCH_DIR,
}


def _jaxtypes_root() -> Path:
    import jaxtypes

    return Path(jaxtypes.__file__).resolve().parent


def _inline_stubs(root: Path, skip: Iterable[str]) -> list[str]:
    """The package's inline ``.pyi`` files (relative paths), but ``skip``."""
    skip = set(skip)
    return [rel for rel in (p.relative_to(root).as_posix() for p in sorted(root.rglob("*.pyi")))
            if rel not in skip]


def _init_copies(root: Path, modules: Iterable[str]) -> dict[str, Path]:
    """{``__init__.pyi`` path: its source} for every package above ``modules``."""
    out: dict[str, Path] = {}
    for rel in modules:
        parts = rel.split("/")[:-1]
        for i in range(len(parts) + 1):
            init = "/".join(parts[:i] + ["__init__.pyi"])
            src = root / init if (root / init).is_file() else root / init[:-1]
            out.setdefault(init, src)
    return out


def render(jax: JaxInstall) -> dict[str, str]:
    """{path relative to the output directory: content} for the installed JAX.

    The two generated modules (``jax/_src/basearray.pyi``, ``jaxtypes/_array.pyi``)
    are laid out three times, in the form each checker resolves as an override
    of part of an installed package without losing the rest of it:

    * ``jax-stubs/``, ``jaxtypes-stubs/`` (pyright, basedpyright: ``typings``
      is their default ``stubPath``): PEP 561 partial stub packages.  They also
      hold a copy of the packages' other inline ``.pyi`` modules, which pyright
      reads as empty modules once a stub package provides part of the package.
    * ``.mypy-path/`` (mypy's ``mypy_path``): regular packages; mypy only
      takes a module from a search-path package whose every level has an
      ``__init__``, so the ``__init__`` modules above the generated ones are
      copied (as stubs) from the installation; every other module still comes
      from site-packages.  (mypy ignores ``-stubs`` packages in ``mypy_path``.)
    * ``.search-path/`` (pyrefly's ``search-path``, ty's ``extra-paths``):
      namespace packages holding just the generated modules.

    The two directories start with a dot so that pyright, which checks every
    file under the project, leaves them alone; none of the three is an
    importable name, so none shadows a real package.
    """
    source = jax.basearray.read_text(encoding="utf-8") if jax.basearray.is_file() else ""
    if not source:
        raise UnsupportedJAX(
            f"the installed JAX {jax.version} ({jax.root}) has no {BASEARRAY}; "
            f"supported JAX versions: {', '.join(supported_versions())}"
        )
    check_supported(source, jax.version)
    from jaxtypes import __version__

    # jaxtypes's own stubs come from the generator that made the descriptors
    # (also when running from a source checkout, where they are not installed).
    markers = stubgen.render_stubs()["jaxtypes/markers.pyi"]
    header = HEADER.format(jaxtypes=__version__, jax=jax.version, source="jaxtypes.stubgen")
    packages = {
        "jax": (jax.root, {BASEARRAY: render_basearray(source, jax.version)}),
        "jaxtypes": (_jaxtypes_root(), {"_array.pyi": render_jaxtypes_array(jax.version),
                                        "markers.pyi": header + markers}),
    }
    files: dict[str, str] = {}
    for name, (root, generated) in packages.items():
        for rel, text in generated.items():
            files[f"{name}-stubs/{rel}"] = text
            files[f"{MYPY_DIR}/{name}/{rel}"] = text
            files[f"{SEARCH_DIR}/{name}/{rel}"] = text
        files[f"{name}-stubs/py.typed"] = "partial\n"
        for rel in _inline_stubs(root, generated):
            files[f"{name}-stubs/{rel}"] = _mark_copy(
                (root / rel).read_text(encoding="utf-8"), jax.version, f"{name}/{rel}")
        if name == "jaxtypes" and not (root / "__init__.pyi").is_file():
            # pyrefly takes the runtime package's __init__ (and, through its
            # imports, the runtime markers) over a partial stub package that has none.
            files[f"{name}-stubs/__init__.pyi"] = _mark_copy(
                (root / "__init__.py").read_text(encoding="utf-8"), jax.version, f"{name}/__init__.py")
        for init, src in _init_copies(root, generated).items():
            text = src.read_text(encoding="utf-8") if src.is_file() else ""
            files[f"{MYPY_DIR}/{name}/{init}"] = _mark_copy(
                text, jax.version, f"{name}/{src.relative_to(root).as_posix()}")
    return dict(sorted(files.items()))


def _mark_copy(text: str, jax_version: str, rel: str) -> str:
    from jaxtypes import __version__

    head = HEADER.format(jaxtypes=__version__, jax=jax_version, source=rel)
    return head + "# (a copy: a stub directory that provides part of a package hides the rest)\n" + text


def _generated(path: Path) -> bool:
    """Whether ``path`` was written by this command (its first line), read as
    bytes: any other file, in any encoding, is the user's."""
    try:
        with path.open("rb") as f:
            return f.read(len(MARK)) == MARK.encode()
    except OSError:
        return False


def write(out: Path, files: Mapping[str, str]) -> list[Path]:
    """Write ``files`` under ``out`` at once: the stub directories are built in
    a temporary directory inside ``out`` and swapped in, so a failure (a full
    disk) leaves the earlier stubs as they were.  Files an earlier run
    generated (recognised by their first line) that are no longer produced go;
    any other file in those directories stays."""
    import os
    import shutil
    import tempfile

    out.mkdir(parents=True, exist_ok=True)
    tops = sorted({rel.split("/", 1)[0] for rel in files})
    staging = Path(tempfile.mkdtemp(prefix=".jaxtypes-stubs-", dir=out))
    try:
        for rel, text in files.items():
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="\n")
        for top in tops:  # what the user put in these directories stays
            for old in sorted((out / top).rglob("*")) if (out / top).is_dir() else []:
                kept = old.relative_to(out)
                if old.is_file() and kept.as_posix() not in files and not _generated(old):
                    (staging / kept).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(old, staging / kept)
        for top in tops:
            if (out / top).exists():
                os.replace(out / top, staging / f".replaced-{top}")
            os.replace(staging / top, out / top)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [out / rel for rel in files]


@dataclass(frozen=True)
class Setting:
    """One checker's configuration for stubs written with ``--out``."""

    checker: str
    file: str  # the configuration file it goes in
    section: str  # its section there ("" for JSON)
    line: str  # the setting, verbatim ("" when nothing is needed)
    note: str = ""


def setup(out: str) -> list[Setting]:
    """Each checker's configuration for stubs written to ``out`` (as given)."""
    out = out.rstrip("/\\") or "."
    default = out in ("typings", "./typings")
    pyright = "" if default else f'"stubPath": "{out}"'
    return [
        Setting("pyright", "pyrightconfig.json", "", pyright,
                "nothing: their stubPath defaults to typings" if default else ""),
        Setting("basedpyright", "pyrightconfig.json", "", pyright,
                "nothing: their stubPath defaults to typings" if default else ""),
        Setting("mypy", "mypy.ini", "[mypy]", f"mypy_path = {out}/{MYPY_DIR}"),
        Setting("pyrefly", "pyproject.toml", "[tool.pyrefly]", f'search-path = ["{out}/{SEARCH_DIR}"]',
                "run `pyrefly check` on the project: given file names, pyrefly 1.4 ignores it"),
        Setting("ty", "pyproject.toml", "[tool.ty.environment]", f'extra-paths = ["{out}/{SEARCH_DIR}"]'),
    ]


def setup_lines(out: str) -> list[str]:
    """``setup(out)`` as the command prints it."""
    lines = []
    for s in setup(out):
        where = f"{s.file}" + (f" {s.section}" if s.section else "")
        text = f"{s.line} ({where})" if s.line else ""
        lines.append(f"{s.checker + ':':13} " + "; ".join(t for t in (text, s.note) if t))
    return lines


def generate(out: Path, jax: JaxInstall | None = None) -> list[Path]:
    """Generate the stubs for ``jax`` (default: the installed JAX) into ``out``."""
    return write(out, render(jax or locate_jax()))


# ----------------------------------------------------------------- install
PACKAGES: Final = ("jax-stubs", "jaxtypes-stubs")  # its top-level directories


def _wheel_version(jax_version: str) -> str:
    from jaxtypes import __version__

    local = re.sub(r"[^0-9a-zA-Z]+", ".", f"jaxtypes{__version__}").strip(".")
    base = jax_version if re.fullmatch(r"\d+(\.\d+)*", jax_version) else "0"
    return f"{base}+{local}"


def build_wheel(files: Mapping[str, str], jax_version: str, directory: Path) -> Path:
    """A PEP 561 stub-only wheel of the top-level packages of ``files``
    (``jax-stubs/``, ``jaxtypes-stubs/``), written into ``directory``."""
    import base64
    import zipfile

    version = _wheel_version(jax_version)
    name = DISTRIBUTION.replace("-", "_")
    info = f"{name}-{version}.dist-info"
    contents = {rel: text for rel, text in files.items() if rel.split("/", 1)[0] in PACKAGES}
    contents[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: {version}\n"
        f"Summary: jax.Array generic in its dtype, for JAX {jax_version} "
        "(made by `jaxtypes jax-stubs install`)\n")
    contents[f"{info}/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: jaxtypes\n"
                                 "Root-Is-Purelib: true\nTag: py3-none-any\n")
    record = []
    for rel, text in contents.items():
        data = text.encode("utf-8")
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{rel},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    contents[f"{info}/RECORD"] = "\n".join(record) + "\n"
    wheel = directory / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for rel, text in contents.items():
            z.writestr(rel, text)
    return wheel


def install(jax: JaxInstall | None = None, python: str | None = None) -> str:
    """Build the stub wheel for ``jax`` (default: the installed JAX) and install
    it with ``python -m pip`` (default: this interpreter); pip's output on failure."""
    import subprocess
    import sys
    import tempfile

    jax = jax or locate_jax()
    files = render(jax)
    with tempfile.TemporaryDirectory(prefix="jaxtypes-jax-stubs-") as tmp:
        wheel = build_wheel(files, jax.version, Path(tmp))
        proc = subprocess.run(
            [python or sys.executable, "-m", "pip", "install", "--no-deps", "--no-index",
             "--force-reinstall", "--disable-pip-version-check", "--quiet", str(wheel)],
            capture_output=True, text=True)
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        raise StubsError(f"pip could not install {DISTRIBUTION}: "
                             f"{detail[-1] if detail else f'exit code {proc.returncode}'}")
    return wheel.name
