"""Promotion configuration, mirroring JAX's: process-wide values and scoped overrides.

Process-wide values come from the environment variables ``JAX_NUMPY_DTYPE_PROMOTION``
and ``JAX_ENABLE_X64`` (read at import, as JAX reads them) and from
``config.update``.  ``numpy_dtype_promotion`` and ``enable_x64`` override them
for a scope; the override lives in a ``contextvars.ContextVar``, so each thread
and each asyncio task keeps its own.

The promotion functions read ``current_state()`` on every call; a state object
holds the resolved variant and the caches that belong to it, so the hot path
is one ContextVar read and an attribute access.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import os
import weakref
from typing import Any, Callable, Final, TypeVar

from jaxtypes import lattice

__all__ = [
    "config", "Config", "numpy_dtype_promotion", "enable_x64", "current_variant",
    "ENV_PROMOTION", "ENV_X64",
]

ENV_PROMOTION: Final = "JAX_NUMPY_DTYPE_PROMOTION"
ENV_X64: Final = "JAX_ENABLE_X64"
OPTION_PROMOTION: Final = "jax_numpy_dtype_promotion"
OPTION_X64: Final = "jax_enable_x64"
OPTIONS: Final = (OPTION_PROMOTION, OPTION_X64)

_F = TypeVar("_F", bound=Callable[..., Any])


def _check_mode(mode: object) -> str:
    if mode not in lattice.PROMOTION_MODES:
        raise ValueError(
            f"invalid value {mode!r} for {OPTION_PROMOTION}; "
            f"expected one of: {', '.join(map(repr, lattice.PROMOTION_MODES))}"
        )
    return mode  # type: ignore[return-value]


def _check_flag(flag: object, name: str = OPTION_X64) -> bool:
    if not isinstance(flag, (bool, int)) or flag not in (0, 1):
        raise ValueError(f"invalid value {flag!r} for {name}; expected True or False")
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
        f"invalid value {raw!r} for environment variable {name}; "
        f"expected one of: {', '.join(_TRUE_WORDS + _FALSE_WORDS)}"
    )


def _env_mode(name: str) -> str:
    raw = os.environ.get(name)
    if raw is None:
        return "standard"
    if raw not in lattice.PROMOTION_MODES:
        raise ValueError(
            f"invalid value {raw!r} for environment variable {name}; "
            f"expected one of: {', '.join(lattice.PROMOTION_MODES)}"
        )
    return raw


class State:
    """The resolved configuration of one scope, and the caches of its variant.

    ``promote_cache`` and ``result_cache`` are shared by every state of the
    same variant; the promotion module fills them.  They are attributes, not
    entries of one dict, because the hot path reads them on every call.
    Overrides left unset (None) follow the process-wide value.
    """

    __slots__ = (
        "mode_override", "x64_override", "variant", "promote_cache", "result_cache",
        "__weakref__",
    )

    def __init__(self, mode_override: str | None, x64_override: bool | None) -> None:
        self.mode_override: str | None = mode_override
        self.x64_override: bool | None = x64_override
        self.variant: lattice.Variant = lattice.VARIANTS[0]
        self.promote_cache: dict[Any, dict[Any, Any]] = {}
        self.result_cache: dict[tuple[Any, ...], Any] = {}
        self._resolve()

    def _resolve(self) -> None:
        mode = self.mode_override or _process["mode"]
        x64 = _process["x64"] if self.x64_override is None else self.x64_override
        self.variant = lattice.variant(mode, x64)
        self.promote_cache, self.result_cache = _caches_for(self.variant)


_process: dict[str, Any] = {
    "mode": _env_mode(ENV_PROMOTION),
    "x64": _env_flag(ENV_X64, False),
}
_variant_caches: dict[lattice.Variant, tuple[dict[Any, Any], dict[Any, Any]]] = {}


def _caches_for(v: lattice.Variant) -> tuple[dict[Any, Any], dict[Any, Any]]:
    """(promote_types cache, result_type cache) of a variant, made once."""
    return _variant_caches.setdefault(v, ({}, {}))


# Every live state, so that a process-wide update re-resolves them in place.
_states: weakref.WeakSet[State] = weakref.WeakSet()


def _new_state(mode_override: str | None, x64_override: bool | None) -> State:
    state = State(mode_override, x64_override)
    _states.add(state)
    return state


_PROCESS_STATE: Final = _new_state(None, None)
_scope: contextvars.ContextVar[State] = contextvars.ContextVar(
    "jaxtypes_promotion_state", default=_PROCESS_STATE
)
current_state: Final[Callable[[], State]] = _scope.get
# The ContextVar itself, for the C fast paths (jaxtypes._speedups), which read
# it as current_state() does.
state_var: Final = _scope


def current_variant() -> lattice.Variant:
    """The lattice variant (promotion mode, x64) in force here."""
    return _scope.get().variant


class Config:
    """Process-wide settings, named as in ``jax.config``."""

    def update(self, name: str, value: Any) -> None:
        if name == OPTION_PROMOTION:
            _process["mode"] = _check_mode(value)
        elif name == OPTION_X64:
            _process["x64"] = _check_flag(value)
        else:
            raise ValueError(
                f"unknown configuration option {name!r}; expected one of: {', '.join(OPTIONS)}"
            )
        for state in list(_states):
            state._resolve()

    def read(self, name: str) -> Any:
        if name == OPTION_PROMOTION:
            return _process["mode"]
        if name == OPTION_X64:
            return _process["x64"]
        raise ValueError(
            f"unknown configuration option {name!r}; expected one of: {', '.join(OPTIONS)}"
        )

    @property
    def jax_numpy_dtype_promotion(self) -> str:
        return _process["mode"]

    @property
    def jax_enable_x64(self) -> bool:
        return _process["x64"]

    def __repr__(self) -> str:
        return f"jaxtypes.config({OPTION_PROMOTION}={_process['mode']!r}, {OPTION_X64}={_process['x64']!r})"


config: Final = Config()


# The tokens of the scopes entered in this context, innermost last.  It is
# context-local, not kept on the scope object, so that one scope object may be
# entered by several threads or tasks at once.
_entered: contextvars.ContextVar[tuple[contextvars.Token[State], ...]] = contextvars.ContextVar(
    "jaxtypes_entered_scopes", default=()
)


class _Scoped:
    """A scoped override: a context manager, and a decorator for sync and async functions."""

    __slots__ = ("_mode", "_x64")

    def __init__(self, mode: str | None, x64: bool | None) -> None:
        self._mode = mode
        self._x64 = x64

    def __enter__(self) -> None:
        outer = _scope.get()
        state = _new_state(
            self._mode if self._mode is not None else outer.mode_override,
            self._x64 if self._x64 is not None else outer.x64_override,
        )
        _entered.set(_entered.get() + (_scope.set(state),))

    def __exit__(self, *exc: object) -> None:
        tokens = _entered.get()
        _entered.set(tokens[:-1])
        _scope.reset(tokens[-1])

    def __call__(self, func: _F) -> _F:
        mode, x64 = self._mode, self._x64
        if inspect.iscoroutinefunction(func):
            @functools.wraps(func)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                with _Scoped(mode, x64):
                    return await func(*args, **kwargs)
            return run_async  # type: ignore[return-value]

        @functools.wraps(func)
        def run(*args: Any, **kwargs: Any) -> Any:
            with _Scoped(mode, x64):
                return func(*args, **kwargs)
        return run  # type: ignore[return-value]

    def __repr__(self) -> str:
        if self._mode is not None:
            return f"numpy_dtype_promotion({self._mode!r})"
        return f"enable_x64({self._x64!r})"


def numpy_dtype_promotion(mode: str) -> _Scoped:
    """Promotion mode for a scope, as ``jax.numpy_dtype_promotion``: 'standard' or 'strict'.

    Use as ``with numpy_dtype_promotion('strict'):`` or as a decorator.
    """
    return _Scoped(_check_mode(mode), None)


def enable_x64(new_val: bool = True) -> _Scoped:
    """x64 mode for a scope, as ``jax.enable_x64``. A context manager and a decorator."""
    return _Scoped(None, _check_flag(new_val, "enable_x64"))
