"""Regenerate tools/data/jax_function_dtypes.json: the dtype each public JAX
function gives, as JAX 0.10.2 computes it, the oracle of tests/test_function_rules.py.

Run by hand, with the pinned JAX installed (the full run made about 122,000
``jax.eval_shape`` calls in 16 minutes of wall time on a shared 2-core machine
at load 6; ``--only`` re-probes a few functions in a minute or two and
merges them into the committed file)::

    nohup .venv/bin/python -m tools.oracle.make_function_tables &
    .venv/bin/python -m tools.oracle.make_function_tables --only jax.lax.cummax   # one function
    .venv/bin/python -m tools.oracle.make_function_tables --only new   # probes missing from the file

The functions probed are the rows of jaxtypes' table (jaxtypes/functions.csv,
read as a CSV file) that have a kind: the kind says which arguments are the
probed arrays.  For each probe (``PROBES``) and each of JAX's default configuration
(``standard-x32``) and x64 on (``standard-x64``), it calls the function through
``jax.eval_shape`` on abstract arrays of shape (3, 3) (or the probe's own
shape) and records the result's dtype as a lattice node name plus its weak
flag, or the class of the exception raised.  Inputs are lattice nodes:

* a strong node is an array of that dtype; with x64 off the 64-bit dtypes are
  not probed (JAX cannot build such arrays by default: jnp.asarray makes them
  32-bit), except as a ``dtype=`` argument, which JAX canonicalizes;
* a weak node (``i*``, ``f*``, ``c*``) is a weakly typed array of the default
  dtype of its kind (what a Python scalar becomes when traced).

What is probed depends on the probe's kind:

``x``      one array argument, every node;
``xy``     two array arguments, every ordered pair of ``PAIR_SAMPLE`` nodes, or
           of every node for the most used promoting functions (``full=True``);
``cxy``    ``where``-like: a condition then two values; the pairs of ``xy`` with
           a bool condition, and every node as condition with float32 values;
``d``      a ``dtype=`` argument only: every strong node and None (the default);
``xd``     one array then ``dtype=``: every node with dtype None, and every
           strong dtype with a float32 array;
``xyd``    two arrays (each node of ``PAIR_SAMPLE`` with itself, and two mixed
           pairs) then a dtype, passed as ``preferred_element_type=``: None
           and every strong dtype;
``kd``     a PRNG key (a typed ``key<fry>`` and a raw uint32[2] key) with dtype
           None, and every strong dtype with the typed key;
``k``      a PRNG key only (typed and raw);
``n``      no array argument: one call.

A result that is not an array is recorded as ``py:<type name>``; a PRNG key
array as ``key<fry>``; a tuple or list of arrays of one dtype as that
dtype, of different dtypes as their cells joined by ',' (``float32,int32``
for ``lax.top_k``).

This script deliberately does not import jaxtypes: the data must come from JAX
alone.  The node names come from tools/oracle/lattice_facts.py, which functions
are probed from the table's file, and how each is called (when it takes more
than its arrays) is written out below (``call_as``); tests/test_function_rules.py
checks that every typed function of the table has data here.
"""

from __future__ import annotations

import argparse
import csv
import functools
import itertools
import json
import os
import time
import warnings
from pathlib import Path
from typing import Any, Callable, NamedTuple

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np

from tools import DATA

OUT = DATA / "jax_function_dtypes.json"

# The 35 lattice nodes (tools/oracle/lattice_facts.py, shared with the other JAX
# oracle scripts).
from tools.oracle.lattice_facts import BIT64, NODES  # noqa: E402
from tools.oracle.lattice_facts import STRONG_NODES as STRONG  # noqa: E402
from tools.oracle.lattice_facts import WEAK_NODES as WEAK  # noqa: E402
from tools.oracle.provenance import provenance as shared_provenance  # noqa: E402

# The pairs probed for two-argument functions not marked full: one node of
# each kind and width class, the weak nodes, and one sub-byte int and float8.
PAIR_SAMPLE = (
    "bool",
    "uint8",
    "uint32",
    "uint64",
    "int8",
    "int16",
    "int32",
    "int64",
    "int4",
    "float8_e4m3fn",
    "bfloat16",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "i*",
    "f*",
    "c*",
)
KEYS = ("key<fry>", "uint32[2]")

CONFIGS = (("standard-x32", False), ("standard-x64", True))

LAYOUT = {
    "configs": "label -> {x64, results}; results: function -> {probe key -> cell}",
    "probe key": "the inputs joined by ',': lattice node names of the array arguments "
    "in the order the probe passes them (a key as key<fry> or uint32[2]); "
    "a dtype= argument as 'dtype=<node>' or 'dtype=None'; '' for no input",
    "cell": "the result's lattice node name, with '*' appended when it is weakly typed "
    "(int32* is a weak int32: jaxtypes' i*); 'key<fry>' for a PRNG key array; "
    "'py:<type>' for a result that is not an array; '!<exception class>' for an error; "
    "a tuple or list of arrays of different dtypes: each one's cell, joined by ','",
    "probes": "function -> {kind, shape, full}: how it was probed (see the script's docstring)",
}


