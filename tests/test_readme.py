"""The examples of the README and of the documentation's pages, checked for real.

Every fenced block of README.md and of docs/**/*.md (tests/docs_pages.py) is
checked according to its language, or is of a language that cannot be checked
here (shell commands, run by the tests tests/test_docs_site.py names for
each; diagrams):

* ``python`` blocks of ``>>>`` lines run as doctests against the package;
* the other ``python`` blocks are type-checked in the six set-ups (mypy, mypy
  with the plugin, pyright, basedpyright, pyrefly, ty) with their comments as
  expectations: ``# Array[...]`` on a ``reveal_type(...)`` line (or on
  ``name = ...``, which gets a ``reveal_type(name)``) is the type each checker
  must reveal, ``# error`` a line each must report; every other line must get
  no error.  A block using ``jax.Array[...]`` is checked with the stubs of
  ``jaxtypes jax-stubs --out typings``, configured as docs/jax-stubs.md's table says,
  and its ``# before: ... after: ...`` comments give the expectations without
  the stubs (annotated with plain ``jax.Array``) and with them.  Each block
  also runs under JAX, which must compute what its comments say;
* the ``ini`` and ``toml`` blocks of the mypy plugin's settings
  (docs/getting-started/mypy.md) are mypy's configuration, verbatim, for a
  run whose answers show the settings in force.

The ``--out typings`` set-up table (docs/jax-stubs.md) must be what the
checkers are configured with (tools/checkers.py, from what the command prints).
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

from tools.checkers import MYPY_PLUGIN, STUBS, command, execute, reported_errors, revealed, stage, stub_setting

import docs_pages
import project_runs
from docs_pages import Block, blocks

REPO = Path(__file__).resolve().parent.parent
SETUPS = ("mypy", MYPY_PLUGIN, "pyright", "basedpyright", "pyrefly", "ty")
CHECKED_LANGUAGES = {"python", "ini", "toml"}
NOT_CHECKABLE_LANGUAGES = {"bash", "mermaid"}  # shell commands, diagrams
# What JAX 0.10.2 computes for a weakly typed value, x64 off: the dtype of a
# weak marker's arrays.
WEAK = {"weak_int": "int32 (weak)", "weak_float": "float32 (weak)", "weak_complex": "complex64 (weak)"}

from examples import show_dtypes  # noqa: E402


# ------------------------------------------------------ the pages' blocks
def is_doctest(block: Block) -> bool:
    return block.language == "python" and block.text.lstrip().startswith(">>>")


def annotated_blocks() -> list[Block]:
    return [b for b in blocks() if b.language == "python" and not is_doctest(b)]


def uses_jax_array(block: Block) -> bool:
    return re.search(r"\bjax\.Array\[", block.text) is not None


def block_id(block: Block) -> str:
    return block.where


# ------------------------------------------------------- the expectations
@dataclass(frozen=True)
class Expect:
    reveal: str | None  # the type to reveal, None when the line reveals nothing
    error: bool


TYPE = re.compile(r"^Array(\[[^\]]*\])?")
BEFORE_AFTER = re.compile(r"^before:\s*(?P<before>.*?)\s+after:\s*(?P<after>.*)$")


def _expect(text: str) -> Expect | None:
    """What one comment (or one half of a before/after comment) expects."""
    m = TYPE.match(text)
    if m:
        return Expect(m.group(0), False)
    if text.startswith("no error"):
        return Expect(None, False)
    if text.startswith("error"):
        return Expect(None, True)
    return None  # a comment that says why, not what


def expectations(block: Block) -> dict[str, dict[int, Expect]]:
    """{"as is" or "before"/"after": {line of the block: what it expects}}."""
    found: dict[str, dict[int, Expect]] = {}
    for token in tokenize.generate_tokens(io.StringIO(block.text).readline):
        if token.type != tokenize.COMMENT:
            continue
        comment, line = token.string.lstrip("#").strip(), token.start[0]
        m = BEFORE_AFTER.match(comment)
        halves = {"before": m.group("before"), "after": m.group("after")} if m else {"as is": comment}
        for version, text in halves.items():
            expect = _expect(text)
            if expect is not None:
                found.setdefault(version, {})[line] = expect
    return found


def staged(text: str, expected: dict[int, Expect]) -> str:
    """The block with a ``reveal_type(name)`` after each ``name = ...`` line
    that expects a type (on the same line: line numbers kept)."""
    lines = text.splitlines()
    for n, expect in expected.items():
        code = lines[n - 1].split("#")[0].rstrip()
        if expect.reveal is None or code.lstrip().startswith("reveal_type("):
            continue
        m = re.match(r"^\s*(\w+)\s*=", code)
        assert m, f"a documented line expects a type but reveals nothing: {lines[n - 1].strip()!r}"
        lines[n - 1] = f"{code}; reveal_type({m.group(1)})"
    return "\n".join(lines) + "\n"


def test_every_block_is_checked_or_not_checkable_by_its_language() -> None:
    for block in blocks():
        assert block.language in CHECKED_LANGUAGES | NOT_CHECKABLE_LANGUAGES, (
            f"{block.where}: a ```{block.language} block: give it a language this test "
            f"checks ({sorted(CHECKED_LANGUAGES)}) or one it cannot ({sorted(NOT_CHECKABLE_LANGUAGES)})"
        )


def test_the_readme_has_examples_to_check() -> None:
    annotated = annotated_blocks()
    assert len(annotated) >= 2 and any(uses_jax_array(b) for b in annotated)
    # The README's Quick start shows one, checked as the pages' are.
    assert any(b.path == "README.md" and uses_jax_array(b) for b in annotated)
    for block in annotated:
        versions = expectations(block)
        assert versions, f"{block_id(block)}: no # Array[...] or # error comment to check"
        for expected in versions.values():
            assert any(e.reveal for e in expected.values()), block_id(block)
        assert any(e.error for expected in versions.values() for e in expected.values()), block_id(block)
    assert any(is_doctest(b) for b in blocks())


# ------------------------------------------------------ type-checking runs
@dataclass(frozen=True)
class Job:
    checker: str
    stubs: bool
    files: dict[str, str]  # {file name: text}, each file a block's version
    expected: dict[str, dict[int, Expect]]  # {file name: its expectations}


def jobs() -> list[Job]:
    """Per set-up, two runs: the blocks without the stubs (those using
    jax.Array[...] annotated with plain jax.Array, their "before"), and the
    blocks using jax.Array[...] with them (their "after").  "Before" is plain
    JAX, without jaxtypes: not a set-up of mypy with jaxtypes' plugin."""
    plain: dict[str, str] = {}
    before: dict[str, str] = {}
    with_stubs: dict[str, str] = {}
    expected: dict[str, dict[int, Expect]] = {}
    for block in annotated_blocks():
        versions = expectations(block)
        name = f"readme/{block.slug}"
        if uses_jax_array(block):
            before[f"{name}_before.py"] = staged(show_dtypes.plain_jax(block.text), versions["before"])
            expected[f"{name}_before.py"] = versions["before"]
            with_stubs[f"{name}_after.py"] = staged(block.text, versions["after"])
            expected[f"{name}_after.py"] = versions["after"]
        else:
            plain[f"{name}.py"] = staged(block.text, versions["as is"])
            expected[f"{name}.py"] = versions["as is"]
    found = []
    for checker in SETUPS:
        without = plain if checker == MYPY_PLUGIN else {**plain, **before}
        for stubs, files in ((False, without), (True, with_stubs)):
            found.append(Job(checker, stubs, files, {f: expected[f] for f in files}))
    return found


