"""``jax.tree.map(f, tree)`` of a NamedTuple or a dataclass whose leaves ``f`` keeps.

The stubs of `jaxtypes jax-stubs` type a tree map over a dict, a list or a
short tuple of arrays (``jaxtypes._stubgen.jax_transforms``); any other tree
keeps JAX's declaration, ``Any``, as no checker can map each field type of a
class through a function.  JAX returns a tree of the same structure
("Working with pytrees", https://docs.jax.dev/en/latest/working-with-pytrees.html):
the same NamedTuple or dataclass, each leaf replaced by ``f``'s result.
Where ``f`` gives every leaf back in its own type, the result is the tree's
own type: an optimizer state mapped by a function of its arrays' dtype
(``def decay(p: Array[float32]) -> Array[float32]``) or by one generic in it
(``def scaled(x: Array[D]) -> Array[D]``) stays that state.

The leaves read are the arrays of the tree's fields, through NamedTuples,
dataclasses (Flax's ``struct.dataclass`` and Equinox's modules are),
tuples, lists, dict values and each member of a union (``X | None``); a
field of another type (a scalar, ``Any``) leaves JAX's ``Any``, and so does a leaf ``f`` does not take or
gives back in another type (a NamedTuple whose fields then differ from
their declarations).  One tree only, without ``is_leaf``.
"""

from __future__ import annotations

from typing import Callable, Final

from mypy.erasetype import erase_typevars
from mypy.expandtype import expand_type_by_instance
from mypy.nodes import Var
from mypy.plugin import FunctionContext
from mypy.subtypes import is_same_type, is_subtype
from mypy.types import AnyType, CallableType, Instance, NoneType, TupleType, Type, UnionType, get_proper_type

from . import errors, names
from .type_nodes import array_info

__all__ = ["tree_map_hooks"]

_DEPTH: Final = 8  # nesting read before giving up (a recursive type)


class _Unknown(Exception):
    """A part of the tree whose leaves are not known."""


def tree_map_hooks() -> dict[str, Callable[[FunctionContext], Type]]:
    guard = errors.guarded(lambda ctx: ctx.default_return_type)
    return {name: guard(_hook) for name in names.TREE_MAPS}


def _leaves(t: Type, depth: int = 0) -> list[Type]:
    if depth > _DEPTH:
        raise _Unknown
    p = get_proper_type(t)
    if isinstance(p, NoneType):
        return []  # (None is an empty subtree)
    if isinstance(p, (TupleType, UnionType)):  # (a union: the leaves of each member it may be)
        return [leaf for item in p.items for leaf in _leaves(item, depth + 1)]
    if not isinstance(p, Instance):
        raise _Unknown
    if array_info(p) is not None:
        return [p]
    name = p.type.fullname
    if name in ("builtins.list", "builtins.tuple") and len(p.args) == 1:
        return _leaves(p.args[0], depth + 1)
    if name == "builtins.dict" and len(p.args) == 2:
        return _leaves(p.args[1], depth + 1)
    fields = p.type.metadata.get("dataclass", {}).get("attributes")
    if fields is None:
        raise _Unknown
    out: list[Type] = []
    for field in fields:
        node = p.type.get(field["name"])
        var = node.node if node is not None else None
        if not isinstance(var, Var) or var.type is None:
            raise _Unknown
        out += _leaves(expand_type_by_instance(var.type, p), depth + 1)
    return out


def _keeps(f: CallableType, leaf: Type) -> bool:
    """Whether ``f`` takes ``leaf`` and gives it back in its own type."""
    param, result = f.arg_types[0], f.ret_type
    if not f.variables:
        return is_subtype(leaf, param) and is_same_type(result, leaf)
    # generic: the parameter's type is the result's (Array[D] -> Array[D])
    return is_same_type(param, result) and is_subtype(leaf, erase_typevars(param))


def _hook(ctx: FunctionContext) -> Type:
    if not isinstance(get_proper_type(ctx.default_return_type), AnyType):
        return ctx.default_return_type  # a typed overload's answer
    by_name = dict(zip(ctx.callee_arg_names, ctx.arg_types))
    fs, trees = by_name.get("f", []), by_name.get("tree", [])
    if len(fs) != 1 or len(trees) != 1 or by_name.get("rest") or by_name.get("is_leaf"):
        return ctx.default_return_type
    f, tree = get_proper_type(fs[0]), trees[0]
    if not isinstance(f, CallableType) or len(f.arg_types) != 1 or not f.arg_kinds[0].is_positional():
        return ctx.default_return_type
    p = get_proper_type(tree)
    record = (isinstance(p, TupleType) and p.partial_fallback.type.is_named_tuple) or (
        isinstance(p, Instance) and "dataclass" in p.type.metadata
    )
    if not record:
        return ctx.default_return_type
    try:
        leaves = _leaves(tree)
    except _Unknown:
        return ctx.default_return_type
    return tree if all(_keeps(f, leaf) for leaf in leaves) else ctx.default_return_type