class Probe(NamedTuple):
    kind: str
    call: Callable[..., Any]
    shape: tuple[int, ...] = (3, 3)
    full: bool = False


def _fn(qualname: str) -> Callable[..., Any]:
    obj: Any = jax
    for part in qualname.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


# ------------------------------------------------------------------ the table
# Which functions are probed, and how their arrays are passed (the kind), is
# jaxtypes' table: one row per function, read here as a CSV file, without
# importing jaxtypes.  A row with a kind is probed; its flag dtype_probe adds
# a second probe NAME(dtype=) of kind xd, its flag preferred one
# NAME(preferred_element_type=) of kind xyd.
TABLE = Path(__file__).resolve().parents[2] / "jaxtypes" / "functions.csv"
SECOND_PROBES = (("dtype_probe", "(dtype=)", "xd"), ("preferred", "(preferred_element_type=)", "xyd"))


def table_probes() -> dict[str, str]:
    """probe name -> kind, for every probed row of the table, in its order."""
    out: dict[str, str] = {}
    with TABLE.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["kind"]:
                out[row["name"]] = row["kind"]
            for column, suffix, kind in SECOND_PROBES:
                if row[column] == "yes":
                    out[row["name"] + suffix] = kind
            for probe in _choice_probes(row):
                out[probe] = row["kind"]
    return out


def _choice_probes(row: dict[str, str]) -> list[str]:
    """A row's choices (a parameter, then each value JAX accepts for it, as
    ``VALUE`` or ``VALUE=FAMILY``): one probe ``NAME(PARAM=VALUE)`` each, of
    the row's kind, calling the function's call (``call_as``) with
    ``PARAM=VALUE``."""
    param, *values = row["choices"].split() or [""]
    return [f"{row['name']}({param}={token.partition('=')[0]})" for token in values]


def choice_argument(probe: str) -> dict[str, Any]:
    """The keyword argument of a choice's probe: ``resize(method=nearest)``
    passes ``method="nearest"``, ``resize(method=ResizeMethod.NEAREST)`` the
    member of the function's module's enum; {} for any other probe."""
    name, _, suffix = probe.partition("(")
    param, _, value = suffix.rstrip(")").partition("=")
    if not value:  # (sum(dtype=): the dtype probes')
        return {}
    enum, _, member = value.partition(".")
    if member and enum[:1].isupper():
        return {param: getattr(getattr(_fn(name.rpartition(".")[0]), enum), member)}
    return {param: value}


# ------------------------------------------------------------------ the calls
# How a function is called when it takes more than its arrays (and a dtype=
# argument), or on arrays of another shape than (3, 3): ``call(f)`` gives the
# callable taking the probed inputs, as the kind passes them (``x``, ``y``,
# ``c``, ``k`` for a key, ``dtype``); ``full`` probes a two-array function on
# every pair of nodes instead of PAIR_SAMPLE's.  A probe registered nowhere
# here is called as ``f(*arrays, dtype=...)``.  tools/cases/function_cases.py
# reads these lines with ``ast`` to write the calls out as typecheck cases.
CALLS: dict[str, tuple[Callable[..., Callable[..., Any]] | None, tuple[int, ...], bool]] = {}


def call_as(
    names: str,
    call: Callable[..., Callable[..., Any]] | None = None,
    shape: tuple[int, ...] = (3, 3),
    full: bool = False,
    prefix: str = "jax.numpy.",
    suffix: str = "",
) -> None:
    """Say how to call these functions (their probe ``suffix``: ``sum(dtype=)``)."""
    for name in names.split():
        probe = prefix + name + suffix
        assert probe not in CALLS, f"{probe}: called two ways"
        CALLS[probe] = (call, shape, full)


