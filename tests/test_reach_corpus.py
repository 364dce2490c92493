"""benchmarks/reach.py: its corpus runs under JAX, its intermediate-finder keeps
finding what it should, and its reading of checkers' revealed types is right.

So the reach benchmark cannot rot silently; the checkers themselves are not run
here (the benchmark does that, by hand)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from benchmarks import reach

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def files() -> dict[str, str]:
    return reach.corpus_files()


@pytest.fixture(scope="module")
def truth(files: dict[str, str]) -> "reach.Truth":
    """JAX's dtypes over the corpus, traced (``jax.eval_shape``): what the
    benchmark's executed run records (test_running_records_what_tracing_records)
    without XLA's compilation, about 4 CPU-s."""
    return reach.collect_truth(files, execute=False)


def test_corpus_is_big_enough(files: dict[str, str]) -> None:
    assert sum(len(t.splitlines()) for t in files.values()) >= 500
    for name in (
        "attention.py",
        "layers.py",
        "losses.py",
        "optim.py",
        "sampling.py",
        "recurrent.py",
        "quant.py",
        "train.py",
    ):
        assert name in files


def test_corpus_runs_and_records_intermediates(truth: "reach.Truth") -> None:
    assert len(truth.nodes) >= 300
    assert not truth.varying
    by_file = Counter(f for f, _, _ in truth.nodes)
    assert all(by_file[f] >= 20 for f in by_file), by_file
    kinds = Counter(truth.nodes.values())
    for node in ("float32", "bfloat16", "int32", "int8", "bool", "uint32", "f*"):
        assert kinds[node] > 0, kinds


@pytest.mark.slow  # a second JAX run over the corpus, executed (compiled by XLA) as the benchmark runs it
def test_running_records_what_tracing_records(files: dict[str, str], truth: "reach.Truth") -> None:
    executed = reach.collect_truth(files)
    assert executed.nodes == truth.nodes and not executed.varying


def test_recorded_dtypes_are_jaxs(truth: "reach.Truth") -> None:
    """Spot checks, written out from reading the corpus and JAX's rules."""
    expected = {
        ("attention.py", 31, "logits"): "bfloat16",  # einsum of bfloat16
        ("attention.py", 32, "logits32"): "float32",
        ("attention.py", 35, "weights"): "float32",  # softmax
        ("attention.py", 25, "mask"): "bool",
        ("quant.py", 15, "q"): "int8",
        ("quant.py", 34, "acc"): "int32",  # preferred_element_type
        ("layers.py", 30, "hidden16"): "bfloat16",
        ("recurrent.py", 11, "from_input"): "float32",  # inside lax.scan
        ("train.py", 66, "grads"): None,  # a dict: not an array
        ("train.py", 67, "gw"): "float32",  # vmap of grad
        ("sampling.py", 10, "tokens"): "int32",  # categorical
        ("optim.py", 70, "peak_lr"): "f*",  # jnp.asarray(float) is weak
        ("optim.py", 72, "fraction"): "float32",  # int32 / int: true division
    }
    got = {site: truth.nodes.get(site) for site in expected}
    assert got == expected


@pytest.mark.slow  # JAX runs 1,200 lines: `pytest -m slow`, and CI
def test_model_corpus_runs_under_jax() -> None:
    """The ordinary-code corpus (layers, configs, a training step, a data
    pipeline: many distinct functions, each used a few times) runs, and each
    of its files gives the benchmark array values with one dtype each."""
    files = reach.corpus_files(reach.CORPORA["model_corpus"])
    assert sum(len(t.splitlines()) for t in files.values()) >= 1000
    truth = reach.collect_truth(files)
    # apply_mlp is called in float32 and under mixed precision: its values have
    # no one dtype, and the benchmark leaves them out.
    assert truth.varying == {
        ("train.py", 67, "x"): {"bfloat16", "float32"},
        ("train.py", 69, "logits"): {"bfloat16", "float32"},
    }
    by_file = Counter(f for f, _, _ in truth.nodes)
    assert set(by_file) == set(files) and all(n >= 20 for n in by_file.values()), by_file
    kinds = Counter(truth.nodes.values())
    for node in ("float32", "bfloat16", "int32", "bool"):
        assert kinds[node] > 0, kinds


