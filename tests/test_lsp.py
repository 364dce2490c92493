"""What an IDE shows with the stubs: hovers and completions from the language
servers of pyright and basedpyright, driven over stdio as an editor drives them.

Each server (``pyright-langserver --stdio`` and ``basedpyright-langserver
--stdio``, the entry points the PyPI packages install next to the checkers)
is started in a project laid out as the README's set-up says: the user's code
and a ``pyrightconfig.json`` choosing ``typeCheckingMode`` standard, nothing
else, run in the environment where jaxtypes is installed (its ``bin``
directory first on ``PATH``, as an activated virtual environment has it), so
that the server finds ``jaxtypes`` as the installed package with its inline
stubs (``py.typed``).  The client speaks JSON-RPC with ``Content-Length``
framing: initialize, initialized, didOpen, hover, completion, shutdown, exit.
Every request has its own timeout; the server is killed if it has not exited.

Three set-ups are served: jaxtypes.Array (SOURCE); jax.Array (JAX_SOURCE,
which also calls JAX's functions and a Flax layer) with the stubs of
``jaxtypes jax-stubs --out typings`` in the project (``typings`` is pyright's
default stubPath, so nothing is configured); and jax.Array with the stubs of
``jaxtypes jax-stubs install`` (the Quick start), in a throwaway environment
the server runs in.

What a hover shows names none of the stubs' internals (INTERNAL): their
TypeVars, protocols and tables have public-looking names, and a Flax layer
keeps Flax's docstring.  Nor does what basedpyright warns of in its default
mode ("recommended": every rule, most as warnings), run on a user's file
without configuration (test_default_mode_warnings_name_no_internals).

One server per checker and set-up serves all the tests of this module, on one worker.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import json
import os
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tools.checkers import BIN, tool

import project_runs

REQUEST_TIMEOUT = 180.0  # seconds; the first request waits for the server to analyse

SOURCE = '''\
from jaxtypes import Array, bfloat16, float32, int8


def dense(x: Array[bfloat16], w: Array[bfloat16], b: Array[float32], q: Array[int8]) -> None:
    total = x.sum()
    count = q.sum()
    z = x @ w
    y = x @ w + b
    doubled = x * 2
    negated = -x
    x.
'''

# The same code on jax.Array, in a project with the stubs of ``jaxtypes
# jax-stubs --out typings`` (pyright's default stubPath: nothing to set up),
# after a function calling a family of JAX's functions (an input's dtype, a
# reduction's, a dtype= argument's) and Flax's Dense, made with a dtype (its
# class's hover shows the typed __init__) and without (its type's argument),
# and one calling ufuncs (jnp.add is an object of a class), a function with a
# NamedTuple of results (eigh's), astype with JAX's scalar type and x.at.
JAX_FUNCTIONS = '''

def functions(x: Array[bfloat16]) -> None:
    t = jnp.tanh(x)
    s = jnp.sum(x)
    zs = jnp.zeros((3,), dtype=jnp.float32)
    layer = nn.Dense(4, dtype=jnp.bfloat16)
    h = layer(x)
    plain = nn.Dense(4)


def ufuncs_and_results(a: Array[float32], c: Array[float32], x: Array[bfloat16]) -> None:
    added = jnp.add(a, c)
    largest = jnp.maximum(x, x)
    decomposition = jnp.linalg.eigh(a)
    values, vectors = jnp.linalg.eigh(a)
    cast = x.astype(jnp.float32)
    updated = x.at[0].set(1.0)
'''
JAX_SOURCE = SOURCE.replace(
    "from jaxtypes import Array, bfloat16, float32, int8\n",
    "import flax.linen as nn\nimport jax.numpy as jnp\nfrom jax import Array\nfrom jaxtypes import bfloat16, float32, int8\n"
    + JAX_FUNCTIONS,
)
# "jax-stubs-installed": the Quick start's set-up, `jaxtypes jax-stubs install`
# run in a throwaway environment the servers run in (activated as a user's).
SETUPS = ("jaxtypes", "jax-stubs", "jax-stubs-installed")


# What completion after ``x.`` must offer besides dunders: Array's public
# members, written out (jaxtypes/_stubgen/package_stubs.py, render_array, and the rest of
# jax.Array's surface, jaxtypes/array_surface.py).
PUBLIC_MEMBERS = frozenset(
    {
        "T",
        "all",
        "any",
        "argmax",
        "argmin",
        "astype",
        "clip",
        "conj",
        "dtype",
        "imag",
        "item",
        "max",
        "mean",
        "min",
        "ndim",
        "prod",
        "real",
        "reshape",
        "round",
        "shape",
        "size",
        "sum",
        "tolist",
        "transpose",
        "addressable_data",
        "addressable_shards",
        "argpartition",
        "argsort",
        "at",
        "aval",
        "block_until_ready",
        "byteswap",
        "choose",
        "committed",
        "compress",
        "conjugate",
        "copy",
        "copy_to_host_async",
        "cumprod",
        "cumsum",
        "delete",
        "device",
        "devices",
        "diagonal",
        "dot",
        "flatten",
        "global_shards",
        "is_deleted",
        "is_fully_addressable",
        "is_fully_replicated",
        "itemsize",
        "mT",
        "nbytes",
        "nonzero",
        "on_device_size_in_bytes",
        "platform",
        "ptp",
        "ravel",
        "repeat",
        "searchsorted",
        "sharding",
        "sort",
        "squeeze",
        "std",
        "swapaxes",
        "take",
        "to_device",
        "tobytes",
        "trace",
        "traceback",
        "unsafe_buffer_pointer",
        "var",
        "view",
        "weak_type",
    }
)

# What JAX 0.10's own stub of jax.Array declares besides its public members.
JAX_PRIVATE_MEMBERS = frozenset({"_rewrap_with_aval_and_sharding"})

# A name of the stubs' internals: a leading underscore, not after a word
# character or a dot (tests/test_error_messages.py reads errors the same way),
# but JAX's own (the alias jnp.sum's axis is declared with, and the classes of
# x.at and x.at[i], which the stubs make generic in the dtype): the stubs'
# TypeVars (_JaxtypesV, _Other33, _UnknownArgumentT), protocols
# (_Has_fn_inexact), tables (_matmul_bfloat16), classes (_JaxtypesNoDtype,
# _JaxtypesUfunc_add, _JaxtypesEighResult) and module aliases (_jaxtypes_markers).
JAX_PRIVATE_NAMES = ("_Axis", "_IndexUpdateHelper", "_IndexUpdateRef")
INTERNAL = re.compile(rf"(?<![\w.])(?!(?:{'|'.join(JAX_PRIVATE_NAMES)})\b)_[A-Za-z]\w*")


def declaration(hover: str) -> str:
    """A hover's declarations (``(function) def tanh(...) -> ...``, a class's
    ``class Dense(...)``), without the docstring after them: a library's own
    prose (JAX's zeros documents a link target ``.. _explicit sharding:``)."""
    chunks = list(itertools.takewhile(re.compile(r"\(\w+\) |class ").match, hover.split("\n\n")))
    assert chunks, hover
    return "\n\n".join(chunks)


def _position(source: str, line_start: str, needle: str, after: bool = False) -> dict[str, int]:
    """The LSP position of ``needle`` (or of the character after it) on the
    line of ``source`` whose stripped text starts with ``line_start``."""
    for n, line in enumerate(source.splitlines()):
        if line.strip().startswith(line_start):
            return {"line": n, "character": line.index(needle) + (len(needle) if after else 0)}
    raise AssertionError(f"no line {line_start!r} in the source")


class LanguageServer:
    """A minimal LSP client over a subprocess's stdin and stdout."""

    def __init__(self, command: list[str], root: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            command, cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.responses: queue.Queue[dict[str, Any]] = queue.Queue()
        self.next_id = 0
        self.lock = threading.Lock()  # the reader thread answers the server's requests
        threading.Thread(target=self._read, daemon=True).start()

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        with self.lock:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:  # the header, up to its empty line
                header = out.readline()
                if not header:
                    return  # the server has exited
                if header in (b"\r\n", b"\n"):
                    break
                name, _, value = header.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            if length is None:
                continue
            message = json.loads(out.read(length))
            if "method" in message and "id" in message:  # a request from the server
                self._answer(message)
            elif "id" in message:  # a response; notifications are not needed
                self.responses.put(message)

    def _answer(self, request: dict[str, Any]) -> None:
        """The server's requests: no settings beyond the project's (an empty
        section each), and an acknowledgement of everything else
        (client/registerCapability, window/workDoneProgress/create)."""
        result: Any = None
        if request["method"] == "workspace/configuration":
            result = [{} for _ in request["params"]["items"]]
        self._send({"id": request["id"], "result": result})

    def request(self, method: str, params: dict[str, Any] | None) -> Any:
        self.next_id += 1
        wanted = self.next_id
        self._send({"id": wanted, "method": method, "params": params})
        while True:
            try:
                message = self.responses.get(timeout=REQUEST_TIMEOUT)
            except queue.Empty:
                raise AssertionError(f"{method}: no answer within {REQUEST_TIMEOUT} s") from None
            if message.get("id") == wanted:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                return message.get("result")

    def notify(self, method: str, params: dict[str, Any] | None) -> None:
        self._send({"method": method, "params": params})

    def close(self) -> int | None:
        """shutdown, then exit; the server's exit code (None if it had to be killed)."""
        try:
            if self.proc.poll() is None:
                self.request("shutdown", None)
                self.notify("exit", None)
                return self.proc.wait(timeout=30)
        except (AssertionError, OSError, subprocess.TimeoutExpired):
            pass
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(timeout=30)
        return None


class Session:
    """A server (``name``: pyright or basedpyright) that has opened the
    ``setup``'s source (SOURCE, or JAX_SOURCE with the JAX stubs) as ``example.py``."""

    def __init__(self, name: str, setup: str, source: str, lsp: LanguageServer, uri: str) -> None:
        self.name, self.setup, self.source, self.lsp, self.uri = name, setup, source, lsp, uri

    def position(self, line_start: str, needle: str, after: bool = False) -> dict[str, int]:
        return _position(self.source, line_start, needle, after)

    def hover(self, position: dict[str, int]) -> str | None:
        """The hover's plain text, None when the server has none."""
        result = self.lsp.request("textDocument/hover", {"textDocument": {"uri": self.uri}, "position": position})
        if not result:
            return None
        contents = result["contents"]
        assert isinstance(contents, dict) and contents["kind"] == "plaintext", contents
        return str(contents["value"])

    def completion(self, position: dict[str, int]) -> list[str]:
        result = self.lsp.request("textDocument/completion", {"textDocument": {"uri": self.uri}, "position": position})
        items = result["items"] if isinstance(result, dict) else result
        return [item["label"] for item in items]


def _environment(venv: Path | None = None) -> dict[str, str]:
    """The user's shell with jaxtypes' environment (or ``venv``) activated."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = os.pathsep.join([str(BIN if venv is None else venv / "bin"), env.get("PATH", "")])
    env["VIRTUAL_ENV"] = sys.prefix if venv is None else str(venv)
    return env


@pytest.fixture(
    scope="module",
    params=[
        # The stubs written with --out: `pytest -m slow` (and CI); the default
        # run has the installed stubs, the README's set-up.
        pytest.param(
            (checker, setup),
            id=f"{checker}-{setup}",
            marks=[pytest.mark.xdist_group("lsp")] + ([pytest.mark.slow] if setup == "jax-stubs" else []),
        )
        for checker in ("pyright", "basedpyright")
        for setup in SETUPS
    ],
)
def session(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    checker, setup = request.param
    root = tmp_path_factory.mktemp(f"{checker}-{setup}")
    (root / "pyrightconfig.json").write_text(json.dumps({"typeCheckingMode": "standard"}))
    source, env = SOURCE, _environment()
    if setup == "jax-stubs":
        source = JAX_SOURCE
        subprocess.run(
            [sys.executable, "-m", "jaxtypes", "jax-stubs", "--out", str(root / "typings")],
            cwd=root,
            env=env,
            check=True,
            capture_output=True,
            timeout=600,
        )
    elif setup == "jax-stubs-installed":
        source = JAX_SOURCE
        env = _environment(project_runs.installed()[0])  # the session's (the servers only read it)
    path = root / "example.py"
    path.write_text(source)
    lsp = LanguageServer([tool(f"{checker}-langserver"), "--stdio"], root, env)
    try:
        lsp.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "workspaceFolders": [{"uri": root.as_uri(), "name": "example"}],
                "capabilities": {
                    "workspace": {"configuration": True},
                    "textDocument": {
                        "hover": {"contentFormat": ["plaintext"]},
                        "completion": {"completionItem": {"documentationFormat": ["plaintext"]}},
                    },
                },
            },
        )
        lsp.notify("initialized", {})
        lsp.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": path.as_uri(), "languageId": "python", "version": 1, "text": source}},
        )
        yield Session(checker, setup, source, lsp, path.as_uri())
    finally:
        code = lsp.close()
    assert code == 0, f"{checker}-langserver did not exit cleanly after shutdown and exit ({code})"


def test_hover_on_a_method_shows_its_signature_and_result_dtype(session: Session) -> None:
    total = session.hover(session.position("total =", "sum"))
    count = session.hover(session.position("count =", "sum"))
    for text, dtype in ((total, "bfloat16"), (count, "int32")):  # int8 sums widen to int32
        assert text is not None
        assert re.fullmatch(rf"\(variable\) def sum\(\n(    \w+: .+,?\n)+\) -> Array\[{dtype}\]", text), text
        assert "    axis: AxisArgument = None,\n" in text, text
        # (True: False keeps narrow integers, a dtype the table does not know)
        assert "    promote_integers: Literal[True] = True\n" in text, text
        assert not INTERNAL.search(text), text


def test_hover_on_a_variable_shows_its_dtype(session: Session) -> None:
    assert session.hover(session.position("total =", "total")) == "(variable) total: Array[bfloat16]"
    assert session.hover(session.position("count =", "count")) == "(variable) count: Array[int32]"
    assert session.hover(session.position("z =", "z")) == "(variable) z: Array[bfloat16]"
    assert session.hover(session.position("y =", "y")) == "(variable) y: Array[float32]"


def test_internal_name_pattern() -> None:
    """What INTERNAL calls internal: the names hovers used to show."""
    for name in (
        "_JaxtypesV@tanh",
        "Array[_Has_fn_inexact[D]]",
        "Self@_matmul_bfloat16",
        "Self@_add_bfloat16",
        "Array[_Other33@__call__]",
        "dtype: _UnknownArgumentT@zeros",
        "Dense[_JaxtypesNoDtype, float32]",
        "_jaxtypes_markers.float32",
        "self: Self@UnaryTo[_R@UnaryTo]",
        "(variable) add: _JaxtypesUfunc_add",
        "_JaxtypesEighResult[Array[float32], Array[float32]]",
        "-> Array[_V@astype]",
    ):
        assert INTERNAL.search(name), name
    for name in (
        "axis: _Axis = None",
        "Array[Inexact[D@tanh]]",
        "Self@MatmulBfloat16",
        "Array[OtherDtype33@__call__]",
        "(property) at: _IndexUpdateHelper[bfloat16]",
        "(variable) add: AddUfunc",
        "EighResult[Array[float32], Array[float32]]",
    ):
        assert not INTERNAL.search(name), name
    assert declaration("(variable) t: Array[bfloat16]") == "(variable) t: Array[bfloat16]"
    assert declaration("(function) def f() -> None\n\nDoc: _explicit.") == "(function) def f() -> None"


def test_hover_on_an_operator(session: Session) -> None:
    at = session.hover(session.position("z =", "@"))
    plus = session.hover(session.position("y =", "+"))
    times = session.hover(session.position("doubled =", "*"))
    minus = session.hover(session.position("negated =", "-"))
    if session.name == "pyright":  # no hover on an operator
        assert at is None and plus is None and times is None and minus is None, (at, plus, times, minus)
        return
    # basedpyright shows the declaration of the overload the operator called:
    # here the table's TypeVar overload (the partners whose dtype is the
    # result), unsolved, so no dtype (the variable's hover has it).  A gap,
    # written out: an overload for the table's own dtype would show
    # Array[bfloat16] for x @ w, but costs mypy 4% more instructions on
    # mixed-dtype arithmetic (jaxtypes/_stubgen/package_stubs.py).  The
    # table's names are public-looking (TABLES_CLASS there says how).
    for text, table in ((at, "MatmulBfloat16"), (plus, "AddBfloat16")):
        assert text is not None and re.fullmatch(
            rf"\(method\) def __call__\(\n    self: Self@{table},\n    other: Array\[(OtherDtype\d+)@__call__\],"
            rf"\n    /\n\) -> Array\[\1@__call__\]",
            text,
        ), text
    # An overload of a Python scalar's (bfloat16 * int) has the result dtype.
    assert times is not None and times.startswith("(method) def __call__(\n    self: Self@AddBfloat16,\n"), times
    assert times.endswith("\n) -> Array[bfloat16]"), times
    # A unary operator's table is generic in its dtype, the declaration unsolved.
    assert minus == "(method) def __call__(self: Self@UnaryTo[D@UnaryTo]) -> Array[D@UnaryTo]", minus
    for text in (at, plus, times, minus):
        assert not INTERNAL.search(text), text


@pytest.fixture
def jax_session(session: Session) -> Session:
    """The session of a set-up with the JAX stubs (JAX_SOURCE)."""
    if not session.setup.startswith("jax-stubs"):
        pytest.skip("JAX's functions and Flax's layers are typed by the JAX stubs")
    return session


def test_hover_on_jax_functions_names_no_internals(jax_session: Session) -> None:
    """jnp.tanh, jnp.sum and jnp.zeros(..., dtype=) show their typed overload,
    its TypeVar and protocol public-looking (a bfloat16 array stops at the
    overload of the dtypes each keeps); the result's dtype shows on the
    variable (the function's hover is the declaration, unsolved)."""
    session = jax_session
    tanh = session.hover(session.position("t =", "tanh"))
    assert (
        tanh is not None
        and declaration(tanh)
        == "(function) def tanh(\n    x: Array[InexactKept@tanh],\n    /\n) -> Array[InexactKept@tanh]"
    ), tanh
    total = session.hover(session.position("s =", "sum"))
    assert total is not None and declaration(total).startswith("(function) def sum(\n    a: Array[SumKept@sum],\n"), (
        total
    )
    assert declaration(total).endswith("\n) -> Array[SumKept@sum]"), total
    zeros = session.hover(session.position("zs =", "zeros"))
    assert zeros is not None and "    dtype: type[GivenDtype" in declaration(zeros), zeros
    assert declaration(zeros).endswith("\n) -> Array[D@zeros]"), zeros
    for text in (tanh, total, zeros):
        assert not INTERNAL.search(declaration(text)), text
    assert session.hover(session.position("t =", "t")) == "(variable) t: Array[bfloat16]"
    assert session.hover(session.position("s =", "s")) == "(variable) s: Array[bfloat16]"
    assert session.hover(session.position("zs =", "zs")) == "(variable) zs: Array[float32]"


def test_hover_on_ufuncs_and_named_results_names_no_internals(jax_session: Session) -> None:
    """jnp.add and jnp.maximum are objects of a class (JAX's BinaryUfunc with
    a typed __call__), eigh returns a NamedTuple generic in its results: their
    hovers name public-looking classes, and the results show their dtypes."""
    session = jax_session
    add = session.hover(session.position("added =", "add("))
    assert add is not None and declaration(add) == "(variable) add: AddUfunc", add
    assert session.hover(session.position("added =", "added")) == "(variable) added: Array[float32]"
    maximum = session.hover(session.position("largest =", "maximum"))
    assert maximum is not None and declaration(maximum) == "(variable) maximum: MaximumUfunc", maximum
    assert session.hover(session.position("largest =", "largest")) == "(variable) largest: Array[bfloat16]"
    eigh = session.hover(session.position("decomposition =", "eigh"))
    assert eigh is not None and declaration(eigh).startswith("(function) def eigh(\n    a: Array["), eigh
    assert declaration(eigh).endswith("\n) -> EighResult[Array[D@eigh], Array[D2@eigh]]"), eigh
    assert (
        session.hover(session.position("decomposition =", "decomposition"))
        == "(variable) decomposition: EighResult[Array[float32], Array[float32]]"
    )
    assert session.hover(session.position("values, vectors =", "values")) == "(variable) values: Array[float32]"
    assert session.hover(session.position("values, vectors =", "vectors")) == "(variable) vectors: Array[float32]"
    astype = session.hover(session.position("cast =", "astype"))
    assert astype is not None and declaration(astype).endswith("\n) -> Array[DtypeMarkerT@astype]"), astype
    assert session.hover(session.position("cast =", "cast")) == "(variable) cast: Array[float32]"
    at = session.hover(session.position("updated =", "at["))
    assert at == "(property) at: _IndexUpdateHelper[bfloat16]", at  # JAX's own class, generic
    assert session.hover(session.position("updated =", "updated")) == "(variable) updated: Array[bfloat16]"
    for text in (add, maximum, eigh, astype, at):
        assert not INTERNAL.search(declaration(text)), text


def _flax_docstring(name: str, module: str = "flax.linen.linear") -> str:
    """The first line of a Flax class's docstring, read from Flax's source."""
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    doc = ast.get_docstring(cls)
    assert doc, name
    return doc.splitlines()[0]


def test_hover_on_a_flax_layer_names_no_internals(jax_session: Session) -> None:
    """nn.Dense made with a dtype: its class's hover shows the typed __init__
    (the dtype's TypeVar public-looking) and Flax's docstring; the call, the
    output's dtype."""
    session = jax_session
    dense = session.hover(session.position("layer =", "Dense"))
    assert dense is not None, dense
    assert "    dtype: DType[D@__init__],\n" in declaration(dense), dense
    assert not INTERNAL.search(declaration(dense)), dense
    assert _flax_docstring("Dense") in dense and "typed by jaxtypes" not in dense, dense
    call = session.hover(session.position("h =", "layer"))
    assert call is not None and re.fullmatch(r"\(variable\) def layer\(inputs: .*\) -> .*Array\[bfloat16\]", call), call
    assert not INTERNAL.search(call), call
    assert session.hover(session.position("h =", "h")) == "(variable) h: Array[bfloat16]"
    # (param_dtype left out: Flax's default, float32)
    assert session.hover(session.position("layer =", "layer")) == "(variable) layer: Dense[bfloat16, float32]"
    # A layer made without dtype is Dense[<no dtype>, its parameters' dtype]:
    # the class standing for "no dtype" is the markers stub's NoDtype.
    assert session.hover(session.position("plain =", "plain")) == "(variable) plain: Dense[NoDtype, float32]"


def test_completion_lists_public_members_and_no_private_ones(session: Session) -> None:
    labels = session.completion(session.position("x.", "x.", after=True))
    dunders = {n for n in labels if n.startswith("__") and n.endswith("__")}
    assert {"__add__", "__matmul__", "__getitem__"} <= dunders, sorted(labels)
    # With the JAX stubs, jax.Array also has the private members JAX's own stub declares.
    own = JAX_PRIVATE_MEMBERS if session.setup.startswith("jax-stubs") else frozenset()
    assert {n for n in labels if n not in dunders} == PUBLIC_MEMBERS | own, sorted(labels)


# A user's file on jax.Array, for basedpyright's default mode: it warns of
# every value or member whose type is partially unknown, writing out the type
# (jnp.zeros, lax.top_k, nn.avg_pool and jax.jit have a parameter JAX or Flax
# leaves unknown, so the warning writes out every overload of the stubs), and
# of every call whose result is left unused, writing out the result's type
# (linear_algebra's: ufuncs, NamedTuples of results, astype, x.at).
DEFAULT_MODE_SOURCE = '''\
import jax
import jax.numpy as jnp
import flax.linen as nn
from jax import Array
from jaxtypes import bfloat16, float32


def model(x: Array[bfloat16], w: Array[bfloat16], b: Array[float32]) -> Array[float32]:
    h = jnp.tanh(x @ w + b)
    total = jnp.sum(h) + jnp.zeros((3,), dtype=jnp.float32)
    top, index = jax.lax.top_k(h, 2)
    pooled = nn.avg_pool(x, (2,))
    layer = nn.Dense(4, dtype=jnp.bfloat16)
    fast = jax.jit(jnp.tanh)
    print(total, top, index, pooled, layer(x), fast(x), -x * 2)
    return h


def linear_algebra(a: Array[float32], c: Array[float32], x: Array[bfloat16]) -> None:
    jnp.add(a, c)
    jnp.maximum(x, x)
    jnp.linalg.eigh(a)
    jnp.linalg.svd(a)
    x.astype(jnp.float32)
    x.at[0].set(1.0)
    values, vectors = jnp.linalg.eigh(a)
    print(jnp.add, values, vectors, jnp.linalg.qr(a), jnp.linalg.slogdet(a))
'''


@pytest.mark.parametrize("setup", [pytest.param("jax-stubs", marks=pytest.mark.slow), "jax-stubs-installed"])
def test_default_mode_warnings_name_no_internals(setup: str, tmp_path: Path) -> None:
    """basedpyright with no configuration (its default mode, "recommended":
    every rule, most as warnings), on a user's file with the JAX stubs: what
    it reports names none of the stubs' internals."""
    (tmp_path / "user.py").write_text(DEFAULT_MODE_SOURCE)
    if setup == "jax-stubs":  # the session's `jaxtypes jax-stubs --out typings`
        (tmp_path / "typings").symlink_to(project_runs.typings(), target_is_directory=True)
        env = _environment()
    else:
        env = _environment(project_runs.installed()[0])
    proc = subprocess.run(
        [tool("basedpyright"), "--outputjson", "user.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    diagnostics = json.loads(proc.stdout)["generalDiagnostics"]
    messages = [f"{d['range']['start']['line'] + 1}: {d['message']} ({d.get('rule', '')})" for d in diagnostics]
    assert not [d for d in diagnostics if d["severity"] == "error"], messages
    # The stubs' overloads are written out (zeros's, whose device JAX leaves
    # unknown), and the unused results' types, with their dtypes.
    assert any("D@zeros" in m for m in messages), messages
    unused = {m.partition(":")[0]: m for m in messages if m.endswith("(reportUnusedCallResult)")}
    lines = DEFAULT_MODE_SOURCE.splitlines()
    for call, result in (
        ("jnp.add(a, c)", "Array[float32]"),
        ("jnp.maximum(x, x)", "Array[bfloat16]"),
        ("jnp.linalg.eigh(a)", "EighResult[Array[float32], Array[float32]]"),
        ("jnp.linalg.svd(a)", "SVDResult[Array[float32], Array[float32], Array[float32]]"),
        ("x.astype(jnp.float32)", "Array[float32]"),
        ("x.at[0].set(1.0)", "Array[bfloat16]"),
    ):
        line = str(lines.index(f"    {call}") + 1)
        assert f'is of type "{result}"' in unused.get(line, ""), (call, messages)
    leaks = [m for m in messages if INTERNAL.search(m)]
    assert not leaks, "\n".join(leaks)