# ------------------------------------------------------------------ jax.numpy
call_as("cumulative_sum cumulative_prod sort_complex gradient ediff1d", shape=(3,))
call_as("argwhere flatnonzero nonzero unique", lambda f: lambda x: f(x, size=3))
call_as("expand_dims", lambda f: lambda x: f(x, 0))
call_as("reshape", lambda f: lambda x: f(x, (9,)))
call_as("broadcast_to", lambda f: lambda x: f(x, (2, 3, 3)))
call_as("take take_along_axis", lambda f: lambda x: f(x, jnp.zeros((3, 3), jnp.int32), axis=0))
call_as("tile repeat", lambda f: lambda x: f(x, 2))
call_as(
    "roll rot90 flip swapaxes moveaxis rollaxis",
    lambda f: {
        "roll": lambda x: f(x, 1),
        "rot90": lambda x: f(x),
        "flip": lambda x: f(x),
        "swapaxes": lambda x: f(x, 0, 1),
        "moveaxis": lambda x: f(x, 0, 1),
        "rollaxis": lambda x: f(x, 1),
    }[f.__name__],
)
call_as("split array_split hsplit vsplit", lambda f: lambda x: f(x, 3))
call_as("permute_dims", lambda f: lambda x: f(x, (1, 0)))
call_as("pad", lambda f: lambda x: f(x, 1))
call_as("clip", lambda f: lambda x: f(x, 0, 1))
call_as("percentile nanpercentile", lambda f: lambda x: f(x, 50.0))
call_as("quantile nanquantile", lambda f: lambda x: f(x, 0.5))
call_as("partition argpartition", lambda f: lambda x: f(x, 1))
call_as("delete", lambda f: lambda x: f(x, 0, axis=0))
call_as("insert", lambda f: lambda x: f(x, 0, 1, axis=0))
call_as("compress", lambda f: lambda x: f(jnp.array([True, False, True]), x, axis=0, size=2))
call_as("extract", lambda f: lambda x: f(jnp.ones((3, 3), bool), x, size=3))
call_as("fill_diagonal", lambda f: lambda x: f(x, 0, inplace=False))
call_as("put", lambda f: lambda x: f(x, jnp.array([0]), 0, inplace=False))
call_as("put_along_axis", lambda f: lambda x: f(x, jnp.zeros((3, 1), jnp.int32), 0, axis=1, inplace=False))
call_as("resize", lambda f: lambda x: f(x, (9,)))
call_as("polyder polyint roots poly trim_zeros", shape=(3,))
call_as("vander", shape=(3,))
call_as("ldexp", lambda f: lambda x: f(x, 2))
call_as("float_power", lambda f: lambda x: f(x, 2.0))
call_as("histogram_bin_edges", lambda f: lambda x: f(x, 3))
call_as("bincount", lambda f: lambda x: f(x, length=3), shape=(3,))
call_as("unique_values", lambda f: lambda x: f(x, size=3))
call_as("piecewise", lambda f: lambda x: f(x, [x > 0], [lambda v: v, lambda v: v]))
call_as("isin", lambda f: lambda x: f(x, jnp.arange(3)))
call_as("dot matmul", full=True)
call_as("tensordot", lambda f: lambda x, y: f(x, y, axes=1))
call_as("polyadd polysub polymul convolve correlate polyval polydiv", shape=(3,))
call_as("searchsorted digitize", shape=(3,))
call_as("einsum", lambda f: lambda x, y: f("ij,jk->ik", x, y), full=True)
call_as("concatenate stack", lambda f: lambda x, y: f([x, y]), full=True)
call_as("hstack vstack dstack column_stack concat", lambda f: lambda x, y: f([x, y]))
call_as("block", lambda f: lambda x, y: f([x, y]))
call_as("interp", lambda f: lambda x, y: f(x, jnp.arange(3.0), y), shape=(3,))
call_as("where", full=True)
call_as("select", lambda f: lambda c, x, y: f([c], [x], y))
call_as("zeros ones empty", lambda f: lambda dtype: f((3,), dtype=dtype))
# full(shape, fill_value, dtype): the fill value is the input (a scalar: lax.full takes no other)
call_as("full", lambda f: lambda x, dtype=None: f(x.shape, x, dtype=dtype), shape=())
call_as("eye identity tri", lambda f: lambda dtype: f(3, dtype=dtype))
call_as("arange", lambda f: lambda dtype: f(3, dtype=dtype))
call_as("linspace logspace geomspace", lambda f: lambda dtype: f(1, 3, 3, dtype=dtype))
call_as("indices", lambda f: lambda dtype: f((3,), dtype=dtype))
call_as("fromfunction", lambda f: lambda dtype: f(lambda i: i, (3,), dtype=dtype))
call_as("bartlett blackman hamming hanning", lambda f: lambda: f(3))
call_as("kaiser", lambda f: lambda: f(3, 1.0))
call_as(
    "tril_indices triu_indices diag_indices mask_indices",
    lambda f: lambda: f(3) if f.__name__ != "mask_indices" else f(3, jnp.triu),
)
call_as("broadcast_shapes", lambda f: lambda: f((3,), (3,)))
# astype takes its dtype positionally only (dtype= is a TypeError), and None too.
call_as("astype", lambda f: lambda x, dtype=None: f(x, dtype))
call_as("full_like", lambda f: lambda x, dtype=None: f(x, 1, dtype=dtype))
call_as(
    "sum prod cumsum cumprod mean nansum nanprod nanmean var std nanvar nanstd trace",
    lambda f: lambda x, dtype=None: f(x, dtype=dtype),
    suffix="(dtype=)",
)
call_as(
    "trapezoid lexsort ix_ histogram meshgrid",
    lambda f: {
        "trapezoid": lambda x: f(x),
        "lexsort": lambda x: f(x),
        "ix_": lambda x: f(x),
        "histogram": lambda x: f(x, bins=3),
        "meshgrid": lambda x: f(x, x),
    }[f.__name__],
    shape=(3,),
)
call_as("unique_all unique_counts unique_inverse", lambda f: lambda x: f(x, size=3))
call_as("unravel_index", lambda f: lambda x: f(x, (3, 3)))
call_as("ravel_multi_index", lambda f: lambda x: f((x, x), (3, 3), mode="clip"), shape=(3,))
call_as("intersect1d setdiff1d setxor1d union1d", lambda f: lambda x, y: f(x, y, size=3), shape=(3,))
call_as("polyfit", lambda f: lambda x, y: f(x, y, 1), shape=(3,))
call_as("histogram2d", lambda f: lambda x, y: f(x, y, bins=3), shape=(3,))
call_as("choose", lambda f: lambda x, y: f(jnp.zeros((3, 3), jnp.int32), [x, y], mode="clip"))
call_as("einsum_path", lambda f: lambda x, y: f("ij,jk->ik", x, y))
call_as("place", lambda f: lambda x: f(x, jnp.ones((3, 3), bool), 0, inplace=False))
call_as("dsplit", lambda f: lambda x: f(x, 3), shape=(3, 3, 3))
call_as("histogramdd", lambda f: lambda x: f(x, bins=3))
call_as(
    "result_type promote_types can_cast issubdtype isdtype",
    lambda f: {
        "result_type": lambda: f(jnp.float32, jnp.int8),
        "promote_types": lambda: f(jnp.float32, jnp.int8),
        "can_cast": lambda: f(jnp.float32, jnp.int8),
        "issubdtype": lambda: f(jnp.float32, jnp.floating),
        "isdtype": lambda: f(jnp.float32, "real floating"),
    }[f.__name__],
)