@pytest.mark.slow  # JAX runs 2,000 lines of Flax code, each file's main() compiled
def test_flax_corpus_runs_under_jax() -> None:
    """The Flax corpus (code as public Flax projects write it, measured by
    ``--corpus-dir benchmarks/flax_corpus``) runs, each file's driver under
    ``jax.jit`` as the benchmark runs it, and gives the benchmark array
    values with one dtype each; it names nothing of jaxtypes."""
    directory = reach.HERE / "flax_corpus"
    files = reach.corpus_files(directory)
    assert set(files) == {"mnist.py", "resnet.py", "vit.py", "lm1b.py", "gemma.py", "nnx_mlp.py", "training.py"}
    assert 1200 <= sum(len(t.splitlines()) for t in files.values()) <= 2100
    assert not [name for name, text in files.items() if re.search(r"^\s*(from|import) jaxtypes\b", text, re.M)]
    truth = reach.collect_truth(files, directory=directory)
    # ResNet's modules run in float32 and, with a dynamic loss scale, in
    # bfloat16: their values have no one dtype, and the benchmark leaves them out.
    assert {f for f, _, _ in truth.varying} == {"resnet.py"}
    by_file = Counter(f for f, _, _ in truth.nodes)
    assert set(by_file) == set(files) and all(n >= 30 for n in by_file.values()), by_file
    kinds = Counter(truth.nodes.values())
    for node in ("float32", "bfloat16", "int32", "uint32", "bool", "f*"):
        assert kinds[node] > 0, kinds


def test_every_assignment_in_a_function_body_is_found(files: dict[str, str]) -> None:
    found = {(a.line, n) for a in reach.find_assignments(files["recurrent.py"]) for n in a.names}
    assert (23, "final") in found and (23, "hs") in found  # tuple unpacking
    assert (20, "new_h") in found  # nested function
    source = "def f(x):\n    a, (b, c) = x\n    d: int = 1\n    d += 2\n    x.y = 3\n    if x: e = 1\n"
    got = [(a.line, a.names) for a in reach.find_assignments(source)]
    assert got == [(2, ("a", "b", "c")), (3, ("d",)), (4, ("d",))]


def test_staged_reveals_point_at_their_sites() -> None:
    source = '"""doc"""\nfrom __future__ import annotations\n\ndef f(x):\n    y = (x +\n         1)\n    return y\n'
    staged, where = reach.stage_reveals({"m.py": source}, {("m.py", 5, "y")})
    lines = staged["m.py"].splitlines()
    assert lines[2] == "from typing_extensions import reveal_type"
    [(key, site)] = where.items()
    assert site == ("m.py", 5, "y") and lines[key[1] - 1] == "    reveal_type(y)"
    assert lines[key[1] - 2] == "         1)"


def test_errors_on_staged_copies_are_reported_at_the_corpus_lines() -> None:
    # (the file imports reveal_type itself too: only the staged copy's own import is left out)
    source = (
        '"""doc"""\nfrom __future__ import annotations\nfrom typing_extensions import reveal_type\n'
        "def f(x):\n    y = (x +\n         1)\n    return y\n"
    )
    files = {"m.py": source}
    staged, where = reach.stage_reveals(files, {("m.py", 5, "y")})
    lines = staged["m.py"].splitlines()
    at_return = lines.index("    return y") + 1  # 9 in the staged copy: an import and a reveal before it
    at_import = len(lines) - lines[::-1].index("from typing_extensions import reveal_type")  # the file's own
    errors = {
        ("m.py", at_return): ["an error [code]"],
        ("m.py", at_import): ["unused [code]"],
        ("other.py", 1): ["elsewhere [code]"],
    }
    assert reach.corpus_errors(files, staged, where, errors) == [  # type: ignore[arg-type]
        ("m.py", 3, "unused [code]"),
        ("m.py", 7, "an error [code]"),
    ]


@pytest.mark.parametrize(
    "text, node",
    [
        # mypy and mypy with the plugin
        ("jaxtypes._array.Array[jaxtypes.markers.float32]", "float32"),
        ("jax._src.basearray.Array[jaxtypes.markers.bfloat16]", "bfloat16"),
        ("jaxtypes._array.Array[jaxtypes.markers.weak_float]", "f*"),
        ("jaxtypes._array.Array[Any]", None),
        ("jax._src.basearray.Array", None),
        ("Any", None),
        ("tuple[jaxtypes._array.Array[jaxtypes.markers.float32], jaxtypes._array.Array[Any]]", None),
        # pyright, basedpyright, pyrefly, ty
        ("Array[float32]", "float32"),
        ("Array[bool_]", "bool"),
        ("Array[weak_int]", "i*"),
        ("Array[Unknown]", None),
        ("Array[Any]", None),
        ("Array", None),
        ("Array[float32] | Array[bfloat16]", None),
        ("Array[DT@f]", None),
    ],
)
def test_revealed_type_to_marker(text: str, node: str | None) -> None:
    assert reach.marker_of(text) == node


