"""Regenerate tools/data/jax_function_dtypes.json: the dtype each public JAX
function gives, as JAX 0.10.2 computes it, the oracle of tests/test_function_rules.py.

Run by hand, with the pinned JAX installed (the full run made about 122,000
``jax.eval_shape`` calls in 16 minutes of wall time on a shared 2-core machine
at load 6; ``--only`` re-probes a few functions in a minute or two)::

    nohup .venv/bin/python -m tools.oracle.make_function_tables &
    .venv/bin/python -m tools.oracle.make_function_tables --only new   # probes missing from the file

For every function of ``PROBES`` below and each of JAX's default configuration
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
alone.  The node names come from tools/oracle/lattice_facts.py, and which functions
are probed and how is written out below; tests/test_function_rules.py checks
that every function of jaxtypes.functions' table has data here.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import time
import warnings
from typing import Any, Callable, NamedTuple

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

from tools import DATA  # noqa: E402

OUT = DATA / "jax_function_dtypes.json"

# The 35 lattice nodes (tools/oracle/lattice_facts.py, shared with the other JAX
# oracle scripts).
from tools.oracle.provenance import provenance as shared_provenance  # noqa: E402
from tools.oracle.lattice_facts import BIT64, NODES  # noqa: E402
from tools.oracle.lattice_facts import STRONG_NODES as STRONG  # noqa: E402
from tools.oracle.lattice_facts import WEAK_NODES as WEAK  # noqa: E402

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


PROBES: dict[str, Probe] = {}


def add(
    kind: str,
    names: str,
    call: Callable[..., Callable[..., Any]] | None = None,
    shape: tuple[int, ...] = (3, 3),
    full: bool = False,
    prefix: str = "jax.numpy.",
    suffix: str = "",
) -> None:
    """Register probes: ``call(f)`` gives the callable taking the probed inputs;
    a suffix names a second probe of the same function (``sum(dtype=)``)."""
    for name in names.split():
        qual = prefix + name
        f = _fn(qual)
        PROBES[qual + suffix] = Probe(kind, call(f) if call else f, shape, full)


# ------------------------------------------------------------------ jax.numpy
add(
    "x",
    """abs absolute acos acosh angle arccos arccosh arcsin arcsinh arctan arctanh
    argmax argmin argsort around asin asinh atan atanh atleast_1d atleast_2d atleast_3d
    bitwise_count bitwise_invert bitwise_not cbrt ceil conj conjugate copy corrcoef cos cosh
    count_nonzero cov cumprod cumsum cumulative_prod cumulative_sum deg2rad degrees diag
    diagonal diff exp exp2 expm1 fabs fliplr flipud floor frexp i0 imag invert isfinite
    isinf isnan isneginf isposinf isreal iscomplex log log10 log1p log2 logical_not
    matrix_transpose max mean median min modf nan_to_num nanargmax nanargmin nancumprod
    nancumsum nanmax nanmean nanmedian nanmin nanprod nanstd nansum nanvar negative positive
    prod ptp rad2deg radians ravel real reciprocal rint round sign signbit sin sinc sinh
    sort spacing sqrt square squeeze std sum tan tanh trace transpose tril triu trunc var
    all any amax amin average ndim shape size isrealobj iscomplexobj isscalar
    argwhere flatnonzero nonzero unique unwrap sort_complex ediff1d gradient
    diagflat""",
    lambda f: lambda x: f(x),
)
add("x", "cumulative_sum cumulative_prod sort_complex gradient ediff1d", shape=(3,))
add("x", "argwhere flatnonzero nonzero unique", lambda f: lambda x: f(x, size=3))
add("x", "expand_dims", lambda f: lambda x: f(x, 0))
add("x", "reshape", lambda f: lambda x: f(x, (9,)))
add("x", "broadcast_to", lambda f: lambda x: f(x, (2, 3, 3)))
add("x", "take take_along_axis", lambda f: lambda x: f(x, jnp.zeros((3, 3), jnp.int32), axis=0))
add("x", "tile repeat", lambda f: lambda x: f(x, 2))
add(
    "x",
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
add("x", "split array_split hsplit vsplit", lambda f: lambda x: f(x, 3))
add("x", "unstack", lambda f: lambda x: f(x))
add("x", "permute_dims", lambda f: lambda x: f(x, (1, 0)))
add("x", "pad", lambda f: lambda x: f(x, 1))
add("x", "clip", lambda f: lambda x: f(x, 0, 1))
add("x", "percentile nanpercentile", lambda f: lambda x: f(x, 50.0))
add("x", "quantile nanquantile", lambda f: lambda x: f(x, 0.5))
add("x", "partition argpartition", lambda f: lambda x: f(x, 1))
add("x", "delete", lambda f: lambda x: f(x, 0, axis=0))
add("x", "insert", lambda f: lambda x: f(x, 0, 1, axis=0))
add("x", "compress", lambda f: lambda x: f(jnp.array([True, False, True]), x, axis=0, size=2))
add("x", "extract", lambda f: lambda x: f(jnp.ones((3, 3), bool), x, size=3))
add("x", "fill_diagonal", lambda f: lambda x: f(x, 0, inplace=False))
add("x", "put", lambda f: lambda x: f(x, jnp.array([0]), 0, inplace=False))
add("x", "put_along_axis", lambda f: lambda x: f(x, jnp.zeros((3, 1), jnp.int32), 0, axis=1, inplace=False))
add("x", "resize", lambda f: lambda x: f(x, (9,)))
add("x", "polyder polyint roots poly trim_zeros", shape=(3,))
add("x", "vander", shape=(3,))
add("x", "tril_indices_from triu_indices_from diag_indices_from")
add("x", "ldexp", lambda f: lambda x: f(x, 2))
add("x", "float_power", lambda f: lambda x: f(x, 2.0))
add("x", "histogram_bin_edges", lambda f: lambda x: f(x, 3))
add("x", "bincount", lambda f: lambda x: f(x, length=3), shape=(3,))
add("x", "packbits unpackbits")
add("x", "unique_values", lambda f: lambda x: f(x, size=3))
add("x", "piecewise", lambda f: lambda x: f(x, [x > 0], [lambda v: v, lambda v: v]))
add("x", "isin", lambda f: lambda x: f(x, jnp.arange(3)))
add("x", "nextafter", lambda f: lambda x: f(x, x))
add(
    "xy",
    """add subtract multiply divide true_divide floor_divide mod remainder fmod power pow
    maximum minimum fmax fmin arctan2 atan2 hypot copysign logaddexp logaddexp2 heaviside
    equal not_equal less less_equal greater greater_equal logical_and logical_or logical_xor
    bitwise_and bitwise_or bitwise_xor left_shift right_shift bitwise_left_shift
    bitwise_right_shift gcd lcm inner outer kron vdot vecdot matvec vecmat isclose allclose
    array_equal array_equiv append divmod nextafter""",
)
add("xy", "dot matmul", full=True)
add("xy", "tensordot", lambda f: lambda x, y: f(x, y, axes=1))
add("xy", "cross", lambda f: lambda x, y: f(x, y))
add("xy", "polyadd polysub polymul convolve correlate polyval polydiv", shape=(3,))
add("xy", "searchsorted digitize", shape=(3,))
add("xy", "einsum", lambda f: lambda x, y: f("ij,jk->ik", x, y), full=True)
add("xy", "concatenate stack", lambda f: lambda x, y: f([x, y]), full=True)
add("xy", "hstack vstack dstack column_stack concat", lambda f: lambda x, y: f([x, y]))
add("xy", "block", lambda f: lambda x, y: f([x, y]))
add("xy", "broadcast_arrays", lambda f: lambda x, y: f(x, y))
add("xy", "interp", lambda f: lambda x, y: f(x, jnp.arange(3.0), y), shape=(3,))
add("cxy", "where", full=True)
add("cxy", "select", lambda f: lambda c, x, y: f([c], [x], y))
add("d", "zeros ones empty", lambda f: lambda dtype: f((3,), dtype=dtype))
# full(shape, fill_value, dtype): the fill value is the input (a scalar: lax.full takes no other)
add("xd", "full", lambda f: lambda x, dtype=None: f(x.shape, x, dtype=dtype), shape=())
add("d", "eye identity tri", lambda f: lambda dtype: f(3, dtype=dtype))
add("d", "arange", lambda f: lambda dtype: f(3, dtype=dtype))
add("d", "linspace logspace geomspace", lambda f: lambda dtype: f(1, 3, 3, dtype=dtype))
add("d", "indices", lambda f: lambda dtype: f((3,), dtype=dtype))
add("d", "fromfunction", lambda f: lambda dtype: f(lambda i: i, (3,), dtype=dtype))
add("n", "bartlett blackman hamming hanning", lambda f: lambda: f(3))
add("n", "kaiser", lambda f: lambda: f(3, 1.0))
add(
    "n",
    "tril_indices triu_indices diag_indices mask_indices",
    lambda f: lambda: f(3) if f.__name__ != "mask_indices" else f(3, jnp.triu),
)
add("n", "broadcast_shapes", lambda f: lambda: f((3,), (3,)))
add("xd", "array asarray zeros_like ones_like empty_like")
# astype takes its dtype positionally only (dtype= is a TypeError), and None too.
add("xd", "astype", lambda f: lambda x, dtype=None: f(x, dtype))
add("xd", "full_like", lambda f: lambda x, dtype=None: f(x, 1, dtype=dtype))
add(
    "xd",
    "sum prod cumsum cumprod mean nansum nanprod nanmean var std nanvar nanstd trace",
    lambda f: lambda x, dtype=None: f(x, dtype=dtype),
    suffix="(dtype=)",
)
add(
    "x",
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
add("x", "unique_all unique_counts unique_inverse", lambda f: lambda x: f(x, size=3))
add("x", "unravel_index", lambda f: lambda x: f(x, (3, 3)))
add("x", "ravel_multi_index", lambda f: lambda x: f((x, x), (3, 3), mode="clip"), shape=(3,))
add("x", "iscomplexobj isrealobj isscalar ndim size shape")
add("xy", "intersect1d setdiff1d setxor1d union1d", lambda f: lambda x, y: f(x, y, size=3), shape=(3,))
add("xy", "polyfit", lambda f: lambda x, y: f(x, y, 1), shape=(3,))
add("xy", "histogram2d", lambda f: lambda x, y: f(x, y, bins=3), shape=(3,))
add("xy", "choose", lambda f: lambda x, y: f(jnp.zeros((3, 3), jnp.int32), [x, y], mode="clip"))
add("x", "array_repr array_str iterable")
add("xy", "einsum_path", lambda f: lambda x, y: f("ij,jk->ik", x, y))
add("n", "get_printoptions", lambda f: lambda: f())
add("x", "place", lambda f: lambda x: f(x, jnp.ones((3, 3), bool), 0, inplace=False))
add("x", "dsplit", lambda f: lambda x: f(x, 3), shape=(3, 3, 3))
add("x", "histogramdd", lambda f: lambda x: f(x, bins=3))
add(
    "n",
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
add(
    "x",
    """cholesky det eig eigh eigvals eigvalsh inv matrix_norm matrix_rank matrix_transpose
    norm pinv qr slogdet svd svdvals trace vector_norm diagonal""",
    prefix="jax.numpy.linalg.",
)
add("x", "matrix_power", lambda f: lambda x: f(x, 2), prefix="jax.numpy.linalg.")
add("x", "tensorinv", lambda f: lambda x: f(x, ind=1), prefix="jax.numpy.linalg.")
add("x", "cond", prefix="jax.numpy.linalg.")
add("xy", "solve lstsq matmul tensordot vecdot", prefix="jax.numpy.linalg.")
# preferred_element_type=, given as the probe's dtype (xyd)
add(
    "xyd",
    "dot matmul inner vdot vecdot",
    lambda f: lambda x, y, dtype=None: f(x, y, preferred_element_type=dtype),
    suffix="(preferred_element_type=)",
)
add(
    "xyd",
    "tensordot",
    lambda f: lambda x, y, dtype=None: f(x, y, axes=1, preferred_element_type=dtype),
    suffix="(preferred_element_type=)",
)
add(
    "xyd",
    "einsum",
    lambda f: lambda x, y, dtype=None: f("ij,jk->ik", x, y, preferred_element_type=dtype),
    suffix="(preferred_element_type=)",
)
add(
    "xyd",
    "convolve correlate",
    lambda f: lambda x, y, dtype=None: f(x, y, preferred_element_type=dtype),
    shape=(3,),
    suffix="(preferred_element_type=)",
)
add(
    "xyd",
    "matmul vecdot",
    lambda f: lambda x, y, dtype=None: f(x, y, preferred_element_type=dtype),
    prefix="jax.numpy.linalg.",
    suffix="(preferred_element_type=)",
)
add(
    "xyd",
    "tensordot",
    lambda f: lambda x, y, dtype=None: f(x, y, axes=1, preferred_element_type=dtype),
    prefix="jax.numpy.linalg.",
    suffix="(preferred_element_type=)",
)
add(
    "xyd",
    "dot_general",
    lambda f: lambda x, y, dtype=None: f(x, y, (((1,), (0,)), ((), ())), preferred_element_type=dtype),
    prefix="jax.lax.",
    suffix="(preferred_element_type=)",
)
add("xy", "outer", shape=(3,), prefix="jax.numpy.linalg.")
add("xy", "cross", shape=(3,), prefix="jax.numpy.linalg.")
add("xy", "multi_dot", lambda f: lambda x, y: f([x, y]), prefix="jax.numpy.linalg.")
# a.shape must be b.shape + Q with prod(Q) == prod(b.shape): (3, 3) and (3,)
add("xy", "tensorsolve", lambda f: lambda x, y: f(x, y[0]), prefix="jax.numpy.linalg.")
add(
    "x",
    """fft fft2 fftn ifft ifft2 ifftn rfft rfft2 rfftn irfft irfft2 irfftn hfft ihfft
    fftshift ifftshift""",
    prefix="jax.numpy.fft.",
)
add("d", "fftfreq rfftfreq", lambda f: lambda dtype: f(4, dtype=dtype), prefix="jax.numpy.fft.")

# -------------------------------------------------------------------- jax.nn
add(
    "x",
    """celu elu gelu hard_sigmoid hard_silu hard_swish hard_tanh identity leaky_relu
    log1mexp log_sigmoid log_softmax logmeanexp logsumexp mish relu relu6 selu sigmoid silu
    soft_sign softmax softplus sparse_plus sparse_sigmoid squareplus standardize swish tanh""",
    prefix="jax.nn.",
)
add("x", "glu", shape=(3, 4), prefix="jax.nn.")
add(
    "xd",
    "one_hot",
    lambda f: lambda x, dtype=None: f(x, 3) if dtype is None else f(x, 3, dtype=dtype),
    shape=(3,),
    prefix="jax.nn.",
)
add("xy", "dot_product_attention", lambda f: lambda q, k: f(q, k, k), shape=(1, 2, 1, 4), prefix="jax.nn.")

# ---------------------------------------------------------------- jax.random
add("n", "PRNGKey key", lambda f: lambda: f(0), prefix="jax.random.")
add("k", "split clone key_data", prefix="jax.random.")
add("k", "fold_in", lambda f: lambda k: f(k, 1), prefix="jax.random.")
add(
    "kd",
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
add(
    "kd",
    "rayleigh",
    lambda f: lambda k, dtype=None: f(k, 1.0, (3,), **({"dtype": dtype} if dtype else {})),
    prefix="jax.random.",
)
add(
    "kd",
    "double_sided_maxwell",
    lambda f: lambda k, dtype=None: f(k, 0.0, 1.0, (3,), **({"dtype": dtype} if dtype else {})),
    prefix="jax.random.",
)
add(
    "kd",
    "truncated_normal",
    lambda f: lambda k, dtype=None: f(k, -1.0, 1.0, (3,), dtype=dtype) if dtype else f(k, -1.0, 1.0, (3,)),
    prefix="jax.random.",
)
add(
    "kd",
    "randint",
    lambda f: lambda k, dtype=None: f(k, (3,), 0, 5, dtype=dtype) if dtype else f(k, (3,), 0, 5),
    prefix="jax.random.",
)
add(
    "kd", "bits", lambda f: lambda k, dtype=None: f(k, (3,), dtype=dtype) if dtype else f(k, (3,)), prefix="jax.random."
)
add(
    "kd",
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
add(
    "kd",
    "f binomial",
    lambda f: lambda k, dtype=None: f(k, 2.0, 3.0, shape=(3,), **({"dtype": dtype} if dtype else {})),
    prefix="jax.random.",
)
add(
    "kd",
    "triangular",
    lambda f: lambda k, dtype=None: f(k, 0.0, 1.0, 2.0, shape=(3,), **({"dtype": dtype} if dtype else {})),
    prefix="jax.random.",
)
add("kd", "bernoulli", lambda f: lambda k, dtype=None: f(k, 0.5, (3,)), prefix="jax.random.")
add(
    "kd",
    "lognormal",
    lambda f: lambda k, dtype=None: f(k, shape=(3,), **({"dtype": dtype} if dtype else {})),
    prefix="jax.random.",
)
add("kd", "categorical", lambda f: lambda k, dtype=None: f(k, jnp.zeros((3,))), prefix="jax.random.")
add(
    "kd",
    "dirichlet",
    lambda f: lambda k, dtype=None: f(k, jnp.ones((3,)), **({"dtype": dtype} if dtype else {})),
    prefix="jax.random.",
)
add(
    "kd",
    "multivariate_normal",
    lambda f: lambda k, dtype=None: f(k, jnp.zeros((2,)), jnp.eye(2), **({"dtype": dtype} if dtype else {})),
    prefix="jax.random.",
)
add(
    "kd",
    "multinomial",
    lambda f: lambda k, dtype=None: f(k, 3, jnp.ones((3,)) / 3, **({"dtype": dtype} if dtype else {})),
    prefix="jax.random.",
)
add("k", "key_impl wrap_key_data", prefix="jax.random.")
add("n", "key_dtype", lambda f: lambda: f(), prefix="jax.random.")  # (impl=None): no key
add("x", "choice permutation", lambda f: lambda x: f(jax.random.key(0), x), prefix="jax.random.")

# ------------------------------------------------------------------- jax.lax
add(
    "x",
    """abs acos acosh asin asinh atan atanh bessel_i0e bessel_i1e cbrt ceil clz conj cos
    cosh digamma erf erf_inv erfc exp exp2 expm1 floor imag is_finite lgamma log log1p
    logistic neg population_count real reciprocal round rsqrt sign sin sinh sqrt square tan
    tanh stop_gradient bitwise_not""",
    prefix="jax.lax.",
)
add(
    "xy",
    """add sub mul div rem pow max min atan2 nextafter bitwise_and bitwise_or bitwise_xor
    shift_left shift_right_arithmetic shift_right_logical eq ne lt le gt ge complex igamma
    igammac polygamma zeta mulhi""",
    prefix="jax.lax.",
)
add("xy", "dot", prefix="jax.lax.")
add("xy", "dot_general", lambda f: lambda x, y: f(x, y, (((1,), (0,)), ((), ()))), prefix="jax.lax.")
add("xy", "concatenate", lambda f: lambda x, y: f([x, y], 0), prefix="jax.lax.")
add("xy", "dynamic_update_slice", lambda f: lambda x, y: f(x, y, (0, 0)), prefix="jax.lax.")
add("xy", "dynamic_update_slice_in_dim", lambda f: lambda x, y: f(x, y, 0, 0), prefix="jax.lax.")
add("cxy", "select", prefix="jax.lax.")
add("cxy", "clamp", prefix="jax.lax.")
add("x", "integer_pow", lambda f: lambda x: f(x, 2), prefix="jax.lax.")
add(
    "x",
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
add("x", "reshape", lambda f: lambda x: f(x, (9,)), prefix="jax.lax.")
add(
    "x",
    "transpose rev",
    lambda f: lambda x: f(x, (1, 0)) if f.__name__ == "transpose" else f(x, (0,)),
    prefix="jax.lax.",
)
add("x", "broadcast", lambda f: lambda x: f(x, (2,)), prefix="jax.lax.")
add("x", "broadcast_in_dim", lambda f: lambda x: f(x, (2, 3, 3), (1, 2)), prefix="jax.lax.")
add("x", "expand_dims", lambda f: lambda x: f(x, (0,)), prefix="jax.lax.")
add("x", "squeeze", lambda f: lambda x: f(x[None], (0,)), prefix="jax.lax.")
add("x", "slice", lambda f: lambda x: f(x, (0, 0), (2, 2)), prefix="jax.lax.")
add("x", "dynamic_slice", lambda f: lambda x: f(x, (0, 0), (2, 2)), prefix="jax.lax.")
add("x", "slice_in_dim dynamic_slice_in_dim", lambda f: lambda x: f(x, 0, 2), prefix="jax.lax.")
add("x", "index_in_dim dynamic_index_in_dim", lambda f: lambda x: f(x, 0), prefix="jax.lax.")
add("x", "pad", lambda f: lambda x: f(x, jnp.zeros((), x.dtype), ((1, 1, 0), (0, 0, 0))), prefix="jax.lax.")
add("x", "sort", prefix="jax.lax.")
add("x", "top_k", lambda f: lambda x: f(x, 2), prefix="jax.lax.")
add("x", "reduce_precision", lambda f: lambda x: f(x, 5, 10), prefix="jax.lax.")
add("x", "tile", lambda f: lambda x: f(x, (2, 1)), prefix="jax.lax.")
add("xd", "convert_element_type", lambda f: lambda x, dtype=None: f(x, dtype or jnp.float32), prefix="jax.lax.")
add("xd", "full_like", lambda f: lambda x, dtype=None: f(x, 1, dtype), prefix="jax.lax.")
add("xd", "bitcast_convert_type", lambda f: lambda x, dtype=None: f(x, dtype or x.dtype), prefix="jax.lax.")
add("x", "optimization_barrier", prefix="jax.lax.")
add("x", "split", lambda f: lambda x: f(x, (1, 2)), prefix="jax.lax.")
add("x", "approx_max_k approx_min_k", lambda f: lambda x: f(x, 2), prefix="jax.lax.")
add("x", "broadcast_to_rank", lambda f: lambda x: f(x, 3), prefix="jax.lax.")
add("xy", "batch_matmul", prefix="jax.lax.")
add("xy", "sort_key_val", prefix="jax.lax.")
add("cxy", "select_n", lambda f: lambda c, x, y: f(c, x, y), prefix="jax.lax.")
add("x", "fft", lambda f: lambda x: f(x, "FFT", (3,)), prefix="jax.lax.")
add("x", "dtype", prefix="jax.lax.")
add(
    "xy",
    "conv conv_with_general_padding",
    lambda f: lambda x, y: f(x, y, (1, 1), "SAME") if f.__name__ == "conv" else f(x, y, (1, 1), "SAME", None, None),
    shape=(1, 1, 3, 3),
    prefix="jax.lax.",
)
add("xy", "conv_general_dilated", lambda f: lambda x, y: f(x, y, (1, 1), "SAME"), shape=(1, 1, 3, 3), prefix="jax.lax.")
add(
    "xy",
    "conv_transpose",
    lambda f: lambda x, y: f(x, y, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW")),
    shape=(1, 1, 3, 3),
    prefix="jax.lax.",
)
add("x", "collapse", lambda f: lambda x: f(x, 0), prefix="jax.lax.")
add("x", "unstack", prefix="jax.lax.")
add("xy", "broadcast_like", prefix="jax.lax.")
add("xy", "stack", lambda f: lambda x, y: f([x, y]), prefix="jax.lax.")
add("d", "empty", lambda f: lambda dtype: f((3,), dtype or jnp.float32), prefix="jax.lax.")
add("xd", "full", lambda f: lambda x, dtype=None: f(x.shape, x, dtype), shape=(), prefix="jax.lax.")
add(
    "d",
    "iota broadcasted_iota",
    lambda f: lambda dtype: f(dtype or jnp.int32, 3) if f.__name__ == "iota" else f(dtype or jnp.int32, (3,), 0),
    prefix="jax.lax.",
)


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="NAME",
        help="re-probe these probes only (or 'new': those missing from the file) and merge them into the existing file",
    )
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    start = time.time()
    only: set[str] | None = None
    old: dict[str, Any] = {}
    if args.only:
        old = json.loads(OUT.read_text())
        have = set(old["configs"][CONFIGS[0][0]]["results"])
        only = set(PROBES) - have if args.only == ["new"] else set(args.only)
        unknown = only - set(PROBES)
        if unknown:
            parser.error(f"not a probe: {', '.join(sorted(unknown))}")
    names = only if only is not None else set(PROBES)
    total = sum(len(probe_inputs(PROBES[n], x64)) for n in names for _, x64 in CONFIGS)
    print(f"{len(names)} probes, {total} calls", flush=True)
    configs = {}
    for label, x64 in CONFIGS:
        results = probe_all(x64, only)
        if only is not None:
            merged = dict(old["configs"][label]["results"])
            merged.update(results)
            results = {n: merged[n] for n in PROBES if n in merged}
        configs[label] = {"x64": x64, "results": results}
        print(f"{label}: {time.time() - start:.0f} s", flush=True)
    seconds = round(time.time() - start)
    data = {
        **provenance(),
        "seconds": seconds if only is None else old.get("seconds", seconds),
        "layout": LAYOUT,
        "probes": {n: {"kind": p.kind, "shape": list(p.shape), "full": p.full} for n, p in PROBES.items()},
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