def problems(
    job: Job, reveals: dict[tuple[str, int], list[str]], errors: dict[tuple[str, int], list[str]]
) -> list[str]:
    found = []
    for path, text in job.files.items():
        expected = job.expected[path]
        for n, line in enumerate(text.splitlines(), 1):
            expect = expected.get(n, Expect(None, False))
            where = f"{path}:{n} `{line.strip()}`"
            got_errors = errors.get((path, n), [])
            if expect.error and not got_errors:
                found.append(f"{where}: no error")
            elif not expect.error and got_errors:
                found.append(f"{where}: unexpected error {got_errors}")
            if expect.reveal is not None:
                got = [show_dtypes.short(t) for t in reveals.get((path, n), [])]
                if job.stubs and job.checker == "pyrefly" and got == ["Array"]:
                    got = ["Array[Any]"]  # pyrefly's spelling of the generic Array's default
                if got != [expect.reveal]:
                    found.append(f"{where}: revealed {got}, the page says {expect.reveal}")
    return found


def _files_of(checker: str, stubs: bool) -> dict[str, str]:
    (job,) = [job for job in jobs() if (job.checker, job.stubs) == (checker, stubs)]
    return job.files


project_runs.register(stubs=True, files=lambda checker: _files_of(checker, True))
project_runs.register(stubs=False, files=lambda checker: _files_of(checker, False))


