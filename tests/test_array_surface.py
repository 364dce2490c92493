"""jaxtypes.Array declares jax.Array's whole surface (jaxtypes.array_surface),
and the members it says keep the dtype do keep it in JAX.

The member list is read from the installed JAX's own ``basearray.pyi``; the
dtype claims are checked by running JAX over every lattice dtype it can make
an array of.  The scenario file typecheck_cases/scenarios/array_surface.py
checks the same members in the six set-ups."""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import pytest

from jaxtypes import array_surface, lattice

STUB = Path(__file__).resolve().parent.parent / "jaxtypes" / "_array.pyi"
# What jaxtypes.Array leaves out of JAX's surface, on purpose (array_surface's
# docstring says why).
LEFT_OUT = {"__setitem__", "__init__", "__numpy_dtype__", "_rewrap_with_aval_and_sharding"}

# How each member that the stub types as keeping the dtype (``-> Array[DT]``)
# is called here, on a 2x2 array.
KEEPS_DTYPE: dict[str, Callable[[Any], Any]] = {
    "T": lambda x: x.T,
    "mT": lambda x: x.mT,
    "reshape": lambda x: x.reshape(4),
    "transpose": lambda x: x.transpose(),
    "conj": lambda x: x.conj(),
    "conjugate": lambda x: x.conjugate(),
    "copy": lambda x: x.copy(),
    "flatten": lambda x: x.flatten(),
    "ravel": lambda x: x.ravel(),
    "squeeze": lambda x: x.squeeze(),
    "swapaxes": lambda x: x.swapaxes(0, 1),
    "sort": lambda x: x.sort(),
    "diagonal": lambda x: x.diagonal(),
    "repeat": lambda x: x.repeat(2),
    "take": lambda x: x.take(jnp.array([0])),
    "compress": lambda x: x.compress(jnp.array([True, False]), axis=0),
    "block_until_ready": lambda x: x.block_until_ready(),
    "to_device": lambda x: x.to_device(jax.devices()[0]),
    "addressable_data": lambda x: x.addressable_data(0),
    "byteswap": lambda x: x.byteswap(),
    "__getitem__": lambda x: x[0],
    "__iter__": lambda x: next(iter(x)),
    "__reversed__": lambda x: next(reversed(x)),
}
# x.at[0].<method>(...), for the update methods typed as keeping the dtype.
AT_KEEPS_DTYPE: dict[str, Callable[[Any], Any]] = {
    "get": lambda x: x.at[0].get(),
    "apply": lambda x: x.at[0].apply(lambda v: v),
    **{
        m: (lambda m: lambda x: getattr(x.at[0], m)(x[0]))(m)  # noqa: B023 - m bound by the outer lambda
        for m in ("set", "add", "subtract", "mul", "multiply", "power", "min", "max")
    },
}
# Where JAX raises instead (run with JAX 0.10): the stub accepts these, a
# looseness, not a wrong dtype.  Bool-like dtypes have no arithmetic scatter;
# sub-byte integers no integer power.
_BOOLISH = ("bool", "int1", "uint1")
RAISES = {(m, d) for m in ("add", "subtract", "mul", "multiply", "power") for d in _BOOLISH} | {
    ("power", d) for d in ("int2", "int4", "uint2", "uint4")
}


def _stub_class(name: str) -> ast.ClassDef:
    return next(n for n in ast.parse(STUB.read_text()).body if isinstance(n, ast.ClassDef) and n.name == name)


def _members(cls: ast.ClassDef) -> set[str]:
    names = set()
    for node in cls.body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _returns_dt(cls: ast.ClassDef) -> set[str]:
    return {
        n.name
        for n in cls.body
        if isinstance(n, ast.FunctionDef)
        and n.returns is not None
        and ast.unparse(n.returns) in ("Array[DT]", "Iterator[Array[DT]]")
    }


def _jax_array() -> ast.ClassDef:
    source = Path(jax.__file__).parent / "_src" / "basearray.pyi"
    return next(n for n in ast.parse(source.read_text()).body if isinstance(n, ast.ClassDef) and n.name == "Array")


def test_every_member_of_jax_array_is_declared() -> None:
    missing = _members(_jax_array()) - _members(_stub_class("Array")) - LEFT_OUT
    assert not missing, f"jax.Array members jaxtypes.Array lacks: {sorted(missing)}"
    assert not LEFT_OUT & _members(_stub_class("Array"))


