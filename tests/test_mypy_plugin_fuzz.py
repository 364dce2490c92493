"""Fuzz the mypy plugin: 1,200 generated programs of odd and malformed uses, no crash.

Each program is a module of a package (``fz/p0000.py`` ...), so that one mypy
run checks hundreds of them: three runs in all, one per plugin configuration
(standard-x32; strict-x64 and standard-x64 under ``pytest -m slow``), plus
one run of programs with syntax errors.  The programs use ``Array`` with no, too many or non-marker
arguments, ``Any``, ``Never``, unions, TypeVars (plain, bounded,
constrained), ``Literal`` strings that are not dtypes, aliases, subclasses,
arrays inside containers, dtype arguments of every kind, star arguments,
unbound methods, and incomplete code (undefined names, missing imports,
redefinitions).

The runs set ``JAXTYPES_MYPY_PLUGIN_DEBUG=1``, so an exception in a plugin
hook is not swallowed by its guard but crashes mypy: "no crash" then means no
internal error of mypy *and* none of the plugin.  Criteria for every run: exit
status 0 or 1 (2 is a crash or a blocking error), no ``INTERNAL ERROR``, no
``Traceback``.  ``JAXTYPES_FUZZ_SEED`` / ``JAXTYPES_FUZZ_PROGRAMS`` explore
other programs.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tools.checkers import launch, mypy_cache_flags, plugin_config

SEED = int(os.environ.get("JAXTYPES_FUZZ_SEED", "20261121"))
PROGRAMS = int(os.environ.get("JAXTYPES_FUZZ_PROGRAMS", "1200"))
CONFIGS = ("standard-x32", "strict-x64", "standard-x64")  # promotion-x64 setting

MARKERS = (
    "bool_",
    "uint1",
    "uint2",
    "uint4",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "int1",
    "int2",
    "int4",
    "int8",
    "int16",
    "int32",
    "int64",
    "float4_e2m1fn",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e8m0fnu",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "bfloat16",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "weak_int",
    "weak_float",
    "weak_complex",
)
BINARY = ("+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>", "<", "<=", ">", ">=", "==", "!=")

HEADER = """\
from __future__ import annotations
import typing
from typing import Any, Callable, Generic, Literal, NoReturn, Optional, TypeVar, Union
from typing_extensions import Never, TypeAlias, assert_type
import numpy as np
import jaxtypes
from jaxtypes import *
from jaxtypes import Array
T = TypeVar("T")
B = TypeVar("B", bound=Array[Any])
C = TypeVar("C", float32, int8)
S = TypeVar("S", bound=float)
M: TypeAlias = float16
A32: TypeAlias = Array[float32]
AnyArr: TypeAlias = Array
Lit = Literal["float32", "bfloat16", "nonsense"]
class Sub(Array[int8]): ...
class SubG(Array[T], Generic[T]): ...
class Override(Array[float32]):
    def __add__(self, other: int) -> int: ...  # type: ignore[override]