@pytest.fixture(scope="module")
def checked() -> dict[tuple[str, bool], list[str]]:
    """Each set-up's problems with the pages' examples, without and with the
    stubs (installed by the command the pages give: the session's one run
    per set-up, tests/project_runs.py)."""
    all_jobs = jobs()
    runs = project_runs.project_runs((job.checker, job.stubs) for job in all_jobs)
    return {
        (job.checker, job.stubs): problems(
            job, runs[job.checker, job.stubs].reveals("readme"), runs[job.checker, job.stubs].errors("readme")
        )
        for job in all_jobs
    }


@pytest.mark.parametrize("checker", SETUPS)
def test_examples_without_the_stubs(checked: dict[tuple[str, bool], list[str]], checker: str) -> None:
    assert checked[checker, False] == []


@pytest.mark.parametrize("checker", SETUPS)
def test_jax_array_examples_with_the_stubs(checked: dict[tuple[str, bool], list[str]], checker: str) -> None:
    assert checked[checker, True] == []


# ----------------------------------------------------------- run under JAX
def _runtime_expectation(expect: Expect) -> str | None:
    """What JAX must compute for a line expecting ``expect`` (None: anything)."""
    if expect.error:
        return "raises"
    marker = (expect.reveal or "")[len("Array[") : -1]
    if not marker or marker == "Any":
        return None
    return WEAK.get(marker, marker)


@pytest.mark.parametrize("block", annotated_blocks(), ids=block_id)
def test_examples_compute_under_jax_what_they_say(block: Block) -> None:
    """Each function of the block, run on arrays of its parameters' dtypes:
    JAX's dtype on each line expecting a type, JAX's error on each error line."""
    versions = expectations(block)
    expected = versions["after" if uses_jax_array(block) else "as is"]
    error_lines = {n for n, e in expected.items() if e.error}
    computed = show_dtypes.run_under_jax(staged(block.text, expected), error_lines)
    checked = 0
    for n, expect in expected.items():
        want = _runtime_expectation(expect)
        if want is None:
            continue
        checked += 1
        got = computed.get(n, "nothing")
        line = block.text.splitlines()[n - 1].strip()
        if want == "raises":
            assert got.startswith("raises "), (line, got)
        else:
            assert got == want, (line, got)
    assert checked >= 3


# ---------------------------------------------------------------- doctests
@pytest.mark.parametrize("block", [b for b in blocks() if is_doctest(b)], ids=block_id)
def test_runtime_examples_as_doctests(block: Block, tmp_path: Path) -> None:
    examples = tmp_path / f"{block.slug}.txt"
    examples.write_text(block.text)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-m", "doctest", "-v", examples.name],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    m = re.search(r"^(\d+) passed and 0 failed\.$", proc.stdout, re.M)
    assert m and int(m.group(1)) == block.text.count(">>> "), proc.stdout[-2000:]


# ------------------------------------------------ the configuration lines
PLUGIN_PROBE = """\
from typing_extensions import reveal_type

from jaxtypes import Array, bfloat16, float32, int8, int64


def probe(q: Array[int8], n: Array[int64], x: Array[bfloat16], w: Array[float32]) -> None:
    reveal_type(q.argmax())
    reveal_type(q.sum())
    reveal_type(n / 2)
    x + w
    reveal_type(x * 0.5)
"""
# What JAX computes with jax_enable_x64 and strict promotion (the settings of
# docs/getting-started/mypy.md's blocks), as the pages about the plugin say.
PLUGIN_PROBE_REVEALS = {7: "Array[int64]", 8: "Array[int64]", 9: "Array[float64]", 11: "Array[bfloat16]"}
PLUGIN_PROBE_ERROR = (10, "cast the bfloat16 operand explicitly, e.g. x.astype(jaxtypes.float32)", "[jax-promotion]")


MYPY_PAGE = "docs/getting-started/mypy.md"


def plugin_block(language: str) -> Block:
    (block,) = [b for b in blocks() if b.path == MYPY_PAGE and b.language == language]
    return block


