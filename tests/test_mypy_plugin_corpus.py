"""The exhaustive typecheck cases under mypy with the plugin, in all four
configurations, with JAX's answers in the same configuration.

typecheck_cases/generated/ holds JAX's default configuration (checked for
every checker by test_typecheck_cases.py); here the same files are rendered
from tools/data/jax_expectations.json for each of standard/strict
promotion with x64 off and on, and mypy runs them with ``plugins =
jaxtypes.mypy_plugin`` and the matching ``[jaxtypes]`` settings.  Every line
must be JAX's answer, and every error of the kind its marker names (the
plugin's ``jax-promotion`` or ``jax-unsupported``), but for the deviations
listed for "mypy-plugin" in typecheck_cases/deviations.toml (with their exact
counts per configuration).  As in test_typecheck_cases.py, the default run
checks a sample of the NumPy-operand rows and ``pytest -m slow`` the rest
(tests/case_sample.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.cases import case_files, expectations
from tools.checkers import MYPY_PLUGIN, plugin_config, run, stage

import case_sample
from expected_errors import deviations, wrong_answers

CONFIGS = ("standard-x32", "standard-x64", "strict-x32", "strict-x64")
# JAX's default configuration renders typecheck_cases/generated/ itself, which
# test_typecheck_cases.py checks under the plugin in every run; the default run
# flips x64 (standard-x64); `pytest -m slow` runs all four.  (Strict promotion
# under the plugin is checked in the default run by the scenario and function
# tests: tests/test_jax_stubs.py, tests/test_function_stubs.py.)
SLOW_CONFIGS = ("standard-x32", "strict-x32", "strict-x64")
RUN_CONFIGS = [
    pytest.param(c, p, marks=pytest.mark.slow) if c in SLOW_CONFIGS or p == "rest" else (c, p)
    for c in CONFIGS
    for p in case_sample.PARTS
]


def test_configs_are_jax_s() -> None:
    data = expectations.load()["configs"]
    assert sorted(data) == sorted(CONFIGS)
    for label in CONFIGS:
        mode, _, bits = label.partition("-")
        assert (data[label]["mode"], data[label]["x64"]) == (mode, bits == "x64")


@pytest.mark.parametrize(("config", "part"), RUN_CONFIGS)
def test_plugin_gives_jax_s_answer_in_every_configuration(config: str, part: str, tmp_path: Path) -> None:
    conf = expectations.load()["configs"][config]
    files = {f"generated/{name}": text for name, text in case_files.render(config).items()}
    # About 30,000 lines: every marker pair and scalar under every operator.
    assert sum(text.count("\n") for text in files.values()) > 25_000
    part_files = case_sample.part_of(files, part)
    errors = run(
        MYPY_PLUGIN, tmp_path, stage(part_files, tmp_path), mypy_config=plugin_config(conf["mode"], conf["x64"])
    )
    listed = case_sample.on_lines_of(part_files, deviations(MYPY_PLUGIN, files, config, some_files=True))
    problems = wrong_answers(MYPY_PLUGIN, part_files, errors, listed)
    assert not problems, f"{config} ({part}): {len(problems)} wrong answers\n" + "\n".join(problems[:60])
