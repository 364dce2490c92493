"""Regenerate JAX's observed promotion tables, the oracle data of tests/test_jax_tables.py.

Run by hand, with the pinned JAX installed (``pip install -e .[test]``):

    python -m tools.oracle.make_jax_tables

It writes two files under tools/data/:

``jax_observed_tables.json``
    The 18x18 observed promotion tables of JAX's ``tests/dtypes_test.py``
    (``testObservedPromotionTable``): the code of ``jnp.add(row_value, col_value)``,
    with ``*`` when the result is weakly typed.  Strong values are JAX arrays
    (``jnp.<dtype>(0)``), weak ones Python scalars (``jnp.<dtype>(0).item()``).
    Tables: ``x64`` (jax_enable_x64=True), ``x32_explicit_x64`` (x64 off,
    jax_explicit_x64_dtypes='allow', so the 64-bit values and 64-bit results
    are kept), ``x32`` (x64 off, the default configuration: the values are
    canonicalized when created), plus ``x32_warn_x64_values``: x64 off in the
    default configuration (jax_explicit_x64_dtypes='warn') with the strong
    values created while x64 was on, so the 64-bit arrays exist; that is the
    situation jaxtypes' result_type models for JAX-array inputs.

``jax_lattice_joins.json``
    For the 35 lattice nodes (the names jaxtypes.lattice uses; ``i*``, ``f*``,
    ``c*`` are the Python types int, float, complex) and the four
    configurations (standard/strict x x64 on/off): ``jnp.promote_types(a, b)``
    for every ordered pair, as the result's dtype name or the error; and the
    lattice node JAX joins the pair to (JAX's private
    ``jax._src.dtypes._least_upper_bound``), which tells a weak join (``f*``)
    apart from the dtype promote_types turns it into (float64).  Error
    messages are stored as templates: ``{dtypes}`` stands for
    ``str((str(a), str(b)))`` as JAX prints it, with ``display`` giving
    ``str`` of each node's object; the script checks each message rebuilds
    exactly from its template before writing.

This script deliberately does not import jaxtypes: the data must come from JAX
alone.  The node names come from tools/oracle/lattice_facts.py (written out, shared by
the oracle scripts); the tests check that they are jaxtypes.lattice's.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax._src import config as jax_config
from jax._src import dtypes as jax_dtypes

# The 35 lattice nodes (tools/oracle/lattice_facts.py, shared with the other JAX
# oracle scripts), the weak ones standing for the Python types.
from tools import DATA
from tools.oracle.lattice_facts import NODES, WEAK_NODES
from tools.oracle.lattice_facts import STRONG_NODES as STRONG
from tools.oracle.provenance import provenance as shared_provenance

WEAK = dict(zip(WEAK_NODES, (int, float, complex)))

CONFIGS = (
    ("standard-x64", "standard", True),
    ("standard-x32", "standard", False),
    ("strict-x64", "strict", True),
    ("strict-x32", "strict", False),
)

# testObservedPromotionTable's codes (byte sizes; c4 is complex64).
CODES = ("b1", "u1", "u2", "u4", "u8", "i1", "i2", "i4", "i8", "bf", "f2", "f4", "f8", "c4", "c8", "i*", "f*", "c*")
CODE_TO_TYPE = {
    "b1": jnp.bool_,
    "u1": jnp.uint8,
    "u2": jnp.uint16,
    "u4": jnp.uint32,
    "u8": jnp.uint64,
    "i1": jnp.int8,
    "i2": jnp.int16,
    "i4": jnp.int32,
    "i8": jnp.int64,
    "bf": jnp.bfloat16,
    "f2": jnp.float16,
    "f4": jnp.float32,
    "f8": jnp.float64,
    "c4": jnp.complex64,
    "c8": jnp.complex128,
    "i*": jnp.int64,
    "f*": jnp.float64,
    "c*": jnp.complex128,
}
DTYPE_TO_CODE = {np.dtype(t): c for c, t in CODE_TO_TYPE.items() if not c.endswith("*")}


class _Config:
    """Set JAX's configuration options for a block, restoring them afterwards."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.saved: dict[str, Any] = {}

    def __enter__(self) -> None:
        for name, value in self.options.items():
            self.saved[name] = getattr(jax.config, name)
            jax.config.update(name, value)

    def __exit__(self, *exc: object) -> None:
        for name, value in self.saved.items():
            jax.config.update(name, value)


def node_object(node: str) -> Any:
    """The object JAX's promote_types receives for a node."""
    if node in WEAK:
        return WEAK[node]
    return np.dtype(getattr(ml_dtypes, node, None) or node)


def node_name(obj: Any) -> str:
    """The node name of a lattice object JAX returns (a dtype or int/float/complex)."""
    for name, typ in WEAK.items():
        if obj is typ:
            return name
    name = np.dtype(obj).name
    assert name in STRONG, name
    return name


# ----------------------------------------------------------- observed tables
def code_of(x: Any) -> str:
    code = DTYPE_TO_CODE[np.dtype(x.dtype)]
    if jax_dtypes.is_weakly_typed(x):
        code = code[:-1] + "*"
    return code


def make_values(x64_for_values: bool) -> list[Any]:
    values = []
    with _Config(jax_enable_x64=x64_for_values):
        for code in CODES:
            val = CODE_TO_TYPE[code](0)
            values.append(val.item() if code.endswith("*") else val)
    return values


def observed_table(values: list[Any]) -> list[list[str]]:
    return [[code_of(jnp.add(v1, v2)) for v2 in values] for v1 in values]


