"""benchmarks/stub_builds.py: the file it times is JAX code that runs, and
its command refuses what is not a build of the stubs."""

from __future__ import annotations

from pathlib import Path

import jax.numpy as jnp
import pytest

from benchmarks import stub_builds


@pytest.mark.parametrize("methods", [False, True])
def test_calls_file_runs_under_jax(methods: bool) -> None:
    text = stub_builds.calls_file(45, methods=methods)
    assert ("y0 = jnp." in text or "y0 = jax." in text) != methods
    namespace: dict[str, object] = {}
    exec(compile(text, "calls.py", "exec"), namespace)
    functions = [v for k, v in namespace.items() if k[:1] == "f" and k[1:].isdigit()]
    assert len(functions) == 3  # 45 calls, rounded up to functions of 20
    assert text.count("    y") == 60
    for f in functions:
        f(jnp.ones((2, 3), jnp.float32), jnp.ones((2, 3), jnp.bfloat16), jnp.ones((2, 3), jnp.int32))


def test_refuses_a_directory_that_is_no_build(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        stub_builds.main(["--before", str(tmp_path), "--after", str(tmp_path)])
    assert f"--before {tmp_path}: not a directory made by `jaxtypes jax-stubs --out DIR`" in capsys.readouterr().err
