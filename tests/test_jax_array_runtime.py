"""``jax.Array[DT]`` at run time, once jaxtypes is imported (jaxtypes/_generic_jax_array.py).

The JAX stubs of ``jaxtypes jax-stubs`` make ``jax.Array`` generic in its
dtype; these tests check that the same annotations also run: evaluated at the
``def``, read by ``typing.get_type_hints`` (postponed annotations, dataclass
fields), and by the runtime checkers beartype and jaxtyping.  Modules are
written to a temporary directory and imported in a fresh interpreter, in both
import orders of JAX and jaxtypes, with and without
``from __future__ import annotations``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import typing
from pathlib import Path
from typing import Any

import beartype
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from beartype.roar import BeartypeCallHintParamViolation

import jaxtypes
from jaxtypes import bfloat16, float32, weak_float

try:
    from jaxtyping import Float32, TypeCheckError, jaxtyped
except ImportError:  # from Python 3.11 only (pyproject.toml's test extra)
    HAVE_JAXTYPING = False
else:
    HAVE_JAXTYPING = True
needs_jaxtyping = pytest.mark.skipif(not HAVE_JAXTYPING, reason="jaxtyping needs Python 3.11")

IMPORTS = {"jax first": "import jax\nimport jaxtypes", "jaxtypes first": "import jaxtypes\nimport jax"}

MODULE = '''\
{future}
import dataclasses
{imports}
import jax.numpy as jnp
from jaxtypes import bfloat16, float32, int32, weak_float


def scale(x: jax.Array[{float32}], by: jax.Array[weak_float]) -> jax.Array[{bfloat16}]:
    return (x * by).astype(bfloat16)


@dataclasses.dataclass
class Params:
    weights: jax.Array[{float32}]
    bias: jax.Array[{int32}] = dataclasses.field(default_factory=lambda: jnp.zeros(2, int32))
'''
# jaxtypes' markers, and JAX's scalar types, which the JAX stubs make the markers.
SPELLINGS = {
    "jaxtypes": {"float32": "float32", "bfloat16": "bfloat16", "int32": "int32"},
    "jnp": {"float32": "jnp.float32", "bfloat16": "jnp.bfloat16", "int32": "jnp.int32"},
}

REPORT = '''
import dataclasses, json, typing
import jax, jax.numpy as jnp
import numpy as np
import jaxtypes
import mod

def describe(hint):
    return [typing.get_origin(hint) is jax.Array, [np.dtype(a).name if a is not jaxtypes.weak_float
                                                     else "weak_float" for a in typing.get_args(hint)]]

hints = {name: describe(h) for name, h in typing.get_type_hints(mod.scale).items()}
fields = {name: describe(h) for name, h in typing.get_type_hints(mod.Params).items()}
params = mod.Params(jnp.ones(2))
print(json.dumps({
    "hints": hints, "fields": fields,
    "field annotations are strings": all(isinstance(f.type, str) for f in dataclasses.fields(mod.Params)),
    "call": str(mod.scale(jnp.ones(2), 2.0).dtype),
    "bias": str(params.bias.dtype),
    "isinstance": isinstance(params.weights, jax.Array),
}))
'''


def run_module(tmp_path: Path, module: str, report: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "mod.py").write_text(module)
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_") and k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tmp_path)
    return subprocess.run(
        [sys.executable, "-c", report], capture_output=True, text=True, timeout=120, cwd=str(tmp_path), env=env
    )


@pytest.mark.parametrize("spelling", list(SPELLINGS))
@pytest.mark.parametrize("future", [True, False], ids=["postponed", "evaluated"])
@pytest.mark.parametrize("order", list(IMPORTS))
def test_a_module_annotated_with_jax_array_of_a_marker(tmp_path: Path, order: str, future: bool, spelling: str) -> None:
    module = MODULE.format(
        future="from __future__ import annotations" if future else "", imports=IMPORTS[order], **SPELLINGS[spelling]
    )
    proc = run_module(tmp_path, module, REPORT)
    assert proc.returncode == 0, proc.stderr
    marked = [True, ["float32"]]
    assert json.loads(proc.stdout) == {
        "hints": {"x": marked, "by": [True, ["weak_float"]], "return": [True, ["bfloat16"]]},
        "fields": {"weights": marked, "bias": [True, ["int32"]]},
        "field annotations are strings": future,
        "call": "bfloat16",
        "bias": "int32",
        "isinstance": True,
    }


@pytest.mark.parametrize("future", [True, False], ids=["postponed", "evaluated"])
def test_without_jaxtypes_jax_array_is_not_subscriptable(tmp_path: Path, future: bool) -> None:
    # What the tests above would meet without jaxtypes' __class_getitem__: JAX's own error.
    module = MODULE.format(
        future="from __future__ import annotations" if future else "", imports="import jax", **SPELLINGS["jaxtypes"]
    ).replace(
        "from jaxtypes import bfloat16, float32, int32, weak_float",
        "from numpy import float32, int32\nfrom ml_dtypes import bfloat16\nweak_float = float",
    )
    report = "import typing, mod\ntyping.get_type_hints(mod.scale)\n"
    proc = run_module(tmp_path, module, report)
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines()[-1] == ("TypeError: type 'jaxlib._jax.Array' is not subscriptable")


def test_jaxtypes_never_imports_jax_for_this() -> None:
    code = "import sys, jaxtypes; assert 'jax' not in sys.modules and 'jaxlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


# ------------------------------------------------------------ the alias
def test_the_alias_is_a_generic_alias_of_jax_array() -> None:
    alias = jax.Array[float32]
    assert typing.get_origin(alias) is jax.Array
    assert typing.get_args(alias) == (float32,)
    assert alias == jax.Array[float32] and hash(alias) == hash(jax.Array[float32])
    assert alias != jax.Array[bfloat16]
    # As jaxtypes.Array's: origin and argument.
    assert typing.get_args(jaxtypes.Array[float32]) == typing.get_args(alias)
    assert typing.get_args(jax.Array[weak_float]) == (weak_float,)


def test_isinstance_is_unchanged() -> None:
    assert isinstance(jnp.ones(2), jax.Array)
    assert not isinstance(np.ones(2), jax.Array)
    seen = []
    jax.jit(lambda x: seen.append(isinstance(x, jax.Array)) or x)(jnp.ones(2))
    assert seen == [True]
    with pytest.raises(TypeError):  # as for list[int]: a subscripted class checks nothing
        isinstance(jnp.ones(2), jax.Array[float32])  # type: ignore[misc]


def test_type_variables_any_and_forward_references() -> None:
    from typing_extensions import TypeVar

    dt = TypeVar("dt", default=Any)
    generic = jax.Array[dt]
    assert typing.get_args(generic) == (dt,) and generic.__parameters__ == (dt,)
    assert generic[float32] == jax.Array[float32]
    assert typing.get_args(jax.Array[Any]) == (Any,)
    assert typing.get_args(jax.Array["float32"]) == ("float32",)
    assert typing.get_args(jax.Array[float32 | bfloat16]) == (float32 | bfloat16,)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            "3",
            "invalid type argument 3 of type int for jax.Array; expected its dtype as a type: "
            "a jaxtypes dtype marker (jaxtypes.float32, jaxtypes.weak_float, ...), a TypeVar or Any",
        ),
        ("np.dtype('float32')", "invalid type argument dtype('float32') of type Float32DType for jax.Array"),
        (
            "float32, 'n'",
            "jax.Array takes one type argument, its dtype: a jaxtypes dtype marker "
            "(jaxtypes.float32, jaxtypes.weak_float, ...); got 2: "
            "jax.Array[<class 'numpy.float32'>, 'n']",
        ),
        (
            "()",
            "jax.Array takes one type argument, its dtype: a jaxtypes dtype marker "
            "(jaxtypes.float32, jaxtypes.weak_float, ...); got 0: jax.Array[]",
        ),
    ],
)
def test_a_bad_argument_is_a_clear_error(args: str, message: str) -> None:
    with pytest.raises(TypeError) as info:
        eval(f"jax.Array[{args}]", {"jax": jax, "jnp": jnp, "np": np, "float32": float32})
    assert str(info.value).startswith(message)


def _jax_scalar_types() -> list[str]:
    """The scalar types jax.numpy exports (``jnp.float32``...), by their class."""
    meta = type(jnp.float32)
    return sorted(name for name in dir(jnp) if type(getattr(jnp, name)) is meta)


@pytest.mark.parametrize("name", _jax_scalar_types())
def test_a_jax_scalar_type_is_its_dtype_s_marker(name: str) -> None:
    scalar_type = getattr(jnp, name)
    (arg,) = typing.get_args(jax.Array[scalar_type])
    assert np.dtype(arg) == np.dtype(scalar_type)
    assert any(arg is getattr(jaxtypes.markers, marker) for marker in jaxtypes.markers.__all__)
    assert jax.Array[scalar_type] == jax.Array[arg]


def test_jax_s_own_subscript_would_be_kept() -> None:
    # jaxtypes adds __class_getitem__ only where JAX defines none.
    from jaxtypes import _generic_jax_array

    assert _generic_jax_array.installed_on(jax.Array)
    assert _generic_jax_array.install()  # again: nothing changes
    assert _generic_jax_array.installed_on(jax.Array)


# ------------------------------------------------------------ runtime checkers
def test_beartype_checks_jax_array_only() -> None:
    # beartype checks the alias's origin, jax.Array, and not its dtype
    # argument: an int32 JAX array passes as jax.Array[float32].
    @beartype.beartype
    def double(x: jax.Array[float32]) -> jax.Array[float32]:
        return x * 2

    assert double(jnp.ones(2, jnp.float32)).dtype == np.dtype("float32")
    assert double(jnp.ones(2, jnp.int32)).dtype == np.dtype("int32")
    with pytest.raises(BeartypeCallHintParamViolation):
        double(np.ones(2, np.float32))  # not a JAX array


@needs_jaxtyping
def test_jaxtyping_checks_dtype_and_shape() -> None:
    # jaxtyping takes the array type from the alias's origin and the dtype
    # from Float32 itself.
    @jaxtyped(typechecker=beartype.beartype)
    def total(
        x: Float32[jax.Array[float32], "n"], y: Float32[jax.Array[float32], "n"]
    ) -> Float32[jax.Array[float32], "n"]:
        return x + y

    f32 = jnp.ones(3, jnp.float32)
    assert total(f32, f32).dtype == np.dtype("float32")
    for bad in [
        (jnp.ones(3, jnp.int32), f32),  # the dtype
        (f32, jnp.ones(4, jnp.float32)),  # the shapes disagree
        (np.ones(3, np.float32), f32),
    ]:  # not a JAX array
        with pytest.raises(TypeCheckError, match=r"x: Float32\[jaxlib._jax.Array, 'n'\]"):
            total(*bad)


@needs_jaxtyping
def test_checkers_on_postponed_annotations(tmp_path: Path) -> None:
    module = textwrap.dedent('''
        from __future__ import annotations
        import beartype, jax
        from jaxtyping import Float32, TypeCheckError, jaxtyped
        import jaxtypes
        from jaxtypes import float32

        @beartype.beartype
        def double(x: jax.Array[float32]) -> jax.Array[float32]:
            return x * 2

        @jaxtyped(typechecker=beartype.beartype)
        def total(x: Float32[jax.Array[float32], "n"]) -> Float32[jax.Array[float32], ""]:
            return x.sum()
    ''')
    report = textwrap.dedent('''
        import json, jax.numpy as jnp, mod
        def outcome(fn, x):
            try:
                return str(fn(x).dtype)
            except Exception as err:
                return type(err).__name__
        print(json.dumps([outcome(mod.double, jnp.ones(2)), outcome(mod.double, [1.0]),
                          outcome(mod.total, jnp.ones(2)),
                          outcome(mod.total, jnp.ones(2, jnp.int32))]))
    ''')
    proc = run_module(tmp_path, module, report)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == ["float32", "BeartypeCallHintParamViolation", "float32", "TypeCheckError"]
