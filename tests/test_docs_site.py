"""The documentation: the site builds, the README stays short, and every
command the pages show is run by a test.

* ``mkdocs build --strict`` builds the site (``mkdocs.yml``, ``docs/``) with
  the pinned MkDocs, Material and mkdocstrings: a broken link or anchor, a
  page left out of the navigation, or an API reference (``::: jaxtypes.NAME``)
  to a name that no longer exists fails it.  The tools are in the ``test``
  extra; without them this fails, it does not skip.
* The README is the front page: what jaxtypes is, the Quick start, the
  developer Set-up and links to the pages, at most ``README_LINES`` lines,
  each link to a file that exists.
* Every shell command of a ``bash`` block of the README and of the pages is
  run here (``RUN_HERE``, with the first line of output its ``# prints:``
  comment gives) or listed in ``RUN_BY`` with the test that runs it.
  (The Python blocks are tests/test_readme.py's.)
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # the test extra installs tomli there
    import tomli as tomllib

import docs_pages
from docs_pages import README, REPO

README_LINES = 200
MKDOCS_TOOLS = ("mkdocs", "mkdocs-material", "mkdocstrings", "mkdocstrings-python", "pymdown-extensions")
VENV_BIN = Path(sys.executable).parent


def _build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of ``config`` into ``site``, from the
    repository's root (the snippets of CHANGELOG.md and CONTRIBUTING.md are
    read from there)."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "--site-dir", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


def _text(page: Path) -> str:
    """A built page's text: its HTML without tags, whitespace runs as one space."""
    import html

    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))).split())


# ------------------------------------------------------------------ the site
def test_site_tools_are_pinned_in_the_test_extra_and_installed() -> None:
    extra = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    pins = {}
    for requirement in extra["test"]:
        m = re.fullmatch(r"([\w.-]+)==([\w.]+)", requirement.split(";")[0].strip())
        if m:
            pins[m[1].lower()] = m[2]
    for tool in MKDOCS_TOOLS:
        assert tool in pins, f"pin {tool} exactly in the test extra"
        assert metadata.version(tool) == pins[tool], f"{tool} {metadata.version(tool)} installed, {pins[tool]} pinned"


def test_the_site_builds_strict(tmp_path: Path) -> None:
    site = tmp_path / "site"
    proc = _build(REPO / "mkdocs.yml", site)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    # Every page of docs/ is a page of the site (and in the navigation: strict).
    for path in sorted((REPO / "docs").rglob("*.md")):
        rel = path.relative_to(REPO / "docs").with_suffix("")
        built = site / (rel.parent if rel.name == "index" else rel) / "index.html"
        assert built.is_file(), f"docs/{path.relative_to(REPO / 'docs')} was not built"
    # The references are generated from the docstrings: the runtime API's and the CLI's.
    runtime = _text(site / "runtime" / "index.html")
    assert "jax.numpy.promote_types: the dtype a binary operation casts to" in runtime
    assert "Process-wide settings, named as in jax.config" in runtime  # jaxtypes.config.Config
    assert "update(name: str, value: Any) -> None" in runtime  # its members, which have no docstrings
    cli = _text(site / "cli" / "index.html")
    assert "Run the command line; returns the exit code" in cli  # jaxtypes.cli.main
    # The snippets are included, not left as include lines.
    changelog = (site / "changelog" / "index.html").read_text(encoding="utf-8")
    assert "Unreleased" in changelog and "--8&lt;--" not in changelog and "--8<--" not in changelog


BROKEN = {
    # what is appended to docs/faq.md, what the build's error names
    "link": ("\n[a page](no-such-page.md)\n", "no-such-page.md"),
    "anchor": ("\n[an anchor](faq.md#no-such-anchor)\n", "no-such-anchor"),
    "reference": ("\n::: jaxtypes.no_such_function\n", "jaxtypes.no_such_function"),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_broken_page_fails_the_build(kind: str, tmp_path: Path) -> None:
    """What the strict build catches: a copy of the pages with one broken
    link, anchor or API reference does not build, and the error names it."""
    docs = tmp_path / "docs"
    shutil.copytree(REPO / "docs", docs)
    added, named = BROKEN[kind]
    with open(docs / "faq.md", "a", encoding="utf-8") as f:
        f.write(added)
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    config = config.replace("docs_dir: docs\n", f"docs_dir: {docs}\n")
    config = config.replace("  - tools/docs_hooks.py\n", f"  - {REPO / 'tools' / 'docs_hooks.py'}\n")
    config = config.replace('paths: ["."]', f'paths: ["{REPO}"]')
    assert str(docs) in config and str(REPO / "tools") in config and f'paths: ["{REPO}"]' in config
    (tmp_path / "mkdocs.yml").write_text(config, encoding="utf-8")
    proc = _build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert proc.returncode != 0, proc.stderr[-3000:]
    assert named in proc.stderr, proc.stderr[-3000:]


# ---------------------------------------------------------------- the README
def test_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_LINES, f"README.md has {len(lines)} lines: move detail to docs/"


def test_readme_has_the_front_page_sections() -> None:
    headings = [line for line in README.read_text(encoding="utf-8").splitlines() if line.startswith("## ")]
    assert headings[:2] == ["## Quick start", "## Set-up"], headings
    assert "## Documentation" in headings and "## License" in headings


def test_readme_links_resolve() -> None:
    """Each relative link of the README names a file of the repository and,
    for a page of docs/, one of its headings."""
    from markdown.extensions.toc import slugify

    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert len([link for link in links if link.startswith("docs/")]) >= 15, links
    for link in links:
        if re.match(r"\w+://", link):
            continue
        target, _, anchor = link.partition("#")
        path = REPO / target
        assert path.exists(), f"README.md links to {link}: no such file"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.M)
            assert anchor in {slugify(h, "-") for h in headings}, f"README.md links to {link}: no such heading"