"""


class Gen:
    def __init__(self, rng: random.Random) -> None:
        self.r = rng

    def m(self) -> str:
        return self.r.choice(MARKERS)

    def annotation(self) -> str:
        m, m2 = self.m(), self.m()
        if self.r.random() < 0.5:  # half well-formed, so that the rules run
            return self.r.choice([f"Array[{m}]", f"Array[{m}]", f"Array[{m} | {m2}]", "int", "float"])
        return self.r.choice(
            [
                "Array",
                "Array[Any]",
                f"Array[{m}]",
                f"Array[{m}]",
                f"Array[{m}]",
                f"Array[{m} | {m2}]",
                f"Array[Union[{m}, {m2}]]",
                f"Array[{m}, {m2}]",
                "Array[()]",
                "Array[int]",
                "Array[str]",
                f'Array["{m}"]',
                'Array["nonsense"]',
                'Array[Literal["float32"]]',
                "Array[Never]",
                "Array[NoReturn]",
                "Array[None]",
                "Array[T]",
                "Array[B]",
                "Array[C]",
                "Array[S]",
                f"Array[Array[{m}]]",
                f"Array[type[{m}]]",
                f"Array[list[{m}]]",
                f"Array[Callable[[], {m}]]",
                "Array[...]",
                "Array[1]",
                f"Array[Optional[{m}]]",
                "Array[M]",
                "A32",
                "AnyArr",
                "A32 | None",
                f"Optional[Array[{m}]]",
                f"Array[{m}] | int",
                f"Union[Array[{m}], Array[{m2}]]",
                f"Array[{m}] | Array[{m2}] | float",
                "int",
                "float",
                "complex",
                "bool",
                "str",
                "None",
                "Any",
                "Never",
                "T",
                "B",
                "C",
                "S",
                "object",
                f"list[Array[{m}]]",
                f"dict[str, Array[{m}]]",
                f"tuple[Array[{m}], ...]",
                f"tuple[Array[{m}], Array[{m2}]]",
                "np.ndarray[Any, np.dtype[np.float32]]",
                "np.ndarray[Any, np.dtype[Any]]",
                "np.float64",
                "np.float32",
                "np.complex128",
                "np.dtype[np.int8]",
                f"type[{m}]",
                f"type[Array[{m}]]",
                "Lit",
                'Literal["int8", "uint8"]',
                "Literal[1, True]",
                "Undefined",
                f"jaxtypes.Array[jaxtypes.{m}]",
                "Sub",
                f"SubG[{m}]",
                "SubG[Any]",
                "Override",
                m,
                f"Callable[..., Array[{m}]]",
                "typing.Type[Array]",
                f"Array[{m}][0]",
                f"Array[Literal[{m}]]",
            ]
        )

    def dtype_arg(self, names: list[str]) -> str:
        m = self.m()
        return self.r.choice(
            [
                f"jaxtypes.{m}",
                m,
                f'"{m}"',
                '"nope"',
                '"f4"',
                '"float"',
                "float",
                "int",
                "bool",
                "complex",
                "str",
                "None",
                "np.float32",
                "np.float64",
                'np.dtype("float32")',
                self.r.choice(names),
                "1",
                "1.5",
                "object()",
                "T",
                "jaxtypes.weak_int",
                "Array",
                f"Array[{m}]",
                f"({m}, {m})",
                "lit",
                "Undefined",
                "...",
                f"[{m}]",
            ]
        )

    def expression(self, names: list[str]) -> str:
        a, b, c = (self.r.choice(names) for _ in range(3))
        op = self.r.choice(BINARY)
        d = self.dtype_arg(names)
        flag = self.r.choice(["True", "False", "flag", "None", "1"])
        args = ", ".join(
            self.r.choice(names + ["1", "2.5", "True", "None", "1j", '"x"', d]) for _ in range(self.r.randint(0, 4))
        )
        sep = ", " if args else ""
        return self.r.choice(
            [
                f"{a} {op} {b}",
                f"{a} {op} {b}",
                f"{a} {op} {b} {op} {c}",
                f"{a} {op} 1",
                f"1 {op} {a}",
                f"2.5 {op} {a}",
                f"{a} {op} True",
                f"True {op} {a}",
                f"{a} {op} 1j",
                f"{a} {op} None",
                f'{a} {op} "s"',
                f"-{a}",
                f"+{a}",
                f"~{a}",
                f"abs({a})",
                f"not {a}",
                f"{a}.sum()",
                f"{a}.sum(dtype={d})",
                f"{a}.sum(0, {d})",
                f"{a}.sum(promote_integers={flag})",
                f"{a}.prod(dtype={d}, promote_integers=False)",
                f"{a}.mean(dtype={d})",
                f"{a}.mean({d})",
                f"{a}.max()",
                f"{a}.min(axis=0)",
                f"{a}.argmax()",
                f"{a}.argmin(keepdims={flag})",
                f"{a}.clip(0, 1)",
                f"{a}.round(2)",
                f"{a}.item()",
                f"{a}.item(*[1])",
                f"{a}.real",
                f"{a}.imag",
                f"{a}.T",
                f"{a}.all()",
                f"{a}.astype({d})",
                f"{a}.astype(dtype={d})",
                f"{a}.astype(*{b})",
                f"{a}.astype(**{{}})",
                f"{a}.sum(**{b})",
                f"{a}.astype()",
                f"{a}.astype({d}, {d})",
                f"{a}.nonexistent",
                f"{a}.__add__({b})",
                f"{a}.__radd__({b})",
                f"{a}.__rsub__({b}, {c})",
                f"Array.__add__({a}, {b})",
                f"Array.sum({a})",
                "Array.real",
                f"{a}[0] {op} {b}",
                f"[x {op} {b} for x in {a}]",
                f"(lambda: {a} {op} {b})()",
                f"sum([{a}, {b}])",
                f"{a} {op} ({b} if flag else 1)",
                f"({a}, {b})[0] {op} 1",
                f"jaxtypes.result_type({args})",
                f"jaxtypes.result_type(*{a})",
                "jaxtypes.result_type()",
                f"jaxtypes.result_type({a}, return_weak_type_flag={flag})",
                f"jaxtypes.result_type({d}, {d})",
                f"jaxtypes.promote_types({d}, {d})",
                f"jaxtypes.promote_types({d})",
                f"jaxtypes.promote_types({d}, {d}, {d})",
                f"jaxtypes.promote_types(a={a}, b={b})",
                f"jaxtypes.promote_dtype({args})",
                f"jaxtypes.promote_dtype({args}{sep}dtype={d})",
                f"jaxtypes.promote_dtype({args}{sep}inexact={flag})",
                f"jaxtypes.promote_dtype(*{a}, **{b})",
                f"jaxtypes.promote_dtype({a}, {b}, dtype={d}, inexact=False)",
                "abs()",
                f"abs({a}, {b})",
                f"{a} {op}= {b}" if False else f"{a}.sum().sum().astype({d}) {op} {b}",
                f"max({a}, {b})",
                f"{a} and {b}",
                f"{a} if {b} else {c}",
                f"{a} in {b}",
                f"{a}.reshape(2, 3) {op} {b}.T",
                f"{a}.conj().real",
                f"jaxtypes.{self.m()} {op} {a}",
            ]
        )

    def statement(self, names: list[str]) -> str:
        e = self.expression(names)
        m = self.m()
        return self.r.choice(
            [
                f"reveal_type({e})",
                f"reveal_type({e})",
                f"y = {e}",
                f"{names[0]} = {e}",
                f"y2: Array[{m}] = {e}",
                f"assert_type({e}, Array[{m}])",
                f"return {e}",
                f"{names[0]} += {e}",
                f"if {e}:\n        pass",
                f"for v in {e}:\n        reveal_type(v)",
                f"z = [{e} for _ in range(2)]",
                f"del {names[-1]}",
                f"print({e})",
            ]
        )

    def program(self) -> str:
        n = self.r.randint(1, 5)
        names = [f"p{i}" for i in range(n)]
        params = ", ".join(f"{p}: {self.annotation()}" for p in names)
        ret = self.r.choice(["None", "Any", "Array[T]", "Array", self.annotation()])
        body = [self.statement(names + ["flag"]) for _ in range(self.r.randint(2, 7))]
        lines = [f"def f({params}, flag: bool, lit: Lit) -> {ret}:"] + [f"    {s}" for s in body]
        extra = self.r.choice(
            [
                "",
                "",
                "",
                f"X = Array[{self.m()}]()\nreveal_type(X + 1)",
                "from jaxtypes import nonexistent",
                "import jaxtypes.nonexistent",
                "R: TypeAlias = Array['R']\ndef g(r: R) -> None:\n    reveal_type(r + 1)",
                "Array = 1  # type: ignore\n",
                f"class Bad(Array[{self.m()}, {self.m()}]): ...\nreveal_type(Bad() + 1)",
                f"class Mk(jaxtypes.{self.m()}): ...\ndef h(a: Array[Mk]) -> None:\n    reveal_type(a + a)",
                "def later(a: Array[Later]) -> None:\n    reveal_type(a * 2)\nclass Later: ...",
                f"v: Array[{self.m()}]\nreveal_type(v.sum() / v)",
                f"if typing.TYPE_CHECKING:\n    w: Array[{self.m()}]\n    reveal_type(-w)",
                "q = jaxtypes.promote_dtype\nreveal_type(q(*[]))",
                "ops = [Array.__add__, Array.__mul__]\nreveal_type(ops[0])",
            ]
        )
        return HEADER + "\n".join(lines) + "\n" + extra + "\n"


def broken_program(rng: random.Random) -> str:
    """A program that does not parse (mypy reports a syntax error)."""
    m = rng.choice(MARKERS)
    return HEADER + rng.choice(
        [
            f"def f(x: Array[{m}]) -> None:\n    y = x +\n",
            f"def f(x: Array[{m}) -> None: ...\n",
            f"x: Array[{m}] = (\n",
            "def f(x: Array[float32]) -> None:\nreveal_type(x + 1)\n",
            f"lambda x: Array[{m}]: x\n",
            f"reveal_type(Array[{m}].sum(dtype=)\n",
        ]
    )


def mypy_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    env["JAXTYPES_MYPY_PLUGIN_DEBUG"] = "1"
    return env


def write_package(root: Path, sources: list[str]) -> None:
    pkg = root / "fz"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for i, text in enumerate(sources):
        (pkg / f"p{i:04d}.py").write_text(text)


def run_mypy(root: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    (root / "pyproject.toml").write_text(
        '[tool.mypy]\nplugins = ["jaxtypes.mypy_plugin"]\nshow_traceback = true\n[tool.jaxtypes]\n'
    )
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(cache), "--no-error-summary", "-p", "fz"],
        cwd=root,
        capture_output=True,
        text=True,
        env=mypy_env(),
        timeout=900,
    )


def assert_no_crash(proc: subprocess.CompletedProcess[str], allow_blocking: bool = False) -> None:
    out = proc.stdout + proc.stderr
    assert "INTERNAL ERROR" not in out, out[-3000:]
    assert "Traceback" not in out, out[-3000:]
    assert proc.returncode in ((0, 1, 2) if allow_blocking else (0, 1)), out[-3000:]


@pytest.fixture(scope="module")
def programs() -> list[str]:
    rng = random.Random(SEED)
    gen = Gen(rng)
    return [gen.program() for _ in range(PROGRAMS)]


def test_at_least_a_thousand_programs(programs: list[str]) -> None:
    assert len(programs) >= 1000 or "JAXTYPES_FUZZ_PROGRAMS" in os.environ
    assert len(set(programs)) == len(programs)


# JAX's default configuration's share in the default run, the other
# configurations' shares (each a cold mypy run) under `pytest -m slow`, which CI runs.
@pytest.mark.parametrize(
    "label", [pytest.param(c, marks=[pytest.mark.slow] if c != "standard-x32" else []) for c in CONFIGS]
)
def test_fuzz_programs_do_not_crash_mypy(tmp_path: Path, programs: list[str], label: str) -> None:
    share = programs[CONFIGS.index(label) :: len(CONFIGS)]
    write_package(tmp_path, share)
    # mypy.ini as the other plugin runs of this configuration write it, so that
    # the run starts from the session's cache snapshot of it (tools/checkers.py);
    # ``launch`` fails on a crash or an exit status other than 0 and 1.
    mode, x64 = label.split("-")
    config = plugin_config(mode, x64 == "x64")
    (tmp_path / "mypy.ini").write_text(config)
    paths = [f"fz/p{i:04d}.py" for i in range(len(share))]
    flags = ["--config-file", "mypy.ini", "--show-traceback", "--no-error-summary"]
    cmd = [sys.executable, "-m", "mypy", *flags, *mypy_cache_flags(config, paths), "-p", "fz"]
    out = launch("mypy-plugin", tmp_path, cmd, 900, mypy_env()).stdout
    # The plugin did run: it answered with markers and reported JAX's errors.
    assert "jaxtypes.markers." in out
    assert "[jax-unsupported]" in out or "[jax-promotion]" in out
    print(
        f"{label}: {len(share)} programs, {sum(p.count(chr(10)) for p in share)} lines, "
        f"{out.count(': error:')} errors ({out.count('[jax-')} from the plugin), "
        f"{out.count('Revealed type')} revealed types"
    )


def test_fuzz_programs_with_syntax_errors(tmp_path: Path) -> None:
    rng = random.Random(SEED + 1)
    write_package(tmp_path, [broken_program(rng) for _ in range(40)])
    proc = run_mypy(tmp_path, tmp_path / "cache")
    assert_no_crash(proc, allow_blocking=True)
    assert "syntax" in proc.stdout
