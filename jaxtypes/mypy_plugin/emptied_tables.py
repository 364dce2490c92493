"""Empty the promotion tables, and the descriptors that read them, while mypy analyses the stubs.

The stubs give each marker overloaded table classes (``_add_bool_``,
``_rmatmul_float32``, ...: subclasses of ``_Table`` in ``jaxtypes.markers``)
that Array's descriptors read; the stubs of ``jaxtypes jax-stubs`` add, for
``jax.Array``, descriptor classes with one ``__get__`` overload per marker
(``_AddOp``, ``_SumMethod``, ...: subclasses of ``_Descriptor`` in
``jax._src.basearray``).  With the plugin, Array's members are replaced
(operator_signatures.py, for ``jaxtypes.Array`` and ``jax.Array`` alike) and the
results come from jaxtypes.operation_rules, so nothing reads either; analysing their
3,100 overloads would still cost a fifth of a cold run on a file of a few
hundred lines.  A customize-MRO hook, which runs before a class body is
analysed, replaces each such class's body with ``...``.

The other private classes of these modules stay: the protocols JAX's
functions read (``_Has_fn_dtype``...) and the classes a descriptor's
signature names.
"""

from __future__ import annotations

from mypy.nodes import EllipsisExpr, ExpressionStmt, Statement
from mypy.plugin import ClassDefContext

from . import names

__all__ = ["is_table", "empty_table"]


def is_table(fullname: str) -> bool:
    """Whether a class may be a table or a descriptor (empty_table decides
    from its bases)."""
    return fullname.startswith((names.TABLE_PREFIX, names.DESCRIPTOR_PREFIX))


def _is_read_only_by_array(ctx: ClassDefContext) -> bool:
    fullname = ctx.cls.fullname
    bases = {base.fullname for base in ctx.cls.info.mro[1:]}
    if fullname.startswith(names.TABLE_PREFIX):
        return any(base in bases for base in names.TABLE_BASES)
    return names.DESCRIPTOR_BASE in bases


def empty_table(ctx: ClassDefContext) -> None:
    """The customize-MRO hook of a table or a descriptor: its body becomes ``...``."""
    if not _is_read_only_by_array(ctx):
        return
    stmt = ExpressionStmt(EllipsisExpr())
    stmt.set_line(ctx.cls.line)
    body: list[Statement] = [stmt]
    ctx.cls.defs.body = body
