"""Promotion configuration, mirroring JAX's: process-wide values and scoped overrides.

Three settings, named as JAX names them: ``jax_numpy_dtype_promotion``
('standard' / 'strict'), ``jax_enable_x64`` and ``jax_explicit_x64_dtypes``
('allow' / 'warn' / 'error').  The value in force for one call is, setting by
setting, the first of:

1. a jaxtypes scope (``numpy_dtype_promotion``, ``enable_x64``,
   ``explicit_x64_dtypes``) entered in this thread or asyncio task;
2. when JAX is imported in the process: JAX's thread-local value (its scopes,
   ``jax.numpy_dtype_promotion(...)``, ``jax.enable_x64(...)``, ...), then JAX's
   process-wide value (``jax.config.update``);
3. without JAX: the process-wide value of ``jaxtypes.config.update`` or, when
   never updated, the environment variables read at import, as JAX reads them.

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
* the process-wide layer (an interned tuple in ``_PROCESS.layer``), JAX's
  thread-local layer of this thread (an interned tuple or None) and the scope's
  ``State`` (in a ContextVar) are each replaced, never mutated;
* ``State.memo`` is one tuple (process layer, thread layer, Resolved),
  replaced in one store; a reader whose two layers are those of the memo uses
  its Resolved, any other reader resolves again.  An update therefore touches
  no State: it swaps the process layer, and every memo made before it stops
  matching.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import os
import sys
import threading
from typing import TYPE_CHECKING, Any, Callable, Final, TypeVar, cast

from jaxtypes import lattice

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "config", "Config", "numpy_dtype_promotion", "enable_x64", "explicit_x64_dtypes",
    "current_variant", "current_resolved", "ENV_PROMOTION", "ENV_X64", "ENV_EXPLICIT_X64",
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
            f"invalid value {_short(mode)} for {name}; "
            f"expected one of: {', '.join(map(repr, lattice.PROMOTION_MODES))}"
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
            f"invalid value {_short(mode)} for {name}; "
            f"expected one of: {', '.join(map(repr, EXPLICIT_X64_MODES))}"
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
            f"invalid value {_short(raw)} for environment variable {name}; "
            f"expected one of: {', '.join(choices)}"
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

# JAX's thread-local layer of the current thread.  The C module keeps it in C
# thread-local storage, where its fast paths read it; without the C module a
# threading.local holds it.
try:
    from jaxtypes import _speedups as _c
except ImportError:  # built without a C compiler
    _c = None

thread_layer: Callable[[], Any]
_set_thread_layer: Callable[[Any], None]
if _c is not None:
    thread_layer, _set_thread_layer = _c.thread_layer, _c.set_thread_layer
else:
    _thread = threading.local()
    thread_layer = functools.partial(getattr, _thread, "layer", None)
    _set_thread_layer = functools.partial(setattr, _thread, "layer")


class State:
    """A jaxtypes scope's overrides (None: not set by the scope), and the memo
    (process layer, thread layer, Resolved) of the last resolution."""

    __slots__ = ("overrides", "memo")

    def __init__(self, overrides: tuple[Any, ...]) -> None:
        self.overrides: Final = overrides
        self.memo: tuple[Any, Any, Resolved | None] = (None, None, None)

    def __repr__(self) -> str:
        return f"State(overrides={self.overrides!r})"


def _resolve(overrides: tuple[Any, ...], local: Any, process: tuple[Any, ...]) -> Resolved:
    values = [
        o if o is not None else (t if t is not None else p)
        for o, t, p in zip(overrides, local or (None, None, None), process)
    ]
    return _resolved(*values)


_PROCESS_STATE: Final = State(_layer(None, None, None))
_scope: contextvars.ContextVar[State] = contextvars.ContextVar(
    "jaxtypes_promotion_state", default=_PROCESS_STATE
)
current_state: Final[Callable[[], State]] = _scope.get
# For the C fast paths (jaxtypes._speedups), which read them as current_resolved() does.
state_var: Final = _scope
process_holder: Final = _PROCESS


def current_resolved() -> Resolved:
    """The configuration in force here, with its caches: one consistent snapshot."""
    state = _scope.get()
    memo = state.memo
    process = _PROCESS.layer
    local = thread_layer()
    cached = memo[2]  # None only in a new State's memo, whose layers match nothing
    if memo[0] is process and memo[1] is local and cached is not None:
        return cached
    if _jax_states is None and _jax_config_module() is not None:
        _attach_jax()
        process, local = _PROCESS.layer, thread_layer()
    resolved = _resolve(state.overrides, local, process)
    state.memo = (process, local, resolved)  # one store: never half-updated
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
    mode, x64, explicit = (None if v is unset else v for v in values)
    return _layer(
        None if mode is None else _check_mode(mode),
        None if x64 is None else bool(x64),
        None if explicit is None else _check_explicit(explicit),
    )


def _sync_process() -> None:
    states = _jax_states
    if states is not None:
        _PROCESS.layer = _from_jax(tuple(s.get_global() for s in states), object())


def _sync_thread() -> None:
    states = _jax_states
    if states is not None:
        unset = _jax_unset()
        layer = _from_jax(tuple(s.get_local() for s in states), unset)
        _set_thread_layer(None if layer == (None, None, None) else layer)


def _jax_unset() -> Any:
    module = sys.modules.get("jax._src.config")
    return getattr(getattr(module, "config_ext", None), "unset", None)


def _chain(previous: Callable[[Any], None] | None, sync: Callable[[], None]) -> Callable[[Any], None]:
    def hook(value: Any) -> None:
        if previous is not None:
            previous(value)
        sync()
    hook.__qualname__ = f"jaxtypes_{sync.__name__.lstrip('_')}"
    return hook


def _attach_jax() -> bool:
    """Follow JAX's configuration from now on, if JAX has defined it.  Idempotent."""
    global _jax_states
    with _lock:
        if _jax_states is not None:
            return True
        module = _jax_config_module()
        if module is None:
            return False
        states = tuple(getattr(module, n) for n in _JAX_STATE_NAMES)
        for s in states:
            s._update_global_hook = _chain(s._update_global_hook, _sync_process)
            s._update_thread_local_hook = _chain(s._update_thread_local_hook, _sync_thread)
        _jax_states = states
        _sync_process()
        _sync_thread()
        if _JaxWatcher in sys.meta_path:
            sys.meta_path.remove(_JaxWatcher)
        return True


