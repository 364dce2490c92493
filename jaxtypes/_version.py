"""jaxtypes' version: its one source (pyproject.toml reads it, through hatch's
version source; the generators stamp it on what they write)."""

__version__ = "0.1.0"
