"""Regenerate tools/data/jax_expectations.json: what JAX really produces.

Run by hand, with the pinned JAX installed (``pip install -e .[test]``)::

    python -m tools.oracle.make_expectations            # 2 worker processes
    python -m tools.oracle.make_expectations --jobs 1   # in-process

For each of the four configurations (promotion ``standard``/``strict`` x
``jax_enable_x64`` on/off; JAX's default is ``standard-x32``) it evaluates, on
tiny concrete arrays and eagerly (no jit), and records the result's dtype as a
lattice node name plus its ``weak_type`` flag, or the exception raised:

* every binary operator ``+ - * / // % ** @ & | ^ << >>`` and comparison
  ``== != < <= > >=`` for every ordered pair of operands (the 35 markers and
  the weakly typed arrays of the other width, below);
* the same operators with a Python scalar (True, 1, 1.0, 1j) on either side;
* the same operators with a NumPy scalar (``np.float32(1)``) or 1-d NumPy
  array (``np.ones(2, np.float32)``) of each dtype numpy defines on either side;
* ``jax.numpy.result_type`` of every pair (marker x marker, marker x scalar),
  with JAX's weak-type flag: the promotion-level answer;
* unary operators and array methods/attributes for every marker.

A strong marker is ``jnp.ones((2,), dtype)`` (falling back to
``jax.device_put(np.ones(2, dtype))`` where ``jnp.ones`` cannot be lowered);
a weak marker is a 1-D weakly typed array, ``jnp.broadcast_to(jnp.asarray(v),
(2,))`` for v in 1, 1.0, 1j (its ``weak_type`` is checked), so ``@`` and
``x[0]`` behave as for the strong markers.  The arrays are built afresh in each
configuration.  With x64 off JAX makes no 64-bit array, but one made while x64
was on keeps its dtype: the 64-bit markers (int64, uint64, float64, complex128)
are built with x64 on and then used with it off.  A weakly typed array has the
default width of the configuration it was made in, so each configuration also
has the weak arrays of the other width as extra operands (``weak_int64``,
``weak_float64``, ``weak_complex128`` with x64 off, made with it on;
``weak_int32``, ``weak_float32``, ``weak_complex64`` with x64 on, made with it
off), typed by the weak markers.  ``configs[c]['operands']`` records what
each operand really is.

``--update`` keeps the cells of the existing data whose operands are built as
before (same dtype, weak flag and construction) and evaluates only the cases
it lacks (new operations) and those of new or changed operands; the summary
and error table are derived afresh.

Where a case raises at run time, ``jax.eval_shape`` on the same function is
also tried and recorded under ``abstract`` when its answer differs (for
instance the float6 markers, which the CPU runtime cannot hold at all, still
trace).  The output layout is described by the ``layout`` key of the JSON.

This script deliberately does not import jaxtypes, not even jaxtypes.lattice:
the data must come from JAX alone.  The node names come from
tools/oracle/lattice_facts.py (written out, shared by the oracle scripts); the marker
names are written out below, after jaxtypes.markers.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import operator
import os
import pathlib
import re
import tempfile
import time
import warnings
from typing import Any, Callable

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # XLA's C++ error logs

import jax
import jax.numpy as jnp
import jaxlib
import ml_dtypes
import numpy as np
from jax._src import dtypes as jax_dtypes

ROOT = pathlib.Path(__file__).resolve().parent.parent
from tools import DATA  # noqa: E402

OUT = DATA / "jax_expectations.json"

# The lattice nodes (tools/oracle/lattice_facts.py, shared with the other JAX oracle
# scripts), and the 35 markers (jaxtypes.markers) naming them, in
# jaxtypes.lattice.NODES order.
# The 64-bit dtypes: with x64 off JAX makes no such array, but one made while
# x64 was on keeps its dtype, so with x64 off the marker stands for that array.
from tools.oracle.lattice_facts import BIT64 as X64_ONLY  # noqa: E402
from tools.oracle.lattice_facts import STRONG_NODES  # noqa: E402
from tools.oracle.provenance import provenance as shared_provenance  # noqa: E402

WEAK_MARKERS = {"weak_int": ("i*", 1), "weak_float": ("f*", 1.0), "weak_complex": ("c*", 1j)}
MARKERS: dict[str, str] = {
    **{("bool_" if n == "bool" else n): n for n in STRONG_NODES},
    **{m: node for m, (node, _) in WEAK_MARKERS.items()},
}
MARKER_ORDER = tuple(MARKERS)
# A weakly typed array has its kind's default width of the configuration it was
# made in; one made in the other setting of x64 keeps its width.  These extra
# operands are those arrays (named by their dtype), typed by the weak markers.
OTHER_WIDTH_WEAK = {  # x64 of the configuration -> {operand: (marker, made with x64)}
    False: {
        "weak_int64": ("weak_int", True),
        "weak_float64": ("weak_float", True),
        "weak_complex128": ("weak_complex", True),
    },
    True: {
        "weak_int32": ("weak_int", False),
        "weak_float32": ("weak_float", False),
        "weak_complex64": ("weak_complex", False),
    },
}
OPERAND_MARKERS: dict[str, str] = {  # every operand name -> the marker typing it
    **{m: m for m in MARKER_ORDER},
    **{o: m for extra in OTHER_WIDTH_WEAK.values() for o, (m, _) in extra.items()},
}

CONFIGS = (  # label (jaxtypes.lattice.Variant.label), promotion mode, x64
    ("standard-x32", "standard", False),
    ("standard-x64", "standard", True),
    ("strict-x32", "strict", False),
    ("strict-x64", "strict", True),
)
DEFAULT_CONFIG = "standard-x32"

BINARY_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "@": operator.matmul,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
SCALARS: dict[str, Any] = {"True": True, "1": 1, "1.0": 1.0, "1j": 1j}
# NumPy operands of each dtype numpy defines: a scalar (strongly typed, 0-d)
# and a 1-d array; the key is how a case file writes it.
NUMPY_DTYPES = (
    "bool_",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)
NUMPY_OPERANDS: dict[str, tuple[str, str, Any]] = {  # key -> (kind, dtype name, value)
    **{
        f"np.{d}({'True' if d == 'bool_' else 1})": (
            "scalar",
            np.dtype(d).name,
            getattr(np, d)(True if d == "bool_" else 1),
        )
        for d in NUMPY_DTYPES
    },
    **{f"np.ones(2, np.{d})": ("array", np.dtype(d).name, np.ones(2, getattr(np, d))) for d in NUMPY_DTYPES},
}

# Unary operators, methods and attributes; the key is the expression.
UNARY_OPS: dict[str, Callable[[Any], Any]] = {
    "-x": operator.neg,
    "+x": operator.pos,
    "abs(x)": abs,
    "~x": operator.invert,
    "x.sum()": lambda x: x.sum(),
    "x.prod()": lambda x: x.prod(),
    "x.sum(promote_integers=False)": lambda x: x.sum(promote_integers=False),
    "x.prod(promote_integers=False)": lambda x: x.prod(promote_integers=False),
    "x.mean()": lambda x: x.mean(),
    "x.var()": lambda x: x.var(),
    "x.std()": lambda x: x.std(),
    "x.max()": lambda x: x.max(),
    "x.min()": lambda x: x.min(),
    "x.argmax()": lambda x: x.argmax(),
    "x.argmin()": lambda x: x.argmin(),
    "x.all()": lambda x: x.all(),
    "x.any()": lambda x: x.any(),
    "x.cumsum()": lambda x: x.cumsum(),
    "x.cumprod()": lambda x: x.cumprod(),
    "x.clip()": lambda x: x.clip(),
    "x.clip(0, 1)": lambda x: x.clip(0, 1),
    "x.clip(0.0, 1.0)": lambda x: x.clip(0.0, 1.0),
    "x.round()": lambda x: x.round(),
    "x.conj()": lambda x: x.conj(),
    "x.real": lambda x: x.real,
    "x.imag": lambda x: x.imag,
    "x.T": lambda x: x.T,
    "x.reshape(-1)": lambda x: x.reshape(-1),
    "x.ravel()": lambda x: x.ravel(),
    "x.transpose()": lambda x: x.transpose(),
    "x.copy()": lambda x: x.copy(),
    "x.sort()": lambda x: x.sort(),
    "x.argsort()": lambda x: x.argsort(),
    "x[0]": lambda x: x[0],
    "x[0].item()": lambda x: x[0].item(),
    "x.tolist()": lambda x: x.tolist(),
}
PYTHON_VALUED = ("x[0].item()", "x.tolist()")  # no array result: record Python types

LAYOUT = {
    "markers": "marker name (jaxtypes.markers) -> lattice node name (jaxtypes.lattice)",
    "marker_order": "the 35 markers in jaxtypes.lattice.NODES order",
    "operand_markers": "operand name -> the marker typing it: each marker itself, and the "
    "weakly typed arrays of the other width (weak_int64 ... with x64 off, "
    "weak_int32 ... with x64 on)",
    "scalars": "key of a Python scalar operand -> its Python type (True is a strong bool)",
    "numpy_operands": "key of a NumPy operand (as Python writes it) -> {kind: scalar|array, "
    "dtype: its numpy dtype name}",
    "binary_ops": "the 19 binary operators, as written between operands",
    "unary_ops": "the unary expressions (in x) of configs.C.unary",
    "configs": "label (standard|strict)-(x32|x64) -> {mode, x64, operand_order, operands, "
    "promotion, promotion_scalar, binary, scalar_right, scalar_left, unary}",
    "configs.C.operand_order": "the operands of C: marker_order, then the weakly typed "
    "arrays of the other width; rows of the operand x operand "
    "tables are lists in this order",
    "configs.C.operands": "operand -> the array standing for it in C: {dtype, weak, how} (how: "
    "the expression that built it; jnp_ones: what jnp.ones gives where "
    "that is not the marker's dtype), or an error cell with "
    "operand_unavailable: true if no array of the dtype can be built",
    "configs.C.promotion": "left operand -> [cell for each right operand in operand_order]: "
    "jax.numpy.result_type(x, y) with JAX's weak-type flag "
    "(jax._src.dtypes.result_type(x, y, return_weak_type_flag=True))",
    "configs.C.promotion_scalar": "operand -> scalar key -> cell of result_type(x, s)",
    "configs.C.binary": "op -> left operand -> [cell of `x OP y` for each right operand y in operand_order]",
    "configs.C.scalar_right": "op -> operand -> scalar key -> cell of `x OP s`",
    "configs.C.scalar_left": "op -> operand -> scalar key -> cell of `s OP x`",
    "configs.C.numpy_right": "op -> operand -> NumPy operand key -> cell of `x OP n`",
    "configs.C.numpy_left": "op -> operand -> NumPy operand key -> cell of `n OP x` (Python "
    "tries NumPy's operator first; JAX's arrays make it defer)",
    "configs.C.unary": "expression (in x) -> operand -> cell; x[0].item() and x.tolist() give {pytype} cells",
    "cell": "{dtype: lattice node name, weak: bool}: the result's dtype and .weak_type; or "
    "{pytype: Python type name} (x[0].item(); for x.tolist() the type of its first "
    "element, the list itself being a list); or {error: exception class name, "
    "ref: key of errors}.  An error cell may also carry abstract: the cell "
    "jax.eval_shape gives for the same function where that differs (the dtype-level "
    "answer of a case that fails or crashes at run time), and operand_unavailable: "
    "true when an operand array could not be built (the error is the one building it "
    "raised).  ProcessCrash is not an exception: eager evaluation killed the process",
    "errors": "ref -> {error: class name, bases: its base classes, message: first line of the message}",
    "summary.unavailable_operands": "config -> markers of which no array can be built",
    "summary.substituted_operands": "config -> marker -> operand cell, for the markers "
    "jnp.ones does not build with their dtype",
    "summary.crashes": "[config, table, op, operand, operand] of every ProcessCrash cell (operands in written order)",
    "summary.op_errors": "errors not explained by promotion (a binary/scalar case failing "
    "with another exception class than its promotion cell, or failing "
    "where promotion succeeds; every unary error), grouped by class and "
    "message with dtype names replaced by <dtype>: {error, "
    "message_shape, count, configs, tables, ops, markers, examples: "
    "[[config, table, op, operands..., ref]] (at most 3)}",
    "summary.promotion_vs_runtime": "binary/scalar cases that succeed where their answer "
    "differs from the promotion cell beyond the operator's "
    "plain rule (comparisons: bool with the promoted weak "
    "flag; /: a non-float promoted dtype becomes the default "
    "float, float64 with x64 else float32; others: the "
    "promoted dtype and flag), grouped: {table, op, "
    "promotion, runtime, cases: [[config, operand, operand]]} "
    "(operands in written order: a scalar key on the left "
    "for scalar_left).  A case whose operand is unavailable "
    "is compared on its abstract cell",
}


# ----------------------------------------------------------------- helpers
class _Config:
    """Set JAX's configuration options for a block, restoring them afterwards."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.saved: dict[str, Any] = {}

    def __enter__(self) -> "_Config":
        for name, value in self.options.items():
            self.saved[name] = getattr(jax.config, name)
            jax.config.update(name, value)
        return self

    def __exit__(self, *exc: object) -> None:
        for name, value in self.saved.items():
            jax.config.update(name, value)


