"""A note where the checked program sets JAX's configuration otherwise than the plugin's settings.

A program that runs ``jax.config.update("jax_numpy_dtype_promotion",
"strict")``, or sets ``JAX_ENABLE_X64`` before importing JAX, runs under a
configuration the plugin does not check it with unless ``[tool.jaxtypes]``
says so too ("Type promotion semantics",
https://docs.jax.dev/en/latest/type_promotion.html; "JAX sharp bits: double
(64-bit) precision",
https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html).  Where
the name and the value are literals and the value differs from the settings,
the call gets a note (code ``jax-settings``) naming the setting to write.
Scopes (``jax.numpy_dtype_promotion(...)``, ``jax.enable_x64(...)``) are
local to a block and get none.
"""

from __future__ import annotations

from typing import Callable, Final

from mypy.errorcodes import ErrorCode
from mypy.nodes import CallExpr, Expression, IntExpr, NameExpr, StrExpr
from mypy.plugin import MethodContext
from mypy.types import Type

from jaxtypes import lattice

from . import errors, names
from .project_settings import Settings

__all__ = ["JAX_SETTINGS", "hooks"]

JAX_SETTINGS: Final = ErrorCode(
    "jax-settings", "The program sets JAX's configuration otherwise than [tool.jaxtypes] (jaxtypes)", "jaxtypes"
)
# JAX's option names, the environment variables that set them, and the plugin's key.
_OPTIONS: Final = {"jax_numpy_dtype_promotion": "promotion", "jax_enable_x64": "x64"}
_ENVIRONMENT: Final = {"JAX_NUMPY_DTYPE_PROMOTION": "promotion", "JAX_ENABLE_X64": "x64"}
# JAX's bool_env spellings (distutils' strtobool), lower-cased.
_TRUE_WORDS: Final = ("y", "yes", "t", "true", "on", "1")
_FALSE_WORDS: Final = ("n", "no", "f", "false", "off", "0")


def _literal(expr: Expression) -> str | bool | int | None:
    if isinstance(expr, StrExpr):
        return expr.value
    if isinstance(expr, IntExpr):
        return expr.value
    if isinstance(expr, NameExpr) and expr.fullname in ("builtins.True", "builtins.False"):
        return expr.fullname == "builtins.True"
    return None


def _setting(key: str, value: str | bool | int, from_environment: bool) -> str | bool | None:
    """The plugin's value for what the program sets, or None when it is not one JAX takes."""
    if key == "promotion":
        return value if value in lattice.PROMOTION_MODES else None
    if from_environment:
        word = str(value).strip().lower()
        return True if word in _TRUE_WORDS else False if word in _FALSE_WORDS else None
    return bool(value)


def _written(key: str, value: str | bool) -> str:
    return f'promotion = "{value}"' if key == "promotion" else f"x64 = {str(value).lower()}"


def _note(ctx: MethodContext, settings: Settings, what: str, key: str, value: str | bool) -> None:
    current: str | bool = settings.promotion if key == "promotion" else settings.x64
    if value == current:
        return
    ctx.api.msg.note(
        f"the program sets {what}, but jaxtypes checks it with {_written(key, current)}: write "
        f"{_written(key, value)} in [tool.jaxtypes] of pyproject.toml ([jaxtypes] in mypy.ini) "
        "to check it as it runs",
        ctx.context,
        code=JAX_SETTINGS,
    )


def _arguments(ctx: MethodContext) -> tuple[Expression, Expression] | None:
    """The call's first two positional arguments, or None."""
    if not isinstance(ctx.context, CallExpr):
        return None
    args = [a for a, kind in zip(ctx.context.args, ctx.context.arg_kinds) if kind.is_positional()]
    return (args[0], args[1]) if len(args) >= 2 else None


def _check(
    ctx: MethodContext, settings: Settings, args: tuple[Expression, Expression] | None, environment: bool
) -> None:
    """Note the setting ``args`` make (an option or an environment variable, and
    its value) where it is a literal that differs from ``project_settings``."""
    keys = _ENVIRONMENT if environment else _OPTIONS
    name = _literal(args[0]) if args is not None else None
    if args is None or not isinstance(name, str) or name not in keys:
        return
    raw = _literal(args[1])
    if raw is None or (environment and not isinstance(raw, str)):
        return
    value = _setting(keys[name], raw, environment)
    if value is not None:
        _note(ctx, settings, f"{name}={raw}" if environment else f"{name} to {raw!r}", keys[name], value)


def config_update_hook(settings: Settings) -> Callable[[MethodContext], Type]:
    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: MethodContext) -> Type:
        _check(ctx, settings, _arguments(ctx), environment=False)
        return ctx.default_return_type

    return hook


def environment_hook(settings: Settings) -> Callable[[MethodContext], Type]:
    @errors.guarded(lambda ctx: ctx.default_return_type)
    def hook(ctx: MethodContext) -> Type:
        # os.environ["JAX_ENABLE_X64"] = "1" reaches __setitem__ as an index
        # assignment, whose context is not a call: its arguments are the hook's.
        args = _arguments(ctx)
        if args is None and len(ctx.args) >= 2 and ctx.args[0] and ctx.args[1]:
            args = (ctx.args[0][0], ctx.args[1][0])
        _check(ctx, settings, args, environment=True)
        return ctx.default_return_type

    return hook


def hooks(settings: Settings) -> dict[str, Callable[[MethodContext], Type]]:
    """{method: hook} for the places a program sets JAX's configuration."""
    found = {names.JAX_CONFIG_UPDATE: config_update_hook(settings)}
    found.update({setter: environment_hook(settings) for setter in names.ENVIRON_SETTERS})
    return found