def test_readme_quick_start_table_is_what_install_prints() -> None:
    """The Quick start's table of what each checker needs is, line for line,
    what `jaxtypes jax-stubs install` prints for each (tests/environments.py
    reads the same lines from the command's output)."""
    from jaxtypes._stubgen import jax_stubs

    from environments import printed_settings

    printed = printed_settings("\n".join("  " + line for line in jax_stubs.setup_lines(None)))
    text = README.read_text(encoding="utf-8")
    start = text.index("| checker | add | to |")
    rows = text[start:].split("\n\n", 1)[0].splitlines()[2:]
    table = {}
    for row in rows:
        checker, line, where = (cell.strip() for cell in row.strip("|").split("|"))
        if line == "nothing":
            table[checker] = None
        else:
            m = re.fullmatch(r"`([^`]+)` of `([^`]+)`", where)
            assert m, row
            table[checker] = (line.strip("`"), m[2], m[1])
    assert table == printed, (table, printed)


# -------------------------------------------------------------- the commands
# Commands the pages show that this module runs (in the test environment's
# bin first on PATH, from a scratch directory).
RUN_HERE = (
    "jaxtypes promote bfloat16 float16",
    "jaxtypes promote int8 float",
    "jaxtypes promote uint32 int8 --x64",
    "jaxtypes explain uint64 int8 --x64",
    "jaxtypes table --x64 --format csv",
    "jaxtypes --version",
    "python --version",
    "python -m pip list 2>/dev/null | grep -iE '^(jax|jaxlib|numpy|ml.dtypes|mypy|pyright|basedpyright|pyrefly|ty|flax|equinox) '",
)
# The others, each with the test that runs it (or, for a benchmark, that checks it starts).
RUN_BY = {
    "pip install .": "tests/test_supported_ranges.py::test_live_tests_pass_at_each_end_of_the_ranges",
    "python -m build": "tests/test_wheel_quick_start.py::test_quick_start_from_a_built_wheel",
    "pip install dist/jaxtypes-*.whl": "tests/test_wheel_quick_start.py::test_quick_start_from_a_built_wheel",
    "jaxtypes jax-stubs install": "tests/test_jax_stubs.py::test_installed_stubs_need_only_the_printed_lines",
    "jaxtypes jax-stubs check": "tests/test_jax_stubs.py::test_installed_stubs_check",
    # The README's Set-up: CI runs both (.ci/run), which these tests hold to the README.
    'python3 -m venv .venv && .venv/bin/pip install -e ".[test]" && .venv/bin/python -m examples.show_dtypes': (
        "tests/test_show_dtypes.py::test_readme_first_command_runs_this_script"
    ),
    ".venv/bin/pytest": "tests/test_ci_runs_the_readme.py::test_ci_runs_the_readme_test_command_then_the_slow_set",
    # Run by hand (it installs other JAX releases in throwaway venvs); the test checks the module starts.
    ".venv/bin/python -m benchmarks.jax_versions 0.4.38 0.5.3 0.7.2 0.8.3 0.9.2 0.10.2": (
        "tests/test_benchmark_commands.py::test_benchmark_module_starts"
    ),
    # docs/real-bugs.md: the slow set runs both, as the page shows them.
    "python -m benchmarks.real_bugs.run_jax": "tests/test_real_bugs.py::test_real_bugs_run_under_jax_as_the_manifest_says",
    "python -m benchmarks.real_bugs": "tests/test_real_bugs.py::test_the_checkers_catch_the_recorded_bugs_and_pass_every_fix",
    # docs/costs.md's Flax corpus: the stubs as the benchmark stages them, and the
    # benchmark run by hand (it times checkers); its test runs the corpus as the benchmark does.
    ".venv/bin/jaxtypes jax-stubs --out typings": "tests/test_jax_stubs.py::test_out_stubs_check_clean_in_a_project",
    ".venv/bin/python -m benchmarks.reach --corpus-dir benchmarks/flax_corpus --stubs typings --compare-times "
    "--instructions --repeat 5": "tests/test_reach_corpus.py::test_flax_corpus_runs_under_jax",
    ".venv/bin/python -m benchmarks.reach --corpus-dir benchmarks/flax_corpus --stubs typings": (
        "tests/test_reach_corpus.py::test_flax_corpus_runs_under_jax"
    ),
    ".venv/bin/mkdocs build --strict --site-dir site": "tests/test_docs_site.py::test_the_site_builds_strict",
    # docs/annotate.md: the command on a small project, and its benchmark (run by hand).
    "jaxtypes annotate -- pytest tests/": "tests/test_annotate.py::test_a_pytest_run",
    "jaxtypes annotate --diff -- python train.py": "tests/test_annotate.py::test_diff_writes_nothing",
    "jaxtypes annotate --spelling jaxtypes -- python train.py": "tests/test_annotate.py::test_jaxtypes_spelling",
    ".venv/bin/python -m benchmarks.annotate_overhead": "tests/test_benchmark_commands.py::test_benchmark_module_starts",
    # docs/annotate.md's user corpus: the benchmark run by hand (it runs the six checkers
    # three times); its slow test runs annotate on the corpus as the benchmark does.
    ".venv/bin/python -m benchmarks.reach --corpus-dir benchmarks/user_corpus --stubs typings --annotate jaxtypes jax": (
        "tests/test_reach_corpus.py::test_user_corpus_suite_passes_after_annotate"
    ),
    ".venv/bin/python -m benchmarks.annotate_overhead --corpus user_corpus": (
        "tests/test_benchmark_commands.py::test_benchmark_module_starts"
    ),
    # docs/reporting.md: each checker on the page's minimal file (a block tests/test_readme.py checks).
    "mypy repro.py": "tests/test_readme.py::test_examples_without_the_stubs",
    "pyright repro.py": "tests/test_readme.py::test_examples_without_the_stubs",
    "basedpyright repro.py": "tests/test_readme.py::test_examples_without_the_stubs",
    "pyrefly check repro.py": "tests/test_readme.py::test_examples_without_the_stubs",
    "ty check repro.py": "tests/test_readme.py::test_examples_without_the_stubs",
}
PRINTS = re.compile(r"\s+#\s*prints:\s*(?P<first>.*)$")
COMMENT = re.compile(r"\s+#.*$")


