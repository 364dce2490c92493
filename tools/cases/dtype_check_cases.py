"""Programs on which the runtime dtype check (``jaxtypes.check_dtypes``) and
the type checkers must agree: each ``program_N`` function calls a function
whose annotations declare dtypes, with an array (or a Python scalar, a NumPy
array) of some dtype; tests/test_dtype_check.py runs each program with JAX and
each checker over the file, and the programs a checker reports an error in
must be exactly those whose run raises ``DtypeCheckError``.

No answer is written here: the file holds the programs, the two sides give
their answers.  The programs pair declared dtypes with values over the kinds
of dtype (bool, unsigned and signed ints, a 4-bit int, a small float,
bfloat16, float16, float32, complex, the 64-bit dtypes with x64 off, the weak
types), in the contexts the check meets: a direct call, ``jax.jit`` and
``jax.vmap`` (tracers), a result, ``X | None``, ``tuple[...]``, ``*args``,
``jax.Array[DT]`` and jaxtyping's spelling.
"""

from __future__ import annotations

from typing import Final

from jaxtypes import lattice

SOURCE: Final = "tools/cases/dtype_check_cases.py"
PLUGIN_SOURCE: Final = SOURCE + " (jaxtyping's names as the mypy plugin reads them)"

# Declared dtypes: a node, "Any" (Array[Any]) or "" (bare Array).
DECLARED: Final = (
    "bool",
    "uint8",
    "int4",
    "int8",
    "int32",
    "int64",
    "float8_e4m3fn",
    "bfloat16",
    "float16",
    "float32",
    "float64",
    "complex64",
    lattice.WEAK_INT,
    lattice.WEAK_FLOAT,
    lattice.WEAK_COMPLEX,
    "Any",
    "",
)
STRONG_VALUES: Final = tuple(n for n in DECLARED if n in lattice.STRONG)
# A weakly typed array of each kind, as JAX makes it from a Python scalar.
WEAK_VALUES: Final = {
    lattice.WEAK_INT: "jnp.asarray(1)",
    lattice.WEAK_FLOAT: "jnp.asarray(1.0)",
    lattice.WEAK_COMPLEX: "jnp.asarray(1j)",
}
# Values that are no JAX array (the checkers refuse them for an Array too).
OTHER_VALUES: Final = ("1", "1.0", "True", "np.ones(3, np.float32)")
# Declared dtypes checked under jit and vmap, and as results.
TRACED: Final = ("bool", "int8", "bfloat16", "float32", lattice.WEAK_FLOAT)


def _marker(node: str) -> str:
    return node if node == "Any" else lattice.MARKER_NAME[node]


def _annotation(node: str) -> str:
    return "Array" if node == "" else f"Array[{_marker(node)}]"


def _suffix(node: str) -> str:
    return {"": "array", "Any": "any"}.get(node) or _marker(node)


def _array(node: str, shape: str = "3") -> str:
    return f"jnp.ones({shape}, jnp.{_marker(node)})"


def _value(node: str) -> str:
    return WEAK_VALUES.get(node) or _array(node)


ARRAY_VALUES: Final = tuple(_array(n) for n in STRONG_VALUES) + tuple(WEAK_VALUES.values())


def _checked_functions() -> list[str]:
    return [f"@check_dtypes\ndef takes_{_suffix(n)}(x: {_annotation(n)}) -> None:\n    del x\n" for n in DECLARED]


def _call(function: str, *values: str) -> str:
    """A program's body: the values bound to names first (mypy infers a call
    written as an argument in the parameter's type context, and then misses
    wrong dtypes of JAX's functions, tests/test_user_contexts.py), then the call."""
    names = [f"v{i}" for i in range(len(values))]
    bound = "".join(f"    {name} = {value}\n" for name, value in zip(names, values))
    return f"{bound}    {function}({', '.join(names)})\n"


