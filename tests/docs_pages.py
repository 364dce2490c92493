"""The documentation the tests read: the README and the pages of the site
(``docs/``, built by MkDocs from ``mkdocs.yml``).

The tests that hold a page to the code (its examples, its tables, its counts)
read it from here: ``page("getting-started/index.md")``.  ``pages()`` lists
every Markdown file a reader sees, the README first; ``blocks()`` their fenced
code blocks, each with the page, line and heading it is under.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
README = REPO / "README.md"

# Pages whose whole text is a file of the repository's root, included by
# pymdownx.snippets (``--8<-- "CHANGELOG.md"``): read through the included file.
INCLUDE = re.compile(r'^--8<-- "([^"]+)"$', re.M)


def page(name: str) -> str:
    """The text of ``docs/<name>`` (``name`` relative to ``docs/``)."""
    path = DOCS / name
    assert path.is_file(), f"docs/{name}: no such page"
    return path.read_text(encoding="utf-8")


def pages() -> list[Path]:
    """The README, CONTRIBUTING.md and CHANGELOG.md (which pages of the site
    include), then every page of ``docs/`` (sorted), as paths."""
    return [README, REPO / "CONTRIBUTING.md", REPO / "CHANGELOG.md", *sorted(DOCS.rglob("*.md"))]


def relative(path: Path) -> str:
    """``README.md``, ``docs/annotating.md``: a path as the repository names it."""
    return path.relative_to(REPO).as_posix()


def text_of(path: Path) -> str:
    """A page's text, with any snippet it includes read in place of the include line."""
    text = path.read_text(encoding="utf-8")
    return INCLUDE.sub(lambda m: (REPO / m.group(1)).read_text(encoding="utf-8"), text)


@dataclass(frozen=True)
class Block:
    language: str
    text: str
    path: str  # the page, as relative() names it
    line: int  # the page's line of the block's first line of text
    heading: str  # the page's heading above it

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def slug(self) -> str:
        """A name for files made of the block, a valid module name: ``docs_annotating_12``."""
        stem = re.sub(r"\W", "_", self.path.removesuffix(".md")).lower()
        return f"{stem}_{self.line}"


def blocks_of(path: Path) -> list[Block]:
    """The fenced code blocks of one page."""
    found, heading, opened = [], "", None
    lines = path.read_text(encoding="utf-8").splitlines()
    for n, line in enumerate(lines, 1):
        if opened is None and line.startswith("#"):
            heading = line.lstrip("#").strip()
        elif opened is None and line.startswith("```"):
            opened = (n, line[3:].strip())
        elif opened is not None and line.strip() == "```":
            start, language = opened
            text = "\n".join(lines[start : n - 1]) + "\n"
            found.append(Block(language, text, relative(path), start + 1, heading))
            opened = None
    assert opened is None, f"{relative(path)}:{opened[0]}: a code block is never closed"
    return found


def blocks() -> list[Block]:
    """The fenced code blocks of every page, the README's first."""
    return [block for path in pages() for block in blocks_of(path)]