def config_x64(label: str) -> bool:
    return next(x64 for lab, _, x64 in CONFIGS if lab == label)


def operand_order(label: str) -> tuple[str, ...]:
    """The operands of a configuration: the 35 markers, then the weakly typed
    arrays of the other width."""
    return MARKER_ORDER + tuple(OTHER_WIDTH_WEAK[config_x64(label)])


def config_options(label: str) -> dict[str, Any]:
    for lab, mode, x64 in CONFIGS:
        if lab == label:
            return {"jax_numpy_dtype_promotion": mode, "jax_enable_x64": x64}
    raise KeyError(label)


def node_of_dtype(dtype: Any) -> str:
    name = np.dtype(dtype).name
    if name not in STRONG_NODES:
        raise AssertionError(f"unexpected dtype {name}")
    return name


def error_cell(err: BaseException) -> dict[str, Any]:
    lines = str(err).strip().splitlines()
    return {
        "error": type(err).__name__,
        # Raw; interned into the errors table (and replaced by ref) by intern_errors.
        "_message": lines[0].strip() if lines else "",
        "_bases": [c.__name__ for c in type(err).__mro__[1:] if c not in (object, BaseException)],
    }


def array_cell(result: Any) -> dict[str, Any]:
    if isinstance(result, jax.Array):
        result.block_until_ready()  # surface asynchronous run-time errors here
    if not hasattr(result, "dtype") or not hasattr(result, "weak_type"):
        raise TypeError(f"not an array: {type(result).__name__}")
    return {"dtype": node_of_dtype(result.dtype), "weak": bool(result.weak_type)}


