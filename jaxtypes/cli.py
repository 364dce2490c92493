"""The ``jaxtypes`` command line: look at JAX's promotion lattice from a shell.

    jaxtypes table   [--format markdown|csv|html] [--x64|--x32] [--strict|--standard] [--all]
    jaxtypes promote A B [C ...] [--x64|--x32] [--strict|--standard]
    jaxtypes explain A B [--x64|--x32] [--strict|--standard]
    jaxtypes lattice [--format mermaid|dot] [--x64|--x32] [--strict|--standard]
    jaxtypes diff numpy [--format markdown|csv|text] [--x64|--x32] [--strict|--standard] [--all]
    jaxtypes jax-stubs install|check|uninstall | --out DIR | check --out DIR
    jaxtypes annotate [--spelling jax|jaxtypes|jaxtyping] [--diff] [--path GLOB] -- COMMAND...

Defaults follow JAX: x64 disabled and standard promotion, unless the
environment says otherwise (``JAX_ENABLE_X64``, ``JAX_NUMPY_DTYPE_PROMOTION``,
read as JAX reads them, through ``jaxtypes.config``); the flags override both.

Exit codes: 0 success; 1 the promotion asked for raises in JAX (``promote``,
``explain``) or the output pipe was closed early; 2 a bad argument, a bad
environment value, or output that cannot be written (one line on stderr, no
traceback).  Values echoed in a message are shortened (``shown``).

Subcommands live in ``COMMANDS`` (name -> ``Command``); add one with the
``command`` decorator and it gets its parser, help and dispatch.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
import warnings
from typing import TYPE_CHECKING, Callable, Final, NamedTuple, NoReturn, Sequence, TypeVar

from jaxtypes import lattice, render
from jaxtypes._bad_environment import PROG

if TYPE_CHECKING:
    from jaxtypes._stubgen.install import Installed

__all__ = ["main", "COMMANDS", "Command", "command", "CLIError", "parse_node", "VALID_NAMES", "shown"]

SHOWN_LIMIT: Final = 40
"""Longest value echoed in full in a message; longer ones are cut (``shown``)."""

# Names that mean the weak (Python scalar) types: the Python types, the
# lattice's i*/f*/c* (quote them in a shell) and the markers' names.
WEAK_ALIASES: Final = {
    "int": lattice.WEAK_INT,
    "float": lattice.WEAK_FLOAT,
    "complex": lattice.WEAK_COMPLEX,
    "weak_int": lattice.WEAK_INT,
    "weak_float": lattice.WEAK_FLOAT,
    "weak_complex": lattice.WEAK_COMPLEX,
    lattice.WEAK_INT: lattice.WEAK_INT,
    lattice.WEAK_FLOAT: lattice.WEAK_FLOAT,
    lattice.WEAK_COMPLEX: lattice.WEAK_COMPLEX,
}
# The short codes of JAX's documented promotion table (b1, u1, bf, f2, c8, ...;
# "Type promotion semantics", https://docs.jax.dev/en/latest/type_promotion.html) are accepted too; they agree
# with numpy's own codes where numpy has one (u1 = uint8, c8 = complex64).
_CODE_ALIASES: Final = {code: node for node, code in lattice.SEED_CODES.items() if not lattice.is_weak(node)}
# The markers' Python names that are not node names (jaxtypes.bool_ = numpy's).
_MARKER_ALIASES: Final = {"bool_": lattice.BOOL}
VALID_NAMES: Final = lattice.STRONG + ("int", "float", "complex") + lattice.WEAK
# Full names a typo is matched against (codes are too short to match usefully).
_SUGGESTABLE: Final = lattice.STRONG + ("int", "float", "complex", "bool_", "weak_int", "weak_float", "weak_complex")
# A kind letter (or bf) and a bit count, as people abbreviate: f32, i8, bf16.
_ABBREVIATION: Final = re.compile(r"(?P<kind>bf|[uicf]|uint|int|float|complex)(?P<bits>\d+)")
_KIND_PREFIX: Final = {"u": "uint", "i": "int", "f": "float", "c": "complex", "bf": "bfloat"}


class CLIError(Exception):
    """A bad argument: main prints ``jaxtypes: error: <message>`` and exits 2."""


def shown(value: str, limit: int = SHOWN_LIMIT) -> str:
    """``repr(value)``, cut to about ``limit`` characters with the full length said."""
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}... ({len(value)} characters)"


# argparse quotes the value it rejects; a long one is cut like ``shown``.  It
# lists unrecognized arguments unquoted: a long word there is cut the same way.
_QUOTED: Final = re.compile(r"'([^']{%d,})'" % (SHOWN_LIMIT + 1))
_LONG_WORD: Final = re.compile(r"(?<![\S])([^\s']{%d,})" % (SHOWN_LIMIT + 1))


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (and exit code 2)."""

    def error(self, message: str) -> NoReturn:
        message = _QUOTED.sub(lambda m: shown(m.group(1)), message)
        message = _LONG_WORD.sub(lambda m: shown(m.group(1)), message)
        self.exit(2, f"{self.prog}: error: {message}\n")