# ------------------------------------------------------------ linalg and fft
call_as("matrix_power", lambda f: lambda x: f(x, 2), prefix="jax.numpy.linalg.")
call_as("tensorinv", lambda f: lambda x: f(x, ind=1), prefix="jax.numpy.linalg.")
# preferred_element_type=, given as the probe's dtype (xyd)
call_as(
    "dot matmul inner vdot vecdot",
    lambda f: lambda x, y, dtype=None: f(x, y, preferred_element_type=dtype),
    suffix="(preferred_element_type=)",
)
call_as(
    "tensordot",
    lambda f: lambda x, y, dtype=None: f(x, y, axes=1, preferred_element_type=dtype),
    suffix="(preferred_element_type=)",
)
call_as(
    "einsum",
    lambda f: lambda x, y, dtype=None: f("ij,jk->ik", x, y, preferred_element_type=dtype),
    suffix="(preferred_element_type=)",
)
call_as(
    "convolve correlate",
    lambda f: lambda x, y, dtype=None: f(x, y, preferred_element_type=dtype),
    shape=(3,),
    suffix="(preferred_element_type=)",
)
call_as(
    "matmul vecdot",
    lambda f: lambda x, y, dtype=None: f(x, y, preferred_element_type=dtype),
    prefix="jax.numpy.linalg.",
    suffix="(preferred_element_type=)",
)
call_as(
    "tensordot",
    lambda f: lambda x, y, dtype=None: f(x, y, axes=1, preferred_element_type=dtype),
    prefix="jax.numpy.linalg.",
    suffix="(preferred_element_type=)",
)
call_as(
    "dot_general",
    lambda f: lambda x, y, dtype=None: f(x, y, (((1,), (0,)), ((), ())), preferred_element_type=dtype),
    prefix="jax.lax.",
    suffix="(preferred_element_type=)",
)
call_as("outer", shape=(3,), prefix="jax.numpy.linalg.")
call_as("cross", shape=(3,), prefix="jax.numpy.linalg.")
call_as("multi_dot", lambda f: lambda x, y: f([x, y]), prefix="jax.numpy.linalg.")
# a.shape must be b.shape + Q with prod(Q) == prod(b.shape): (3, 3) and (3,)
call_as("tensorsolve", lambda f: lambda x, y: f(x, y[0]), prefix="jax.numpy.linalg.")
call_as("fftfreq rfftfreq", lambda f: lambda dtype: f(4, dtype=dtype), prefix="jax.numpy.fft.")

# -------------------------------------------------------------------- jax.nn
call_as("glu", shape=(3, 4), prefix="jax.nn.")
call_as(
    "one_hot",
    lambda f: lambda x, dtype=None: f(x, 3) if dtype is None else f(x, 3, dtype=dtype),
    shape=(3,),
    prefix="jax.nn.",
)
call_as("dot_product_attention", lambda f: lambda q, k: f(q, k, k), shape=(1, 2, 1, 4), prefix="jax.nn.")

