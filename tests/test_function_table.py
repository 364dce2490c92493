"""jaxtypes/functions.csv, the one table of JAX's functions: its form, and
that its two readers (jaxtypes.function_rules and the oracle script, which reads
the file itself) see the same functions."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from jaxtypes import function_rules

TABLE = Path(function_rules.__file__).with_name(function_rules.TABLE_FILE)


def rows() -> list[dict[str, str]]:
    with TABLE.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_one_row_per_function_sorted_by_name() -> None:
    names = [row["name"] for row in rows()]
    assert names == sorted(set(names))
    assert all(
        name.startswith(("jax.numpy.", "jax.lax.", "jax.nn.", "jax.random.", "jax.scipy.", "jax.image."))
        for name in names
    )
    assert set(names) == set(function_rules.TABLE)


def test_file_is_as_render_rows_writes_it() -> None:
    """Written in one form (the columns in order, no quoting but where a cell
    needs it, LF line ends), so that a diff of the file is the change."""
    text = TABLE.read_text(encoding="utf-8")
    assert function_rules.render_rows(function_rules.read_rows(text)) == text


def test_rule_columns_round_trip() -> None:
    for row in rows():
        rule = function_rules.parse_rule(row)
        assert function_rules.rule_columns(rule) == {k: row[k] for k in function_rules.rule_columns(rule)}, row["name"]


def test_rows_the_table_reads() -> None:
    """Spot checks of what rows say, written out from the file."""
    assert function_rules.TABLE["jax.numpy.sqrt"] == function_rules.Rule("inexact")
    assert function_rules.TABLE["jax.lax.top_k"] == function_rules.Rule("keeps", accepts="biuf", others=("int32",))
    assert function_rules.TABLE["jax.random.bernoulli"] == function_rules.Rule("fixed", args=(), fixed="bool")
    assert function_rules.TABLE["jax.numpy.unwrap"] == function_rules.Rule(
        "inexact", keep_weak=False, scalar="f*", rejects=("complex64", "complex128", "c*")
    )
    assert function_rules.ARGUMENTS["jax.numpy.sum"] == "x"
    assert function_rules.ARGUMENTS["jax.numpy.sum(dtype=)"] == "xd"
    assert function_rules.ARGUMENTS["jax.numpy.dot(preferred_element_type=)"] == "xyd"
    assert function_rules.INPUT_POSITION["jax.numpy.compress"] == 1
    assert function_rules.DTYPE_POSITION == {"jax.numpy.astype": 1}
    assert "jax.lax.dot_general" in function_rules.PREFERRED_TYPED
    assert function_rules.NEUTRAL_PARAMETERS == {
        "jax.lax.full_like": frozenset(["fill_value"]),
        "jax.lax.integer_pow": frozenset(["y"]),
        "jax.numpy.full_like": frozenset(["fill_value"]),
        "jax.numpy.repeat": frozenset(["repeats"]),
        "jax.numpy.roll": frozenset(["shift"]),
        "jax.lax.reduce_window": frozenset(["init_value", "computation"]),
        # (a random draw's parameters JAX converts to its dtype=; the others,
        # double_sided_maxwell's loc and scale, promote it)
        **{
            name: params for name, params in function_rules.NEUTRAL_PARAMETERS.items() if name.startswith("jax.random.")
        },
    }
    assert function_rules.NEUTRAL_PARAMETERS["jax.random.uniform"] == {"minval", "maxval"}
    assert "jax.random.double_sided_maxwell" not in function_rules.NEUTRAL_PARAMETERS
    assert "jax.lax.psum" not in function_rules.ARGUMENTS  # untyped, not probed
    assert function_rules.TABLE["jax.lax.psum"].family == "untyped"


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("family", "keep", "no family 'keep'"),
        ("kind", "z", "no kind 'z'"),
        ("keep_weak", "false", "keep_weak is 'false'"),
        ("args", "x", "args is 'x'"),
    ],
)
def test_a_bad_cell_is_named(column: str, value: str, message: str) -> None:
    row = dict.fromkeys(function_rules.COLUMNS, "")
    row.update(name="jax.numpy.sqrt", kind="x", family="inexact")
    row[column] = value
    text = function_rules.render_rows([row])
    with pytest.raises(function_rules.TableError, match=message):
        for parsed in function_rules.read_rows(text):
            function_rules.parse_rule(parsed)


def test_a_missing_column_is_named() -> None:
    with pytest.raises(function_rules.TableError, match="columns"):
        function_rules.read_rows("name,kind,family\njax.numpy.sqrt,x,inexact\n")


def test_oracle_probes_the_table_s_rows() -> None:
    """The oracle script reads the file itself (it imports no jaxtypes): the
    probes it makes are the kinds jaxtypes reads."""
    pytest.importorskip("jax")
    from tools.oracle import make_function_tables as oracle

    assert oracle.table_probes() == function_rules.ARGUMENTS
    assert {name: probe.kind for name, probe in oracle.PROBES.items()} == function_rules.ARGUMENTS


def test_a_neutral_parameter_lets_the_stubs_type_the_function() -> None:
    """jnp.repeat's ``repeats`` (ArrayLike, required) cannot change the dtype:
    named in the row's neutral column, the generator leaves it as JAX declares
    it and types the function; without it, the function keeps JAX's own
    declaration."""
    import ast

    jax = pytest.importorskip("jax")
    from jaxtypes._stubgen import function_overloads

    tree = ast.parse((Path(jax.__file__).parent / "numpy" / "__init__.pyi").read_text(encoding="utf-8"))
    assert "repeat" in function_overloads.typed_functions(tree, "jax.numpy")
    saved = function_rules.NEUTRAL_PARAMETERS.pop("jax.numpy.repeat")
    try:
        assert "repeat" not in function_overloads.typed_functions(tree, "jax.numpy")
    finally:
        function_rules.NEUTRAL_PARAMETERS["jax.numpy.repeat"] = saved


def test_oracle_only_selects_a_function_s_probes() -> None:
    """``make_function_tables --only NAME`` re-probes that function: each of
    its probes (sum and sum(dtype=)), or one probe by its name, or the new ones."""
    pytest.importorskip("jax")
    from tools.oracle import make_function_tables as oracle

    assert oracle.selected(["jax.numpy.sum"], set()) == {"jax.numpy.sum", "jax.numpy.sum(dtype=)"}
    assert oracle.selected(["jax.numpy.sum(dtype=)"], set()) == {"jax.numpy.sum(dtype=)"}
    assert oracle.selected(["new"], set(oracle.PROBES) - {"jax.lax.cummax"}) == {"jax.lax.cummax"}
    with pytest.raises(SystemExit, match="jax.lax.psum"):
        oracle.selected(["jax.lax.psum"], set())