# --------------------------------------------------------------- registry
class Command(NamedTuple):
    name: str
    help: str
    description: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


COMMANDS: dict[str, Command] = {}


_Run = TypeVar("_Run", bound=Callable[[argparse.Namespace], int])


def command(
    name: str, help: str, configure: Callable[[argparse.ArgumentParser], None], description: str | None = None
) -> Callable[[_Run], _Run]:
    """Register ``run(args) -> exit code`` as subcommand ``name``;
    ``configure(parser)`` adds its arguments."""

    def register(run: _Run) -> _Run:
        COMMANDS[name] = Command(name, help, description or help, configure, run)
        return run

    return register


# ------------------------------------------------------------------ helpers
def _suggestion(name: str) -> str | None:
    """The name a mistyped dtype most likely meant, or None."""
    lowered = name.lower()
    if lowered != name and _node_or_none(lowered) is not None:
        return lowered
    m = _ABBREVIATION.fullmatch(lowered)
    if m:
        prefix = _KIND_PREFIX.get(m["kind"], m["kind"])
        candidate = prefix + m["bits"]
        if candidate in lattice.STRONG:
            return candidate
    close = difflib.get_close_matches(lowered, _SUGGESTABLE, n=1, cutoff=0.7)
    return close[0] if close else None


def _numpy_node(name: str) -> str | None:
    """The node of a name or code numpy understands (``single``, ``i4``, ``?``)."""
    import numpy as np

    from jaxtypes.promotion import node_of

    try:
        return node_of(np.dtype(name))
    except (TypeError, ValueError, SyntaxError):
        return None


def _node_or_none(name: str) -> str | None:
    if name in WEAK_ALIASES:
        return WEAK_ALIASES[name]
    if name in lattice.STRONG:
        return name
    if name in _CODE_ALIASES:
        return _CODE_ALIASES[name]
    if name in _MARKER_ALIASES:
        return _MARKER_ALIASES[name]
    if not name or len(name) > SHOWN_LIMIT:
        return None
    return _numpy_node(name)


def parse_node(name: str) -> str:
    """The lattice node a command-line dtype name stands for.

    Accepts node names (``float32``, ``float8_e4m3fn``); ``int``/``float``/
    ``complex``, ``i*``/``f*``/``c*`` or the markers' ``weak_int``/
    ``weak_float``/``weak_complex`` for the weak types; the markers' ``bool_``;
    the codes of JAX's documented table (``bf``, ``f2``, ``u8``, ``c16``); and any other name or
    code numpy reads as a JAX dtype (``single``, ``double``, ``i4``, ``?``).
    Anything else is a ``CLIError`` with a suggestion where one is likely.
    """
    node = _node_or_none(name)
    if node is not None:
        return node
    guess = _suggestion(name) if len(name) <= SHOWN_LIMIT else None
    hint = f" (did you mean {guess!r}?)" if guess else ""
    if os.path.exists(name):
        # An unquoted i*, f* or c* that the shell expanded to a file name.
        hint += "; it names a file: quote i*, f*, c* or write weak_int, weak_float, weak_complex"
    raise CLIError(
        f"unknown dtype {shown(name)}{hint}; valid names: {', '.join(VALID_NAMES)}, "
        "weak_int/weak_float/weak_complex, the codes of JAX's documented table (b1, u1 ... c16, bf) "
        "or numpy's names and codes"
    )