def observed_tables() -> dict[str, Any]:
    tables: dict[str, Any] = {}
    with jax.numpy_dtype_promotion("standard"):
        with _Config(jax_enable_x64=True):
            tables["x64"] = {
                "how": "jax_enable_x64=True; values created and added with x64 on",
                "table": observed_table(make_values(True)),
            }
        with _Config(jax_enable_x64=False, jax_explicit_x64_dtypes="allow"):
            tables["x32_explicit_x64"] = {
                "how": "jax_enable_x64=False, jax_explicit_x64_dtypes='allow': "
                "jnp.int64(0) etc. stay 64-bit and 64-bit results are not truncated",
                "table": observed_table(make_values(False)),
            }
        with _Config(jax_enable_x64=False, jax_explicit_x64_dtypes="warn"):
            tables["x32"] = {
                "how": "jax_enable_x64=False, jax_explicit_x64_dtypes='warn' (the defaults): "
                "values created with x64 off, so 64-bit ones are canonicalized to 32-bit",
                "table": observed_table(make_values(False)),
            }
            tables["x32_warn_x64_values"] = {
                "how": "jax_enable_x64=False, jax_explicit_x64_dtypes='warn' (the defaults), "
                "strong values created while x64 was on (so int64 etc. arrays exist); "
                "64-bit results formed by promotion are truncated",
                "table": observed_table(make_values(True)),
            }
    return {
        "codes": list(CODES),
        "code_dtypes": {c: np.dtype(t).name for c, t in CODE_TO_TYPE.items()},
        "layout": "table[i][j] = code of jnp.add(values[i], values[j]), "
        "values[k] for codes[k]: jnp.<code_dtypes[k]>(0), and .item() of it "
        "(a Python scalar) for the weak codes i*, f*, c*; "
        "a weak result's code is its dtype code with the size replaced by '*'",
        "tables": tables,
    }


# ------------------------------------------------------------- lattice joins
def lattice_joins() -> dict[str, Any]:
    display = {n: str(node_object(n)) for n in NODES}
    templates: dict[str, dict[str, str]] = {}
    configs: dict[str, Any] = {}
    for label, mode, x64 in CONFIGS:
        promote_rows: dict[str, list[str]] = {}
        lub_rows: dict[str, list[str | None]] = {}
        with jax.numpy_dtype_promotion(mode), _Config(jax_enable_x64=x64):
            mode_enum = jax_config.numpy_dtype_promotion.value
            for a in NODES:
                prow: list[str] = []
                lrow: list[str | None] = []
                for b in NODES:
                    a_obj, b_obj = node_object(a), node_object(b)
                    try:
                        result = jnp.promote_types(a_obj, b_obj)
                    except Exception as err:  # noqa: BLE001 - recorded as data
                        prow.append(error_cell(err, a, b, display, templates))
                    else:
                        prow.append(np.dtype(result).name)
                    try:
                        lub = jax_dtypes._least_upper_bound(mode_enum, x64, a_obj, b_obj)
                    except jax_dtypes.TypePromotionError:
                        lrow.append(None)
                    else:
                        lrow.append(node_name(lub))
                promote_rows[a] = prow
                lub_rows[a] = lrow
        configs[label] = {"mode": mode, "x64": x64, "promote_types": promote_rows, "least_upper_bound": lub_rows}
    return {
        "nodes": list(NODES),
        "display": display,
        "layout": "configs[c]['promote_types'][a][j] is jnp.promote_types(a, nodes[j]): the "
        "result dtype's name, or '!' + a key of error_templates; "
        "configs[c]['least_upper_bound'][a][j] is the lattice node JAX joins them "
        "to, or null where they have none",
        "error_templates": templates,
        "configs": configs,
    }


def error_cell(err: Exception, a: str, b: str, display: dict[str, str], templates: dict[str, dict[str, str]]) -> str:
    shown = str((display[a], display[b]))
    message = str(err)
    if shown not in message:
        raise AssertionError(f"unexpected message for ({a}, {b}): {message}")
    template = message.replace(shown, "{dtypes}")
    entry = {
        "class": type(err).__name__,
        "bases": [c.__name__ for c in type(err).__mro__[1:] if c is not object],
        "message": template,
    }
    for _key, known in templates.items():
        if known == entry:
            break
    else:
        key = f"E{len(templates)}"
        templates[key] = entry
    assert templates[key]["message"].replace("{dtypes}", shown) == message
    return "!" + key


# ---------------------------------------------------------------- writing
def dump(obj: Any, indent: int = 0) -> str:
    """JSON with dicts indented and lists of scalars kept on one line."""
    pad = " " * indent
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f'{pad} {json.dumps(k)}: {dump(v, indent + 1)}' for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list) and any(isinstance(v, (list, dict)) for v in obj):
        items = [f"{pad} {dump(v, indent + 1)}" for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(obj)


def provenance() -> dict[str, Any]:
    return shared_provenance("tools/oracle/make_jax_tables.py")


def main() -> None:
    warnings.filterwarnings("ignore", message="Explicitly requested dtype", category=UserWarning)
    DATA.mkdir(parents=True, exist_ok=True)
    before = (jax.config.jax_enable_x64, jax.config.jax_numpy_dtype_promotion, jax.config.jax_explicit_x64_dtypes)
    observed = {**provenance(), **observed_tables()}
    joins = {**provenance(), **lattice_joins()}
    after = (jax.config.jax_enable_x64, jax.config.jax_numpy_dtype_promotion, jax.config.jax_explicit_x64_dtypes)
    assert before == after, (before, after)
    for name, obj in (("jax_observed_tables.json", observed), ("jax_lattice_joins.json", joins)):
        path = DATA / name
        path.write_text(dump(obj) + "\n", encoding="utf-8")
        print(f"wrote {path.relative_to(DATA.parent.parent)}")


if __name__ == "__main__":
    main()