def test_score_counts_known_and_wrong() -> None:
    truth = reach.Truth(
        nodes={("m.py", 1, "a"): "float32", ("m.py", 2, "b"): "f*", ("m.py", 3, "c"): "int8", ("m.py", 4, "d"): "int32"}
    )
    where = {("m.py", 10): ("m.py", 1, "a"), ("m.py", 11): ("m.py", 2, "b"), ("m.py", 12): ("m.py", 3, "c")}
    reveals = {("m.py", 10): ["Array[float32]"], ("m.py", 11): ["Array[float32]"], ("m.py", 12): ["Array[Any]"]}
    r = reach.score("pyright", truth, reveals, where, 1.0)
    assert (r.intermediates, r.known, r.correct, r.missing) == (4, 2, 1, 1)
    assert r.wrong == [("m.py", 2, "b", "Array[float32]", "weak_float")]
    assert r.unknown == {"Array[Any]": 1}


USER_CORPUS = reach.HERE / "user_corpus"


@pytest.fixture(scope="module")
def user_truth() -> "reach.Truth":
    """JAX's dtypes over the user corpus, traced (about 6 CPU-s)."""
    return reach.collect_truth(reach.corpus_files(USER_CORPUS), execute=False, directory=USER_CORPUS)


def test_user_corpus_is_code_as_users_write_it() -> None:
    """The corpus issue 46 measures `jaxtypes annotate` on: 600 to 1,000
    lines that name nothing of jaxtypes and annotate arrays as public code
    does, bare."""
    files = reach.corpus_files(USER_CORPUS)
    assert 600 <= sum(len(t.splitlines()) for t in files.values()) <= 1000
    text = "\n".join(files.values())
    assert not re.search(r"^\s*(from|import) jaxtypes\b", text, re.M)
    assert not re.search(r"Array\[", text)  # no dtype written anywhere
    for idiom in ("ArrayLike", "jnp.dtype = jnp.float32", "dict[str, jax.Array]", "flax.linen", "from flax import nnx"):
        assert idiom in text, idiom
    assert "import equinox as eqx" in text and "optax.GradientTransformation(" in text


def test_user_corpus_runs_and_records_across_its_modules(user_truth: "reach.Truth") -> None:
    """Each file's values are recorded, those of the modules others import
    too (ops.py's functions called from train.py); the models run in float32
    and bfloat16, so their layers' values have no one dtype and are left out."""
    files = reach.corpus_files(USER_CORPUS)
    by_file = Counter(f for f, _, _ in user_truth.nodes)
    assert set(by_file) == set(files) - {"config.py"} and all(n >= 15 for n in by_file.values()), by_file
    assert {f for f, _, _ in user_truth.varying} == {"linen_model.py", "nnx_model.py", "ops.py", "optim.py"}
    assert user_truth.varying[("linen_model.py", 36, "out")] == {"float32", "bfloat16"}
    expected = {
        ("ops.py", 59, "mask"): "bool",
        ("ops.py", 101, "q"): "int8",
        ("ops.py", 111, "acc"): "int32",  # preferred_element_type
        ("ops.py", 123, "y16"): "bfloat16",  # rms_norm keeps its input's dtype
        ("optim.py", 20, "step"): "float32",
        ("optim.py", 54, "count"): "int32",
        ("train.py", 48, "tokens"): "int32",
        ("train.py", 51, "weights"): "f*",  # jnp.where of two Python floats
        ("eqx_model.py", 69, "picked"): "float32",  # under vmap and filter_value_and_grad
    }
    assert {site: user_truth.nodes.get(site) for site in expected} == expected


@pytest.mark.slow  # the corpus's suite twice, once under the recorder (minutes)
def test_user_corpus_suite_passes_after_annotate(tmp_path: Path) -> None:
    """`jaxtypes annotate --spelling jax` with the corpus's own suite as the
    command rewrites a copy of it, and the suite still passes on the copy."""
    import subprocess

    done = reach.annotate_copy(USER_CORPUS, "jax", tmp_path)
    assert done.summary.startswith("jaxtypes annotate: annotated "), done.summary
    rewritten = reach.corpus_files(done.directory)
    assert "def rms_norm(x: jax.Array[DT], scale: jax.Array[jnp.float32]" in rewritten["ops.py"]
    suite = subprocess.run(reach.driver_command(done.directory), cwd=done.directory, capture_output=True, text=True)
    assert suite.returncode == 0, suite.stdout[-3000:]
