"""A project function without a return annotation: pyright, basedpyright and
pyrefly infer its result from its body; mypy and ty do not (Any, Unknown), so
its dtype is lost there unless the result is annotated."""

from typing_extensions import assert_type

from jaxtypes import Array, bfloat16, float32


def upcast(x: Array[bfloat16]):
    return x.astype(float32)


def upcast_annotated(x: Array[bfloat16]) -> Array[float32]:
    return x.astype(float32)


def uses(x: Array[bfloat16]) -> None:
    # deviation (mypy, mypy-plugin): mypy gives a function without a return annotation the result Any
    # deviation (ty): ty does not infer the result of a function without a return annotation
    assert_type(upcast(x), Array[float32])
    assert_type(upcast_annotated(x), Array[float32])
