"""Empty the markers' promotion tables while mypy analyses the stub.

``jaxtypes/markers.pyi`` gives each marker overloaded table classes
(``_add_bool_``, ``_rmatmul_float32``, ...) that the stub's descriptors read.
With the plugin those descriptors are replaced (array_class.py) and the
results come from jaxtypes.ops, so nothing reads the tables; analysing their
overloads (mypy checks each overload set for overlaps) would still cost about
a fifth of a cold run.  A customize-MRO hook, which runs before a class body
is analysed, replaces each table's body with ``...``.

Only the installed package's own stub is emptied: the stubs of ``jaxtypes
jax-stubs`` bring their own ``jaxtypes/markers.pyi``, whose tables type the
operators of ``jax.Array``, which the plugin does not replace.
"""

from __future__ import annotations

import functools
import os

from mypy.nodes import EllipsisExpr, ExpressionStmt, Statement
from mypy.plugin import ClassDefContext

import jaxtypes

from . import names

_PACKAGE_DIR = os.path.dirname(os.path.realpath(jaxtypes.__file__))


@functools.lru_cache(maxsize=None)
def _is_shipped(path: str) -> bool:
    return os.path.dirname(os.path.realpath(path)) == _PACKAGE_DIR


__all__ = ["is_table", "empty_table"]


def is_table(fullname: str) -> bool:
    """Whether a class is one of the generated tables of jaxtypes.markers."""
    return fullname.startswith(names.TABLE_PREFIX)


def empty_table(ctx: ClassDefContext) -> None:
    """The customize-MRO hook of a table class: its body becomes ``...``."""
    module = getattr(ctx.api, "cur_mod_node", None)  # mypy's SemanticAnalyzer
    path = getattr(module, "path", None)
    if not isinstance(path, str) or not _is_shipped(path):
        return
    stmt = ExpressionStmt(EllipsisExpr())
    stmt.set_line(ctx.cls.line)
    body: list[Statement] = [stmt]
    ctx.cls.defs.body = body
