"""Promotion configuration, mirroring JAX's: process-wide values and scoped overrides.

Three settings, named as JAX names them: ``jax_numpy_dtype_promotion``
('standard' / 'strict'), ``jax_enable_x64`` and ``jax_explicit_x64_dtypes``
('allow' / 'warn' / 'error').  The value in force for one call is, setting by
setting, the first of:

1. the scopes in force in this thread, jaxtypes' (``numpy_dtype_promotion``,
   ``enable_x64``, ``explicit_x64_dtypes``) and, when JAX is imported, JAX's
   (``jax.numpy_dtype_promotion(...)``, ``jax.enable_x64(...)``, ...) alike:
   the innermost one of that setting wins;
2. when JAX is imported in the process: JAX's process-wide value
   (``jax.config.update``);
3. without JAX: the process-wide value of ``jaxtypes.config.update`` or, when
   never updated, the environment variables read at import, as JAX reads them.

Scopes are per thread, as JAX's are (JAX keeps its scoped values in
thread-local storage, not in a ContextVar): a thread started inside a scope
does not inherit it, and asyncio tasks and ``contextvars.Context.run`` see the
scopes of the thread they run in, at the moment they run.  A jaxtypes scope
behaves as JAX's scope of the same setting would: entering saves this thread's
value, exiting puts the saved value back.

``jaxtypes.config.update`` sets JAX's process-wide value too when JAX is
imported, so the two never disagree.  JAX is never imported by this module: an
import watcher notices when ``jax._src.config`` has defined JAX's settings and
then follows them through JAX's own change hooks.

Why the layout below: the promotion functions and their C fast paths
(jaxtypes._speedups) read the configuration on every call, so it must be a few
pointer reads, and an answer computed for one configuration must never land in
another configuration's cache.  Hence:

* ``Resolved``: one immutable object per full configuration (mode, x64,
  explicit), holding the lattice variant *and* the caches of that
  configuration.  A caller takes one Resolved and computes and stores with it,
  so a concurrent update cannot mix one configuration's answer into another's
  cache.
* the process-wide layer (an interned tuple in ``_PROCESS.layer``) and each
  thread's ``State`` (the values of its scopes, interned: one State per
  combination) are each replaced, never mutated.  The State in force is in C
  thread-local storage, where the fast paths read it (a ``threading.local``
  without the C module);
* ``State.memo`` is one tuple (process layer, Resolved), replaced in one
  store; a reader whose process layer is the memo's uses its Resolved, any
  other reader resolves again.  An update therefore touches no State: it swaps
  the process layer, and every memo made before it stops matching.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import sys
import threading
import types
from typing import TYPE_CHECKING, Any, Callable, Final, TypeVar, cast

from jaxtypes import lattice

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "config",
    "Config",
    "numpy_dtype_promotion",
    "enable_x64",
    "explicit_x64_dtypes",
    "current_variant",
    "current_resolved",
    "ENV_PROMOTION",
    "ENV_X64",
    "ENV_EXPLICIT_X64",
]

ENV_PROMOTION: Final = "JAX_NUMPY_DTYPE_PROMOTION"
ENV_X64: Final = "JAX_ENABLE_X64"
ENV_EXPLICIT_X64: Final = "JAX_EXPLICIT_X64_DTYPES"
OPTION_PROMOTION: Final = "jax_numpy_dtype_promotion"
OPTION_X64: Final = "jax_enable_x64"
OPTION_EXPLICIT_X64: Final = "jax_explicit_x64_dtypes"
OPTIONS: Final = (OPTION_PROMOTION, OPTION_X64, OPTION_EXPLICIT_X64)
EXPLICIT_X64_MODES: Final = ("allow", "warn", "error")
# The names of JAX's State objects for the three options, in jax._src.config.
_JAX_STATE_NAMES: Final = ("numpy_dtype_promotion", "enable_x64", "explicit_x64_dtypes")

_F = TypeVar("_F", bound=Callable[..., Any])


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ------------------------------------------------------------ values
# Values are accepted as JAX accepts them: x64 is bool(value) (JAX's bool_state
# parser); the two enum options take their string values or JAX's enum members.
def _check_mode(mode: object, name: str = OPTION_PROMOTION) -> str:
    if isinstance(mode, str):  # JAX's NumpyDtypePromotion is a StrEnum
        if mode in lattice.PROMOTION_MODES:
            return str(getattr(mode, "value", mode))
        raise ValueError(
            f"invalid value {_short(mode)} for {name}; expected one of: {', '.join(map(repr, lattice.PROMOTION_MODES))}"
        )
    raise TypeError(
        f"invalid value {_short(mode)} of type {type(mode).__name__} for {name}; "
        f"expected one of: {', '.join(map(repr, lattice.PROMOTION_MODES))}"
    )


def _check_explicit(mode: object, name: str = OPTION_EXPLICIT_X64) -> str:
    if type(mode).__name__ == "ExplicitX64Mode":  # JAX's enum member
        mode = str(getattr(mode, "name", "")).lower()
    if isinstance(mode, str):
        if mode in EXPLICIT_X64_MODES:
            return mode
        raise ValueError(
            f"invalid value {_short(mode)} for {name}; expected one of: {', '.join(map(repr, EXPLICIT_X64_MODES))}"
        )
    raise TypeError(
        f"invalid value {_short(mode)} of type {type(mode).__name__} for {name}; "
        f"expected one of: {', '.join(map(repr, EXPLICIT_X64_MODES))}"
    )


def _check_flag(flag: object) -> bool:
    return bool(flag)


_TRUE_WORDS: Final = ("y", "yes", "t", "true", "on", "1")
_FALSE_WORDS: Final = ("n", "no", "f", "false", "off", "0")


def _env_flag(name: str, default: bool) -> bool:
    # The same spellings as JAX's bool_env (distutils' strtobool).
    raw = os.environ.get(name)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in _TRUE_WORDS:
        return True
    if word in _FALSE_WORDS:
        return False
    raise ValueError(
        f"invalid value {_short(raw)} for environment variable {name}; "
        f"expected one of: {', '.join(_TRUE_WORDS + _FALSE_WORDS)}"
    )


def _env_choice(name: str, choices: tuple[str, ...], default: str) -> str:
    raw = os.environ.get(name)
    if raw is None:
        return default
    if raw not in choices:
        raise ValueError(
            f"invalid value {_short(raw)} for environment variable {name}; expected one of: {', '.join(choices)}"
        )
    return raw


# ------------------------------------------------------------ resolved configurations
class Resolved:
    """One full configuration and the caches of its answers (never mutated but
    for the caches, which only ever receive answers computed with ``variant``)."""

    __slots__ = ("variant", "explicit_x64", "promote_cache", "result_cache")

    def __init__(self, variant: lattice.Variant, explicit_x64: str) -> None:
        self.variant: Final = variant
        self.explicit_x64: Final = explicit_x64
        self.promote_cache: Final[dict[Any, dict[Any, np.dtype]]] = {}
        # (dtype, weak flag) by key (see promotion)
        self.result_cache: Final[dict[int | tuple[int, ...], tuple[np.dtype, Any]]] = {}

    def __repr__(self) -> str:
        return f"Resolved({self.variant!r}, explicit_x64={self.explicit_x64!r})"


# Interned with dict.setdefault, which is atomic for these keys (tuples of
# str/bool/None hash without running Python code): one Resolved per configuration.
_resolved_by_key: dict[tuple[str, bool, str], Resolved] = {}
_lock = threading.Lock()  # serialises attaching to JAX and jaxtypes' own updates


def _resolved(mode: str, x64: bool, explicit: str) -> Resolved:
    key = (mode, x64, explicit)
    found = _resolved_by_key.get(key)
    if found is None:
        found = _resolved_by_key.setdefault(key, Resolved(lattice.variant(mode, x64), explicit))
    return found


# A layer is (mode, x64, explicit), each None when the layer leaves it unset.
# Layers are interned so that the fast paths may compare them by identity.
_layers: dict[tuple[Any, ...], tuple[Any, ...]] = {}


def _layer(mode: str | None, x64: bool | None, explicit: str | None) -> tuple[Any, ...]:
    key = (mode, x64, explicit)
    return _layers.setdefault(key, key)


class _Process:
    """The process-wide layer, in one slot the C fast paths read."""

    __slots__ = ("layer",)

    def __init__(self, layer: tuple[Any, ...]) -> None:
        self.layer: tuple[Any, ...] = layer


# jaxtypes' own process-wide values (the environment, then config.update).
_own: tuple[Any, ...] = _layer(
    _env_choice(ENV_PROMOTION, lattice.PROMOTION_MODES, "standard"),
    _env_flag(ENV_X64, False),
    _env_choice(ENV_EXPLICIT_X64, EXPLICIT_X64_MODES, "warn"),
)
_PROCESS: Final = _Process(_own)

# The State in force in this thread (None: no scope has set anything here).
# The C module keeps it in C thread-local storage, where its fast paths read
# it; without the C module a threading.local holds it.
# (Imported by name: the C module has no stub, so its functions are typed
# where they are bound below.)
_c: Any
try:
    _c = importlib.import_module("jaxtypes._speedups")
except ImportError:  # built without a C compiler
    _c = None


class State:
    """The values this thread's scopes set (mode, x64, explicit; None: not set
    by a scope), interned, and the memo (process layer, Resolved) of the last
    resolution."""

    __slots__ = ("overrides", "memo")

    def __init__(self, overrides: tuple[Any, ...]) -> None:
        self.overrides: Final = overrides
        self.memo: tuple[Any, Resolved | None] = (None, None)

    def __repr__(self) -> str:
        return f"State(overrides={self.overrides!r})"


# Interned: one State per overrides, so that the number of States is bounded
# (a thread's last State stays in C thread-local storage) and memos are shared.
_states: dict[tuple[Any, ...], State] = {}


def _state(overrides: tuple[Any, ...]) -> State:
    found = _states.get(overrides)
    if found is None:
        found = _states.setdefault(overrides, State(overrides))
    return found


_PROCESS_STATE: Final = _state(_layer(None, None, None))

thread_state: Callable[[], State | None]
_set_thread_state: Callable[[State], None]
if _c is not None:
    thread_state, _set_thread_state = _c.thread_state, _c.set_thread_state
else:
    _thread = threading.local()
    thread_state = functools.partial(getattr, _thread, "state", None)
    _set_thread_state = functools.partial(setattr, _thread, "state")


def current_state() -> State:
    """This thread's State."""
    return thread_state() or _PROCESS_STATE