def _variant(args: argparse.Namespace) -> lattice.Variant:
    """The flags' variant; what they leave open follows the environment, as in JAX."""
    from jaxtypes.config import config

    mode = "strict" if args.strict else "standard" if args.standard else config.jax_numpy_dtype_promotion
    x64 = config.jax_enable_x64 if args.x64 is None else args.x64
    return lattice.variant(mode, x64)


def _add_variant_flags(p: argparse.ArgumentParser) -> None:
    width = p.add_mutually_exclusive_group()
    width.add_argument(
        "--x64",
        dest="x64",
        action="store_const",
        const=True,
        default=None,
        help="x64 enabled (jax_enable_x64=True): 64-bit dtypes stay 64-bit.",
    )
    width.add_argument(
        "--x32",
        dest="x64",
        action="store_const",
        const=False,
        help="x64 disabled (jax_enable_x64=False, JAX's default): 64-bit dtypes "
        "count as 32-bit ones, and uint32 with int8/int16/int32 gives int32. "
        "Default: JAX_ENABLE_X64 if set, else --x32.",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--strict",
        action="store_true",
        help="strict promotion (jax_numpy_dtype_promotion='strict'): only equal "
        "types and weak-to-strong within a kind promote.",
    )
    mode.add_argument(
        "--standard",
        action="store_true",
        help="standard promotion (jax_numpy_dtype_promotion='standard'). "
        "Default: JAX_NUMPY_DTYPE_PROMOTION if set, else --standard.",
    )


def _add_format(p: argparse.ArgumentParser, formats: Sequence[str], default: str) -> None:
    p.add_argument(
        "--format", choices=formats, default=default, help=f"output format: {', '.join(formats)} (default: {default})"
    )


def _add_all(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--all",
        action="store_true",
        help=f"all {len(lattice.NODES)} lattice nodes (with sub-byte ints and "
        "small floats), labelled by full name; default: the 18 dtypes of the "
        "documented table, by code",
    )


# ------------------------------------------------------------------ table
def _configure_table(p: argparse.ArgumentParser) -> None:
    _add_format(p, render.TABLE_FORMATS, "markdown")
    _add_variant_flags(p)
    _add_all(p)


@command(
    "table",
    "print the binary promotion table",
    _configure_table,
    description="Print the promotion table: row and column dtypes, each cell "
    "what jax.dtypes.result_type gives for them, in the layout of JAX's "
    "documented table (b1 bool, u1..u8 uint8..uint64, i1..i8 int8..int64, bf "
    "bfloat16, f2..f8 float16..float64, c8/c16 complex64/complex128, i*/f*/c* "
    "weak Python int/float/complex; a weakly typed result shows as i*, f* or "
    "c*). With x64 disabled the 64-bit rows count as their 32-bit dtypes, as "
    "in JAX. '-' marks pairs that do not promote (JAX raises). In html, "
    "class=\"d\" marks cells where JAX differs from numpy.",
)
def _run_table(args: argparse.Namespace) -> int:
    sys.stdout.write(render.promotion_table(_variant(args), args.format, all_nodes=args.all))
    return 0


# ---------------------------------------------------------------- promote
_NAME_HELP: Final = (
    "a dtype: its name (float32, bfloat16, bool_), a code (f4, bf) or "
    "any numpy name or code; or a weak Python scalar: int, float, complex, "
    "weak_int, weak_float, weak_complex or 'i*', 'f*', 'c*' (quoted)"
)


def _configure_promote(p: argparse.ArgumentParser) -> None:
    p.add_argument("first", metavar="A", help=_NAME_HELP)
    p.add_argument("others", metavar="B", nargs="+", help="more dtypes (B [C ...])")
    _add_variant_flags(p)


def _canonicalization_notes(nodes: Sequence[str], v: lattice.Variant) -> list[str]:
    notes: list[str] = []
    for n in dict.fromkeys(nodes):
        c = lattice.canonicalize(n, v.x64)
        if c != n:
            notes.append(f"note: with x64 disabled, JAX canonicalizes {n} to {c} before promoting")
    return notes


