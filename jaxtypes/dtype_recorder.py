"""Record the dtypes of the JAX arrays entering and leaving a project's functions.

``jaxtypes annotate`` runs the user's command in a child process whose
``sitecustomize`` (``SITECUSTOMIZE``, put first on ``PYTHONPATH``) loads this
file and calls ``start_from_environment``: a trace function
(``sys.settrace`` and ``threading.settrace``; Python 3.11 has no
``sys.monitoring``) sees each call and return of a function whose file the
path filter counts as the project's, and records for each parameter, the
return value and the array attributes of ``self`` the dtype's name and the
weak type flag of every JAX array (tracers under ``jit``, ``vmap`` and
``scan`` included: their ``dtype`` and ``weak_type`` are static, their values
are never read), the dtypes held by a dict, list or tuple of arrays (a dict
keyed by a few strings key by key), and the array fields of the project's
own classes' instances passed or returned (dataclasses, NamedTuples, Flax
``struct`` dataclasses and ``TrainState`` subclasses, modules), and the
class and parameters' dtype of an Equinox layer held in such a field.  At
exit the child writes what it saw, each distinct signature once with a
count, as one JSON file per process into the directory the parent named
(``ENV_OUT``): a test run's worker processes each write their own.

This module imports only the standard library and is loaded from its file,
not through ``import jaxtypes``: the recorded program runs with the modules it
imports itself (``import jaxtypes`` would make ``jax.Array`` subscriptable).
"""

from __future__ import annotations

import atexit
import dataclasses
import fnmatch
import json
import os
import sys
import threading
import uuid
from pathlib import Path
from types import CodeType, FrameType
from typing import Any, Callable, Final, Union, cast

__all__ = [
    "ENV_OUT",
    "ENV_ROOT",
    "ENV_PATHS",
    "SITECUSTOMIZE",
    "KeyedDtypes",
    "LAYER_PREFIX",
    "Recorder",
    "start_from_environment",
    "describe",
    "describe_layer",
]

ENV_OUT: Final = "JAXTYPES_ANNOTATE_OUT"
"""Directory the child writes its record files into."""
ENV_ROOT: Final = "JAXTYPES_ANNOTATE_ROOT"
"""The project's root: paths are matched relative to it."""
ENV_PATHS: Final = "JAXTYPES_ANNOTATE_PATHS"
"""JSON list of glob patterns (``--path``); empty: every file under the root
outside site-packages and virtual environments."""

# The sitecustomize written for the child: load this file under a private
# name (not through the jaxtypes package), start recording, then run the
# sitecustomize the interpreter would have run without ours, if there is one.
SITECUSTOMIZE: Final = '''\
import importlib.machinery, importlib.util, sys
_here = {here!r}
_spec = importlib.util.spec_from_file_location("_jaxtypes_dtype_recorder", {recorder!r})
_module = importlib.util.module_from_spec(_spec)
sys.modules["_jaxtypes_dtype_recorder"] = _module
_spec.loader.exec_module(_module)
_module.start_from_environment()
_other = importlib.machinery.PathFinder.find_spec("sitecustomize", [p for p in sys.path if p != _here])
if _other is not None and _other.loader is not None:
    _other_module = importlib.util.module_from_spec(_other)
    _other.loader.exec_module(_other_module)
'''


@dataclasses.dataclass(frozen=True)
class KeyedDtypes:
    """A dict of arrays keyed by strings (a cache, a parameter dict): which
    key held which dtype (JSON: {"items": [...], "keys": {...}})."""

    keys: tuple[tuple[str, str], ...]

    def dtypes(self) -> frozenset[str]:
        return frozenset(dtype for _, dtype in self.keys)


# A recorded value: "float32" or "float32:weak" for an array, a list of those
# (None for a non-array item) for a short tuple or list holding arrays, a
# frozenset of those for a list or tuple (a longer one) or a dict whose values
# are all arrays (JSON: {"items": [...]}), a KeyedDtypes for such a dict keyed
# by at most _MOST_KEYS strings, None otherwise.
Described = Union[str, "list[Described]", "frozenset[str]", KeyedDtypes, None]