# ---------------------------------------------------------------- jax.random
call_as("PRNGKey key", lambda f: lambda: f(0), prefix="jax.random.")
call_as("fold_in", lambda f: lambda k: f(k, 1), prefix="jax.random.")
call_as(
    """normal uniform gumbel laplace logistic exponential cauchy maxwell orthogonal
    rademacher ball""",
    lambda f: (
        lambda k, dtype=None: (
            f(k, (3,) if f.__name__ not in ("orthogonal", "ball") else 3)
            if dtype is None
            else f(k, (3,) if f.__name__ not in ("orthogonal", "ball") else 3, dtype=dtype)
        )
    ),
    prefix="jax.random.",
)
call_as(
    "rayleigh",
    lambda f: lambda k, dtype=None: f(k, 1.0, (3,), **({"dtype": dtype} if dtype else {})),
    prefix="jax.random.",
)
call_as(
    "double_sided_maxwell",
    lambda f: lambda k, dtype=None: f(k, 0.0, 1.0, (3,), **({"dtype": dtype} if dtype else {})),
    prefix="jax.random.",
)
call_as(
    "truncated_normal",
    lambda f: lambda k, dtype=None: f(k, -1.0, 1.0, (3,), dtype=dtype) if dtype else f(k, -1.0, 1.0, (3,)),
    prefix="jax.random.",
)
call_as(
    "randint",
    lambda f: lambda k, dtype=None: f(k, (3,), 0, 5, dtype=dtype) if dtype else f(k, (3,), 0, 5),
    prefix="jax.random.",
)
call_as("bits", lambda f: lambda k, dtype=None: f(k, (3,), dtype=dtype) if dtype else f(k, (3,)), prefix="jax.random.")
call_as(
    "beta gamma loggamma t chisquare pareto weibull_min generalized_normal wald poisson geometric",
    lambda f: (
        lambda k, dtype=None: f(
            *((k, 2.0, 2.0) if f.__name__ in ("beta", "weibull_min") else (k, 2.0)),
            shape=(3,),
            **({"dtype": dtype} if dtype else {}),
        )
    ),
    prefix="jax.random.",
)
call_as(
    "f binomial",
    lambda f: lambda k, dtype=None: f(k, 2.0, 3.0, shape=(3,), **({"dtype": dtype} if dtype else {})),
    prefix="jax.random.",
)
call_as(
    "triangular",
    lambda f: lambda k, dtype=None: f(k, 0.0, 1.0, 2.0, shape=(3,), **({"dtype": dtype} if dtype else {})),
    prefix="jax.random.",
)
call_as("bernoulli", lambda f: lambda k, dtype=None: f(k, 0.5, (3,)), prefix="jax.random.")
call_as(
    "lognormal",
    lambda f: lambda k, dtype=None: f(k, shape=(3,), **({"dtype": dtype} if dtype else {})),
    prefix="jax.random.",
)
call_as("categorical", lambda f: lambda k, dtype=None: f(k, jnp.zeros((3,))), prefix="jax.random.")
call_as(
    "dirichlet",
    lambda f: lambda k, dtype=None: f(k, jnp.ones((3,)), **({"dtype": dtype} if dtype else {})),
    prefix="jax.random.",
)
call_as(
    "multivariate_normal",
    lambda f: lambda k, dtype=None: f(k, jnp.zeros((2,)), jnp.eye(2), **({"dtype": dtype} if dtype else {})),
    prefix="jax.random.",
)
call_as(
    "multinomial",
    lambda f: lambda k, dtype=None: f(k, 3, jnp.ones((3,)) / 3, **({"dtype": dtype} if dtype else {})),
    prefix="jax.random.",
)
call_as("key_dtype", lambda f: lambda: f(), prefix="jax.random.")  # (impl=None): no key
call_as("choice permutation", lambda f: lambda x: f(jax.random.key(0), x), prefix="jax.random.")

# ----------------------------------------------------------------- jax.image
# (each of the table's choices of method is passed as ``method=``: the
# default, linear, is the bare probe's)
call_as("resize", lambda f: lambda x, method="linear": f(x, (2, 6), method), prefix="jax.image.")