def _jax_result(nodes: Sequence[str], v: lattice.Variant) -> tuple[str, bool]:
    """``jax.dtypes.result_type`` of an operand of each node in ``v`` (a dtype,
    or the Python type of a weak node): (dtype name, weak).  Raises the
    runtime's ``TypePromotionError``, worded as JAX's, where JAX raises."""
    import jaxtypes
    from jaxtypes.promotion import dtype_of_node

    weak_types = {lattice.WEAK_INT: int, lattice.WEAK_FLOAT: float, lattice.WEAK_COMPLEX: complex}
    operands: list[object] = []
    for node in nodes:
        if node in weak_types:
            operands.append(weak_types[node])
            continue
        try:
            operands.append(dtype_of_node(node))
        except ValueError:
            raise CLIError(f"dtype {node!r} is not provided by the installed ml_dtypes") from None
    with jaxtypes.numpy_dtype_promotion(v.mode), jaxtypes.enable_x64(v.x64):
        dt, weak = jaxtypes.result_type(*operands, return_weak_type_flag=True)
    return dt.name, weak


@command(
    "promote",
    "the dtype JAX promotes some dtypes to",
    _configure_promote,
    description="Print the dtype jax.dtypes.result_type gives for the arguments "
    "and whether it is weakly typed (int, float, complex, weak_int, weak_float, "
    "weak_complex or 'i*', 'f*', 'c*' are the weak Python types; other names are "
    "dtypes). If JAX would raise, print the error's class and message and exit "
    "with code 1.",
)
def _run_promote(args: argparse.Namespace) -> int:
    from jaxtypes.promotion import TypePromotionError

    nodes = [parse_node(n) for n in [args.first, *args.others]]
    v = _variant(args)
    try:
        name, weak = _jax_result(nodes, v)
    except TypePromotionError as e:
        print(f"{type(e).__name__}: {e}")
        return 1
    print(f"{name} weak_type={weak}")
    for note in _canonicalization_notes([n for n in nodes if not lattice.is_weak(n)], v):
        print(note)
    return 0


