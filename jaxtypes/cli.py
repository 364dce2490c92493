"""The ``jaxtypes`` command line: look at JAX's promotion lattice from a shell.

    jaxtypes table   [--format markdown|csv|html] [--strict] [--x32] [--all]
    jaxtypes promote A B [C ...] [--strict] [--x32]
    jaxtypes explain A B [--strict] [--x32]
    jaxtypes lattice [--format mermaid|dot] [--strict] [--x32]
    jaxtypes diff numpy [--format markdown|csv|text] [--strict] [--x32] [--all]
    jaxtypes jax-stubs [install|check] [--out DIR]

Every command reads the variant from its flags only (standard promotion with
x64 enabled unless ``--strict`` / ``--x32``), never from the environment, so
the output does not depend on ``JAX_ENABLE_X64`` or ``JAX_NUMPY_DTYPE_PROMOTION``.

Exit codes: 0 success; 1 the promotion asked for raises in JAX (``promote``);
2 a bad argument (one line on stderr, no traceback).

Subcommands live in ``COMMANDS`` (name -> ``Command``); add one with the
``command`` decorator and it gets its parser, help and dispatch.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from typing import Callable, Final, NamedTuple, NoReturn, Sequence, TypeVar

from jaxtypes import lattice, render

__all__ = ["main", "COMMANDS", "Command", "command", "CLIError", "parse_node", "VALID_NAMES"]

PROG: Final = "jaxtypes"

# Names that mean the weak (Python scalar) types.
WEAK_ALIASES: Final = {
    "int": lattice.WEAK_INT, "float": lattice.WEAK_FLOAT, "complex": lattice.WEAK_COMPLEX,
    lattice.WEAK_INT: lattice.WEAK_INT, lattice.WEAK_FLOAT: lattice.WEAK_FLOAT,
    lattice.WEAK_COMPLEX: lattice.WEAK_COMPLEX,
}
# Seed 000's short codes (b1, u1, bf, f2, c8, ...) are accepted too; they agree
# with numpy's own codes where numpy has one (u1 = uint8, c8 = complex64).
_CODE_ALIASES: Final = {
    code: node for node, code in lattice.SEED_CODES.items() if not lattice.is_weak(node)
}
VALID_NAMES: Final = lattice.STRONG + ("int", "float", "complex") + lattice.WEAK
_ALL_SPELLINGS: Final = VALID_NAMES + tuple(_CODE_ALIASES)


class CLIError(Exception):
    """A bad argument: main prints ``jaxtypes: error: <message>`` and exits 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (and exit code 2)."""

    def error(self, message: str) -> NoReturn:
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
    name: str, help: str, configure: Callable[[argparse.ArgumentParser], None],
    description: str | None = None,
) -> Callable[[_Run], _Run]:
    """Register ``run(args) -> exit code`` as subcommand ``name``;
    ``configure(parser)`` adds its arguments."""

    def register(run: _Run) -> _Run:
        COMMANDS[name] = Command(name, help, description or help, configure, run)
        return run

    return register


# ------------------------------------------------------------------ helpers
def parse_node(name: str) -> str:
    """The lattice node a command-line dtype name stands for.

    Accepts node names (``float32``, ``float8_e4m3fn``), ``int``/``float``/
    ``complex`` or ``i*``/``f*``/``c*`` for the weak types, and seed 000's
    codes (``bf``, ``f2``, ``u8``, ``c16``).  Anything else is a ``CLIError``.
    """
    if name in WEAK_ALIASES:
        return WEAK_ALIASES[name]
    if name in lattice.STRONG:
        return name
    if name in _CODE_ALIASES:
        return _CODE_ALIASES[name]
    close = difflib.get_close_matches(name, _ALL_SPELLINGS, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise CLIError(
        f"unknown dtype {name!r}{hint}; valid names: {', '.join(VALID_NAMES)} "
        f"(or seed codes {', '.join(_CODE_ALIASES)})"
    )


def _variant(args: argparse.Namespace) -> lattice.Variant:
    return lattice.Variant("strict" if args.strict else "standard", not args.x32)


def _add_variant_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--strict", action="store_true",
        help="strict promotion (jax_numpy_dtype_promotion='strict'): only equal "
             "types and weak-to-strong within a kind promote. Default: standard.",
    )
    p.add_argument(
        "--x32", action="store_true",
        help="x64 disabled (jax_enable_x64=False, JAX's own default): the x32 "
             "lattice, where uint32 with int8/int16/int32 gives int32. "
             "Default: x64 enabled, as in the documented table.",
    )


def _add_format(p: argparse.ArgumentParser, formats: Sequence[str], default: str) -> None:
    p.add_argument(
        "--format", choices=formats, default=default,
        help=f"output format: {', '.join(formats)} (default: {default})",
    )


def _add_all(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--all", action="store_true",
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
    "table", "print the binary promotion table", _configure_table,
    description="Print the promotion table: row and column dtypes, each cell "
    "their promoted type, in the layout of JAX's documented table (b1 bool, "
    "u1..u8 uint8..uint64, i1..i8 int8..int64, bf bfloat16, f2..f8 "
    "float16..float64, c8/c16 complex64/complex128, i*/f*/c* weak Python "
    "int/float/complex). '-' marks pairs that do not promote (JAX raises). "
    "In html, class=\"d\" marks cells where JAX differs from numpy.",
)
def _run_table(args: argparse.Namespace) -> int:
    sys.stdout.write(render.promotion_table(_variant(args), args.format, all_nodes=args.all))
    return 0


# ---------------------------------------------------------------- promote
def _configure_promote(p: argparse.ArgumentParser) -> None:
    p.add_argument("first", metavar="A", help="a dtype name, or int/float/complex for a weak Python scalar type")
    p.add_argument("others", metavar="B", nargs="+", help="more dtypes (B [C ...])")
    _add_variant_flags(p)


def _canonicalization_notes(nodes: Sequence[str], v: lattice.Variant) -> list[str]:
    notes = []
    for n in dict.fromkeys(nodes):
        c = lattice.canonicalize(n, v.x64)
        if c != n:
            notes.append(
                f"note: with x64 disabled, JAX canonicalizes {n} to {c} before promoting"
            )
    return notes


@command(
    "promote", "the dtype JAX promotes some dtypes to", _configure_promote,
    description="Print the dtype jax.numpy.result_type gives for the arguments "
    "and whether it is weakly typed (int, float, complex or i*, f*, c* are the "
    "weak Python types; other names are dtypes). If JAX would raise, print the "
    "error's class and message and exit with code 1.",
)
def _run_promote(args: argparse.Namespace) -> int:
    import jaxtypes
    from jaxtypes.promotion import TypePromotionError, dtype_of_node

    nodes = [parse_node(n) for n in [args.first, *args.others]]
    weak_types = {lattice.WEAK_INT: int, lattice.WEAK_FLOAT: float, lattice.WEAK_COMPLEX: complex}
    operands: list[object] = []
    for node in nodes:
        if node in weak_types:
            operands.append(weak_types[node])
            continue
        try:
            operands.append(dtype_of_node(node))
        except ValueError:
            raise CLIError(
                f"dtype {node!r} is not provided by the installed ml_dtypes"
            ) from None
    v = _variant(args)
    with jaxtypes.numpy_dtype_promotion(v.mode), jaxtypes.enable_x64(v.x64):
        try:
            dt, weak = jaxtypes.result_type(*operands, return_weak_type_flag=True)
        except TypePromotionError as e:
            print(f"{type(e).__name__}: {e}")
            return 1
    print(f"{dt.name} weak_type={weak}")
    for note in _canonicalization_notes([n for n in nodes if not lattice.is_weak(n)], v):
        print(note)
    return 0


# ---------------------------------------------------------------- explain
def _configure_explain(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", metavar="A", help="a dtype name, or int/float/complex (i*, f*, c*)")
    p.add_argument("b", metavar="B", help="a dtype name, or int/float/complex (i*, f*, c*)")
    _add_variant_flags(p)


@command(
    "explain", "why two dtypes promote to their join", _configure_explain,
    description="Show the shortest upward path from each node to their join "
    "(least upper bound) in the lattice, and the other common upper bounds, "
    "or why there is none.",
)
def _run_explain(args: argparse.Namespace) -> int:
    a, b = parse_node(args.a), parse_node(args.b)
    v = _variant(args)
    for line in lattice.explain(a, b, v):
        print(line)
    for note in _canonicalization_notes([n for n in (a, b) if not lattice.is_weak(n)], v):
        print(note + " (as result_type does); the paths above take it as given")
    return 0


# ---------------------------------------------------------------- lattice
def _configure_lattice(p: argparse.ArgumentParser) -> None:
    _add_format(p, render.GRAPH_FORMATS, "mermaid")
    _add_variant_flags(p)


@command(
    "lattice", "print the lattice graph (mermaid or graphviz dot)", _configure_lattice,
    description="Print the promotion lattice: every node and its direct upper "
    "edges, drawn bottom to top; weak nodes are dashed.",
)
def _run_lattice(args: argparse.Namespace) -> int:
    sys.stdout.write(render.lattice_graph(_variant(args), args.format))
    return 0


# ------------------------------------------------------------------- diff
def _configure_diff(p: argparse.ArgumentParser) -> None:
    p.add_argument("against", choices=("numpy",), help="what to compare with: numpy (numpy.promote_types)")
    _add_format(p, render.DIFF_FORMATS, "markdown")
    _add_variant_flags(p)
    _add_all(p)


@command(
    "diff", "where JAX's promotion differs from numpy's", _configure_diff,
    description="List each pair of dtypes (once, unordered) where JAX's "
    "promotion differs from numpy.promote_types. Weak types are given to numpy "
    "as Python int/float/complex (int64/float64/complex128). Columns: a, b, "
    "jax, numpy ('-' where one raises), kind (dtype: different dtypes; weak: "
    "same dtype but JAX's result is weak; jax-error / numpy-error).",
)
def _run_diff(args: argparse.Namespace) -> int:
    nodes = render.table_nodes(args.all)
    diffs = render.numpy_differences(_variant(args), nodes)
    sys.stdout.write(render.differences_table(diffs, args.format))
    return 0


# -------------------------------------------------------------- jax-stubs
def _configure_jax_stubs(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "action", nargs="?", choices=("install", "check"),
        help="install: build the stubs as a package (jaxtypes-jax-stubs) and pip-install "
             "it into this environment, where every checker finds it with no configuration "
             "(remove with `pip uninstall jaxtypes-jax-stubs`); check: say whether the "
             "installed stubs (or those in --out DIR) were made for the JAX and jaxtypes "
             "installed (exit code 1 when not)",
    )
    p.add_argument(
        "--out", metavar="DIR", default=None,
        help="write the stubs into DIR instead (default without `install`: ./typings) and "
             "print each checker's configuration for them",
    )


@command(
    "jax-stubs", "make jax.Array generic in its dtype for every type checker", _configure_jax_stubs,
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

    from jaxtypes import jax_stubs

    if args.action == "install" and args.out is not None:
        raise CLIError("give either `install` or --out DIR, not both")
    if args.action == "check":
        found = jax_stubs.staleness(Path(args.out) if args.out is not None else None)
        if found is None:
            where = args.out if args.out is not None else f"this environment ({jax_stubs.DISTRIBUTION})"
            raise CLIError(f"no jax.Array stubs found in {where}; make them with "
                           "`jaxtypes jax-stubs install`")
        print(found.message())
        return 1 if found.stale else 0
    try:
        jax = jax_stubs.locate_jax()
        if args.action == "install":
            wheel = jax_stubs.install(jax)
            print(f"installed {wheel} into {sys.prefix}: jax.Array is generic in its dtype, and "
                  "jaxtypes.Array is jax.Array, for mypy, pyright, basedpyright, pyrefly and ty "
                  f"with no configuration. Remove with: {sys.executable} -m pip uninstall "
                  f"{jax_stubs.DISTRIBUTION}")
            return 0
        files = jax_stubs.render(jax)
    except jax_stubs.StubsError as e:
        earlier = jax_stubs.staleness(Path(args.out or "typings") if args.action != "install" else None)
        left = (f" The stubs made earlier for jaxtypes {earlier.made_for[0]} and JAX "
                f"{earlier.made_for[1]} ({earlier.where}) are left in place; remove them with "
                f"`{earlier.remove}`." if earlier is not None else "")
        raise CLIError(f"{e}{left}") from None
    out_arg = args.out if args.out is not None else "typings"
    out = Path(out_arg)
    try:
        jax_stubs.write(out, files)
    except OSError as e:
        raise CLIError(f"cannot write to {out}: {e}; the stubs there (if any) are unchanged") from None
    print(f"wrote {len(files)} stub files for JAX {jax.version} to {out}/: jax.Array is "
          "generic in its dtype, and jaxtypes.Array is jax.Array. Point each checker at them:")
    for line in jax_stubs.setup_lines(out_arg):
        print("  " + line)
    return 0


# ------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    from jaxtypes import __version__

    parser = _Parser(
        prog=PROG,
        description="JAX's dtype promotion lattice: tables, graphs, and single "
        "promotions, without JAX. Every command uses standard promotion with "
        "x64 enabled unless given --strict / --x32; the environment "
        "(JAX_ENABLE_X64, JAX_NUMPY_DTYPE_PROMOTION) is ignored.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="command", required=True)
    for cmd in COMMANDS.values():
        p = sub.add_parser(cmd.name, help=cmd.help, description=cmd.description)
        cmd.configure(p)
        p.set_defaults(_run=cmd.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (never raises SystemExit)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version, usage errors
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    try:
        code: int = args._run(args)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return code
    except CLIError as e:
        sys.stdout.flush()
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # Output piped into e.g. `head`: stop quietly, as other Unix tools do.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