def shown_commands() -> dict[str, tuple[str, str | None]]:
    """{command: (where a page shows it, the first line it says it prints)} of
    every bash block, comments taken off."""
    found: dict[str, tuple[str, str | None]] = {}
    for block in docs_pages.blocks():
        if block.language != "bash":
            continue
        for n, line in enumerate(block.text.splitlines()):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            assert not line.rstrip().endswith("\\"), f"{block.where}: one command a line"
            prints = PRINTS.search(line)
            command = COMMENT.sub("", line).strip()
            found.setdefault(command, (f"{block.path}:{block.line + n}", prints["first"] if prints else None))
    return found


def test_every_command_is_run_by_a_test() -> None:
    shown = shown_commands()
    unaccounted = sorted(f"{where}: {c}" for c, (where, _) in shown.items() if c not in RUN_HERE and c not in RUN_BY)
    assert not unaccounted, "run these here (RUN_HERE) or name the test that runs each (RUN_BY):\n" + "\n".join(
        unaccounted
    )
    stale = sorted((set(RUN_HERE) | set(RUN_BY)) - set(shown))
    assert not stale, f"no page shows these any more: {stale}"
    assert not set(RUN_HERE) & set(RUN_BY)


@pytest.mark.parametrize("command", sorted(set(RUN_BY.values())))
def test_the_named_test_exists(command: str) -> None:
    path, _, name = command.partition("::")
    source = REPO / path
    assert source.is_file(), command
    assert re.search(rf"^def {re.escape(name)}\(", source.read_text(encoding="utf-8"), re.M), command


@pytest.mark.parametrize("command", RUN_HERE)
def test_command_runs(command: str, tmp_path: Path) -> None:
    shown = shown_commands()
    assert command in shown, command
    where, first = shown[command]
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {command}"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"{where}: {command}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
    assert proc.stdout.strip(), f"{where}: {command} printed nothing"
    if first is not None:
        assert proc.stdout.splitlines()[0] == first, f"{where}: {command} printed {proc.stdout.splitlines()[0]!r}"