def _set_override(index: int, value: Any) -> None:
    """Set this thread's value of one setting (None: the process value)."""
    overrides = current_state().overrides
    _set_thread_state(_state(_layer(*(value if i == index else v for i, v in enumerate(overrides)))))


# For the C fast paths (jaxtypes._speedups), which read them as current_resolved() does.
default_state: Final = _PROCESS_STATE
process_holder: Final = _PROCESS


def _resolve(overrides: tuple[Any, ...], process: tuple[Any, ...]) -> Resolved:
    return _resolved(*(o if o is not None else p for o, p in zip(overrides, process)))


def current_resolved() -> Resolved:
    """The configuration in force here, with its caches: one consistent snapshot."""
    state = thread_state() or _PROCESS_STATE
    memo = state.memo
    process = _PROCESS.layer
    cached = memo[1]  # None only in a new State's memo
    if memo[0] is process and cached is not None:
        return cached
    if _jax_states is None and _jax_config_module() is not None:
        _attach_jax()
        state, process = current_state(), _PROCESS.layer
    resolved = _resolve(state.overrides, process)
    state.memo = (process, resolved)  # one store: never half-updated
    return resolved


def current_variant() -> lattice.Variant:
    """The lattice variant (promotion mode, x64) in force here."""
    return current_resolved().variant


