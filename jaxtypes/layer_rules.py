"""The dtype a Flax or Equinox layer returns, from the shared lattice.

Flax's rule is FLIP 1777, "Default dtypes"
(https://flax.readthedocs.io/en/latest/flip/1777-default-dtype.html): a
layer given ``dtype`` computes and returns that dtype; without it, the
promotion (``jnp.result_type``) of its input and its parameters, whose dtype
is ``param_dtype`` (float32 by default), made inexact (an integer or bool
result becomes float32: Flax's ``canonicalize_dtype``).  Equinox has one
``dtype``, its parameters' (the default float: float32, float64 with x64 on),
and computes with JAX's operators, so a layer returns what its operations
promote to (``eqx.nn.Linear`` is ``weight @ x + bias``), and a convolution
needs its input in its parameters' dtype.

``RULES`` maps a layer (its class's qualified name; a method other than the
call after it: ``flax.linen.Embed.attend``) to a ``LayerRule``;
``result(name, input, v, dtype=..., param_dtype=...)`` gives its output's
marker node or the error.  Nodes are lattice node names; ``dtype`` and
``param_dtype`` are strong nodes or None (left out).  Each rule is checked
against what the layers return when run (tests/test_layer_rules.py, whose
truth tools/oracle/make_layer_tables.py records from flax and equinox).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, NamedTuple

from jaxtypes import lattice
from jaxtypes.lattice import Variant
from jaxtypes.operation_rules import Outcome, no_join, unsupported

__all__ = ["LayerRule", "RULES", "EQX_CONVOLUTIONS", "FLAX_PARAM_DTYPE", "FLAX_INEXACT_FLOOR", "FAMILIES", "result"]

FAMILIES: Final = (
    "flax",
    "flax_norm",
    "flax_float32_stats",
    "flax_embed",
    "float_keeps",
    "join",
    "same",
    "param",
    "keeps",
    "to_float",
    "pool",
    "average",
    "window_average",
)

# Flax's default param_dtype (every layer's signature: ``param_dtype = jnp.float32``).
FLAX_PARAM_DTYPE: Final = "float32"
# What Flax's canonicalize_dtype promotes a bool or integer dtype with,
# jnp.promote_types(jnp.float32, dtype): float32 for all of them, x64 or not.
FLAX_INEXACT_FLOOR: Final = "float32"


class LayerRule(NamedTuple):
    """How a layer's output dtype follows from its input's, its ``dtype`` and
    its parameters' dtype.

    Families: ``flax``, FLIP 1777's rule; ``flax_norm``, the same, but the
    input must promote with float32 whatever ``dtype`` is (Linen's
    normalizations compute their statistics in at least float32);
    ``flax_float32_stats``, the same
    with float32 joined in (NNX's BatchNorm normalizes with batch statistics
    computed in at least float32); ``flax_embed``, an embedding lookup (the
    dtype, else the parameters', not made inexact; NNX's ``Embed`` also
    casts the query of ``attend`` to it); ``float_keeps``, Flax's
    Dropout (a float input keeps its dtype, an integer one is refused);
    ``join``, JAX's promotion of input and parameters (Equinox's linear
    layers); ``same``, input and parameters must have one dtype (Equinox's
    convolutions); ``param``, the parameters' dtype (Equinox's embedding);
    ``keeps``, the input's dtype (Equinox's normalizations); ``to_float``, a
    float keeps its dtype, an integer or bool becomes the default float
    (Equinox's Dropout when it drops: in inference mode it returns its input
    as it is); ``pool``, the input's dtype (Flax's ``max_pool``,
    ``min_pool``); ``average``, as ``to_float`` but refusing bool (Flax's
    ``avg_pool``: a sum divided by the window's size, a NumPy int, which
    strict promotion refuses beside any other dtype than its own; an integer
    sum becomes the default float); ``window_average``, Equinox's average
    pooling (bool refused; a 1- or 2-bit integer kept; any other integer
    float32, a 64-bit one float64; a float or complex kept, in every
    configuration).  ``param_default``: the parameters' dtype when none
    is given: a node, or ``f`` for the default float (float64 with x64 on).
    ``inexact``: a ``dtype`` given must be a float or complex one (Flax's
    ``promote_dtype(..., inexact=True)``; an embedding lookup takes any).
    ``dtype_with_float32``: a ``dtype`` given must promote with float32 (the
    normalizations, and NNX's attention, mix in float32 statistics), so a
    small float refuses.  ``real_statistics``: the input is mixed with
    statistics of its real dtype (a complex input's variance is real:
    Equinox's LayerNorm and GroupNorm), which strict promotion refuses.
    ``strict_statistics``: how the layer, under strict promotion, mixes its
    input and parameters with statistics it computes in float32 (Flax's
    normalizations and NNX's attention), where any other dtype beside float32
    raises; None: it does not.  ``"all"`` (Linen's normalizations): the
    input, the parameters and a ``dtype`` given must all be float32 (a
    ``dtype=jnp.float64`` too with x64 off, where the arrays are float32);
    ``"dtype"`` (NNX's normalizations): ``dtype=jnp.float32`` decides,
    whatever the input and parameters, and without a dtype both must be
    float32; ``"canonical_dtype"`` (NNX's attention): the same, with a
    ``dtype`` of float64 counted as float32 where x64 is off.  Found by
    running each layer over every input, dtype and param_dtype (the table of
    tools/oracle/make_layer_tables.py); the answer is then float32."""

    family: str  # one of FAMILIES
    param_default: str = FLAX_PARAM_DTYPE
    inexact: bool = True
    dtype_with_float32: bool = False
    real_statistics: bool = False
    strict_statistics: str | None = None  # one of STRICT_STATISTICS


# Layers of several input arrays, each projected by the layer's parameters
# (attention: query, key and value): how many, in order.  An
# answer holds when every input alone gives it (JAX's promotion is a join).
INPUTS: Final[Mapping[str, int]] = {
    "equinox.nn.MultiheadAttention": 3,
    "flax.linen.MultiHeadDotProductAttention": 3,  # inputs_q, inputs_k, inputs_v (the last two default to the first)
    "flax.nnx.MultiHeadAttention": 3,
}

STRICT_STATISTICS: Final = ("all", "dtype", "canonical_dtype")
_FLAX = LayerRule("flax")
_EQX = "f"
EQX_CONVOLUTIONS: Final = tuple(f"{conv}{n}d" for conv in ("Conv", "ConvTranspose") for n in (1, 2, 3))

RULES: Final[Mapping[str, LayerRule]] = {
    **{
        f"flax.linen.{name}": _FLAX
        for name in (
            "Dense",
            "DenseGeneral",
            "Einsum",
            "Conv",
            "ConvTranspose",
            "Embed.attend",
            "MultiHeadDotProductAttention",
        )
    },
    **{
        f"flax.linen.{name}": LayerRule("flax_norm", dtype_with_float32=True, strict_statistics="all")
        for name in ("LayerNorm", "RMSNorm", "GroupNorm", "BatchNorm")
    },
    "flax.linen.Embed": LayerRule("flax_embed", inexact=False),
    "flax.linen.Dropout": LayerRule("float_keeps"),
    "flax.linen.dtypes.promote_dtype": _FLAX,
    # Flax's pooling functions: a max or min keeps the input's dtype, an
    # average divides by the window's size (a Python int).
    "flax.linen.pooling.avg_pool": LayerRule("average", _EQX),
    "flax.linen.pooling.max_pool": LayerRule("pool"),
    "flax.linen.pooling.min_pool": LayerRule("pool"),
    **{f"flax.nnx.{name}": _FLAX for name in ("Linear", "LinearGeneral", "Einsum", "Conv", "ConvTranspose")},
    **{
        f"flax.nnx.{name}": LayerRule("flax", dtype_with_float32=True, strict_statistics="dtype")
        for name in ("LayerNorm", "RMSNorm", "GroupNorm")
    },
    "flax.nnx.MultiHeadAttention": LayerRule("flax", dtype_with_float32=True, strict_statistics="canonical_dtype"),
    "flax.nnx.BatchNorm": LayerRule("flax_float32_stats", dtype_with_float32=True, strict_statistics="dtype"),
    "flax.nnx.Embed": LayerRule("flax_embed", inexact=False),
    "flax.nnx.Embed.attend": LayerRule("flax_embed"),
    "flax.nnx.Dropout": LayerRule("float_keeps"),
    "flax.nnx.nn.dtypes.promote_dtype": _FLAX,
    **{f"equinox.nn.{name}": LayerRule("join", _EQX) for name in ("Linear", "MultiheadAttention", "MLP")},
    **{f"equinox.nn.{name}": LayerRule("same", _EQX) for name in EQX_CONVOLUTIONS},
    # Equinox's max pooling keeps the input's dtype; its average pooling
    # keeps a float's and makes most integers float ("window_average").
    **{f"equinox.nn.MaxPool{n}d": LayerRule("pool") for n in (1, 2, 3)},
    **{f"equinox.nn.AvgPool{n}d": LayerRule("window_average") for n in (1, 2, 3)},
    "equinox.nn.Embedding": LayerRule("param", _EQX),
    **{f"equinox.nn.{name}": LayerRule("keeps", _EQX, real_statistics=True) for name in ("LayerNorm", "GroupNorm")},
    "equinox.nn.RMSNorm": LayerRule("keeps", _EQX),
    "equinox.nn.Dropout": LayerRule("to_float", _EQX),
}


_REAL_OF_COMPLEX: Final = {"complex64": "float32", "complex128": "float64"}


# Equinox's average pooling keeps these integers as they are (the data of
# tools/oracle/make_layer_tables.py), and makes any other one float.
_ONE_OR_TWO_BITS: Final = ("int1", "uint1", "int2", "uint2")


def _join(nodes: tuple[str, ...], v: Variant) -> Outcome:
    """The promotion of strong nodes as JAX computes it (canonicalized), or
    the promotion error."""
    joined = lattice.join_all(dict.fromkeys(nodes), v)
    if joined is None:
        return no_join(nodes, v)
    return Outcome(lattice.canonicalize(joined, v.x64))


def _inexact(out: Outcome) -> Outcome:
    if out.node is not None and lattice.kind(out.node) in "biu":
        return Outcome(FLAX_INEXACT_FLOOR)
    return out


def result(
    name: str, input_node: str, v: Variant, *, dtype: str | None = None, param_dtype: str | None = None
) -> Outcome:
    """The output marker node of layer ``name`` called on an array of
    ``input_node`` (a strong node), or the error the layer raises."""
    try:
        rule = RULES[name]
    except KeyError:
        raise ValueError(f"no dtype rule for layer {name!r}; the layers with one: {', '.join(sorted(RULES))}") from None
    out = _result(rule, input_node, v, dtype, param_dtype)
    if v.mode == "strict" and rule.strict_statistics is not None and out.node is not None:
        return _with_float32_statistics(rule.strict_statistics, input_node, v, dtype, param_dtype)
    return out


def _with_float32_statistics(
    how: str, input_node: str, v: Variant, dtype: str | None, param_dtype: str | None
) -> Outcome:
    """Under strict promotion, a layer whose statistics are float32
    (``LayerRule.strict_statistics``): float32, or the promotion error."""
    f32 = "float32"
    input_node = lattice.canonicalize(input_node, v.x64)
    param = lattice.canonicalize(param_dtype or FLAX_PARAM_DTYPE, v.x64)
    given = lattice.canonicalize(dtype, v.x64) if dtype is not None and how == "canonical_dtype" else dtype
    if given == f32 and how != "all":
        return Outcome(f32)
    if given in (None, f32) and input_node == f32 and param == f32:
        return Outcome(f32)
    others = tuple(dict.fromkeys(n for n in (input_node, param, given) if n is not None and n != f32))
    return no_join((*others, f32), v)


def _result(rule: LayerRule, input_node: str, v: Variant, dtype: str | None, param_dtype: str | None) -> Outcome:
    for what, node in (("input", input_node), ("dtype", dtype), ("param_dtype", param_dtype)):
        if node is not None and node not in lattice.STRONG:
            raise ValueError(f"{what} {node!r} is not a strong lattice node; allowed: {', '.join(lattice.STRONG)}")
    default = lattice.default_dtype("f", v.x64) if rule.param_default == "f" else rule.param_default
    param = lattice.canonicalize(param_dtype or default, v.x64)
    family = rule.family
    if family == "flax_norm":
        stats = _join((input_node, "float32"), v)
        if stats.node is None:
            return stats
        family = "flax"
    if family in ("flax", "flax_float32_stats", "flax_embed") and dtype is not None:
        out = lattice.canonicalize(dtype, v.x64)
        if rule.inexact and lattice.kind(out) not in "fc":
            return unsupported("this layer (Flax's dtype must be inexact)", out)
        if rule.dtype_with_float32:
            mixed = _join((out, "float32"), v)
            if mixed.node is None:
                return mixed
        return Outcome(out)
    if family == "flax":
        return _inexact(_join((input_node, param), v))
    if family == "flax_float32_stats":
        return _inexact(_join((input_node, "float32", param), v))
    if family in ("flax_embed", "param"):
        return Outcome(param)
    if family == "join":
        return _join((input_node, param), v)
    if family == "same":
        if input_node != param:
            return unsupported(f"this layer with {param} parameters", input_node)
        return Outcome(param)
    if family == "float_keeps":
        if lattice.kind(input_node) not in "fc":
            return unsupported("this layer", input_node)
        return Outcome(input_node)
    if family == "pool":
        return Outcome(input_node)
    if family == "window_average":
        if input_node == lattice.BOOL:
            return unsupported("this layer", input_node)
        if lattice.kind(input_node) in "iu" and input_node not in _ONE_OR_TWO_BITS:
            return Outcome("float64" if lattice.bits(input_node) == 64 else "float32")
        return Outcome(input_node)
    if family == "average" and input_node == lattice.BOOL:
        return unsupported("this function", input_node)
    if family == "average" and v.mode == "strict":
        divisor = lattice.canonicalize("int64", v.x64)  # (the window's size, a NumPy int)
        return Outcome(default) if input_node == divisor else no_join((input_node, divisor), v)
    if input_node in lattice.INTN or (
        lattice.kind(input_node) == "f" and input_node in lattice.SMALL_FLOATS and family == "keeps"
    ):
        return no_join((input_node, param), v)
    if family == "average" and lattice.kind(input_node) in "biu":
        return Outcome(default)  # (an integer sum divided by an integer)
    if family == "to_float" and lattice.kind(input_node) in "biu":
        # x / q, q a Python float: strict promotion refuses an integer x.
        return no_join((input_node, lattice.WEAK_FLOAT), v) if v.mode == "strict" else Outcome(default)
    if rule.real_statistics and lattice.kind(input_node) == "c":
        mixed = _join((input_node, _REAL_OF_COMPLEX[input_node]), v)
        if mixed.node is None:
            return mixed
    return Outcome(input_node)
