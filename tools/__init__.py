"""The development pipeline (not shipped): JAX's answers recorded by the oracle
scripts (``tools/oracle``, which import JAX and never jaxtypes) into
``tools/data``, and the generator (``python -m tools.generate``) that writes the
stubs, the case files (``tools/cases``) and the documentation's tables from them and
from the lattice.  Run from the repository's root, as modules."""

from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
"""Where JAX's recorded answers are: one JSON file per oracle script."""