# ------------------------------------------------------------ following JAX
_jax_states: tuple[Any, Any, Any] | None = None


def _jax_config_module() -> Any:
    """jax._src.config once it has defined the three settings, else None (never imports)."""
    module = sys.modules.get("jax._src.config")
    if module is None or not all(hasattr(module, n) for n in _JAX_STATE_NAMES):
        return None
    return module


def _from_jax(values: tuple[Any, Any, Any], unset: Any) -> tuple[Any, ...]:
    return _layer(*(_from_jax_value(i, v, unset) for i, v in enumerate(values)))


def _from_jax_value(index: int, value: Any, unset: Any = None) -> Any:
    """One of JAX's values as jaxtypes keeps it (None for JAX's unset)."""
    if value is None or value is unset:
        return None
    return (_check_mode, bool, _check_explicit)[index](value)


def _sync_process() -> None:
    states = _jax_states
    if states is not None:
        _PROCESS.layer = _from_jax(tuple(s.get_global() for s in states), object())


class _JaxScopes(threading.local):
    """Per thread: for each of JAX's scope objects entered here and not yet
    exited, this thread's value of its setting before it was entered."""

    def __init__(self) -> None:
        self.saved: dict[Any, Any] = {}


_jax_scopes: Final = _JaxScopes()
_NOT_SAVED: Final = object()