_GENERATOR_FLAGS: Final = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async generator
_LONGEST_SEQUENCE: Final = 16  # longer tuples and lists are data, not a function's results
_LARGEST_CONTAINER: Final = 1024  # a dict, list or tuple of arrays whose dtypes are read item by item
_MOST_KEYS: Final = 64  # a dict of at most this many string keys is a record (a cache), each key's dtype kept
_ITEMS: Final = "items"
_KEYS: Final = "keys"
_VENV_MARKERS: Final = ("site-packages", "dist-packages")


def _jax_array_type() -> type | None:
    jax = sys.modules.get("jax")
    array = getattr(jax, "Array", None) if jax is not None else None
    return array if isinstance(array, type) else None


def describe(value: Any, array_type: type, nested: bool = False) -> Described:
    """What is recorded of ``value``: its dtype's name and weak type if it is a
    JAX array or tracer, the same of each item of a short tuple or list."""
    if isinstance(value, array_type):
        array: Any = value  # (an array or tracer: isinstance narrowed it to object)
        try:
            name = str(array.dtype)
            weak = bool(getattr(array, "weak_type", False))
        except Exception:  # noqa: BLE001 - an exotic tracer without a dtype is not recorded
            return None
        return f"{name}:weak" if weak else name
    kind: type[object] = type(cast(object, value))
    if kind is dict or kind is tuple or kind is list:
        size = len(value)
        if not nested and kind is not dict and 0 < size <= _LONGEST_SEQUENCE:
            items = [describe(item, array_type, True) for item in value]
            return items if any(item is not None for item in items) else None
        if 0 < size <= _LARGEST_CONTAINER:
            # A container of arrays: the dtypes it holds, only if every item is
            # an array (a dict of arrays and other values is no dict of arrays;
            # nested containers are pytrees, not read).
            pairs = cast("dict[object, object]", value).items() if kind is dict else enumerate(value)  # pyright: ignore[reportUnknownArgumentType]
            seen: list[tuple[object, str]] = []
            for key, item in pairs:
                if not isinstance(item, array_type):
                    return None
                one = describe(item, array_type, True)
                if not isinstance(one, str):
                    return None
                seen.append((key, one))
            if kind is dict and size <= _MOST_KEYS and all(type(k) is str for k, _ in seen):
                return KeyedDtypes(tuple(sorted((str(k), d) for k, d in seen)))
            return frozenset(d for _, d in seen)
    return None


LAYER_PREFIX: Final = "layer:"
"""A field holding an Equinox layer: ``layer:Linear:float32`` (its class, its
weight's dtype)."""
_EQUINOX_LAYERS: Final = "equinox.nn"


def describe_layer(value: object, array_type: type) -> str | None:
    """What is recorded of an Equinox layer held in a field: its class's name
    and its parameters' dtype (its weight's); None for anything else."""
    cls = type(value)
    if not cls.__module__.startswith(_EQUINOX_LAYERS):
        return None
    weight: object = getattr(value, "weight", None)
    if not isinstance(weight, array_type):
        return None
    held: Any = weight
    return f"{LAYER_PREFIX}{cls.__name__}:{held.dtype}"


def _freeze(value: Described) -> Any:
    """A described value as a dict key (tuples for lists)."""
    return tuple(_freeze(v) for v in value) if isinstance(value, list) else value


def _thaw(value: Any) -> Any:
    """``_freeze`` undone, for JSON."""
    if isinstance(value, frozenset):
        return {_ITEMS: sorted(cast("frozenset[str]", value))}
    if isinstance(value, KeyedDtypes):
        return {_ITEMS: sorted(value.dtypes()), _KEYS: dict(value.keys)}
    return [_thaw(v) for v in value] if isinstance(value, tuple) else value  # pyright: ignore[reportUnknownVariableType]