# ---------------------------------------------------------------- explain
def _configure_explain(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", metavar="A", help=_NAME_HELP)
    p.add_argument("b", metavar="B", help=_NAME_HELP)
    _add_variant_flags(p)


@command(
    "explain",
    "why two dtypes promote to their join",
    _configure_explain,
    description="Show the shortest upward path from each node to their join "
    "(least upper bound) in the lattice, and the other common upper bounds. "
    "With x64 disabled, 64-bit dtypes are first canonicalized to 32-bit, as "
    "JAX does. Where there is no join, show what each is below and JAX's "
    "error, and exit with code 1.",
)
def _run_explain(args: argparse.Namespace) -> int:
    from jaxtypes.promotion import TypePromotionError

    given = [parse_node(args.a), parse_node(args.b)]
    v = _variant(args)
    for note in _canonicalization_notes([n for n in given if not lattice.is_weak(n)], v):
        print(note)
    a, b = (lattice.canonicalize(n, v.x64) for n in given)
    for line in lattice.explain(a, b, v):
        print(line)
    if lattice.join(a, b, v) is not None:
        return 0
    try:
        _jax_result(given, v)
    except TypePromotionError as e:
        print(f"{type(e).__name__}: {e}")
    return 1


# ---------------------------------------------------------------- lattice
def _configure_lattice(p: argparse.ArgumentParser) -> None:
    _add_format(p, render.GRAPH_FORMATS, "mermaid")
    _add_variant_flags(p)


@command(
    "lattice",
    "print the lattice graph (mermaid or graphviz dot)",
    _configure_lattice,
    description="Print the promotion lattice: every node and its direct upper "
    "edges, drawn bottom to top; weak nodes are dashed.",
)
def _run_lattice(args: argparse.Namespace) -> int:
    sys.stdout.write(render.lattice_graph(_variant(args), args.format))
    return 0


# ------------------------------------------------------------------- diff
def _configure_diff(p: argparse.ArgumentParser) -> None:
    p.add_argument("against", choices=("numpy",), help="what to compare with: numpy (the installed numpy.result_type)")
    _add_format(p, render.DIFF_FORMATS, "markdown")
    _add_variant_flags(p)
    _add_all(p)


@command(
    "diff",
    "where JAX's promotion differs from numpy's",
    _configure_diff,
    description="List each pair of dtypes (once, unordered) where JAX's "
    "answer (the cell of `jaxtypes table` with the same flags) differs from the "
    "installed numpy's. Weak types are given to numpy as the Python scalars 0, "
    "0.0, 0j, so numpy applies its own rule for Python scalars (NEP 50 in NumPy "
    "2). Columns: a, b, jax, numpy ('-' where one raises), kind (dtype: "
    "different dtypes; weak: same dtype but JAX's result is weak; jax-error / "
    "numpy-error).",
)
def _run_diff(args: argparse.Namespace) -> int:
    nodes = render.table_nodes(args.all)
    diffs = render.numpy_differences(_variant(args), nodes)
    sys.stdout.write(render.differences_table(diffs, args.format))
    return 0


# -------------------------------------------------------------- jax-stubs
_JAX_STUBS_ACTIONS: Final = ("install", "check", "uninstall")


def _configure_jax_stubs(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "action",
        nargs="?",
        choices=_JAX_STUBS_ACTIONS,
        help="install: write the stubs into this environment's site-packages as the package "
        "jaxtypes-jax-stubs (no pip needed), where every checker finds them (it prints what "
        "mypy and pyrefly need besides); `pip uninstall jaxtypes` removes them with jaxtypes. check: say "
        "whether the installed stubs (or those in --out DIR) are whole and were made for the "
        "JAX and jaxtypes installed (exit code 1 when not). uninstall: remove the installed stubs",
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="write the stubs into DIR instead (pyright's default is typings) and print each "
        "checker's configuration for them",
    )
    p.set_defaults(_usage=p.format_usage)


def _install_message(installed: Installed, jax_version: str) -> str:
    from jaxtypes._stubgen.record import DISTRIBUTION

    where = (
        "`pip uninstall jaxtypes` removes them with jaxtypes"
        if installed.owner_record is not None
        else "jaxtypes is not installed in that directory, so `pip uninstall jaxtypes` leaves them"
    )
    from jaxtypes._stubgen import jax_stubs

    lines = [
        f"installed {DISTRIBUTION} {installed.version} ({installed.files} files, for JAX {jax_version}) "
        f"into {installed.site}: jax.Array is generic in its dtype, and jaxtypes.Array is jax.Array. "
        "Each checker finds them; what each needs besides:"
    ]
    lines += ["  " + line for line in jax_stubs.setup_lines(None)]
    lines += jax_stubs.layer_status()
    lines += jax_stubs.configuration_lines()
    lines.append(f"Remove with `jaxtypes jax-stubs uninstall` (or `pip uninstall {DISTRIBUTION}`); {where}.")
    return "\n".join(lines)


@command(
    "jax-stubs",
    "make jax.Array generic in its dtype for every type checker",
    _configure_jax_stubs,
    description="Read the stubs of the JAX installed in this environment and make a "
    "transformed copy in which jax.Array is generic in its dtype (bare jax.Array "
    "is jax.Array[Any]), keeps every member JAX declares, has the promotion-aware "
    "operators and methods of jaxtypes.Array, and is the same class as "
    "jaxtypes.Array. `jaxtypes jax-stubs install` installs it as a package into this "
    "environment; --out DIR writes the files. A JAX whose stubs differ from the "
    "versions this jaxtypes knows is refused. Re-run after upgrading JAX or jaxtypes.",
)
def _run_jax_stubs(args: argparse.Namespace) -> int:
    from pathlib import Path

    from jaxtypes._stubgen import install as stub_install
    from jaxtypes._stubgen import jax_stubs

    if args.action is None and args.out is None:
        # What a user typing the bare command wants is its usage: nothing is written.
        sys.stderr.write(args._usage())
        raise CLIError(
            "jax-stubs: say what to do: install, check or uninstall, or --out DIR to write "
            "the stubs into DIR (nothing was written)"
        )
    if args.action in ("install", "uninstall") and args.out is not None:
        raise CLIError(f"give either `{args.action}` or --out DIR, not both")
    if args.action == "uninstall":
        try:
            removed = jax_stubs.uninstall()
        except jax_stubs.StubsError as e:
            raise CLIError(str(e)) from None
        site = stub_install.site_packages()
        print(
            f"removed {', '.join(p.name for p in removed)} from {site}"
            if removed
            else f"no jax.Array stubs installed in {site}: nothing to remove"
        )
        return 0
    if args.action == "check":
        if args.out is None:
            problems = stub_install.verify()
            if problems:
                print(
                    f"the installed jax.Array stubs ({stub_install.site_packages()}) are damaged, "
                    f"{len(problems)} problem{'s' if len(problems) > 1 else ''}: "
                    f"{stub_install.summary(problems)}. Repair them with `jaxtypes jax-stubs install`"
                )
                return 1
        found = jax_stubs.staleness(Path(args.out) if args.out is not None else None)
        if found is None:
            where = args.out if args.out is not None else f"this environment ({jax_stubs.DISTRIBUTION})"
            raise CLIError(f"no jax.Array stubs found in {where}; make them with `jaxtypes jax-stubs install`")
        print(found.message())
        return 1 if found.stale else 0
    try:
        jax = jax_stubs.locate_jax()
        if args.action == "install":
            print(_install_message(jax_stubs.install(jax), jax.version))
            return 0
        files = jax_stubs.render(jax)
    except jax_stubs.StubsError as e:
        earlier = jax_stubs.staleness(Path(args.out or "typings") if args.action != "install" else None)
        left = (
            f" The stubs made earlier for jaxtypes {earlier.made_for[0]} and JAX "
            f"{earlier.made_for[1]} ({earlier.where}) are left in place; remove them with "
            f"`{earlier.remove}`."
            if earlier is not None
            else ""
        )
        raise CLIError(f"{e}{left}") from None
    out_arg = str(args.out)  # (given: the bare command stopped above)
    out = Path(out_arg)
    try:
        jax_stubs.write(out, files)
    except OSError as e:
        raise CLIError(
            f"cannot write to {shown(str(out))}: {e.strerror or e}; the stubs there (if any) are unchanged"
        ) from None
    print(
        f"wrote {len(files)} stub files for JAX {jax.version} to {out}/: jax.Array is "
        "generic in its dtype, and jaxtypes.Array is jax.Array. Point each checker at them:"
    )
    for line in jax_stubs.setup_lines(out_arg):
        print("  " + line)
    for line in jax_stubs.layer_status() + jax_stubs.configuration_lines():
        print(line)
    return 0


# --------------------------------------------------------------- annotate
_SPELLINGS: Final = ("jax", "jaxtypes", "jaxtyping")  # jaxtypes.annotation_rewriter.SPELLINGS, without libcst


def _configure_annotate(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--spelling",
        choices=_SPELLINGS,
        default="jax",
        help="how to write a dtype: jax (jax.Array[jnp.float32]), jaxtypes "
        "(jaxtypes.Array[jaxtypes.float32]) or jaxtyping (Float32[Array, \"...\"], keeping "
        "an existing shape string); default: jax",
    )
    p.add_argument("--diff", action="store_true", help="print a unified diff of the changes and write nothing")
    p.add_argument(
        "--path",
        metavar="GLOB",
        action="append",
        default=[],
        help="a file counts as the project's if its path (absolute, or relative to the current "
        "directory) matches GLOB; repeatable. Default: every file under the current directory "
        "outside site-packages and virtual environments",
    )
    p.add_argument("command", nargs=argparse.REMAINDER, help="the command to run, after --")
    p.set_defaults(_usage=p.format_usage)


@command(
    "annotate",
    "write the dtypes a run of your code sees into its jax.Array annotations",
    _configure_annotate,
    description="Run COMMAND (python script.py, pytest tests/) with the dtype and weak "
    "type of every JAX array entering or leaving the project's functions recorded (tracers "
    "under jit, vmap and scan too; never values), then rewrite the bare jax.Array "
    "annotations there: one dtype seen gives jax.Array[jnp.float32]; a result whose dtype "
    "follows a parameter's across calls of several dtypes gives a dtype variable (DT); "
    "anything else is left as written and reported. Needs libcst (the annotate extra). "
    "The command's output goes to standard error; a failing command rewrites nothing and "
    "its exit code is returned.",
)
def _run_annotate(args: argparse.Namespace) -> int:
    from pathlib import Path

    argv = list(args.command)
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        sys.stderr.write(args._usage())
        raise CLIError("annotate: give the command to run after --, e.g. `jaxtypes annotate -- pytest tests/`")
    try:
        from jaxtypes import annotate
    except ImportError as e:
        if e.name != "libcst":
            raise
        raise CLIError(
            "annotate needs libcst, which is not installed: pip install 'jaxtypes[annotate]' (or libcst)"
        ) from None
    try:
        return annotate.annotate(
            argv,
            spelling=args.spelling,
            diff=args.diff,
            patterns=args.path,
            root=Path.cwd(),
            stdout=sys.stdout,
            stderr=sys.stderr,
        )
    except annotate.AnnotateError as e:
        raise CLIError(f"annotate: {e}") from None


# ------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    from jaxtypes._version import __version__

    parser = _Parser(
        prog=PROG,
        description="JAX's dtype promotion lattice: tables, graphs, and single "
        "promotions, without JAX. Defaults follow JAX: x64 disabled and standard "
        "promotion, unless JAX_ENABLE_X64 / JAX_NUMPY_DTYPE_PROMOTION say "
        "otherwise; --x64/--x32 and --strict/--standard override both.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="command", required=True)
    for cmd in COMMANDS.values():
        p = sub.add_parser(cmd.name, help=cmd.help, description=cmd.description)
        cmd.configure(p)
        p.set_defaults(_run=cmd.run)
    return parser


def _error(message: str) -> int:
    """Print ``jaxtypes: error: message`` on stderr (if it is open); exit code 2."""
    try:
        sys.stderr.write(f"{PROG}: error: {message}\n")
        sys.stderr.flush()
    except (AttributeError, OSError):
        pass
    return 2


def _warn_if_stubs_are_stale() -> None:
    """One line on stderr when the installed jax.Array stubs were made for
    other JAX or jaxtypes versions than this environment's (after an upgrade of
    either, before `jaxtypes jax-stubs install` is run again): pyright and the
    other checkers cannot tell (a stub cannot compare versions: they read
    ``jax.__version__`` as ``str``).  Reads one line of one file; a failure to
    tell is not reported."""
    try:
        from jaxtypes._stubgen import record as stub_record

        found = stub_record.staleness(None)
        if found is not None and found.stale:
            sys.stderr.write(f"{PROG}: warning: {found.message()}\n")
    except Exception:  # noqa: BLE001 - a warning must never stop the command
        pass


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush of what
    is still buffered cannot fail again (and print a traceback) at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):
        pass


def _parse_and_run(argv: Sequence[str]) -> int:
    parser = build_parser()
    if not argv:
        parser.print_help(sys.stderr)
        return 2
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version, usage errors
        sys.stdout.flush()
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    if args.command != "jax-stubs":  # (which says it itself: check, or install's refresh)
        _warn_if_stubs_are_stale()
    try:
        code: int = args._run(args)
    except CLIError as e:
        sys.stdout.flush()
        return _error(str(e))
    sys.stdout.flush()  # a closed pipe or a full disk shows here, not at exit
    return code


# The start of the runtime's (and JAX's) warning for a truncated 64-bit dtype.
TRUNCATION_WARNING: Final = (
    r"Explicitly requested dtype \S+ requested in \S+ is not available, "
    r"and will be truncated"
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (never raises SystemExit)."""
    if sys.stdout is None:  # started with stdout closed (`jaxtypes table >&-`)
        return _error("standard output is closed: nowhere to print to")
    try:
        with warnings.catch_warnings():
            # The runtime API warns, as JAX does, when x64 is off and a 64-bit
            # dtype is asked for; promote notes that truncation on its output.
            warnings.filterwarnings("ignore", message=TRUNCATION_WARNING, category=UserWarning)
            return _parse_and_run(sys.argv[1:] if argv is None else list(argv))
    except BrokenPipeError:
        # Output piped into e.g. `head`: stop quietly, as other Unix tools do.
        _silence_stdout()
        return 1
    except OSError as e:  # stdout on a full disk, a bad descriptor, ...
        _silence_stdout()
        return _error(f"cannot write to standard output: {e.strerror or e}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