def _follow_jax_scope(index: int, value: Any, hook: types.FrameType | None) -> None:
    """JAX's scope of setting ``index`` was entered or exited in this thread
    (JAX's thread-local hook, whose frame is ``hook``).  JAX's scope manager
    saves its thread's previous value on entry and puts it back on exit; this
    does the same with this thread's value, which jaxtypes' scopes set too, so
    that of the two kinds of scope the innermost wins, as if all were JAX's."""
    caller = hook.f_back if hook is not None else None  # JAX's __enter__ or __exit__
    enter, exit_ = _jax_scope_code
    code = manager = None
    if caller is not None and (caller.f_code is enter or caller.f_code is exit_):
        code, manager = caller.f_code, caller.f_locals.get("self")
    if manager is None:  # not called by JAX's scope manager: take JAX's value
        new = _jax_local(index)
    elif code is enter:
        _jax_scopes.saved[manager] = current_state().overrides[index]
        new = _from_jax_value(index, value)
    else:  # __exit__: the value saved on entry; JAX's (its manager's) if entered elsewhere
        new = _jax_scopes.saved.pop(manager, _NOT_SAVED)
        if new is _NOT_SAVED or not _entered.scopes:
            # With no jaxtypes scope open here, this thread's values are JAX's
            # own (an exit out of order puts back what JAX's entry saw, which
            # a jaxtypes scope closed meanwhile may not have).
            new = _jax_local(index)
    _set_override(index, new)


def _jax_local(index: int) -> Any:
    """This thread's value of JAX's setting ``index`` (None: unset, or JAX not followed)."""
    state = _jax_states[index] if _jax_states is not None else None
    return _from_jax_value(index, state.get_local() if state is not None else None, _jax_unset())


def _jax_unset() -> Any:
    module = sys.modules.get("jax._src.config")
    return getattr(getattr(module, "config_ext", None), "unset", None)


# The code objects of JAX's scope manager's __enter__ and __exit__, the callers
# of the thread-local hook (set when jaxtypes attaches to JAX).
_jax_scope_code: tuple[Any, Any] = (None, None)


def _global_hook(previous: Callable[[Any], None] | None) -> Callable[[Any], None]:
    def hook(value: Any) -> None:
        if previous is not None:
            previous(value)
        _sync_process()

    hook.__qualname__ = "jaxtypes_sync_process"
    return hook


def _thread_local_hook(previous: Callable[[Any], None] | None, index: int) -> Callable[[Any], None]:
    def hook(value: Any) -> None:
        if previous is not None:
            previous(value)
        _follow_jax_scope(index, value, inspect.currentframe())  # this hook's frame

    hook.__qualname__ = "jaxtypes_follow_jax_scope"
    return hook


