"""tools/classify_functions.py: from JAX's answers (tools/data), the family
of a function's row.  On functions already in the table it proposes the
family of the committed row (written by hand, checked against JAX by
tests/test_function_rules.py); for a wrong family it reports the inputs
where JAX says otherwise."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import tools
from jaxtypes import function_rules
from jaxtypes.function_rules import Rule
from tools import classify_functions as classifier

TABLE = Path(function_rules.__file__).with_name(function_rules.TABLE_FILE)
JAX = tools.DATA / "jax_function_dtypes.json"

# Functions of the table, of every kind and of most families.
SAMPLE = (
    "jax.numpy.sqrt",  # inexact
    "jax.numpy.argmax",  # fixed (the default int)
    "jax.numpy.isnan",  # fixed (bool)
    "jax.numpy.mean",  # mean, and mean(dtype=)
    "jax.numpy.sum",  # sum, and sum(dtype=)
    "jax.numpy.clip",  # keeps, with an int scalar
    "jax.lax.bitwise_not",  # operator
    "jax.numpy.linalg.norm",  # real
    "jax.numpy.fft.rfft",  # complex
    "jax.numpy.zeros_like",  # like (xd)
    "jax.numpy.zeros",  # dtype (d)
    "jax.nn.relu",  # keeps
    "jax.nn.softmax",  # inexact, strong
    "jax.lax.top_k",  # keeps, with int32 indices
    "jax.lax.add",  # equal (xy)
    "jax.random.normal",  # dtype (kd)
    "jax.random.split",  # key (k)
    "jax.random.key",  # key (n)
    "jax.numpy.shape",  # not_an_array
)


def committed() -> dict[str, dict[str, str]]:
    with TABLE.open(newline="", encoding="utf-8") as f:
        return {row["name"]: row for row in csv.DictReader(f)}


@pytest.mark.parametrize("name", SAMPLE)
def test_proposes_the_committed_family(name: str) -> None:
    row = committed()[name]
    result = classifier.classify(name)
    assert row["family"] in [c.rule.family for c in result.fits], classifier.report(result)
    assert result.kind == row["kind"]
    # the proposed rows keep the row's other columns (kind, probes, notes)
    for proposed in result.rows():
        assert {k: proposed[k] for k in ("name", "kind", "dtype_probe", "note")} == {
            k: row[k] for k in ("name", "kind", "dtype_probe", "note")
        }


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("jax.numpy.sqrt", Rule("inexact")),
        ("jax.numpy.argmax", Rule("fixed", fixed="i")),
        ("jax.lax.add", Rule("equal", accepts="iufc")),
        ("jax.lax.top_k", Rule("keeps", accepts="biuf", others=("int32",))),
        ("jax.numpy.zeros", Rule("dtype", default="f")),
        ("jax.random.split", Rule("key")),
    ],
)
def test_first_proposal_is_the_committed_rule(name: str, rule: Rule) -> None:
    """The simplest fitting row is the one the table has (rules written out)."""
    (first, *_) = classifier.classify(name).rows()
    assert function_rules.parse_rule(first) == rule


def test_a_wrong_family_is_ruled_out_by_jax_s_answers() -> None:
    """keeps for sqrt: JAX gives float32 for an int8 array (its answer in
    the data), the family int8; the classifier says so and proposes no keeps row."""
    truth = json.loads(JAX.read_text())["configs"]["standard-x32"]["results"]["jax.numpy.sqrt"]["int8"]
    assert truth == "float32"
    checked = classifier.check("jax.numpy.sqrt", Rule("keeps"))
    assert not checked.fits
    wrong = {(a.config, a.key): (a.truth, got) for a, got in checked.misfits}
    assert wrong[("standard-x32", "int8")] == (("ok", "float32"), ("ok", "int8"))

    result = classifier.classify("jax.numpy.sqrt", families=["keeps"])
    assert not result.fits
    assert "keeps" in result.closest and result.closest["keeps"].misfits
    text = classifier.report(result)
    assert "ruled out" in text and "keeps: Rule(keeps" in text
    assert all(row["family"] != "keeps" for row in result.rows())


def test_no_family_fitting_proposes_untyped_with_the_closest_rule() -> None:
    """jnp.angle: untyped in the table for the reason the classifier gives."""
    result = classifier.classify("jax.numpy.angle")
    assert not result.fits and not result.partial
    (row,) = result.rows()
    assert row["family"] == "untyped"
    assert row["reason"] == committed()["jax.numpy.angle"]["reason"]
    assert row["reason"].startswith("closest rule Rule(")


def test_a_few_odd_inputs_are_proposed_unknown() -> None:
    """lax.abs: the real family but for the sub-byte ints (the table leaves
    int1 unknown there too); the reason is left to write."""
    result = classifier.classify("jax.lax.abs")
    assert not result.fits and result.partial
    (real,) = [c.rule for c in result.partial if c.rule.family == committed()["jax.lax.abs"]["family"]]
    assert "int1" in real.unknown
    assert all(row["reason"].startswith("TODO") for row in result.rows())


def test_several_result_dtypes_are_kept_or_asked_for() -> None:
    """top_k's int32 indices are the row's others; svd's singular values
    (real) and Vh (inexact) are families' answers; lstsq's results, whose
    dtypes no others says, keep the row's several_results."""
    assert classifier.classify("jax.lax.top_k").rows()[0]["others"] == "int32"
    assert classifier.classify("jax.numpy.linalg.svd").rows()[0]["others"] == "real inexact"
    row = classifier.classify("jax.numpy.linalg.lstsq").rows()[0]
    assert row["others"] == "" and row["several_results"] == committed()["jax.numpy.linalg.lstsq"]["several_results"]


def test_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert classifier.main(["jax.numpy.sqrt"]) == 0
    out = capsys.readouterr().out
    assert "fits: inexact" in out
    assert "jax.numpy.sqrt,x,,,,,inexact," in out
    assert classifier.main(["jax.numpy.sqrt", "--family", "keeps"]) == 1
    assert classifier.main(["jax.numpy.sqrt", "--family", "untyped"]) == 2


def test_a_function_without_answers_says_to_run_the_oracle() -> None:
    result = classifier.classify("jax.lax.psum")  # a collective: not probed
    assert result.answers == 0 and not result.fits
    assert "make_function_tables --only jax.lax.psum" in classifier.report(result)
