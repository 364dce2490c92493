"""Which lines of the generated pair-by-pair cases the default test run checks.

The generated ``binary_*.py`` files (every lattice dtype against every other
under every operator, about 23,000 lines), ``scalar_*.py`` files (every
dtype with each kind of Python scalar, about 5,000 lines) and ``numpy_*.py``
files (every lattice dtype against every NumPy scalar and array type, about
8,400 lines) are most of what each checker reads in the default run, which
has 5 minutes on two cores.  So the default run checks a sample of their
rows, in every checker, and ``pytest -m slow`` (which CI runs too) checks
the other rows: of the pairs of arrays, a twelfth, in which every dtype meets
a twelfth of the others on either side (PAIR_STRIDE); of the scalar and NumPy
operands, the rows whose jaxtypes operand is one of SAMPLED_DTYPES
(NUMPY_SAMPLED_DTYPES).  Every operator, every dtype, every NumPy operand
and every kind of scalar is in the sample, about an eighth of the rows.  A row
left out of a part is blanked, so line numbers, and the deviations that name
lines, stay what they are in the committed files.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import TypeVar

T = TypeVar("T")

# One of each kind: bool, signed (sub-byte, 8-bit, 64-bit: x64 changes it),
# a 16-bit and a 32-bit float, complex, weak.  (The pairs of arrays and the
# NumPy operands have unsigned integers and the 8-bit floats.)
SAMPLED_DTYPES = frozenset({"bool_", "int4", "int8", "int64", "bfloat16", "float32", "complex64", "weak_float"})
# The NumPy-operand files, by far the longest per operator, with half of them:
# a bool, signed and unsigned integers, a 16-bit and a 32-bit float, a complex.
NUMPY_SAMPLED_DTYPES = frozenset({"bool_", "uint32", "int8", "bfloat16", "float32", "complex64"})
PARTS = ("sampled", "rest")

# A case is one indented statement of ``cases``; its jaxtypes operand is x_<dtype>.
_OPERAND = re.compile(r"\bx_(\w+)")


SPLIT_PREFIXES = ("binary_", "numpy_", "scalar_")
# Pairs of two arrays: the rows whose two dtypes' places in the file's
# signature add up to a multiple of PAIR_STRIDE, so that every dtype is in
# the sample on either side, each with a twelfth of the others.
PAIR_STRIDE = 12


def is_split_case_file(rel: str) -> bool:
    """A generated pair-by-pair case file, which the parts split by rows."""
    path = PurePosixPath(rel)
    return path.parent.name == "generated" and path.name.startswith(SPLIT_PREFIXES)


def is_numpy_case_file(rel: str) -> bool:
    """A generated NumPy-operand case file (not the hand-written scenarios)."""
    path = PurePosixPath(rel)
    return path.parent.name == "generated" and path.name.startswith("numpy_")


def _keeps(line: str, part: str, place: Mapping[str, int] | None, dtypes: frozenset[str]) -> bool:
    """Whether a part checks a line; ``place``: a pair file's dtypes in the
    order of its signature (None: a file sampled by its jaxtypes operand, one
    of ``dtypes``)."""
    found = _OPERAND.findall(line) if line.startswith("    ") else []
    if not found:  # the header: imports, the signature
        return True
    if place is not None and len(found) == 2:
        sampled = (place[found[0]] + place[found[1]]) % PAIR_STRIDE == 0
    else:
        sampled = found[0] in dtypes
    return sampled == (part == "sampled")


def _signature_places(rel: str, text: str) -> dict[str, int] | None:
    if not PurePosixPath(rel).name.startswith("binary_"):
        return None
    signature = next(line for line in text.splitlines() if line.startswith("def cases("))
    return {name: i for i, name in enumerate(_OPERAND.findall(signature))}


def part_of(files: Mapping[str, str], part: str) -> dict[str, str]:
    """The case files of one part: ``sampled`` (the default run: every file,
    the pair-by-pair files with only their sampled rows) or ``rest`` (the
    pair-by-pair files with the other rows); the rows a part leaves out are
    blank lines."""
    if part not in PARTS:
        raise ValueError(f"part {part!r}: one of {', '.join(PARTS)}")
    out = {}
    for rel, text in files.items():
        if not is_split_case_file(rel):
            if part == "sampled":
                out[rel] = text
            continue
        place = _signature_places(rel, text)
        dtypes = NUMPY_SAMPLED_DTYPES if is_numpy_case_file(rel) else SAMPLED_DTYPES
        out[rel] = "".join(
            line if _keeps(line, part, place, dtypes) else "\n" for line in text.splitlines(keepends=True)
        )
    return out


def on_lines_of(part: Mapping[str, str], listed: Mapping[tuple[str, int], T]) -> dict[tuple[str, int], T]:
    """The listed deviations (counted over every file, as their counts are)
    that fall on the lines a part checks (a blanked row is not its)."""
    out = {}
    for (rel, n), entry in listed.items():
        lines = part.get(rel, "").splitlines()
        if n <= len(lines) and lines[n - 1]:
            out[rel, n] = entry
    return out


# The every-function case file (typecheck_cases/functions): one case function
# per JAX function; the default run checks a third of them (FUNCTION_STRIDE),
# chosen by a hash of the case's name, not by its place in the file: a new
# function then joins one part and moves no other case between them.
FUNCTION_STRIDE = 3
_CASE_FUNCTION = re.compile(r"^def (case_\w+)\(")


def is_sampled_function_case(name: str) -> bool:
    """Whether the default run checks the case function ``name``."""
    return zlib.crc32(name.encode()) % FUNCTION_STRIDE == 0


def function_cases_part(text: str, part: str) -> str:
    """The every-function case file with only one part's case functions (the
    others blank lines): ``sampled`` (those ``is_sampled_function_case``
    picks, and the imports), or ``rest``."""
    if part not in PARTS:
        raise ValueError(f"part {part!r}: one of {', '.join(PARTS)}")
    out: list[str] = []
    sampled: bool | None = None  # (None: before the first case, the imports)
    for line in text.splitlines(keepends=True):
        if found := _CASE_FUNCTION.match(line):
            sampled = is_sampled_function_case(found.group(1))
        keep = sampled is None or sampled == (part == "sampled")
        out.append(line if keep else "\n")
    return "".join(out)