class Recorder:
    """The trace function and what it has seen.

    ``calls``: (file, first line, name) -> {(parameters, result): count}, the
    parameters a tuple of (name, described) for those holding arrays.
    ``fields``: (class module, class qualname) -> {attribute: {described}}.
    """

    def __init__(self, root: Path, patterns: list[str]) -> None:
        self.root = root
        self.patterns = patterns
        self.calls: dict[tuple[str, int, str], dict[tuple[Any, Any], int]] = {}
        self.fields: dict[tuple[str, str], dict[str, set[str]]] = {}
        self._wanted: dict[CodeType, bool] = {}
        self._files: dict[str, bool] = {}
        self._pending: dict[FrameType, tuple[tuple[str, int, str], tuple[Any, ...]]] = {}
        self._array: type | None = None
        self._classes: dict[type, bool] = {}  # whether a class is the project's
        self._own = str(Path(__file__).resolve())

    # ------------------------------------------------------------ the filter
    def counts(self, filename: str) -> bool:
        """Whether the file ``filename`` is the project's."""
        known = self._files.get(filename)
        if known is None:
            known = self._files[filename] = self._counts(filename)
        return known

    def _counts(self, filename: str) -> bool:
        if filename.startswith("<"):
            return False
        path = Path(filename)
        if not path.is_absolute():
            path = Path.cwd() / path
        path = path.resolve()
        if str(path) == self._own:
            return False
        try:
            relative = path.relative_to(self.root)
        except ValueError:
            relative = None
        if self.patterns:
            return any(
                fnmatch.fnmatch(str(path), p) or (relative is not None and fnmatch.fnmatch(relative.as_posix(), p))
                for p in self.patterns
            )
        if relative is None or any(part in _VENV_MARKERS for part in relative.parts):
            return False
        # A virtual environment inside the project (.venv/, venv/, env/...) holds a pyvenv.cfg.
        parent = self.root
        for part in relative.parts[:-1]:
            parent = parent / part
            if (parent / "pyvenv.cfg").is_file():
                return False
        return True

    def _wants(self, code: CodeType) -> bool:
        wanted = self.counts(code.co_filename) and not code.co_flags & _GENERATOR_FLAGS
        self._wanted[code] = wanted
        return wanted

    # -------------------------------------------------------- the callback
    def trace_function(self) -> Callable[[FrameType, str, object], Any]:
        """The global trace function: called at each new frame only (not at C
        calls, as a profile function is), it returns the local one for the
        project's frames and None for every other.  A closure over bound
        methods: it runs for every Python call of the program."""
        wanted_get = self._wanted.get
        wants = self._wants
        enter = self._enter
        local = self._local

        def trace(frame: FrameType, event: str, arg: object) -> Any:
            code = frame.f_code
            wanted = wanted_get(code)
            if wanted is None:
                wanted = wants(code)
            if not wanted:
                return None
            frame.f_trace_lines = False  # only the return event is wanted
            enter(frame, code)
            return local

        return trace

    def _local(self, frame: FrameType, event: str, arg: object) -> Any:
        if event == "return":
            pending = self._pending.pop(frame, None)
            if pending is not None:
                self._leave(pending, arg)
        return self._local

    def _enter(self, frame: FrameType, code: CodeType) -> None:
        array = self._array
        if array is None:
            array = self._array = _jax_array_type()
            if array is None:
                return
        count = code.co_argcount + code.co_kwonlyargcount
        if not count:
            self._pending[frame] = ((code.co_filename, code.co_firstlineno, code.co_name), ())
            return
        local = frame.f_locals
        params: list[tuple[str, Any]] = []
        for name in code.co_varnames[:count]:
            value = local.get(name)
            found = describe(value, array)
            if found is not None:
                params.append((name, _freeze(found)))
            else:
                self._record_fields(value, array)
        self._pending[frame] = ((code.co_filename, code.co_firstlineno, code.co_name), tuple(params))

    def _leave(self, pending: tuple[tuple[str, int, str], tuple[Any, ...]], value: object) -> None:
        key, params = pending
        array = self._array
        assert array is not None
        described = describe(value, array)
        if described is None:
            self._record_fields(value, array)
        elif type(value) is tuple:
            for item in cast("tuple[object, ...]", value):
                self._record_fields(item, array)
        result = _freeze(described)
        if not params and result is None:
            return
        seen = self.calls.setdefault(key, {})
        seen[params, result] = seen.get((params, result), 0) + 1

    def _is_project_class(self, cls: type) -> bool:
        known = self._classes.get(cls)
        if known is None:
            filename = getattr(sys.modules.get(cls.__module__), "__file__", None)
            known = self._classes[cls] = bool(filename) and self.counts(str(filename))
        return known

    def _record_fields(self, instance: object, array: type) -> None:
        """The array fields of an instance of one of the project's classes:
        its attributes, or a NamedTuple's fields."""
        cls = type(instance)
        if not self._is_project_class(cls):
            return
        names: object = getattr(cls, "_fields", None)
        held: object = getattr(instance, "__dict__", None)  # (before isinstance narrows instance)
        attributes: dict[str, object]
        if isinstance(instance, tuple) and isinstance(names, tuple):
            attributes = dict(zip(cast("tuple[str, ...]", names), cast("tuple[object, ...]", instance)))
        else:
            if not isinstance(held, dict):
                return
            attributes = cast("dict[str, object]", held)
        fields: dict[str, set[str]] | None = None
        for name, value in list(attributes.items()):  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]
            found = describe(value, array, True)
            if found is None:
                found = self._layers(value, array)
            if found is None:
                continue
            if fields is None:
                fields = self.fields.setdefault((cls.__module__, cls.__qualname__), {})
            if isinstance(found, str):
                fields.setdefault(str(name), set()).add(found)  # pyright: ignore[reportUnknownArgumentType]
            elif isinstance(found, (frozenset, KeyedDtypes)):
                # a field holding a container of arrays: the dtypes of its items
                fields.setdefault(f"{name}[*]", set()).update(
                    found.dtypes() if isinstance(found, KeyedDtypes) else found
                )

    @staticmethod
    def _layers(value: object, array: type) -> Described:
        """An Equinox layer (``layer:Linear:float32``), or a list or tuple of
        layers of one class and dtype (as a one-item frozenset), held in a field."""
        one = describe_layer(value, array)
        if one is not None:
            return one
        if type(value) in (list, tuple) and 0 < len(cast("list[object]", value)) <= _LARGEST_CONTAINER:
            layers = {describe_layer(item, array) for item in cast("list[object]", value)}
            if len(layers) == 1 and None not in layers:
                return frozenset(cast("set[str]", layers))
        return None

    # ------------------------------------------------------------- the output
    def start(self) -> None:
        trace = self.trace_function()
        threading.settrace(trace)
        sys.settrace(trace)

    def stop(self) -> None:
        sys.settrace(None)
        threading.settrace(None)  # pyright: ignore[reportArgumentType]

    def records(self) -> dict[str, Any]:
        """What was seen, as JSON-ready data (``load`` reads it back)."""
        modules = sys.modules
        fields: list[dict[str, Any]] = []
        for (module, qualname), attributes in self.fields.items():
            filename = getattr(modules.get(module), "__file__", None)
            if filename and self.counts(filename):
                fields.append(
                    {"file": filename, "class": qualname, "fields": {k: sorted(v) for k, v in attributes.items()}}
                )
        calls = [
            {
                "file": filename,
                "line": line,
                "name": name,
                "seen": [
                    {"params": {p: _thaw(d) for p, d in params}, "result": _thaw(result), "count": count}
                    for (params, result), count in seen.items()
                ],
            }
            for (filename, line, name), seen in self.calls.items()
        ]
        return {"calls": calls, "fields": fields}

    def dump(self, directory: Path) -> None:
        self.stop()
        target = directory / f"record-{os.getpid()}-{uuid.uuid4().hex[:8]}.json"
        target.write_text(json.dumps(self.records()), encoding="utf-8")


def start_from_environment() -> Recorder | None:
    """Start recording as the parent asked (``ENV_OUT``, ``ENV_ROOT``,
    ``ENV_PATHS``); write the record when the process exits."""
    out = os.environ.get(ENV_OUT)
    if not out:
        return None
    root = Path(os.environ.get(ENV_ROOT) or os.getcwd()).resolve()
    patterns = [str(p) for p in json.loads(os.environ.get(ENV_PATHS) or "[]")]
    recorder = Recorder(root, patterns)
    atexit.register(recorder.dump, Path(out))
    recorder.start()
    return recorder
