"""Generated output is committed fresh, and ``tools/generate.py --check`` notices
when it is not (checked on a temporary copy, never on the real page).  The
checks of the section machinery run the targets of the sections of
docs/lattice.md only: the other targets (stubs, typecheck cases, the
operations table of docs/annotating.md) are checked for freshness by the
first test."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SECTIONS = ("promotion-table", "promotion-table-x32-differences", "lattice-mermaid", "numpy-differences")
PAGE = "docs/lattice.md"  # where the SECTIONS are (tools/generate.py's LATTICE_PAGE)


def generate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tools.generate", *args], capture_output=True, text=True, cwd=REPO, timeout=300
    )


@pytest.fixture(scope="module")
def gen():
    """tools/generate.py (pytest puts the repository's root on sys.path)."""
    import tools.generate

    return tools.generate


def test_committed_output_is_fresh():
    proc = generate("--check")
    assert proc.returncode == 0, (
        "generated output is stale; run `python -m tools.generate`\n" + proc.stdout + proc.stderr
    )


def _markers(name: str) -> str:
    return f"<!-- BEGIN GENERATED: {name} -->\n<!-- END GENERATED: {name} -->\n"


def test_the_sections_are_on_the_page(gen) -> None:
    assert {name: gen.TARGETS[name].path for name in SECTIONS} == dict.fromkeys(SECTIONS, PAGE)


@pytest.fixture
def page_copy(tmp_path: Path) -> Path:
    """A copy of the page with every section's markers (added when missing), filled in."""
    page = tmp_path / PAGE
    page.parent.mkdir(parents=True)
    shutil.copyfile(REPO / PAGE, page)
    text = page.read_text(encoding="utf-8")
    for name in SECTIONS:
        if f"<!-- BEGIN GENERATED: {name} -->" not in text:
            text += f"\n## {name}\n\n" + _markers(name)
    page.write_text(text, encoding="utf-8")
    proc = generate("--root", str(tmp_path), *SECTIONS)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return page


def test_generated_copy_is_fresh_and_holds_the_table(page_copy: Path):
    proc = generate("--check", "--root", str(page_copy.parent.parent), *SECTIONS)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = page_copy.read_text(encoding="utf-8")
    # Rows of JAX's documented table, written out.
    assert "| u8 | u8 | u8 | u8 | u8 | u8 | f* | f* | f* | f* | bf | f2 | f4 | f8 | c8 | c16 | u8 | f* | c* |" in text
    assert "| bf | bf | bf | bf | bf | bf | bf | bf | bf | bf | bf | f4 | f4 | f8 | c8 | c16 | bf | bf | c8 |" in text
    assert "| uint32 | int8 | int64 | int32 |" in text  # the x32 difference
    assert "```mermaid\ngraph BT" in text
    assert "| uint64 | int8 | f* | float64 | weak |" in text
    # Generating twice changes nothing.
    before = text
    assert generate("--root", str(page_copy.parent.parent), *SECTIONS).returncode == 0
    assert page_copy.read_text(encoding="utf-8") == before


def test_stale_section_is_detected(page_copy: Path):
    text = page_copy.read_text(encoding="utf-8")
    row = "| u8 | u8 | u8 | u8 | u8 | u8 | f* | f* | f* | f* |"
    assert row in text
    page_copy.write_text(text.replace(row, "| u8 | u8 | u8 | u8 | u8 | u8 | f8 | f* | f* | f* |"), encoding="utf-8")
    proc = generate("--check", "--root", str(page_copy.parent.parent), *SECTIONS)
    assert proc.returncode == 1
    assert f"{PAGE} [section promotion-table]: differs" in proc.stdout
    assert "numpy-differences]" not in proc.stdout  # only the stale section is listed
    assert "-| u8 | u8 | u8 | u8 | u8 | u8 | f8 |" in proc.stdout  # the diff shows the edit
    # The real page is untouched; regenerating the copy repairs it.
    assert generate("--root", str(page_copy.parent.parent), *SECTIONS).returncode == 0
    assert generate("--check", "--root", str(page_copy.parent.parent), *SECTIONS).returncode == 0


def test_text_outside_the_markers_is_kept(gen, page_copy: Path):
    text = page_copy.read_text(encoding="utf-8")
    edited = text.replace("## Where JAX differs from NumPy", "## Where JAX differs from NumPy (prose edited)")
    assert edited != text
    page_copy.write_text(edited, encoding="utf-8")
    changes, _ = gen.plan(list(SECTIONS), root=page_copy.parent.parent)
    assert changes == []


def test_replace_section(gen):
    text = "# t\n\nbefore\n" + _markers("x") + "after\n"
    out = gen.replace_section(text, "x", "hello\n")
    assert out == (
        "# t\n\nbefore\n<!-- BEGIN GENERATED: x -->\n" + gen.NOTICE + "\n\nhello\n\n<!-- END GENERATED: x -->\nafter\n"
    )
    assert gen.replace_section(out, "x", "hello\n") == out
    assert gen.replace_section(text, "other", "hello") is None


@pytest.mark.parametrize(
    "text",
    [
        "<!-- BEGIN GENERATED: x -->\nno end\n",
        "<!-- END GENERATED: x -->\n<!-- BEGIN GENERATED: x -->\n",
        "<!-- BEGIN GENERATED: x -->\n<!-- END GENERATED: x -->\n" * 2,
    ],
)
def test_malformed_markers_are_errors(gen, text):
    with pytest.raises(gen.GenerateError):
        gen.replace_section(text, "x", "hello")


def test_malformed_markers_fail_check(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / PAGE).write_text("# t\n<!-- BEGIN GENERATED: promotion-table -->\n", encoding="utf-8")
    proc = generate("--check", "--root", str(tmp_path), *SECTIONS)
    assert proc.returncode == 1
    assert "promotion-table" in proc.stderr


def test_missing_markers_are_skipped_not_stale(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / PAGE).write_text("# The lattice\n", encoding="utf-8")
    sections = ["promotion-table", "promotion-table-x32-differences", "lattice-mermaid", "numpy-differences"]
    proc = generate("--check", "--root", str(tmp_path), *sections)
    assert proc.returncode == 0
    assert "no markers for section 'promotion-table'" in proc.stderr


def test_file_and_file_set_targets(gen, tmp_path: Path, monkeypatch):
    """The target kinds later work will use (stubs, typecheck cases)."""
    monkeypatch.setattr(gen, "TARGETS", {})
    gen.generated_file("one", "out/one.txt")(lambda: "one\n")
    gen.file_set("many", "cases", "*.py")(lambda: {"a.py": "A\n", "b.py": "B\n"})
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "old.py").write_text("stale\n")
    (tmp_path / "cases" / "a.py").write_text("A\n")
    (tmp_path / "cases" / "notes.txt").write_text("not matched\n")

    changes, _ = gen.plan(root=tmp_path)
    listed = {(c.what, c.old is None, c.new is None) for c in changes}
    assert listed == {
        ("out/one.txt", True, False),  # to create
        ("cases/b.py", True, False),  # to create
        ("cases/old.py", False, True),  # to delete
    }
    gen.apply(changes)
    assert (tmp_path / "out" / "one.txt").read_text() == "one\n"
    assert (tmp_path / "cases" / "b.py").read_text() == "B\n"
    assert not (tmp_path / "cases" / "old.py").exists()
    assert (tmp_path / "cases" / "notes.txt").exists()
    assert gen.plan(root=tmp_path)[0] == []
