"""What an IDE shows: hovers and completions from pyright's and basedpyright's language servers.

Each server is started over stdio (``pyright-langserver --stdio``, the entry
point the PyPI packages install next to the checker), given one file, and
asked for hovers and a completion; every request has its own timeout, and the
server is killed at the end whatever happened.
"""

from __future__ import annotations

import json
import re
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from checkers import tool

REQUEST_TIMEOUT = 120.0  # seconds; the first request waits for the server to analyse

SOURCE = '''\
from jaxtypes import Array, bfloat16, float32


def dense(x: Array[bfloat16], w: Array[float32], b: Array[float32]) -> None:
    total = x.sum()
    z = x @ w
    y = x @ w + b
    x.
'''


def _position(text: str, line_text: str, needle: str, offset: int = 0) -> dict[str, int]:
    """The LSP position of ``needle`` (plus ``offset`` characters) on the line
    whose stripped text starts with ``line_text``."""
    for n, line in enumerate(text.splitlines()):
        if line.strip().startswith(line_text):
            return {"line": n, "character": line.index(needle) + offset}
    raise AssertionError(f"no line {line_text!r}")


class LanguageServer:
    """A minimal LSP client over a subprocess's stdin/stdout."""

    def __init__(self, command: list[str], root: Path) -> None:
        self.proc = subprocess.Popen(command, cwd=root, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.responses: queue.Queue[dict[str, Any]] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                header = out.readline()
                if not header:
                    return
                if header in (b"\r\n", b"\n"):
                    break
                name, _, value = header.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                continue
            message = json.loads(out.read(length))
            if "method" in message and "id" in message:  # a request from the server
                self._answer(message)
            elif "id" in message:
                self.responses.put(message)

    def _answer(self, request: dict[str, Any]) -> None:
        result: Any = None
        if request["method"] == "workspace/configuration":
            result = [{} for _ in request["params"]["items"]]
        self._send({"id": request["id"], "result": result})

    def request(self, method: str, params: dict[str, Any]) -> Any:
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

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self._send({"method": method, "params": params})

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)


@pytest.fixture(params=["pyright-langserver", "basedpyright-langserver"])
def server(request: pytest.FixtureRequest, tmp_path: Path):
    venv = Path(sys.prefix)
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(
        {"venvPath": str(venv.parent), "venv": venv.name, "typeCheckingMode": "standard"}))
    path = tmp_path / "example.py"
    path.write_text(SOURCE)
    lsp = LanguageServer([tool(request.param), "--stdio"], tmp_path)
    try:
        lsp.request("initialize", {
            "processId": None, "rootUri": tmp_path.as_uri(),
            "workspaceFolders": [{"uri": tmp_path.as_uri(), "name": "example"}],
            "capabilities": {"textDocument": {
                "hover": {"contentFormat": ["plaintext"]},
                "completion": {"completionItem": {"documentationFormat": ["plaintext"]}},
            }},
        })
        lsp.notify("initialized", {})
        lsp.notify("textDocument/didOpen", {"textDocument": {
            "uri": path.as_uri(), "languageId": "python", "version": 1, "text": SOURCE}})
        yield lsp, path.as_uri()
    finally:
        lsp.close()


def _hover(lsp: LanguageServer, uri: str, position: dict[str, int]) -> str:
    result = lsp.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position})
    if not result:
        return ""
    contents = result["contents"]
    return contents["value"] if isinstance(contents, dict) else str(contents)


def test_hovers_show_the_dtypes(server) -> None:
    lsp, uri = server
    total = _hover(lsp, uri, _position(SOURCE, "total =", "total"))
    assert "Array[int32]" not in total and "Array[bfloat16]" in total, total
    # The method's hover names its result dtype in a public-looking table
    # (ReductionTo[bfloat16]), not a callable signature: see the report of issue 12.
    method = _hover(lsp, uri, _position(SOURCE, "total =", "sum"))
    assert "[bfloat16]" in method and not re.search(r"(?<![\w.])_[A-Za-z]", method), method
    z = _hover(lsp, uri, _position(SOURCE, "z =", "z"))
    assert "Array[float32]" in z, z
    y = _hover(lsp, uri, _position(SOURCE, "y =", "y"))
    assert "Array[float32]" in y, y


def test_completion_lists_no_private_members(server) -> None:
    lsp, uri = server
    position = _position(SOURCE, "x.", "x.", offset=2)
    result = lsp.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                    "position": position})
    items = result["items"] if isinstance(result, dict) else result
    names = {item["label"] for item in items}
    assert {"sum", "astype", "mean", "argmax", "shape", "dtype"} <= names, sorted(names)
    private = sorted(n for n in names if n.startswith("_") and not n.startswith("__"))
    assert not private, private
