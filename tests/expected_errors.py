"""Expected errors in the case files: the ``# E: KIND`` marker, and each kind's
error code in each checker.

A case line that must get an error ends in ``# E: KIND``, KIND naming what is
wrong (a key of ERROR_CODES: ``promotion``, ``operator``, ...).  ERROR_CODES
maps each kind to the one code each checker gives it, as numpy's and
django-stubs' typing tests pin theirs: mypy's ``[operator]``, mypy with the
plugin ``[jax-promotion]``, pyright's rule ``reportOperatorIssue``, pyrefly's
``[unsupported-operation]``, ty's ``[unsupported-operator]``.  A marked line
must get at least one error, every one of them with its kind's code; an
unmarked line must get none.  The codes were read off the checkers' output
on the case files, not guessed; a checker that changes one fails here.

The generated cases get their kind from the generator
(tools/cases/case_files.py, from JAX's error); the hand-written
scenarios and typecheck_cases/deviations.toml get theirs by hand.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Union

from tools.checkers import MYPY_PLUGIN, Error, Errors

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEVIATIONS = Path(__file__).resolve().parent.parent / "typecheck_cases" / "deviations.toml"
# A checker's code(s) for a kind; None: it does not report that kind.
Codes = Union[str, tuple[str, ...], None]

# mypy reports a failed operator as "Unsupported operand types" [operator], or,
# where the stub gives the operator a signature that the operand fails to match
# (a table's __call__ with its dtype TypeVar, the overloads for Python
# scalars), as [type-var], [arg-type] or [call-overload]: which one follows
# from the stub's signature for that operand, not from what is wrong.
MYPY_OPERATOR = ("operator", "type-var", "arg-type", "call-overload")


def _same(mypy: Codes, plugin: Codes, pyright: Codes, pyrefly: Codes, ty: Codes) -> dict[str, Codes]:
    """One kind's codes; pyright and basedpyright share theirs."""
    return {
        "mypy": mypy,
        MYPY_PLUGIN: plugin,
        "pyright": pyright,
        "basedpyright": pyright,
        "pyrefly": pyrefly,
        "ty": ty,
    }


# kind -> {checker: its code, a tuple of the codes it gives that kind (all
# errors on a marked line must have one of them), or None where the checker
# does not report that kind at all (deviations.toml then lists each line)}.
ERROR_CODES: dict[str, dict[str, Codes]] = {
    # An operator whose operands JAX does not promote: no promotion path
    # (float8 + complex, int4 + float32), or in strict mode any implicit
    # promotion between two dtypes.
    "promotion": _same(
        MYPY_OPERATOR, "jax-promotion", "reportOperatorIssue", "unsupported-operation", "unsupported-operator"
    ),
    # An operator JAX rejects for its operands' dtype (& on floats, - on bool,
    # // on complex, @ with a Python scalar).
    "unsupported": _same(
        MYPY_OPERATOR, "jax-unsupported", "reportOperatorIssue", "unsupported-operation", "unsupported-operator"
    ),
    # A method JAX rejects for the array's dtype (argmax of complex, round of
    # bool, sum of int1): the stubs make it an attribute that is not callable.
    "unsupported-method": _same("operator", "jax-unsupported", "reportCallIssue", "not-callable", "not-callable"),
    # A method whose operands JAX does not promote in strict mode (clip of a
    # bool array with int bounds): only the plugin checks strict promotion.
    "promotion-method": _same(None, "jax-promotion", None, None, None),
    # abs() of a dtype JAX rejects (int2, int4): builtins.abs takes a
    # typing.SupportsAbs, whose match mypy and pyrefly do not check against
    # Array.__abs__'s self type.
    "unsupported-abs": _same(None, "jax-unsupported", "reportArgumentType", None, "invalid-argument-type"),
    # A dtype argument JAX rejects: a weak marker to astype or dtype=.  pyright
    # reports both the argument and the call.
    "dtype-argument": _same(
        "arg-type",
        "jax-dtype",
        ("reportArgumentType", "reportCallIssue"),
        "no-matching-overload",
        "no-matching-overload",
    ),
    # A jaxtyping annotation whose name and array name different dtypes
    # (Float32[Array[bfloat16], "n"]): only the plugin reads jaxtyping's names.
    "jaxtyping-dtype": _same(None, "jax-dtype", None, None, None),
    # A value of the wrong type assigned to an annotated name.
    "assignment": _same("assignment", "assignment", "reportAssignmentType", "bad-assignment", "invalid-assignment"),
    # A returned value of the wrong type.
    "return": _same("return-value", "return-value", "reportReturnType", "bad-return", "invalid-explicit-return"),
    # An argument of the wrong type (a declared parameter, a dataclass field).
    "argument": _same("arg-type", "arg-type", "reportArgumentType", "bad-argument-type", "invalid-argument-type"),
    # A value of the wrong type assigned to a declared attribute.
    "attribute-assignment": _same(
        "assignment", "assignment", "reportAttributeAccessIssue", "bad-assignment", "invalid-assignment"
    ),
    # A parameter's default of the wrong type.
    "default": _same(
        "assignment", "assignment", "reportArgumentType", "bad-function-definition", "invalid-parameter-default"
    ),
    # assert_type of another type (only where deviations.toml says a checker
    # gets a case wrong).
    "assert-type": _same(
        "assert-type", "assert-type", "reportAssertTypeFailure", "assert-type", "type-assertion-failure"
    ),
    # A call of an overloaded function (JAX's, in the stubs of jaxtypes
    # jax-stubs) that no overload matches: a wrong argument type or count.
    # pyright reports the call, and the argument where one is wrong.  mypy
    # with the plugin reads JAX's one declaration of the functions the plugin
    # answers (the stubs' .mypy-plugin modules): an argument or count error.
    "no-overload": _same(
        "call-overload",
        ("call-overload", "arg-type", "call-arg"),
        ("reportCallIssue", "reportArgumentType"),
        "no-matching-overload",
        "no-matching-overload",
    ),
    # Two arrays of known, different dtypes to one of lax's functions that
    # require one dtype (lax.add, lax.select, lax.dynamic_update_slice): no
    # overload of the stubs takes them (mypy reports the first overload's
    # dtype variable, which the first array's dtype does not satisfy); the
    # plugin reports JAX's refusal.
    "equal-dtypes": _same(
        "type-var",
        "jax-unsupported",
        ("reportCallIssue", "reportArgumentType"),
        "no-matching-overload",
        "no-matching-overload",
    ),
    # A call missing a required argument.
    "missing-argument": _same("call-arg", "call-arg", "reportCallIssue", "missing-argument", "missing-argument"),
    # An attribute the type does not have.
    "attribute": _same(
        "attr-defined", "attr-defined", "reportAttributeAccessIssue", "missing-attribute", "missing-attribute"
    ),
    # x[i] = v: JAX arrays are immutable (x.at[i].set(v) is the update).
    "index-assignment": _same("index", "index", "reportIndexIssue", "unsupported-operation", "invalid-assignment"),
}