def _attach_jax() -> bool:
    """Follow JAX's configuration from now on, if JAX has defined it.  Idempotent."""
    global _jax_states, _jax_scope_code
    with _lock:
        if _jax_states is not None:
            return True
        module = _jax_config_module()
        if module is None:
            return False
        states = tuple(getattr(module, n) for n in _JAX_STATE_NAMES)
        manager = getattr(module, "StateContextManager", None)
        _jax_scope_code = (
            getattr(getattr(manager, "__enter__", None), "__code__", None),
            getattr(getattr(manager, "__exit__", None), "__code__", None),
        )
        for i, s in enumerate(states):
            s._update_global_hook = _global_hook(s._update_global_hook)
            s._update_thread_local_hook = _thread_local_hook(s._update_thread_local_hook, i)
        _jax_states = states
        _sync_process()
        unset = _jax_unset()
        for i, s in enumerate(states):  # JAX's scopes entered in this thread already
            if s.get_local() is not unset:
                _set_override(i, _from_jax_value(i, s.get_local(), unset))
        return True


def jax_attached() -> bool:
    """Whether jaxtypes follows JAX's configuration (JAX is imported)."""
    return _jax_states is not None or _attach_jax()


# What waits for part of JAX to be imported: each callback is called at every
# import of a module whose name starts with "jax" (jax, jaxlib, ...) until it
# returns True (done).
_waiting: list[Callable[[], bool]] = []


def when_jax_imported(callback: Callable[[], bool]) -> None:
    """Call ``callback`` now and then at each import of a JAX module until it
    returns True (it must return False until the part of JAX it needs is
    there, and never import anything itself)."""
    if callback():
        return
    with _lock:
        _waiting.append(callback)
        if _JaxWatcher not in sys.meta_path:
            sys.meta_path.insert(0, _JaxWatcher)


class _JaxWatcher:
    """A meta-path entry that finds nothing: it only notices, at each import,
    whether JAX has got as far as a waiting callback needs (its configuration
    defined, its Array class made), so that jaxtypes follows JAX's
    configuration from the first ``jax.config.update`` on, without importing
    JAX itself.  Once nothing waits it stays in place, doing nothing: removing
    it from sys.meta_path while the import system walks that list would skip
    the finder after it for the import under way."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> None:
        if _waiting and name.startswith("jax"):
            for callback in list(_waiting):
                if callback():
                    with _lock:
                        if callback in _waiting:
                            _waiting.remove(callback)
        return None

    @staticmethod
    def invalidate_caches() -> None:
        return None


when_jax_imported(_attach_jax)


# ------------------------------------------------------------ process-wide settings
_CHECKS: Final[dict[str, Callable[[Any], Any]]] = {
    OPTION_PROMOTION: _check_mode,
    OPTION_X64: _check_flag,
    OPTION_EXPLICIT_X64: _check_explicit,
}


def _unknown_option(name: object) -> AttributeError:
    return AttributeError(
        f"Unrecognized config option: {_short(name)}; jaxtypes.config has "
        f"{', '.join(OPTIONS)} (with JAX imported, JAX's other options pass through "
        "to jax.config)"
    )


class Config:
    """Process-wide settings, named as in ``jax.config``.  With JAX imported,
    they are JAX's: ``update`` sets ``jax.config`` and ``read`` reads it."""

    def update(self, name: str, value: Any) -> None:
        global _own
        check = _CHECKS.get(name)
        if jax_attached():
            if check is not None:
                check(value)  # jaxtypes' one-line message for a bad value
            sys.modules["jax"].config.update(name, value)
            if check is not None:
                index = OPTIONS.index(name)
                _own = _layer(*(check(value) if i == index else v for i, v in enumerate(_own)))
            return
        if check is None:
            raise _unknown_option(name)
        index = OPTIONS.index(name)
        with _lock:
            _own = _layer(*(check(value) if i == index else v for i, v in enumerate(_own)))
            _PROCESS.layer = _own  # one store; every State's memo stops matching

    def read(self, name: str) -> Any:
        if name not in OPTIONS:
            if jax_attached():
                return sys.modules["jax"].config.read(name)
            raise _unknown_option(name)
        jax_attached()
        return _PROCESS.layer[OPTIONS.index(name)]

    @property
    def jax_numpy_dtype_promotion(self) -> str:
        mode: str = self.read(OPTION_PROMOTION)
        return mode

    @property
    def jax_enable_x64(self) -> bool:
        x64: bool = self.read(OPTION_X64)
        return x64

    @property
    def jax_explicit_x64_dtypes(self) -> str:
        explicit: str = self.read(OPTION_EXPLICIT_X64)
        return explicit

    def __repr__(self) -> str:
        values = ", ".join(f"{n}={v!r}" for n, v in zip(OPTIONS, _PROCESS.layer))
        return f"jaxtypes.config({values})"


