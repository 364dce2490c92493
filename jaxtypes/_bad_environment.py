"""The one-line error of the command line for a bad environment value.

``import jaxtypes`` raises a ``ValueError`` when ``JAX_ENABLE_X64`` or
``JAX_NUMPY_DTYPE_PROMOTION`` holds a value JAX rejects, as ``import jax``
does; run as the ``jaxtypes`` command, that is one line on stderr and exit
status 2 instead of a traceback.  Kept apart from ``jaxtypes.cli`` so that
the package root imports no command-line code.
"""

from __future__ import annotations

import os
import sys
from typing import Final

PROG: Final = "jaxtypes"


def _running_as_command() -> bool:
    """Whether this process is the jaxtypes command: the installed script, or
    ``python -m jaxtypes`` (while the package imports, runpy has not set
    ``sys.argv`` yet, so the interpreter's own arguments say)."""
    if sys.argv and os.path.basename(sys.argv[0]) in ("jaxtypes", "jaxtypes.exe", "jaxtypes-script.py"):
        return True
    interpreter_args: list[str] = getattr(sys, "orig_argv", [])  # Python 3.10+
    args = iter(interpreter_args[1:])
    for arg in args:
        if arg == "-m":
            return next(args, None) == PROG
        if arg.startswith("-m"):
            return arg[2:] == PROG
        if arg in ("-X", "-W"):  # options with a separate value
            next(args, None)
        elif not arg.startswith("-") or arg == "-c":
            return False
    return False


def exit_on_environment_error(err: ValueError) -> None:
    """Called by ``jaxtypes/__init__.py`` when the environment (``JAX_ENABLE_X64``,
    ``JAX_NUMPY_DTYPE_PROMOTION``) holds a value JAX rejects: as the command
    line, print one line and exit 2; as a library, return (the import raises,
    as JAX's does)."""
    if not _running_as_command():
        return
    try:
        sys.stderr.write(f"{PROG}: error: {err}\n")
        sys.stderr.flush()
    except (AttributeError, OSError):  # stderr closed too: the status says it
        pass
    raise SystemExit(2)