# ------------------------------------------------------------------- jax.lax
call_as("dot_general", lambda f: lambda x, y: f(x, y, (((1,), (0,)), ((), ()))), prefix="jax.lax.")
call_as("concatenate", lambda f: lambda x, y: f([x, y], 0), prefix="jax.lax.")
call_as("dynamic_update_slice", lambda f: lambda x, y: f(x, y, (0, 0)), prefix="jax.lax.")
call_as("dynamic_update_slice_in_dim", lambda f: lambda x, y: f(x, y, 0, 0), prefix="jax.lax.")
call_as("dynamic_update_index_in_dim", lambda f: lambda x, y: f(x, y[0], 0, 0), prefix="jax.lax.")
call_as("integer_pow", lambda f: lambda x: f(x, 2), prefix="jax.lax.")
call_as(
    "reduce_sum reduce_max reduce_min reduce_prod reduce_and reduce_or reduce_xor "
    "argmax argmin cumsum cumprod cummax cummin cumlogsumexp",
    lambda f: (
        lambda x: (
            f(x, (0,))
            if f.__name__.startswith("reduce")
            else f(x, 0, jnp.int32)
            if f.__name__.startswith("arg")
            else f(x, 0)
        )
    ),
    prefix="jax.lax.",
)
call_as("reshape", lambda f: lambda x: f(x, (9,)), prefix="jax.lax.")
call_as(
    "transpose rev", lambda f: lambda x: f(x, (1, 0)) if f.__name__ == "transpose" else f(x, (0,)), prefix="jax.lax."
)
call_as("broadcast", lambda f: lambda x: f(x, (2,)), prefix="jax.lax.")
call_as("broadcast_in_dim", lambda f: lambda x: f(x, (2, 3, 3), (1, 2)), prefix="jax.lax.")
call_as("expand_dims", lambda f: lambda x: f(x, (0,)), prefix="jax.lax.")
call_as("squeeze", lambda f: lambda x: f(x[None], (0,)), prefix="jax.lax.")
call_as("slice", lambda f: lambda x: f(x, (0, 0), (2, 2)), prefix="jax.lax.")
call_as("dynamic_slice", lambda f: lambda x: f(x, (0, 0), (2, 2)), prefix="jax.lax.")
call_as("slice_in_dim dynamic_slice_in_dim", lambda f: lambda x: f(x, 0, 2), prefix="jax.lax.")
call_as("index_in_dim dynamic_index_in_dim", lambda f: lambda x: f(x, 0), prefix="jax.lax.")
call_as("pad", lambda f: lambda x: f(x, jnp.zeros((), x.dtype), ((1, 1, 0), (0, 0, 0))), prefix="jax.lax.")
call_as("top_k", lambda f: lambda x: f(x, 2), prefix="jax.lax.")
call_as("reduce_window", lambda f: lambda x: f(x, 0, jax.lax.add, (2, 2), (1, 1), "VALID"), prefix="jax.lax.")
call_as("reduce_precision", lambda f: lambda x: f(x, 5, 10), prefix="jax.lax.")
call_as("tile", lambda f: lambda x: f(x, (2, 1)), prefix="jax.lax.")
call_as("convert_element_type", lambda f: lambda x, dtype=None: f(x, dtype or jnp.float32), prefix="jax.lax.")
call_as("full_like", lambda f: lambda x, dtype=None: f(x, 1, dtype), prefix="jax.lax.")
call_as("bitcast_convert_type", lambda f: lambda x, dtype=None: f(x, dtype or x.dtype), prefix="jax.lax.")
call_as("split", lambda f: lambda x: f(x, (1, 2)), prefix="jax.lax.")
call_as("approx_max_k approx_min_k", lambda f: lambda x: f(x, 2), prefix="jax.lax.")
call_as("broadcast_to_rank", lambda f: lambda x: f(x, 3), prefix="jax.lax.")
call_as("select_n", lambda f: lambda c, x, y: f(c, x, y), prefix="jax.lax.")
call_as("fft", lambda f: lambda x: f(x, "FFT", (3,)), prefix="jax.lax.")
call_as(
    "conv conv_with_general_padding",
    lambda f: lambda x, y: f(x, y, (1, 1), "SAME") if f.__name__ == "conv" else f(x, y, (1, 1), "SAME", None, None),
    shape=(1, 1, 3, 3),
    prefix="jax.lax.",
)
call_as("conv_general_dilated", lambda f: lambda x, y: f(x, y, (1, 1), "SAME"), shape=(1, 1, 3, 3), prefix="jax.lax.")
call_as(
    "conv_transpose",
    lambda f: lambda x, y: f(x, y, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW")),
    shape=(1, 1, 3, 3),
    prefix="jax.lax.",
)
call_as("collapse", lambda f: lambda x: f(x, 0), prefix="jax.lax.")
call_as("stack", lambda f: lambda x, y: f([x, y]), prefix="jax.lax.")
call_as("empty", lambda f: lambda dtype: f((3,), dtype or jnp.float32), prefix="jax.lax.")
call_as("full", lambda f: lambda x, dtype=None: f(x.shape, x, dtype), shape=(), prefix="jax.lax.")
call_as(
    "iota broadcasted_iota",
    lambda f: lambda dtype: f(dtype or jnp.int32, 3) if f.__name__ == "iota" else f(dtype or jnp.int32, (3,), 0),
    prefix="jax.lax.",
)


# ------------------------------------------------------------------ the probes
def _probes() -> dict[str, Probe]:
    kinds = table_probes()
    stray = sorted(set(CALLS) - set(kinds))
    assert not stray, f"calls for functions the table does not probe (no kind): {stray}"
    out: dict[str, Probe] = {}
    for probe, kind in kinds.items():
        choice = choice_argument(probe)
        # (a choice's probe: the function's call, given the choice)
        call, shape, full = CALLS.get(probe if not choice else probe.split("(")[0], (None, (3, 3), False))
        f = _fn(probe.split("(")[0])
        made = call(f) if call else f
        out[probe] = Probe(kind, functools.partial(made, **choice) if choice else made, shape, full)
    return out


PROBES: dict[str, Probe] = _probes()


# ------------------------------------------------------------------ probing
def node_dtype(node: str, x64: bool) -> np.dtype:
    if node in WEAK:
        return np.dtype(
            {
                "i*": "int64" if x64 else "int32",
                "f*": "float64" if x64 else "float32",
                "c*": "complex128" if x64 else "complex64",
            }[node]
        )
    return np.dtype(getattr(ml_dtypes, node, None) or node)


def abstract(node: str, shape: tuple[int, ...], x64: bool) -> Any:
    if node == "key<fry>":
        return jax.eval_shape(lambda: jax.random.key(0))
    if node == "uint32[2]":
        return jax.ShapeDtypeStruct((2,), np.uint32)
    return jax.ShapeDtypeStruct(shape, node_dtype(node, x64), weak_type=node in WEAK)


def dtype_object(node: str) -> Any:
    return np.dtype(getattr(ml_dtypes, node, None) or node)


def cell_of(out: Any) -> str:
    if isinstance(out, (tuple, list)) and len(out) > 1:
        cells = [cell_of(item) for item in out]
        # (results of different dtypes, such as top_k's values and indices: each)
        return ",".join(cells) if len(set(cells)) > 1 else cells[0]
    while isinstance(out, (tuple, list)) and out:
        out = out[0]
    if isinstance(out, jax.ShapeDtypeStruct) or hasattr(out, "weak_type"):
        if jax.dtypes.issubdtype(out.dtype, jax.dtypes.prng_key):
            return str(out.dtype)
        name = np.dtype(out.dtype).name
        assert name in STRONG, name
        return name + ("*" if getattr(out, "weak_type", False) else "")
    return "py:" + type(out).__name__


def is_array(value: Any) -> bool:
    return isinstance(value, (jax.Array, jax.core.Tracer))


def run(call: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    seen: list[Any] = []

    def traced(*a: Any) -> Any:
        out = call(*a, **kwargs)
        seen.append(out)
        return out

    try:
        out = jax.eval_shape(traced, *args)
    except Exception as err:  # noqa: BLE001 - recorded as data
        if seen and not _array_result(seen[0]):
            return "py:" + type(seen[0]).__name__
        if isinstance(
            err,
            (
                jax.errors.ConcretizationTypeError,
                jax.errors.TracerBoolConversionError,
                jax.errors.TracerArrayConversionError,
                jax.errors.TracerIntegerConversionError,
            ),
        ):
            # Not traceable: call it on concrete arrays instead.
            try:
                concrete = [
                    jax.random.key(0)
                    if jax.dtypes.issubdtype(a.dtype, jax.dtypes.prng_key)
                    else jnp.zeros(a.shape, a.dtype)
                    for a in args
                ]
                value = call(*concrete, **kwargs)
            except Exception as err2:  # noqa: BLE001
                return "!" + type(err2).__name__
            if not _array_result(value):
                return "py:" + type(value).__name__
            return cell_of(value)
        return "!" + type(err).__name__
    if not _array_result(seen[0]):
        return "py:" + type(seen[0]).__name__
    return cell_of(out)


def _array_result(value: Any) -> bool:
    """An array, or a non-empty tuple or list of arrays."""
    if isinstance(value, (tuple, list)):
        return bool(value) and all(is_array(v) or _array_result(v) for v in value)
    return is_array(value)


def probe_inputs(p: Probe, x64: bool) -> list[tuple[str, tuple[str, ...], dict[str, Any]]]:
    """(probe key, input nodes, dtype kwargs) of every probed input."""
    nodes = [n for n in NODES if x64 or n not in BIT64]
    sample = [n for n in PAIR_SAMPLE if x64 or n not in BIT64]
    strong_dtypes = list(STRONG)
    if p.kind == "x":
        return [(n, (n,), {}) for n in nodes]
    if p.kind == "xy":
        pool = nodes if p.full else sample
        return [(f"{a},{b}", (a, b), {}) for a, b in itertools.product(pool, repeat=2)]
    if p.kind == "cxy":
        pool = nodes if p.full else sample
        out = [(f"bool,{a},{b}", ("bool", a, b), {}) for a, b in itertools.product(pool, repeat=2)]
        out += [(f"{c},float32,float32", (c, "float32", "float32"), {}) for c in nodes if c != "bool"]
        return out
    if p.kind == "d":
        return [("dtype=None", (), {"dtype": None})] + [
            (f"dtype={d}", (), {"dtype": dtype_object(d)}) for d in strong_dtypes
        ]
    if p.kind == "xd":
        return [(n, (n,), {}) for n in nodes] + [
            (f"float32,dtype={d}", ("float32",), {"dtype": dtype_object(d)}) for d in strong_dtypes
        ]
    if p.kind == "xyd":
        pairs = [(n, n) for n in sample] + [("bfloat16", "float32"), ("int8", "float32")]
        return [(f"{a},{b},dtype=None", (a, b), {"dtype": None}) for a, b in pairs] + [
            (f"{a},{b},dtype={d}", (a, b), {"dtype": dtype_object(d)}) for a, b in pairs for d in strong_dtypes
        ]
    if p.kind == "kd":
        return [(k, (k,), {}) for k in KEYS] + [
            (f"key<fry>,dtype={d}", ("key<fry>",), {"dtype": dtype_object(d)}) for d in strong_dtypes
        ]
    if p.kind == "k":
        return [(k, (k,), {}) for k in KEYS]
    assert p.kind == "n", p.kind
    return [("", (), {})]


def probe_all(x64: bool, only: set[str] | None = None) -> dict[str, dict[str, str]]:
    results: dict[str, dict[str, str]] = {}
    with jax.numpy_dtype_promotion("standard"), jax.enable_x64(x64):
        for name, p in PROBES.items():
            if only is not None and name not in only:
                continue
            row: dict[str, str] = {}
            for key, inputs, kwargs in probe_inputs(p, x64):
                args = tuple(abstract(n, p.shape, x64) for n in inputs)
                row[key] = run(p.call, args, kwargs)
            results[name] = row
    return results


def provenance() -> dict[str, Any]:
    return shared_provenance("tools/oracle/make_function_tables.py")


def selected(names: list[str], have: set[str]) -> set[str]:
    """The probes ``--only`` names: each function's probes (``jax.numpy.sum``
    is also ``jax.numpy.sum(dtype=)``), a probe by its own name, or ``new``:
    the probes the file lacks (``have`` holds those it has)."""
    out: set[str] = set()
    unknown: list[str] = []
    for name in names:
        found = set(PROBES) - have if name == "new" else {p for p in PROBES if name in (p, p.split("(")[0])}
        if not found and name != "new":
            unknown.append(name)
        out |= found
    if unknown:
        raise SystemExit(f"not probed (no kind in {TABLE.name}): {', '.join(unknown)}")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="NAME",
        help="re-probe only these functions (jax.lax.cummax; or a probe: jax.numpy.sum(dtype=); "
        "or 'new': the probes missing from the file) and merge them into the existing file",
    )
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    start = time.time()
    only: set[str] | None = None
    old: dict[str, Any] = {}
    if args.only:
        old = json.loads(OUT.read_text())
        only = selected(args.only, set(old["configs"][CONFIGS[0][0]]["results"]))
    names = only if only is not None else set(PROBES)
    total = sum(len(probe_inputs(PROBES[n], x64)) for n in names for _, x64 in CONFIGS)
    print(f"{len(names)} probes, {total} calls", flush=True)
    configs = {}
    for label, x64 in CONFIGS:
        results = probe_all(x64, only)
        if only is not None:
            # merged in place, new probes last: the file's diff is the probes run
            merged = dict(old["configs"][label]["results"])
            merged.update(results)
            results = {n: r for n, r in merged.items() if n in PROBES}
        configs[label] = {"x64": x64, "results": results}
        print(f"{label}: {time.time() - start:.0f} s", flush=True)
    seconds = round(time.time() - start)
    order = configs[CONFIGS[0][0]]["results"]
    data = {
        **provenance(),
        "seconds": seconds if only is None else old.get("seconds", seconds),
        "layout": LAYOUT,
        "probes": {n: {"kind": p.kind, "shape": list(p.shape), "full": p.full} for n in order for p in [PROBES[n]]},
        "configs": configs,
    }
    write(data)
    print(f"wrote {OUT} in {time.time() - start:.0f} s")


def write(data: dict[str, Any]) -> None:
    """One function per line keeps the file diffable and compact."""
    OUT.parent.mkdir(parents=True, exist_ok=True)
    lines = ["{"]
    for key, value in data.items():
        if key == "configs":
            lines.append(' "configs": {')
            for i, (label, conf) in enumerate(value.items()):
                lines.append(f'  {json.dumps(label)}: {{"x64": {json.dumps(conf["x64"])}, "results": {{')
                rows = [
                    f'   {json.dumps(n)}: {json.dumps(r, separators=(",", ":"))}' for n, r in conf["results"].items()
                ]
                lines.append(",\n".join(rows))
                lines.append("  }}" + ("," if i < len(value) - 1 else ""))
            lines.append(" },")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)},")
    lines[-1] = lines[-1].rstrip(",")
    lines.append("}")
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