config: Final = Config()


# ------------------------------------------------------------ scopes
class _Entered(threading.local):
    """Per thread: the jaxtypes scopes entered here and not yet exited, in
    order, each with this thread's value of its setting before it was entered.
    Kept per thread, not on the scope object, so that one scope object may be
    entered by several threads, or several times in one."""

    def __init__(self) -> None:
        self.scopes: list[tuple[_Scoped, Any]] = []


_entered: Final = _Entered()


class _Scoped:
    """A scoped override of one setting in this thread, as JAX's scopes are
    (jax.enable_x64, jax.numpy_dtype_promotion): a context manager, and a
    decorator for sync and async functions."""

    __slots__ = ("_layer", "_index")

    def __init__(self, layer: tuple[Any, ...]) -> None:
        self._layer = layer
        self._index = next(i for i, v in enumerate(layer) if v is not None)

    def __enter__(self) -> None:
        index = self._index
        saved = current_state().overrides[index]
        _set_override(index, self._layer[index])
        _entered.scopes.append((self, saved))

    def __exit__(self, *exc: object) -> None:
        scopes = _entered.scopes
        # The innermost entry of this scope object in this thread.  A scope
        # entered only in another thread has none here: exiting it then
        # changes nothing here.
        for i in range(len(scopes) - 1, -1, -1):
            if scopes[i][0] is self:
                break
        else:
            return
        _, saved = scopes.pop(i)
        if not scopes:
            # The last jaxtypes scope of this thread closed: JAX's own values
            # (without JAX, the process-wide ones) from now on, whatever order
            # the scopes of both kinds were left in.  A JAX scope left out of
            # order puts back only JAX's value, and JAX's answers are these.
            _set_thread_state(_state(_layer(*(_jax_local(i) for i in range(len(OPTIONS))))))
            return
        # Back to the value before this scope, as JAX's scopes do, even when
        # exited out of order (then, as in JAX, a scope entered after this one
        # puts back this scope's value when it exits).
        _set_override(self._index, saved)

    def __call__(self, func: _F) -> _F:
        layer = self._layer
        if inspect.iscoroutinefunction(func):
            # In force while the coroutine runs, across its awaits (and, as a
            # JAX scope held across an await, for what the thread runs
            # meanwhile).  A JAX scope decorating a coroutine function is left
            # before the coroutine runs.
            @functools.wraps(func)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                with _Scoped(layer):
                    return await func(*args, **kwargs)

            return cast(_F, run_async)  # the same signature

        @functools.wraps(func)
        def run(*args: Any, **kwargs: Any) -> Any:
            with _Scoped(layer):
                return func(*args, **kwargs)

        return cast(_F, run)

    def __repr__(self) -> str:
        mode, x64, explicit = self._layer
        if mode is not None:
            return f"numpy_dtype_promotion({mode!r})"
        if x64 is not None:
            return f"enable_x64({x64!r})"
        return f"explicit_x64_dtypes({explicit!r})"


def numpy_dtype_promotion(mode: str) -> _Scoped:
    """Promotion mode for a scope, as ``jax.numpy_dtype_promotion``: 'standard' or 'strict'.

    Use as ``with numpy_dtype_promotion('strict'):`` or as a decorator.
    """
    return _Scoped(_layer(_check_mode(mode), None, None))


def enable_x64(new_val: Any = True) -> _Scoped:
    """x64 mode for a scope, as ``jax.enable_x64`` (any value, read as bool()).
    A context manager and a decorator."""
    return _Scoped(_layer(None, _check_flag(new_val), None))


def explicit_x64_dtypes(mode: str) -> _Scoped:
    """``jax_explicit_x64_dtypes`` for a scope: 'allow', 'warn' or 'error', as
    ``jax.explicit_x64_dtypes``.  A context manager and a decorator."""
    return _Scoped(_layer(None, None, _check_explicit(mode)))