def test_every_dtype_keeping_member_is_checked_here() -> None:
    assert _returns_dt(_stub_class("Array")) == set(KEEPS_DTYPE)
    assert _returns_dt(_stub_class("ArrayAtIndex")) == set(AT_KEEPS_DTYPE)


# The default run's sample of dtypes (one of each kind, the sub-byte and
# bool-like ones where JAX raises); ``pytest -m slow`` runs them all.
SAMPLE = ("bool", "int1", "int4", "uint2", "int8", "uint32", "bfloat16", "float8_e4m3fn", "float32", "complex64")


def _arrays(nodes: tuple[str, ...]) -> list[tuple[str, Any]]:
    out = []
    for node in nodes:
        try:
            x = jnp.zeros((2, 2), dtype=node).block_until_ready()
        except Exception:  # noqa: BLE001 - float6 types: no CPU arrays in this jaxlib, whatever it raises
            continue
        out.append((node, x))
    return out


# Members that need a concrete array (a data-dependent shape, a buffer): run.
CONCRETE_ONLY = frozenset({"compress", "block_until_ready", "addressable_data"})


def _result_dtype(name: str, call: Callable[[Any], Any], x: Any) -> Any:
    return (call(x) if name in CONCRETE_ONLY else jax.eval_shape(call, x)).dtype


@pytest.mark.parametrize(
    "nodes",
    [
        pytest.param(SAMPLE, id="sample"),
        pytest.param(tuple(n for n in lattice.NODES if n not in lattice.WEAK), id="all", marks=pytest.mark.slow),
    ],
)
def test_dtype_keeping_members_keep_it_in_jax(nodes: tuple[str, ...]) -> None:
    """JAX's dtype of each member's result, traced (``jax.eval_shape``: the
    dtype is fixed, and an unsupported one raises, at trace time), not compiled."""
    arrays = _arrays(nodes)
    assert len(arrays) >= len(nodes) - 2
    wrong, raised = [], set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for node, x in arrays:
            for name, call in KEEPS_DTYPE.items():
                if (dtype := _result_dtype(name, call, x)) != x.dtype:
                    wrong.append(f"x.{name} of {node}: {dtype}")
            for name, call in AT_KEEPS_DTYPE.items():
                try:
                    out = jax.eval_shape(call, x)
                except (TypeError, ValueError):
                    raised.add((name, node))
                    continue
                if out.dtype != x.dtype:
                    wrong.append(f"x.at[0].{name} of {node}: {out.dtype}")
    assert not wrong
    assert raised == {(m, d) for m, d in RAISES if d in nodes}


@pytest.mark.parametrize("node", ["int8", "uint8"])
def test_at_divide_is_not_dtype_keeping(node: str) -> None:
    """Why the stub gives ``x.at[i].divide(v)`` no dtype: an integer array's becomes float."""
    x = jnp.zeros((2, 2), dtype=node)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert x.at[0].divide(x[0]).dtype == jnp.float32


# How each member the stub types as JAX's default integer is called here.
DEFAULT_INT: dict[str, Callable[[Any], Any]] = {"argsort": lambda x: x.argsort()}


def test_every_default_int_member_is_checked_here() -> None:
    assert array_surface.DEFAULT_INT == set(DEFAULT_INT)
    returns = {
        n.name: ast.unparse(n.returns)
        for n in _stub_class("Array").body
        if isinstance(n, ast.FunctionDef) and n.returns is not None
    }
    assert {name: returns[name] for name in DEFAULT_INT} == dict.fromkeys(DEFAULT_INT, "Array[int32]")


@pytest.mark.parametrize("x64", [False, True])
def test_default_int_members_give_jax_s_default_int(x64: bool) -> None:
    """``x.argsort()`` is JAX's default integer whatever x's dtype: int32 with
    x64 off (the stubs' answer), int64 with it on (the mypy plugin's)."""
    with jax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        arrays = _arrays(SAMPLE)
        assert len(arrays) >= len(SAMPLE) - 2
        got = {
            (name, node): str(jax.eval_shape(call, x).dtype) for node, x in arrays for name, call in DEFAULT_INT.items()
        }
    assert set(got.values()) == {"int64" if x64 else "int32"}, got