def _settings_in_force(root: Path, cmd: list[str]) -> None:
    out = execute(MYPY_PLUGIN, root, cmd)
    reveals = {
        line: [show_dtypes.short(t) for t in types]
        for (path, line), types in revealed(MYPY_PLUGIN, out, root).items()
        if path == "probe.py"
    }
    errors = {
        line: msgs for (path, line), msgs in reported_errors(MYPY_PLUGIN, out, root).items() if path == "probe.py"
    }
    assert reveals == {line: [t] for line, t in PLUGIN_PROBE_REVEALS.items()}, out
    line, message, code = PLUGIN_PROBE_ERROR
    assert list(errors) == [line], out
    assert message in errors[line][0] and errors[line][0].endswith(code), errors


def test_plugin_ini_block_is_mypys_configuration(tmp_path: Path) -> None:
    ini = plugin_block("ini").text
    assert "promotion = strict" in ini.splitlines() and "x64 = true" in ini.splitlines()
    paths = stage({"probe.py": PLUGIN_PROBE}, tmp_path)
    cmd = command(MYPY_PLUGIN, tmp_path, paths, mypy_config=ini)
    assert (tmp_path / "mypy.ini").read_text() == ini
    _settings_in_force(tmp_path, cmd)


def test_plugin_toml_block_is_mypys_configuration(tmp_path: Path) -> None:
    toml = plugin_block("toml").text
    assert 'promotion = "strict"' in toml.splitlines() and "x64 = true" in toml.splitlines()
    paths = stage({"probe.py": PLUGIN_PROBE, "pyproject.toml": toml}, tmp_path)
    paths.remove("pyproject.toml")
    cmd = command(MYPY_PLUGIN, tmp_path, paths)
    cmd[cmd.index("mypy.ini")] = "pyproject.toml"  # mypy's configuration: the page's block alone
    _settings_in_force(tmp_path, cmd)


def test_plugin_line_of_the_checker_table_is_in_the_configuration() -> None:
    """ "What each checker needs" (docs/getting-started/index.md) gives mypy's
    plugin line: the one run above."""
    text = docs_pages.page("getting-started/index.md")
    row = next(line for line in text.splitlines() if line.startswith("| mypy | "))
    (setting,) = re.findall(r"`(plugins = [^`]*)`", row)
    assert setting in plugin_block("ini").text.splitlines()


def out_table() -> dict[str, list[str]]:
    """docs/jax-stubs.md's set-up table for ``--out typings``: {checker: its cell's code spans}."""
    lines = docs_pages.page("jax-stubs.md").splitlines()
    start = next(n for n, line in enumerate(lines) if line.endswith("`--out typings`:"))
    table: dict[str, list[str]] = {}
    for line in lines[start + 1 :]:
        if not line.strip():
            if table:
                break
            continue
        checkers, _, setup = line.strip("|").partition("|")
        if checkers.strip() in ("checker", "---"):
            continue
        for checker in checkers.split(","):
            table[checker.strip()] = re.findall(r"`([^`]*)`", setup)
    return table


def test_out_table_is_the_configuration_the_checkers_run_with() -> None:
    """Each line the table gives is the one tools/checkers.py writes, verbatim,
    in the file and section the table names, for the runs with the stubs above."""
    table = out_table()
    assert sorted(table) == sorted({"mypy" if c == MYPY_PLUGIN else c for c in SETUPS})
    for checker, spans in table.items():
        setting = stub_setting(checker)
        if setting.line:
            assert spans[:3] == [setting.line, setting.section, setting.file], (checker, spans, setting)
        else:  # pyright's default stubPath is typings
            assert spans == ["stubPath", STUBS] and setting.file == "pyrightconfig.json", (checker, spans)


def test_out_table_lines_are_written_as_the_table_says(tmp_path: Path) -> None:
    """The configuration files tools/checkers.py writes for the stubs hold the
    table's lines in the sections it names."""
    table = out_table()
    for checker in SETUPS:
        root = tmp_path / checker
        root.mkdir()
        command(checker, root, ["example.py"], stubs=True)
        spans = table["mypy" if checker == MYPY_PLUGIN else checker]
        if checker in ("pyright", "basedpyright"):
            assert "stubPath" not in json.loads((root / "pyrightconfig.json").read_text())
            continue
        line, section, file = spans[:3]
        text = (root / file).read_text().splitlines()
        if checker == "pyrefly":
            # The staged project disables pyrefly's search-path heuristics and
            # puts in their place the project's root, which they add in a
            # user's project: the printed path, then ".".
            key, _, value = line.partition(" = ")
            line = f"{key} = {json.dumps([*json.loads(value), '.'])}"
        assert line in text and text.index(section) < text.index(line), (checker, text)


