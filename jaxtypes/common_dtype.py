"""``promote_dtype``: cast arrays to their common dtype (Flax's helper; FLIP 1777,
"Default dtypes", https://github.com/google/flax/blob/main/docs/flip/1777-default-dtype.md).

Flax's ``promote_dtype`` (FLIP 1777's ``promote_arrays``) brings a layer's
inputs and parameters to one dtype before computing, so that a float64 or
complex input is not silently truncated to float32.  This version takes its
answers from ``jaxtypes.result_type`` (the shared lattice, the configuration
in force) and needs no JAX: arrays are cast with their own ``astype``, so
numpy and JAX arrays both work.  The mypy plugin types each element of the
result with the common dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jaxtypes import lattice
from jaxtypes.layer_rules import FLAX_INEXACT_FLOOR
from jaxtypes.promotion import dtype as _canonical_dtype
from jaxtypes.promotion import dtype_of_node, node_of, result_type

__all__ = ["promote_dtype"]


def _is_inexact(dt: np.dtype) -> bool:
    node = node_of(dt)
    return node is not None and lattice.kind(node) in "fc"


def promote_dtype(*args: Any, dtype: Any = None, inexact: bool = True) -> tuple[Any, ...]:
    """Cast every argument to one dtype; return them as a tuple, in order.

    * ``dtype=None``: the common dtype is ``jaxtypes.result_type`` of the
      arguments that are not None; with ``inexact=True`` (the default) an
      integer or bool result becomes float32, x64 or not (Flax's
      ``canonicalize_dtype`` promotes it with float32), so that layers
      compute in floating point.
    * ``dtype`` given: that dtype, canonicalized as JAX does (float64 is
      float32 with x64 off); with ``inexact=True`` it must be a floating or
      complex dtype (a ValueError otherwise, as in Flax).

    Arguments that are None stay None (an absent bias, say).  An argument with
    an ``astype`` method (numpy and JAX arrays) is cast with it; anything else
    (Python scalars, lists) becomes a numpy array of the dtype.  With no
    arguments to cast, the arguments come back unchanged.
    """
    if dtype is None:
        present = [x for x in args if x is not None]
        if not present:
            return tuple(args)
        target = result_type(*present)
        if inexact and not _is_inexact(target):
            target = dtype_of_node(FLAX_INEXACT_FLOOR)
    else:
        target = _canonical_dtype(dtype)
        if inexact and not _is_inexact(target):
            raise ValueError(f"Dtype must be inexact: {target} (pass inexact=False to cast to it)")
    return tuple(None if x is None else _cast(x, target) for x in args)


def _cast(x: Any, target: np.dtype) -> Any:
    # Always cast (even to the same dtype): a weakly typed JAX array comes back
    # strongly typed, as the types say.
    astype = getattr(x, "astype", None)
    if astype is not None:
        return astype(target)
    return np.asarray(x, dtype=target)