def python_cell(expr: str, result: Any) -> dict[str, Any]:
    if expr == "x.tolist()":
        if not isinstance(result, list) or not result:
            return {"pytype": type(result).__name__}
        result = result[0]
    return {"pytype": type(result).__name__}


def evaluate(fn: Callable[[], Any], describe: Callable[[Any], dict[str, Any]] = array_cell) -> dict[str, Any]:
    try:
        return describe(fn())
    except Exception as err:  # noqa: BLE001 - recorded as data
        return error_cell(err)


def same_outcome(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("dtype", "weak", "pytype", "error", "_message", "ref")
    return all(a.get(k) == b.get(k) for k in keys)


class Operands:
    """The arrays standing for the markers in the current configuration."""

    def __init__(self) -> None:
        self.arrays: dict[str, Any] = {}
        self.structs: dict[str, Any] = {}
        self.cells: dict[str, dict[str, Any]] = {}
        x64 = bool(jax.config.jax_enable_x64)
        for marker, node in MARKERS.items():
            if marker in WEAK_MARKERS:
                self._add_weak(marker, marker, x64)
                continue
            if node in X64_ONLY and not x64:
                # Made while x64 is on, used with it off: the only way to hold one.
                with _Config(jax_enable_x64=True):
                    arr = jnp.ones((2,), node)
                if arr.dtype != np.dtype(node):
                    raise AssertionError(f"{marker}: made with x64 on, it is {arr.dtype}")
                self._add(marker, arr, f"jnp.ones((2,), {node}) made with jax_enable_x64 on")
                continue
            dtype = np.dtype(getattr(ml_dtypes, node, None) or node)
            # The dtype JAX gives an array of this dtype in this configuration
            # (x64 off: 64-bit types become 32-bit ones).
            target = np.dtype(jax_dtypes.canonicalize_dtype(dtype))
            ones = evaluate(lambda: jnp.ones((2,), dtype))  # noqa: B023 - called at once
            if "error" not in ones and ones["dtype"] == target.name:
                self._add(marker, jnp.ones((2,), dtype), f"jnp.ones((2,), {node})")
                continue
            # jnp.ones fails (uint1 cannot be lowered) or gives another dtype
            # (int1 -> bool): place a numpy array of the dtype on the device.
            put = evaluate(lambda: jax.device_put(np.ones(2, dtype)))  # noqa: B023 - called at once
            if "error" not in put and put["dtype"] == target.name:
                self._add(marker, jax.device_put(np.ones(2, dtype)), f"jax.device_put(np.ones(2, {node}))")
                self.cells[marker]["jnp_ones"] = ones
                continue
            # No array at all: keep an abstract value so eval_shape can still answer.
            self.cells[marker] = {**(ones if "error" in ones else put), "jnp_ones": ones, "operand_unavailable": True}
            self.structs[marker] = jax.ShapeDtypeStruct((2,), target)

        for name, (marker, made_x64) in OTHER_WIDTH_WEAK[x64].items():
            self._add_weak(name, marker, made_x64)

    def _add_weak(self, name: str, marker: str, made_x64: bool) -> None:
        """A 1-D weakly typed array of the marker's kind, made with x64 as given."""
        value = WEAK_MARKERS[marker][1]
        with _Config(jax_enable_x64=made_x64):
            arr = jnp.broadcast_to(jnp.asarray(value), (2,))
        if not arr.weak_type:
            raise AssertionError(f"{name}: jnp.asarray({value!r}) is not weakly typed")
        how = f"jnp.broadcast_to(jnp.asarray({value!r}), (2,))"
        if made_x64 != bool(jax.config.jax_enable_x64):
            how += f" made with jax_enable_x64 {'on' if made_x64 else 'off'}"
        self._add(name, arr, how)

    def _add(self, marker: str, arr: Any, how: str) -> None:
        arr.block_until_ready()
        self.arrays[marker] = arr
        self.structs[marker] = jax.ShapeDtypeStruct(arr.shape, arr.dtype, weak_type=arr.weak_type)
        self.cells[marker] = {**array_cell(arr), "how": how}


def case(
    ops: Operands,
    fn: Callable[..., Any],
    markers: tuple[str, ...],
    describe: Callable[[Any], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The eager outcome of fn(*arrays of markers), with eval_shape's where that fails."""
    missing = [m for m in markers if m not in ops.arrays]
    if missing:
        cell = {k: v for k, v in ops.cells[missing[0]].items() if k != "jnp_ones"}
    else:
        args = [ops.arrays[m] for m in markers]
        cell = evaluate(lambda: fn(*args), describe or array_cell)
        if "error" not in cell:
            return cell
    if describe is not None:  # Python-valued results have no abstract evaluation
        return cell
    abstract = evaluate(lambda: jax.eval_shape(fn, *[ops.structs[m] for m in markers]), array_cell)
    if not same_outcome(abstract, cell):
        cell["abstract"] = abstract
    return cell


def promotion_cell(*args: Any) -> dict[str, Any]:
    def run() -> dict[str, Any]:
        dtype, weak = jax_dtypes.result_type(*args, return_weak_type_flag=True)
        public = jnp.result_type(*args)
        if np.dtype(public) != np.dtype(dtype):  # pragma: no cover - sanity check
            raise AssertionError(f"result_type disagrees: {public} vs {dtype}")
        return {"dtype": node_of_dtype(dtype), "weak": bool(weak)}

    try:
        return run()
    except Exception as err:  # noqa: BLE001 - recorded as data
        return error_cell(err)


# -------------------------------------------------------------- computing
Task = tuple[str, tuple[str, ...]]  # (table, key below the table)


def tasks_of_config(label: str) -> list[Task]:
    """Every case of one configuration, in a fixed order."""
    order = operand_order(label)
    out: list[Task] = []
    for a in order:
        out += [("promotion", (a, b)) for b in order]
        out += [("promotion_scalar", (a, s)) for s in SCALARS]
    for op in BINARY_OPS:
        for a in order:
            out += [("binary", (op, a, b)) for b in order]
            out += [("scalar_right", (op, a, s)) for s in SCALARS]
            out += [("scalar_left", (op, a, s)) for s in SCALARS]
            out += [("numpy_right", (op, a, n)) for n in NUMPY_OPERANDS]
            out += [("numpy_left", (op, a, n)) for n in NUMPY_OPERANDS]
    for expr in UNARY_OPS:
        out += [("unary", (expr, a)) for a in order]
    return out


def task_operands(task: Task) -> tuple[str, ...]:
    """The operand names a task uses (not its operator or scalar)."""
    table, key = task
    if table == "promotion":
        return key
    if table == "promotion_scalar":
        return key[:1]
    if table == "binary":
        return key[1:]
    return key[1:2]


def crash_cell() -> dict[str, Any]:
    return {
        "error": "ProcessCrash",
        "_bases": [],
        "_message": "evaluating this case eagerly kills the Python process (segmentation fault in XLA CPU)",
    }


def compute_task(ops: Operands, task: Task, eager: bool = True) -> dict[str, Any]:
    """One case's cell, in the current configuration (whose arrays ``ops`` holds).

    With ``eager=False`` (a case that killed the process before) only the
    abstract evaluation is run; the caller supplies the crash cell.
    """
    table, key = task

    def operand(m: str) -> Any:
        return ops.arrays[m] if m in ops.arrays else ops.structs[m]

    if table == "promotion":
        return promotion_cell(operand(key[0]), operand(key[1]))
    if table == "promotion_scalar":
        return promotion_cell(operand(key[0]), SCALARS[key[1]])
    if table == "binary":
        fn, markers = BINARY_OPS[key[0]], (key[1], key[2])
    elif table in ("scalar_right", "scalar_left", "numpy_right", "numpy_left"):
        op = BINARY_OPS[key[0]]
        sval = SCALARS[key[2]] if table.startswith("scalar") else NUMPY_OPERANDS[key[2]][2]
        if table.endswith("_right"):
            fn = lambda x: op(x, sval)  # noqa: E731
        else:
            fn = lambda x: op(sval, x)  # noqa: E731
        markers = (key[1],)
    elif table == "unary":
        fn, markers = UNARY_OPS[key[0]], (key[1],)
        if key[0] in PYTHON_VALUED:
            if not eager:
                return {}
            return case(ops, fn, markers, lambda r: python_cell(key[0], r))
    else:
        raise KeyError(table)
    if not eager:
        return evaluate(lambda: jax.eval_shape(fn, *[ops.structs[m] for m in markers]), array_cell)
    return case(ops, fn, markers)


def prepare_process(cache_dir: str | None = None) -> None:
    """Settings for a process that evaluates cases (warnings, tracebacks, compile cache)."""
    warnings.simplefilter("ignore")
    # Unfiltered tracebacks: the same exceptions, without the cost of filtering.
    jax.config.update("jax_traceback_filtering", "off")
    if cache_dir:
        # A run-local persistent cache: identical XLA programs recur across the
        # configurations (int8 + int8 is the same program in all four).
        jax.config.update("jax_compilation_cache_dir", cache_dir)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)


def run_tasks(label: str, tasks: list[Task], abstract_only: frozenset[int] = frozenset()):
    """Yield (index, cell) for tasks in configuration ``label``, in this process."""
    with _Config(**config_options(label)):
        ops = Operands()
        for i, task in enumerate(tasks):
            if i in abstract_only:
                cell = crash_cell()
                abstract = compute_task(ops, task, eager=False)
                if abstract:
                    cell["abstract"] = abstract
                yield i, cell
            else:
                yield i, compute_task(ops, task)


def _worker_main(
    conn: Any, label: str, tasks: list[Task], abstract_only: frozenset[int], cache_dir: str | None
) -> None:
    prepare_process(cache_dir)
    batch: list[tuple[int, dict[str, Any]]] = []
    for i, cell in run_tasks(label, tasks, abstract_only):
        batch.append((i, cell))
        # Report before the next (possibly fatal) case; batch the cheap ones.
        if len(batch) >= 32 or table_of(tasks[i]) not in ("promotion", "promotion_scalar"):
            conn.send(batch)
            batch = []
    if batch:
        conn.send(batch)
    conn.send(None)
    conn.close()


def table_of(task: Task) -> str:
    return task[0]


def supervise(
    label: str,
    tasks: list[Task],
    cache_dir: str | None,
    known_crashes: frozenset[int] = frozenset(),
    case_timeout: float = 300.0,
) -> tuple[list[dict[str, Any]], list[str]]:
    """Evaluate tasks in a worker process, starting a new one after a crash.

    A case during which the worker dies (XLA CPU segfaults on a few programs)
    is recorded as a ProcessCrash cell, with eval_shape's answer as
    ``abstract``; a fresh worker goes on from there, running that case
    abstractly only.  ``known_crashes`` (indices into tasks) are run abstractly
    from the start.
    """
    ctx = multiprocessing.get_context("spawn")
    cells: list[dict[str, Any] | None] = [None] * len(tasks)
    crashed = set(known_crashes)
    log: list[str] = []
    start, restarts_at = 0, -1
    while start < len(tasks):
        pending = list(range(start, len(tasks)))
        sub = [tasks[i] for i in pending]
        abstract_only = frozenset(j for j, i in enumerate(pending) if i in crashed)
        parent, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_worker_main, args=(child, label, sub, abstract_only, cache_dir))
        proc.start()
        child.close()
        done, how = False, ""
        while True:
            if not parent.poll(case_timeout):
                proc.kill()
                how = f"timed out after {case_timeout:.0f} s"
                break
            try:
                msg = parent.recv()
            except EOFError:
                how = "crashed"
                break
            if msg is None:
                done = True
                break
            for j, cell in msg:
                cells[pending[j]] = cell
        proc.join()
        parent.close()
        if done:
            break
        first_missing = next(i for i in pending if cells[i] is None)
        if first_missing in crashed or first_missing == restarts_at:
            raise RuntimeError(f"{label}: the worker keeps dying at {tasks[first_missing]}")
        restarts_at = first_missing
        log.append(f"{label}: worker {how} (exit code {proc.exitcode}) at {tasks[first_missing]}")
        if how.startswith("timed out"):
            cells[first_missing] = {"error": "ProcessTimeout", "_bases": [], "_message": f"evaluating this case {how}"}
            start = first_missing + 1
        else:
            crashed.add(first_missing)
            start = first_missing
    return cells, log  # type: ignore[return-value]


def assemble(label: str, tasks: list[Task], cells: list[dict[str, Any]], operands: dict[str, Any]) -> dict[str, Any]:
    mode, x64 = next((m, x) for lab, m, x in CONFIGS if lab == label)
    out: dict[str, Any] = {
        "mode": mode,
        "x64": x64,
        "operands": operands,
        "promotion": {},
        "promotion_scalar": {},
        "binary": {},
        "scalar_right": {},
        "scalar_left": {},
        "numpy_right": {},
        "numpy_left": {},
        "unary": {},
    }
    for (table, key), cell in zip(tasks, cells):
        node = out[table]
        for k in key[:-1]:
            node = node.setdefault(k, {})
        node[key[-1]] = cell
    # Operand x operand tables: a row is a list of cells in operand_order.
    order = operand_order(label)
    out["operand_order"] = list(order)
    for row_holder in [out["promotion"], *out["binary"].values()]:
        for a, row in row_holder.items():
            row_holder[a] = [row[b] for b in order]
    return out


def operand_cells(label: str) -> dict[str, Any]:
    with _Config(**config_options(label)):
        return Operands().cells


# ---------------------------------------------------------------- summary
def iter_cells(obj: Any, order: tuple[str, ...] | list[str], path: tuple[str, ...] = ()):
    """(path, cell) for every cell below obj (a cell has dtype, pytype or error).

    Rows stored as lists (in the configuration's operand ``order``) contribute
    the operand names to paths.
    """
    if isinstance(obj, dict):
        if "dtype" in obj or "pytype" in obj or "error" in obj:
            yield path, obj
            return
        for k, v in obj.items():
            yield from iter_cells(v, order, path + (k,))
    elif isinstance(obj, list) and len(obj) == len(order):
        for k, v in zip(order, obj):
            yield from iter_cells(v, order, path + (k,))


def intern_errors(configs: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Replace the raw messages of error cells by refs into a sorted errors table."""
    raw: dict[tuple[str, str], list[str]] = {}
    cells: list[dict[str, Any]] = []

    def walk(obj: Any) -> None:
        if isinstance(obj, dict):
            if "_message" in obj:
                raw[obj["error"], obj["_message"]] = obj["_bases"]
                cells.append(obj)
            for v in obj.values():
                walk(v)
        elif isinstance(obj, list):
            for v in obj:
                walk(v)

    walk(configs)
    keys = sorted(raw)
    width = len(str(len(keys)))
    ref_of = {k: f"E{i:0{width}d}" for i, k in enumerate(keys)}
    for c in cells:
        c["ref"] = ref_of[c["error"], c.pop("_message")]
        c.pop("_bases")
    return {ref_of[k]: {"error": k[0], "bases": raw[k], "message": k[1]} for k in keys}


def expected_from_promotion(op: str, promo: dict[str, Any], x64: bool) -> dict[str, Any]:
    """What an operator gives if it only applied result_type (the flagging rule)."""
    if "error" in promo:
        return promo
    if op in COMPARISONS:
        return {"dtype": "bool", "weak": promo["weak"]}
    if op == "/" and not promo["dtype"].startswith(("float", "bfloat", "complex")):
        return {"dtype": "float64" if x64 else "float32", "weak": promo["weak"]}
    return promo


_NODE_RE = re.compile(r"\b(" + "|".join(sorted(STRONG_NODES, key=len, reverse=True)) + r")\b")


def message_shape(message: str) -> str:
    """A message with dtype names replaced by <dtype>: the key errors are grouped by."""
    return _NODE_RE.sub("<dtype>", message)


def answer(cell: dict[str, Any]) -> dict[str, Any]:
    """The outcome a case is compared on: eval_shape's where no operand array exists."""
    if cell.get("operand_unavailable") and "abstract" in cell:
        cell = cell["abstract"]
    return {k: v for k, v in cell.items() if k in ("dtype", "weak", "error")}


def summarize(configs: dict[str, Any], errors: dict[str, Any]) -> dict[str, Any]:
    op_errors: dict[tuple[str, str], dict[str, Any]] = {}
    mismatches: dict[tuple[str, ...], dict[str, Any]] = {}

    def note_error(cell: dict[str, Any], label: str, table: str, op: str, operands: tuple[str, ...]) -> None:
        message = errors[cell["ref"]]["message"]
        key = (cell["error"], message_shape(message))
        group = op_errors.setdefault(
            key,
            {
                "error": key[0],
                "message_shape": key[1],
                "count": 0,
                "configs": set(),
                "tables": set(),
                "ops": set(),
                "markers": set(),
                "examples": [],
            },
        )
        group["count"] += 1
        group["configs"].add(label)
        group["tables"].add(table)
        group["ops"].add(op)
        group["markers"].update(m for m in operands if m in OPERAND_MARKERS)
        if len(group["examples"]) < 3:
            group["examples"].append([label, table, op, *operands, cell["ref"]])

    for label, cfg in configs.items():
        x64 = cfg["x64"]
        order = cfg["operand_order"]
        # A fixed order (not the JSON's sorted keys), so that a summary computed
        # from loaded data is the one computed while building it.
        for table in ("binary", "scalar_right", "scalar_left"):
            for op in BINARY_OPS:
                rows = cfg[table][op]
                for a in order:
                    row = rows[a]
                    items = zip(order, row) if isinstance(row, list) else ((s, row[s]) for s in SCALARS)
                    for b, cell in items:
                        promo = (
                            cfg["promotion"][a][order.index(b)] if table == "binary" else cfg["promotion_scalar"][a][b]
                        )
                        operands = (b, a) if table == "scalar_left" else (a, b)
                        got = answer(cell)
                        if "error" in cell and cell["error"] != promo.get("error"):
                            note_error(cell, label, table, op, operands)
                        if "error" in got and "error" in promo:
                            continue  # both fail (an op error is listed in op_errors)
                        if "error" in got:
                            continue  # promotion fine, the operator fails: op_errors
                        expected = expected_from_promotion(op, promo, x64)
                        if got == {k: expected.get(k) for k in got}:
                            continue
                        key = (table, op, json.dumps(answer(promo), sort_keys=True), json.dumps(got, sort_keys=True))
                        group = mismatches.setdefault(
                            key, {"table": table, "op": op, "promotion": answer(promo), "runtime": got, "cases": []}
                        )
                        group["cases"].append([label, *operands])
        for expr in UNARY_OPS:
            row = cfg["unary"][expr]
            for a in order:
                cell = row[a]
                if "error" in cell:
                    note_error(cell, label, "unary", expr, (a,))
    groups = []
    for key in sorted(op_errors):
        g = op_errors[key]
        g["configs"] = sorted(g["configs"])
        g["tables"] = sorted(g["tables"])
        g["ops"] = sorted(g["ops"])
        g["markers"] = [m for m in OPERAND_MARKERS if m in g["markers"]]
        groups.append(g)
    return {
        "unavailable_operands": {
            label: [m for m in cfg["operand_order"] if cfg["operands"][m].get("operand_unavailable")]
            for label, cfg in configs.items()
        },
        "substituted_operands": {
            label: {
                m: cell
                for m, cell in cfg["operands"].items()
                if "jnp_ones" in cell and not cell.get("operand_unavailable")
            }
            for label, cfg in configs.items()
        },
        "crashes": sorted(
            [label, table, *path]
            for label, cfg in configs.items()
            for table in ("binary", "scalar_right", "scalar_left", "numpy_right", "numpy_left", "unary")
            for path, cell in iter_cells(cfg[table], cfg["operand_order"])
            if cell.get("error") == "ProcessCrash"
        ),
        "op_errors": groups,
        "promotion_vs_runtime": [mismatches[k] for k in sorted(mismatches)],
    }


# ---------------------------------------------------------------- writing
def is_cell(obj: Any) -> bool:
    return isinstance(obj, dict) and ("dtype" in obj or "pytype" in obj or "error" in obj)


def dump(obj: Any, indent: int = 0) -> str:
    """Sorted-key JSON; cells, rows of cells and lists of records on one line each."""
    compact = lambda o: json.dumps(o, sort_keys=True, separators=(",", ":"))  # noqa: E731
    pad = " " * indent
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        if is_cell(obj) or all(is_cell(v) or not isinstance(v, (dict, list)) for v in obj.values()):
            return compact(obj)
        items = [f"{pad} {json.dumps(k)}: {dump(obj[k], indent + 1)}" for k in sorted(obj)]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if (
        isinstance(obj, list)
        and obj
        and not all(is_cell(v) for v in obj)
        and any(isinstance(v, (list, dict)) for v in obj)
    ):
        items = [f"{pad} {compact(v)}" for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return compact(obj)


def provenance() -> dict[str, Any]:
    return shared_provenance("tools/oracle/make_expectations.py")


def _unchanged_operands(label: str, fresh: dict[str, Any], old: dict[str, Any] | None) -> set[str]:
    """Operands whose array is the one an earlier run recorded (same dtype, weak
    flag and construction), so that run's cells of them still hold."""
    if old is None or label not in old["configs"]:
        return set()
    recorded = old["configs"][label]["operands"]
    keys = ("dtype", "weak", "how", "error", "operand_unavailable")
    return {o for o, cell in fresh.items() if o in recorded and all(cell.get(k) == recorded[o].get(k) for k in keys)}


def _recorded_cell(old: dict[str, Any], label: str, task: Task) -> dict[str, Any] | None:
    """An earlier run's cell of a task, with its error refs turned back into raw
    messages (intern_errors numbers them afresh); None for a case it lacks."""
    cfg = old["configs"][label]
    order = cfg.get("operand_order", old["marker_order"])
    table, key = task
    node: Any = cfg.get(table)
    for k in key:
        if isinstance(node, list) and k in order:
            node = node[order.index(k)]
        elif isinstance(node, dict) and k in node:
            node = node[k]
        else:
            return None
    cell = json.loads(json.dumps(node))
    for c in (cell, cell.get("abstract") or {}):
        if "ref" in c:
            entry = old["errors"][c.pop("ref")]
            c["_message"], c["_bases"] = entry["message"], entry["bases"]
    return cell


def build(jobs: int, chunks: int, use_cache: bool, reuse: dict[str, Any] | None = None) -> dict[str, Any]:
    """Evaluate every case; with ``reuse`` (an earlier run's data, of the same
    JAX), only the cases of operands that are new or built differently."""
    labels = [label for label, _, _ in CONFIGS]
    if reuse is not None and (reuse["jax_version"], reuse["jaxlib_version"]) != (jax.__version__, jaxlib.__version__):
        raise SystemExit("--update: the earlier data is from another JAX; regenerate it all")
    tasks = {label: tasks_of_config(label) for label in labels}
    operands = {label: operand_cells(label) for label in labels}
    cells: dict[str, list[Any]] = {label: [None] * len(tasks[label]) for label in labels}
    todo: dict[str, list[int]] = {}
    for label in labels:
        kept = _unchanged_operands(label, operands[label], reuse)
        todo[label] = []
        for i, task in enumerate(tasks[label]):
            recorded = (
                _recorded_cell(reuse, label, task) if reuse is not None and set(task_operands(task)) <= kept else None
            )
            if recorded is not None:
                cells[label][i] = recorded
            else:
                todo[label].append(i)
        print(
            f"  {label}: {len(todo[label])} of {len(tasks[label])} cases to evaluate"
            + (f" (operands kept: {len(kept)})" if reuse is not None else ""),
            flush=True,
        )
    # Heavy (standard) configurations first, so the strict ones find their
    # programs in the compilation cache.
    order = sorted(labels, key=lambda lab: (not lab.startswith("standard"), lab))
    jobs_list = []
    for label in order:
        idx = todo[label]
        bounds = [round(len(idx) * k / chunks) for k in range(chunks + 1)]
        jobs_list += [(label, idx[lo:hi]) for lo, hi in zip(bounds, bounds[1:]) if hi > lo]
    crash_log: list[str] = []
    with (
        tempfile.TemporaryDirectory(prefix="jaxtypes-xla-cache-") as tmp,
        concurrent.futures.ThreadPoolExecutor(jobs) as pool,
    ):
        cache_dir = tmp if use_cache else None
        futures = {
            pool.submit(supervise, label, [tasks[label][i] for i in part], cache_dir): (label, part)
            for label, part in jobs_list
        }
        started = time.perf_counter()
        for fut in concurrent.futures.as_completed(futures):
            label, part = futures[fut]
            done, log = fut.result()
            for i, cell in zip(part, done):
                cells[label][i] = cell
            crash_log += log
            print(
                f"  {label}: {len(part)} cases done at {time.perf_counter() - started:.0f} s"
                + (f", {len(log)} worker restarts" if log else ""),
                flush=True,
            )
    for line in sorted(crash_log):
        print("   ", line)
    configs = {label: assemble(label, tasks[label], cells[label], operands[label]) for label in labels}
    errors = intern_errors(configs)
    return {
        **provenance(),
        "default_config": DEFAULT_CONFIG,
        "layout": LAYOUT,
        "markers": MARKERS,
        "marker_order": list(MARKER_ORDER),
        "operand_markers": OPERAND_MARKERS,
        "scalars": {k: type(v).__name__ for k, v in SCALARS.items()},
        "numpy_operands": {k: {"kind": kind, "dtype": dtype} for k, (kind, dtype, _) in NUMPY_OPERANDS.items()},
        "binary_ops": list(BINARY_OPS),
        "comparison_ops": list(COMPARISONS),
        "unary_ops": list(UNARY_OPS),
        "summary": summarize(configs, errors),
        "errors": errors,
        "configs": configs,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--chunks", type=int, default=2, help="work units per configuration (default 2)")
    parser.add_argument("--no-cache", action="store_true", help="no run-local persistent XLA compilation cache")
    parser.add_argument("--out", type=pathlib.Path, default=OUT)
    parser.add_argument(
        "--update",
        action="store_true",
        help="keep the cells of --out whose operands are built as before; "
        "evaluate only the cases it lacks and those of new or changed "
        "operands",
    )
    args = parser.parse_args(argv)
    prepare_process()
    start = time.perf_counter()
    reuse = json.loads(args.out.read_text(encoding="utf-8")) if args.update else None
    data = build(args.jobs, args.chunks, not args.no_cache, reuse)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(dump(data) + "\n", encoding="utf-8")
    size = args.out.stat().st_size
    print(f"wrote {args.out} ({size / 1e6:.2f} MB) in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