# ------------------------------------------- the table of function families
# Each row's label -> the families of jaxtypes.function_rules it stands for
# ("inexact, strong": the inexact family without weak results, or mean).
FAMILY_ROWS = {
    "keeps its input's": {"keeps"},
    "promotes, then inexact": {"inexact"},
    "inexact, strong": {"mean", "inexact"},
    "real component": {"real"},
    "to complex": {"fft", "complex"},
    "sum-like": {"sum"},
    "`dtype=` decides": {"dtype"},
    "like an input": {"like"},
    "fixed": {"fixed"},
    "two arrays": {"keeps", "operator", "equal", "inexact", "mean"},
    "equal dtypes": {"equal", "select"},
    "PRNG keys": {"key"},
    "values and indices": {"keeps"},
    "named results": {"inexact", "real"},
}


def _function_names(cell: str) -> list[str]:
    """The functions a table cell names: `reshape`, `jax.nn.relu`, `lax.rsqrt`,
    `linalg.norm`, `jax.random.normal`/`uniform` (the second in the first's module)."""
    names = []
    for group in re.findall(r"`[\w.]+`(?:/`[\w.]+`)*", cell):
        parts = re.findall(r"`([\w.]+)`", group)
        module = ""
        for part in parts:
            if "." not in part and module:
                part = f"{module}.{part}"
            module = part.rpartition(".")[0]
            if part.startswith("lax.") or part.startswith("linalg.") or part.startswith("fft."):
                part = ("jax." if part.startswith("lax.") else "jax.numpy.") + part
            elif not part.startswith("jax."):
                part = "jax.numpy." + part
            names.append(part)
    return names


def test_family_table_names_functions_of_that_family() -> None:
    from jaxtypes import function_rules

    text = docs_pages.page("functions.md")
    start = text.index("| family | for example | the dtype |")
    rows = text[start:].split("\n\n")[0].splitlines()[2:]
    labels = set()
    for row in rows:
        label, examples, _ = (c.strip() for c in row.strip("|").split("|", 2))
        labels.add(label)
        names = _function_names(examples)
        assert names, row
        for name in names:
            assert name in function_rules.TABLE, f"{label}: {name} is not in jaxtypes.function_rules"
            rule = function_rules.TABLE[name]
            assert rule.family in FAMILY_ROWS[label], f"{label}: {name} is of family {rule.family}"
            if label == "promotes, then inexact":
                assert rule.keep_weak, f"{label}: {name} gives no weak result"
            if label == "inexact, strong" and rule.family == "inexact":
                assert not rule.keep_weak, f"{label}: {name} keeps a weak input weak"
            if label == "values and indices":
                assert rule.others == ("int32",), f"{label}: {name} gives no int32 indices"
            if label == "named results":  # (a result the others leave out is the first one's: qr's R)
                assert set(rule.others) <= set(function_rules.RESULT_FAMILIES), f"{label}: {name} gives {rule.others}"
    assert labels == set(FAMILY_ROWS)


def test_function_table_counts_are_the_table_s() -> None:
    """docs/functions.md's counts of JAX's functions (all, with a rule, typed,
    untyped) are the table's, counted from jaxtypes/functions.csv itself."""
    import csv

    with (REPO / "jaxtypes" / "functions.csv").open(newline="", encoding="utf-8") as f:
        families = [row["family"] for row in csv.DictReader(f)]
    untyped = sum(family in ("untyped", "higher_order") for family in families)
    no_array = families.count("not_an_array")
    text = " ".join(docs_pages.page("functions.md").split())
    form = "The table holds {} functions: {} with a rule, {} of them typed and {} returning no array; {} untyped,"
    found = re.search(re.escape(form).replace(r"\{\}", r"(\d+)"), text)
    assert found, "docs/functions.md: the sentence counting jaxtypes/functions.csv's rows"
    counts = (len(families), len(families) - untyped, len(families) - untyped - no_array, no_array, untyped)
    sentence = form.format(*counts)
    assert tuple(map(int, found.groups())) == counts, f"docs/functions.md: write {sentence!r}"