def jax_attached() -> bool:
    """Whether jaxtypes follows JAX's configuration (JAX is imported)."""
    return _jax_states is not None or _attach_jax()


class _JaxWatcher:
    """A meta-path entry that finds nothing: it only notices, at each import,
    whether JAX has defined its configuration, so that jaxtypes follows it from
    the first ``jax.config.update`` on without importing JAX itself."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> None:
        if _jax_states is None and name.startswith("jax") and _jax_config_module() is not None:
            _attach_jax()
        return None

    @staticmethod
    def invalidate_caches() -> None:
        return None


if not _attach_jax():
    sys.meta_path.insert(0, _JaxWatcher)


# ------------------------------------------------------------ process-wide settings
_CHECKS: Final[dict[str, Callable[[Any], Any]]] = {
    OPTION_PROMOTION: _check_mode, OPTION_X64: _check_flag, OPTION_EXPLICIT_X64: _check_explicit,
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
# The tokens of the scopes entered in this context, innermost last.  It is
# context-local, not kept on the scope object, so that one scope object may be
# entered by several threads or tasks at once.
_entered: contextvars.ContextVar[tuple[tuple[Any, contextvars.Token[State]], ...]] = (
    contextvars.ContextVar("jaxtypes_entered_scopes", default=())
)


class _Scoped:
    """A scoped override: a context manager, and a decorator for sync and async functions."""

    __slots__ = ("_layer",)

    def __init__(self, layer: tuple[Any, ...]) -> None:
        self._layer = layer

    def __enter__(self) -> None:
        outer = _scope.get().overrides
        merged = _layer(*(s if s is not None else o for s, o in zip(self._layer, outer)))
        token = _scope.set(State(merged))
        _entered.set(_entered.get() + ((self, token),))

    def __exit__(self, *exc: object) -> None:
        entered = _entered.get()
        # The innermost entry of this scope object in this context.  A scope
        # entered in another thread (or a task that did not inherit it) has
        # none here: exiting it then changes nothing here.
        for i in range(len(entered) - 1, -1, -1):
            if entered[i][0] is self:
                break
        else:
            return
        rest = entered[:i] + entered[i + 1:]
        _entered.set(rest)
        token = entered[i][1]
        if i == len(entered) - 1:
            try:
                _scope.reset(token)  # the usual case: back to the very State before
                return
            except ValueError:  # entered in the context this task was copied from
                pass
        # Exited out of order or in a copied context: the scopes still entered here decide.
        overrides = _layer(None, None, None)
        for scope, _ in rest:
            overrides = _layer(*(s if s is not None else o for s, o in zip(scope._layer, overrides)))
        _scope.set(State(overrides))

    def __call__(self, func: _F) -> _F:
        layer = self._layer
        if inspect.iscoroutinefunction(func):
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