def _programs() -> list[str]:
    """Each program's body (indented), in order."""
    bodies: list[str] = []
    for node in DECLARED:
        for value in ARRAY_VALUES + OTHER_VALUES:
            bodies.append(_call(f"takes_{_suffix(node)}", value))
    for node in TRACED:
        for value in ARRAY_VALUES:
            bodies.append(_call(f"jax.jit(takes_{_suffix(node)})", value))
        if node in lattice.STRONG:
            for source in STRONG_VALUES:
                bodies.append(_call(f"jax.vmap(takes_{_suffix(node)})", _array(source, "(2, 3)")))
    for declared in TRACED:
        for source in TRACED:
            bodies.append(
                "    @check_dtypes\n"
                f"    def gives(x: {_annotation(source)}) -> {_annotation(declared)}:\n"
                "        return x\n\n" + _call("gives", _value(source))
            )
    for returned in ("x, i", "x, x", "i, x"):
        bodies.append(
            "    @check_dtypes\n"
            "    def gives_pair(x: Array[float32], i: Array[int8]) -> tuple[Array[float32], Array[int8]]:\n"
            f"        return {returned}\n\n" + _call("gives_pair", _array("float32"), _array("int8"))
        )
    for value in ("None", _array("float32"), _array("bfloat16")):
        bodies.append(_call("takes_float32_or_none", value))
    for values in ((), (_array("float32"),), (_array("float32"), _array("bfloat16")), (_array("int8"),)):
        bodies.append(_call("takes_float32s", *values))
    for node in ("float32", "bfloat16", lattice.WEAK_FLOAT):
        bodies.append(_call("takes_jax_float32", _value(node)))
        bodies.append(_call("takes_jaxtyping_bfloat16", _value(node)))
    return bodies


HEADER: Final = '''\
# Generated by tools/generate.py from {source}: do not edit.
"""Where the runtime dtype check and the type checkers must agree: a checker
reports an error in a program exactly when the program, run, raises
jaxtypes.DtypeCheckError (tests/test_dtype_check.py).
"""

from __future__ import annotations

{imports}
'''


def render() -> str:
    """The file every set-up checks."""
    markers = sorted({_marker(n) for n in DECLARED if n not in ("", "Any")})
    imports = (
        "from typing import Any\n\nimport jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom jaxtyping import BFloat16\n\n"
        f"from jaxtypes import Array, check_dtypes, {', '.join(markers)}"
    )
    parts = [HEADER.format(source=SOURCE, imports=imports), *_checked_functions()]
    parts.append(
        "@check_dtypes\ndef takes_float32_or_none(x: Array[float32] | None) -> None:\n    del x\n\n\n"
        "@check_dtypes\ndef takes_float32s(*xs: Array[float32]) -> None:\n    del xs\n\n\n"
        "@check_dtypes\ndef takes_jax_float32(x: jax.Array[float32]) -> None:\n    del x\n\n\n"
        '@check_dtypes\ndef takes_jaxtyping_bfloat16(x: BFloat16[Array[bfloat16], "n"]) -> None:\n    del x\n'
    )
    for index, body in enumerate(_programs()):
        parts.append(f"def program_{index}() -> None:\n{body}")
    return "\n\n".join(parts)


def render_plugin() -> str:
    """jaxtyping's own spelling, ``Float32[Array, "n"]``: a dtype to mypy
    with the plugin only (to the other checkers it is a plain array)."""
    imports = "import jax.numpy as jnp\nfrom jaxtyping import Array as JaxtypingArray, Bool, Float, Float32, Int8\n\nfrom jaxtypes import check_dtypes"
    parts = [HEADER.format(source=PLUGIN_SOURCE, imports=imports)]
    names = {"float32": "Float32", "int8": "Int8", "bool": "Bool", "": "Float"}
    for node, name in names.items():
        parts.append(
            f'@check_dtypes\ndef takes_jaxtyping_{_suffix(node)}(x: {name}[JaxtypingArray, "n"]) -> None:\n    del x\n'
        )
    index = 0
    for node in names:
        for value in (*(_array(n) for n in ("bool", "int8", "bfloat16", "float32")), WEAK_VALUES[lattice.WEAK_FLOAT]):
            parts.append(f"def program_{index}() -> None:\n{_call(f'takes_jaxtyping_{_suffix(node)}', value)}")
            index += 1
    return "\n\n".join(parts)