MARKER = re.compile(r"#\s*E\b(?::\s*(?P<kind>[\w-]+))?")


class MarkerError(ValueError):
    """A case line's ``# E`` marker names no kind, or an unknown one."""


def kind_of(line: str) -> str | None:
    """The kind a case line's marker names; None when it has no marker."""
    m = MARKER.search(line)
    if m is None:
        return None
    kind = m.group("kind")
    if kind not in ERROR_CODES:
        raise MarkerError(
            f"{line.strip()!r}: an expected error is marked '# E: KIND' with KIND one of "
            f"{', '.join(ERROR_CODES)}; got {m.group(0)!r}"
        )
    return kind


def catching_marked_lines(text: str, exceptions: str = "TypeError, ValueError", into: str = "raised") -> str:
    """``text`` with each marked line run in a ``try`` that appends its line
    number to the list named ``into`` when it raises one of ``exceptions``:
    a case run under JAX shows that each line marked as an error fails when
    run, and no other (the line numbers are those of ``text``)."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if kind_of(line) is not None:
            indent = line[: len(line) - len(line.lstrip())]
            line = f"{indent}try:\n{indent}    {line.strip()}\n{indent}except ({exceptions}):\n{indent}    {into}.append({n})"
        out.append(line)
    return "\n".join(out) + "\n"


def expected(files: Mapping[str, str]) -> dict[tuple[str, int], str]:
    """{(file, line): kind} of every marked line."""
    out = {}
    for rel, text in files.items():
        for n, line in enumerate(text.splitlines(), 1):
            kind = kind_of(line)
            if kind is not None:
                out[rel, n] = kind
    return out


def codes(kind: str, checker: str) -> tuple[str, ...]:
    """The codes ``checker`` gives an error of ``kind`` (none: it does not
    report that kind)."""
    found = ERROR_CODES[kind][checker]
    return () if found is None else (found,) if isinstance(found, str) else found


def wrong_codes(kind: str, checker: str, got: Iterable[Error]) -> list[Error]:
    """The errors of a line marked ``kind`` that carry none of its codes."""
    want = codes(kind, checker)
    return [e for e in got if e.code not in want]


# A listed deviation of a hand-written case line is written where a reader
# of the case sees it too, on the comment lines right above it: ``# deviation
# (ty): REASON``, with the entry's checkers and reason (as django-stubs puts a
# checker's ignore at its line); tests/test_typecheck_cases.py checks the two
# agree.  (The generated cases' deviations, lines of a ``line_regex``, are
# listed only.)
DEVIATION_NOTE = re.compile(r"^\s*# deviation \((?P<checkers>[\w-]+(?:, [\w-]+)*)\): (?P<reason>.+?)\s*$")


def deviation_notes(text: str) -> dict[int, list[tuple[tuple[str, ...], str]]]:
    """{line number: [(checkers, reason)]} of the deviation notes written
    above each case line of a file."""
    out: dict[int, list[tuple[tuple[str, ...], str]]] = {}
    pending: list[tuple[tuple[str, ...], str]] = []
    for n, line in enumerate(text.splitlines(), 1):
        found = DEVIATION_NOTE.match(line)
        if found:
            pending.append((tuple(found.group("checkers").split(", ")), found.group("reason")))
        elif pending and not line.lstrip().startswith("#"):
            out[n], pending = pending, []
    if pending:  # (notes above no line: past the end)
        out[len(text.splitlines()) + 1] = pending
    return out


def listed_deviations() -> list[dict[str, Any]]:
    """The entries of typecheck_cases/deviations.toml."""
    return list(tomllib.loads(DEVIATIONS.read_text()).get("deviation", []))


def deviations(
    checker: str, files: Mapping[str, str], config: str = "standard-x32", some_files: bool = False
) -> dict[tuple[str, int], dict[str, Any]]:
    """{(file, line): entry} of this checker's listed deviations
    (typecheck_cases/deviations.toml).  An entry names one line by its exact
    ``line`` text, or a class of lines by ``line_regex`` with the exact
    ``count`` of lines it must match (in the files matching ``file``, a glob),
    so that the list cannot silently grow or shrink; it holds in the
    configurations it lists in ``configs`` (default: JAX's, standard-x32),
    ``count`` being a number or a table of one for each of them.  With
    ``some_files`` (a run of some of the case files), an entry for files
    that are not among ``files`` is left out."""
    out = {}
    for entry in listed_deviations():
        if checker not in entry["checkers"] or config not in entry.get("configs", ["standard-x32"]):
            continue
        hits = []
        matched = sorted(f for f in files if Path(f).match(entry["file"]) or f == entry["file"])
        if some_files and not matched:
            continue
        for rel in matched:
            for n, text in enumerate(files[rel].splitlines(), 1):
                if "line" in entry and text.strip() == entry["line"].strip():
                    hits.append((rel, n))
                elif "line_regex" in entry and re.search(entry["line_regex"], text):
                    hits.append((rel, n))
        want = entry.get("count", 1)
        if isinstance(want, dict):  # a count for each configuration
            want = want[config]
        label = entry.get("line") or entry["line_regex"]
        assert len(hits) == want, f"deviation {label!r} matches {len(hits)} lines, not {want}"
        for key in hits:
            out[key] = entry
    return out


def wrong_answers(
    checker: str, files: Mapping[str, str], errors: Errors, listed: Mapping[tuple[str, int], Mapping[str, Any]]
) -> list[str]:
    """Every line where a checker's errors differ from the markers, once the
    listed deviations are applied (each must still hold): a marked line
    without an error or with an error of another code than its kind's, an
    unmarked line with an error.

    A deviation expects "no error", or "error" with the codes of its ``kind``
    (else of the line's marker), or exactly ``code``; and, where it gives a
    ``message`` regex, one of the errors matches it."""
    marked = expected(files)
    problems = []

    def show(key: tuple[str, int]) -> str:
        return f"{key[0]}:{key[1]}: {files[key[0]].splitlines()[key[1] - 1].strip()}"

    for key, entry in listed.items():
        got = errors.get(key, [])
        kind = entry.get("kind", marked.get(key))
        if entry["expect"] == "no error":
            if got:
                problems.append(f"{show(key)}: listed deviation expects no error, got {got}")
            continue
        want = (entry["code"],) if "code" in entry else codes(kind, checker) if kind else ()
        if not got:
            problems.append(f"{show(key)}: listed deviation expects an error, got none")
        elif [e for e in got if e.code not in want]:
            problems.append(f"{show(key)}: listed deviation expects code {' or '.join(want)}, got {got}")
        elif "message" in entry and not any(re.search(entry["message"], e.message) for e in got):
            problems.append(f"{show(key)}: listed deviation expects /{entry['message']}/, got {got}")
    for key in sorted((set(marked) | set(errors)) - set(listed)):
        kind, got = marked.get(key), errors.get(key, [])
        if kind is None:
            problems.append(f"{show(key)}: unexpected error {got}")
        elif not got:
            problems.append(f"{show(key)}: expected an error ({kind}), got none")
        elif wrong_codes(kind, checker, got):
            problems.append(
                f"{show(key)}: expected {kind} ({' or '.join(codes(kind, checker)) or 'no error'}), got {got}"
            )
    return problems
