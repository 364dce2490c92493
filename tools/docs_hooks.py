"""MkDocs hooks of the documentation site (``mkdocs.yml``: ``hooks``).

A ``|`` inside a code span of a Markdown table is written ``\\|`` so that
GitHub, which renders the pages of ``docs/`` too, does not split the cell
there; Python-Markdown keeps code spans whole and would show the backslash.
"""

from __future__ import annotations

import re
from typing import Any

_CODE_SPAN = re.compile(r"`[^`\n]*`")


def _unescape_pipes(line: str) -> str:
    return _CODE_SPAN.sub(lambda m: m.group(0).replace("\\|", "|"), line)


def on_page_markdown(markdown: str, **_: Any) -> str:
    """The page's table rows with ``\\|`` in their code spans written ``|``."""
    return "\n".join(_unescape_pipes(line) if line.startswith("|") else line for line in markdown.split("\n"))
