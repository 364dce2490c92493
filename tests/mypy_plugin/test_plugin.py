"""The mypy plugin's settings, cache invalidation, robustness and stub coupling.

The YAML files next to this one check the answers; this file checks what
YAML cases cannot: configuration errors (mypy exits with status 2), that a
settings change reaches incremental runs and the daemon, that the plugin's
own exceptions never crash mypy, and that the plugin's plain signatures
still match the stub they replace.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tools.checkers import mypy_cache_flags, mypy_run_cache, plugin_config

ROOT = Path(__file__).resolve().parents[2]

MAIN = """\
from jaxtypes import Array, uint32, int32, float32, int8
def f(a: Array[uint32], b: Array[int32], x: Array[float32], i: Array[int8]) -> None:
    reveal_type(a + b)
    reveal_type(x + i)
"""


@pytest.fixture(autouse=True)
def _helpers(support: Any) -> None:
    global settings, run_mypy, mypy_env
    settings = support.load_checkout_plugin().project_settings
    run_mypy = support.run_mypy
    mypy_env = support.mypy_env


settings: Any
run_mypy: Any
mypy_env: Any


def settings_module() -> Any:
    return settings


def project(tmp_path: Path, pyproject: str = "", ini: str | None = None, main: str = MAIN) -> Path:
    (tmp_path / "main.py").write_text(main)
    if ini is not None:
        (tmp_path / "mypy.ini").write_text(ini)
        if pyproject:
            (tmp_path / "pyproject.toml").write_text(pyproject)
    else:
        (tmp_path / "pyproject.toml").write_text('[tool.mypy]\nplugins = ["jaxtypes.mypy_plugin"]\n' + pyproject)
    return tmp_path


# ----------------------------------------------------------------- settings
class TestSettingsFiles:
    """settings.load without mypy: which files, which values."""

    def test_defaults_without_files(self, tmp_path: Path) -> None:
        (tmp_path / ".git").mkdir()
        s = settings_module().load(None, cwd=str(tmp_path))
        assert (s.promotion, s.x64, s.sources) == ("standard", False, ())

    def test_pyproject_config_file(self, tmp_path: Path) -> None:
        p = tmp_path / "pyproject.toml"
        p.write_text('[tool.mypy]\n[tool.jaxtypes]\npromotion = "strict"\nx64 = true\n')
        s = settings_module().load(str(p))
        assert (s.promotion, s.x64) == ("strict", True)
        assert s.variant.label == "strict-x64"

    def test_ini_section_and_sibling_pyproject(self, tmp_path: Path) -> None:
        (tmp_path / "setup.cfg").write_text("[mypy]\n[jaxtypes]\nx64 = on\n")
        (tmp_path / "pyproject.toml").write_text('[tool.jaxtypes]\npromotion = "strict"\n')
        s = settings_module().load(str(tmp_path / "setup.cfg"))
        assert (s.promotion, s.x64) == ("strict", True)
        assert len(s.sources) == 2

    def test_found_from_the_current_directory(self, tmp_path: Path) -> None:
        (tmp_path / ".git").mkdir()
        (tmp_path / "pyproject.toml").write_text("[tool.jaxtypes]\nx64 = true\n")
        sub = tmp_path / "a" / "b"
        sub.mkdir(parents=True)
        assert settings_module().load(None, cwd=str(sub)).x64 is True

    def test_search_stops_at_the_repository_root(self, tmp_path: Path) -> None:
        (tmp_path / "pyproject.toml").write_text("[tool.jaxtypes]\nx64 = true\n")
        repo = tmp_path / "repo"
        (repo / ".git").mkdir(parents=True)
        assert settings_module().load(None, cwd=str(repo)).x64 is False

    @pytest.mark.parametrize(
        ("text", "needle"),
        [
            ('[tool.jaxtypes]\nx65 = true\n', "unknown key 'x65'; allowed keys: promotion, x64, explicit_x64_dtypes"),
            # JAX's own check (jax.config.update) takes the modes exactly: ' strict ' and 'Strict' are ValueErrors
            (
                '[tool.jaxtypes]\npromotion = " strict "\n',
                "invalid value ' strict ' for 'promotion'; expected one of: 'standard', 'strict' (written exactly",
            ),
            ('[tool.jaxtypes]\npromotion = "Strict"\n', "invalid value 'Strict' for 'promotion'"),
            (
                '[tool.jaxtypes]\nexplicit_x64_dtypes = "WARN"\n',
                "invalid value 'WARN' for 'explicit_x64_dtypes'; expected one of: 'allow', 'warn', 'error'",
            ),
            ('[tool.jaxtypes]\nexplicit_x64_dtypes = true\n', "invalid value True for 'explicit_x64_dtypes'"),
            (
                '[tool.jaxtypes]\npromotion = "lenient"\n',
                "invalid value 'lenient' for 'promotion'; expected one of: 'standard', 'strict'",
            ),
            ('[tool.jaxtypes]\nx64 = "yes"\n', "invalid value 'yes' for 'x64'; expected true or false"),
            ('[tool.jaxtypes]\nx64 = 1\n', "invalid value 1 for 'x64'"),
            ("[tool]\njaxtypes = 3\n", "expected a table of settings (promotion, x64, explicit_x64_dtypes)"),
            ("[tool.jaxtypes\n", "cannot read [tool.jaxtypes]"),
        ],
    )
    def test_toml_errors(self, tmp_path: Path, text: str, needle: str) -> None:
        p = tmp_path / "pyproject.toml"
        p.write_text(text)
        with pytest.raises(settings_module().ConfigError) as err:
            settings_module().load(str(p))
        assert needle in str(err.value)
        assert str(p) in str(err.value)

    @pytest.mark.parametrize(
        ("text", "needle"),
        [
            ("[mypy]\n[jaxtypes]\nx64 = maybe\n", "invalid value 'maybe' for 'x64'"),
            ("[mypy]\n[jaxtypes]\npromotion = loose\n", "invalid value 'loose' for 'promotion'"),
            ("[mypy]\n[jaxtypes]\nmode = strict\n", "unknown key 'mode'"),
            (
                '[mypy]\n[jaxtypes]\npromotion = "strict"\n',
                "(written exactly, as JAX takes it; no quotes in an ini file)",
            ),
            ("[mypy]\n[jaxtypes]\nexplicit_x64_dtypes = Error\n", "invalid value 'Error' for 'explicit_x64_dtypes'"),
        ],
    )
    def test_ini_errors(self, tmp_path: Path, text: str, needle: str) -> None:
        p = tmp_path / "mypy.ini"
        p.write_text(text)
        with pytest.raises(settings_module().ConfigError) as err:
            settings_module().load(str(p))
        assert needle in str(err.value) and "[jaxtypes]" in str(err.value)

    @pytest.mark.parametrize("name", ["pyproject.toml", "mypy.ini"])
    def test_a_file_that_is_not_utf8(self, tmp_path: Path, name: str) -> None:
        p = tmp_path / name
        head = b'[tool.jaxtypes]\npromotion = "' if name.endswith(".toml") else b"[mypy]\n[jaxtypes]\npromotion = "
        p.write_bytes(head + b"\xff\xfe\n")
        with pytest.raises(settings_module().ConfigError) as err:
            settings_module().load(str(p))
        assert str(err.value).startswith(f"{p}: cannot read [")
        assert f"the file is not valid UTF-8 (byte 0xff at offset {len(head)})" in str(err.value)

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ('[tool.jaxtypes]\nexplicit_x64_dtypes = "allow"\n', "allow"),
            ('[tool.jaxtypes]\nexplicit_x64_dtypes = "error"\nx64 = true\n', "error"),
            ("[tool.jaxtypes]\n", "warn"),  # JAX's default
        ],
    )
    def test_explicit_x64_dtypes(self, tmp_path: Path, text: str, expected: str) -> None:
        p = tmp_path / "pyproject.toml"
        p.write_text(text)
        s = settings_module().load(str(p))
        assert s.explicit_x64_dtypes == expected
        assert s.config_data()["jaxtypes"]["explicit_x64_dtypes"] == expected

    @pytest.mark.parametrize("layout", ["toml-value", "toml-key", "ini-value", "ini-line", "toml-nested"])
    def test_a_huge_bad_value_is_shown_short(self, tmp_path: Path, layout: str) -> None:
        """A 10 MB value (or key, or line) is named by its start and length, not echoed."""
        big = "x" * 10_000_000
        text, name = {
            "toml-value": (f'[tool.jaxtypes]\npromotion = "{big}"\n', "pyproject.toml"),
            "toml-key": (f"[tool.jaxtypes]\n{big} = 1\n", "pyproject.toml"),
            "ini-value": (f"[mypy]\n[jaxtypes]\nx64 = {big}\n", "mypy.ini"),
            "ini-line": (f"[mypy]\n[jaxtypes]\n{big}\n", "mypy.ini"),
            "toml-nested": ("[tool.jaxtypes]\npromotion = " + "[" * 100_000 + "]" * 100_000 + "\n", "pyproject.toml"),
        }[layout]
        p = tmp_path / name
        p.write_text(text)
        with pytest.raises(settings_module().ConfigError) as err:
            settings_module().load(str(p))
        message = str(err.value)
        assert len(message) < 500 + len(str(p)), message[:600]
        assert str(p) in message
        if layout != "toml-nested":
            assert "xxxxxxxxxx" in message and ("10000000 characters" in message or "characters)" in message)

    def test_stamp_sees_a_sibling_pyproject_appear(self, tmp_path: Path) -> None:
        ini = tmp_path / "mypy.ini"
        ini.write_text("[mypy]\n")
        before = settings_module().stamp(str(ini))
        (tmp_path / "pyproject.toml").write_text("[tool.jaxtypes]\nx64 = true\n")
        assert settings_module().stamp(str(ini)) != before

    def test_conflicting_files(self, tmp_path: Path) -> None:
        (tmp_path / "mypy.ini").write_text("[mypy]\n[jaxtypes]\nx64 = false\n")
        (tmp_path / "pyproject.toml").write_text("[tool.jaxtypes]\nx64 = true\n")
        with pytest.raises(settings_module().ConfigError, match="set it in one place"):
            settings_module().load(str(tmp_path / "mypy.ini"))


def test_configuration_error_exits_cleanly(tmp_path: Path) -> None:
    """A bad setting: mypy exits with status 2 and a message, not a traceback."""
    project(tmp_path, '[tool.jaxtypes]\nx64 = true\nfast = "yes"\n')
    proc = run_mypy(["--no-incremental", "main.py"], tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert (
        "pyproject.toml: [tool.jaxtypes]: unknown key 'fast'; allowed keys: promotion, x64, explicit_x64_dtypes"
    ) in proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("setting", "warning"),
    [
        (
            'explicit_x64_dtypes = "allow"',
            "JAX keeps explicitly requested 64-bit dtypes (x.astype(jnp.float64) is float64)",
        ),
        ('explicit_x64_dtypes = "error"', "JAX raises ValueError where a 64-bit dtype is requested"),
        ('explicit_x64_dtypes = "allow"\nx64 = true', None),  # with x64 on JAX ignores it
        ('explicit_x64_dtypes = "warn"', None),
    ],
)
def test_explicit_x64_dtypes_is_accepted_and_what_it_changes_said(
    tmp_path: Path, setting: str, warning: str | None
) -> None:
    """The answers stay the plugin's (as 'warn' does: JAX 0.10.2 with x64 off
    truncates x.astype(float64) to float32 under 'warn'); where JAX answers
    otherwise ('allow', 'error' with x64 off) one warning says so.  (The
    settings as the plugin reads them; the mypy run below shows the warning
    printed and the answers kept.)"""
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(f"[tool.mypy]\n[tool.jaxtypes]\n{setting}\n")
    loaded = settings_module().load(str(pyproject))
    assert loaded.variant.label == ("standard-x64" if "x64 = true" in setting else "standard-x32")
    said = loaded.unmodelled()
    if warning is None:
        assert said is None
    else:
        assert said is not None and said.startswith("explicit_x64_dtypes")
        assert warning in said and "the plugin types those requests as 'warn' does" in said


def test_explicit_x64_dtypes_warning_is_printed_once_and_the_answers_kept(tmp_path: Path) -> None:
    project(tmp_path, '[tool.jaxtypes]\nexplicit_x64_dtypes = "error"\n')
    proc = run_mypy(["--no-incremental", "main.py"], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'Revealed type is "jaxtypes._array.Array[jaxtypes.markers.int32]"' in proc.stdout
    warnings = [line for line in proc.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1, proc.stderr
    assert (
        warnings[0]
        == "jaxtypes.mypy_plugin: warning: " + settings_module().Settings(explicit_x64_dtypes="error").unmodelled()
    )


def test_a_10_mb_bad_value_is_not_echoed(tmp_path: Path) -> None:
    project(tmp_path, '[tool.jaxtypes]\npromotion = "' + "s" * 10_000_000 + '"\n')
    proc = run_mypy(["--no-incremental", "main.py"], tmp_path)
    assert proc.returncode == 2
    assert "invalid value 'ssssssssss" in proc.stderr and "(10000000 characters)" in proc.stderr
    assert len(proc.stdout + proc.stderr) < 1000
    assert "Traceback" not in proc.stdout + proc.stderr


def test_configuration_error_in_mypy_ini(tmp_path: Path) -> None:
    project(tmp_path, ini="[mypy]\nplugins = jaxtypes.mypy_plugin\n[jaxtypes]\npromotion = lax\n")
    proc = run_mypy(["--no-incremental", "main.py"], tmp_path)
    assert proc.returncode == 2
    assert "mypy.ini: [jaxtypes]: invalid value 'lax' for 'promotion'" in proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


def test_non_utf8_pyproject_beside_mypy_ini(tmp_path: Path) -> None:
    """Was an INTERNAL ERROR ("Error constructing plugin instance")."""
    project(tmp_path, ini="[mypy]\nplugins = jaxtypes.mypy_plugin\n")
    (tmp_path / "pyproject.toml").write_bytes(b'[tool.jaxtypes]\npromotion = "\xff"\n')
    proc = run_mypy(["--no-incremental", "main.py"], tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out
    assert "pyproject.toml: cannot read [tool.jaxtypes]: the file is not valid UTF-8" in proc.stderr
    assert "INTERNAL ERROR" not in out and "Error constructing plugin" not in out
    assert "Traceback" not in out


def test_broken_toml_beside_mypy_ini(tmp_path: Path) -> None:
    project(tmp_path, "[tool.jaxtypes\n", ini="[mypy]\nplugins = jaxtypes.mypy_plugin\n")
    proc = run_mypy(["--no-incremental", "main.py"], tmp_path)
    assert proc.returncode == 2
    assert "pyproject.toml: cannot read [tool.jaxtypes]: Expected ']'" in proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


# Only the plugin flags this (the stubs accept the comparison): its error shows
# whether the plugin ran.
PLUGIN_ONLY_ERROR = """\
from jaxtypes import Array, int4
def f(x: Array[int4]) -> bool:
    return x == 1.0
"""


def run_from_snapshot(tmp_path: Path, effective: str) -> subprocess.CompletedProcess[str]:
    """mypy over main.py, starting from the session's cache snapshot of the
    configuration ``effective`` (mypy.ini text) that mypy ends up running with;
    mypy checks every cached entry against the run's own options anyway."""
    cmd = [sys.executable, "-m", "mypy", *mypy_cache_flags(effective, ["main.py"]), "main.py"]
    with mypy_run_cache(cmd):
        return subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, env=mypy_env(), timeout=600)


@pytest.mark.parametrize("broken", [None, "ini", "toml"])
def test_a_mypy_config_mypy_cannot_parse_is_mypy_s_to_report(tmp_path: Path, broken: str | None) -> None:
    """What the README says: mypy reports its own broken configuration file and
    then runs without it, so without the plugin (exit status 0); the plugin is
    never loaded and cannot stop the run.  (None: the control, a valid file.)"""
    tail = "" if broken is None else "[jaxtypes\n"
    if broken == "toml":
        project(tmp_path, tail, main=PLUGIN_ONLY_ERROR)
    else:
        project(tmp_path, ini="[mypy]\nplugins = jaxtypes.mypy_plugin\n" + tail, main=PLUGIN_ONLY_ERROR)
    # Without the broken file mypy runs with its defaults; with the valid one,
    # with the plugin at its default settings.
    proc = run_from_snapshot(tmp_path, plugin_config() if broken is None else "[mypy]\n")
    if broken is None:
        assert proc.returncode == 1 and "[jax-promotion]" in proc.stdout, proc.stdout
        return
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr.startswith(("mypy.ini:" if broken == "ini" else "pyproject.toml:"))
    assert "[jax-promotion]" not in proc.stdout


# ------------------------------------------------------- cache invalidation
def test_settings_change_invalidates_the_cache(tmp_path: Path) -> None:
    """An incremental run after a settings change answers with the new settings."""
    project(tmp_path, "[tool.jaxtypes]\nx64 = false\n")
    cache = ["--cache-dir", str(tmp_path / "cache"), "main.py"]
    first = run_mypy(cache, tmp_path)
    assert 'Revealed type is "jaxtypes._array.Array[jaxtypes.markers.int32]"' in first.stdout
    assert "error" not in first.stdout
    project(tmp_path, '[tool.jaxtypes]\nx64 = true\npromotion = "strict"\n')
    second = run_mypy(cache, tmp_path)
    assert 'Revealed type is "jaxtypes._array.Array[jaxtypes.markers.int64]"' not in second.stdout
    assert "[jax-promotion]" in second.stdout  # strict: uint32 + int32 needs a cast
    assert "x.astype(jaxtypes.int64)" in second.stdout
    project(tmp_path, "[tool.jaxtypes]\nx64 = true\n")
    third = run_mypy(cache, tmp_path)
    assert 'Revealed type is "jaxtypes._array.Array[jaxtypes.markers.int64]"' in third.stdout
    unchanged = run_mypy(cache + ["-v"], tmp_path)  # same settings: the cache is used
    assert 'Revealed type is "jaxtypes._array.Array[jaxtypes.markers.int64]"' in unchanged.stdout
    assert "Metadata fresh for main" in unchanged.stderr


def test_daemon_restarts_on_a_settings_change(tmp_path: Path) -> None:
    project(tmp_path, "[tool.jaxtypes]\nx64 = false\n")
    dmypy = [sys.executable, "-m", "mypy.dmypy", "--status-file", str(tmp_path / "status.json")]

    def drun() -> str:
        proc = subprocess.run(
            dmypy + ["run", "--", "main.py"], cwd=tmp_path, capture_output=True, text=True, env=mypy_env(), timeout=600
        )
        return proc.stdout + proc.stderr

    try:
        assert "markers.int32" in drun()
        project(tmp_path, "[tool.jaxtypes]\nx64 = true\n")
        out = drun()
        assert "Restarting: plugins changed" in out and "markers.int64" in out
    finally:
        subprocess.run(dmypy + ["stop"], cwd=tmp_path, capture_output=True, env=mypy_env(), timeout=120)


class Daemon:
    """A mypy daemon for one temporary project, with its own status file."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.base = [sys.executable, "-m", "mypy.dmypy", "--status-file", str(root / "dmypy-status.json")]

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.base + list(args), cwd=self.root, capture_output=True, text=True, env=mypy_env(), timeout=600
        )

    def stop(self) -> None:
        self("stop")


RESTART = "the jaxtypes settings changed since the mypy daemon started (x64 False -> True); run 'dmypy restart'"


def test_daemon_check_and_recheck_refuse_changed_settings(tmp_path: Path) -> None:
    """dmypy check / recheck keep the plugin that read the old settings: once
    the settings change, every run that rechecks a module says to restart
    (and fails) instead of answering with the old settings; a restart answers
    with the new ones."""
    project(tmp_path, "[tool.jaxtypes]\nx64 = false\n")
    daemon = Daemon(tmp_path)
    try:
        first = daemon("run", "--", "main.py")
        assert "markers.int32" in first.stdout, first.stdout + first.stderr
        project(tmp_path, "[tool.jaxtypes]\nx64 = true\n")
        # The limit the README states: no module rechecked, no plugin code
        # runs, and the daemon repeats its previous answer.
        assert "markers.int32" in daemon("check", "main.py").stdout
        project(tmp_path, "[tool.jaxtypes]\nx64 = true\n", main=MAIN + "# edited\n")
        for args in (["check", "main.py"], ["recheck"], ["check", "main.py"]):
            proc = daemon(*args)
            assert proc.returncode != 0, (args, proc.stdout)
            assert RESTART in proc.stdout, (args, proc.stdout + proc.stderr)
            assert "markers.int32" not in proc.stdout
        restarted = daemon("restart", "--", "main.py")
        assert restarted.returncode == 0, restarted.stdout + restarted.stderr
        after = daemon("check", "main.py")
        assert "markers.int64" in after.stdout and RESTART not in after.stdout
    finally:
        daemon.stop()


def test_daemon_accepts_an_edit_that_keeps_the_settings(tmp_path: Path) -> None:
    project(tmp_path, "[tool.jaxtypes]\nx64 = true\n")
    daemon = Daemon(tmp_path)
    try:
        assert "markers.int64" in daemon("run", "--", "main.py").stdout
        project(tmp_path, "# a comment\n[tool.jaxtypes]\nx64 = true\n", main=MAIN + "# edited\n")
        proc = daemon("check", "main.py")
        assert "markers.int64" in proc.stdout and "Success: no issues found" in proc.stdout, proc.stdout
    finally:
        daemon.stop()


# ------------------------------------------------------------- robustness
INJECT = textwrap.dedent("""\
    import sys
    from jaxtypes import lattice, operation_rules
    import jaxtypes.mypy_plugin.operator_signatures as operator_signatures
    import jaxtypes.mypy_plugin.type_nodes as type_nodes

    def boom(*args, **kwargs):
        raise RuntimeError("injected plugin failure")

    for module, name in [(operation_rules, "binary"), (operation_rules, "unary"), (operation_rules, "method"),
                         (operation_rules, "item_type"),
                         (lattice, "result_type"), (lattice, "join"),
                         (operator_signatures, "_parse_class_body"), (type_nodes.Builder, "array_of"),
                         (type_nodes.Builder, "numpy_dtype")]:
        setattr(module, name, boom)
    from mypy.main import main
    main(args=sys.argv[1:], clean_exit=True)
""")

ROBUST_MAIN = """\
import jaxtypes
from jaxtypes import Array, float32, int8, complex64
def f(x: Array[float32], i: Array[int8], c: Array[complex64]) -> None:
    reveal_type(x + i)
    reveal_type(-i)
    reveal_type(abs(c))
    reveal_type(i.sum())
    reveal_type(c.real)
    reveal_type(i.item())
    reveal_type(i.astype("bfloat16"))
    reveal_type(jaxtypes.result_type(x, i))
    reveal_type(jaxtypes.promote_types(jaxtypes.int8, jaxtypes.uint8))
    reveal_type(jaxtypes.promote_dtype(x, i))
"""


@pytest.mark.parametrize("debug", ["0", "1"])
def test_plugin_exceptions_do_not_escape(tmp_path: Path, debug: str) -> None:
    """With every rule and the class rewrite raising, mypy still finishes (the
    guard answers with mypy's own types); JAXTYPES_MYPY_PLUGIN_DEBUG=1 lets
    the exception through, which shows the guard is what caught it."""
    project(tmp_path, main=ROBUST_MAIN)
    (tmp_path / "inject.py").write_text(INJECT)
    proc = subprocess.run(
        [sys.executable, "inject.py", "--no-incremental", "--show-traceback", "main.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=mypy_env(JAXTYPES_MYPY_PLUGIN_DEBUG=debug),
        timeout=600,
    )
    out = proc.stdout + proc.stderr
    if debug == "1":
        assert "injected plugin failure" in out
        return
    assert proc.returncode in (0, 1), out
    assert "Traceback" not in out and "INTERNAL ERROR" not in out and "injected" not in out
    assert out.count("Revealed type") == 10
    # The rewrite failed too, so the stub's own overloads answer the operator.
    assert 'Revealed type is "jaxtypes._array.Array[jaxtypes.markers.float32]"' in out


# ------------------------------------------------------ coupling to the stub
def _stub_class(tree: ast.Module, name: str) -> ast.ClassDef:
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)


def _params(func: ast.FunctionDef) -> list[tuple[str, str, str | None]]:
    """(kind, name, default) of each parameter but self."""
    a = func.args
    out: list[tuple[str, str, str | None]] = []
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for arg, default in zip(positional, defaults):
        out.append(("pos", arg.arg, ast.unparse(default) if default else None))
    if a.vararg:
        out.append(("star", a.vararg.arg, None))
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        out.append(("kw", arg.arg, ast.unparse(default) if default else None))
    return [p for p in out if p[1] != "self"]


def _replacement(plugin: Any, name: str) -> ast.FunctionDef:
    source = "class Array:\n" + textwrap.indent(plugin.operator_signatures.SIGNATURES[name], "    ")
    cls = ast.parse(source).body[0]
    assert isinstance(cls, ast.ClassDef)
    func = cls.body[0]
    assert isinstance(func, ast.FunctionDef)
    return func


def test_replacements_match_the_stub(plugin_source: Any) -> None:
    """Each plain signature takes the parameters of the stub member it replaces
    (the last, catch-all overload of its table), and every descriptor member
    of the stub's Array has a replacement: a stub change shows up here."""
    tree = ast.parse((ROOT / "jaxtypes" / "_array.pyi").read_text())
    array = _stub_class(tree, "Array")
    sigs = plugin_source.operator_signatures.SIGNATURES
    members: dict[str, ast.stmt] = {}
    for node in array.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            members[node.target.id] = node
        elif isinstance(node, ast.FunctionDef):
            members.setdefault(node.name, node)
    descriptors = {
        name: ast.unparse(node.annotation)
        for name, node in members.items()
        if isinstance(node, ast.AnnAssign) and ast.unparse(node.annotation).endswith(("Op", "Method"))
    }
    assert set(descriptors) <= set(sigs), set(descriptors) - set(sigs)
    for name in sigs:
        assert name in members, f"the stub's Array has no {name}"
    for name, annotation in descriptors.items():
        descriptor = _stub_class(tree, annotation)
        table = descriptor.body[-1]  # the fallback __get__ overload: its table class
        assert isinstance(table, ast.FunctionDef)
        assert table.returns is not None
        table_name = ast.unparse(table.returns).split("[")[0]
        body = _stub_class(tree, table_name).body
        # A table's __call__ is an alias of its signatures' def (or that def).
        called = next(
            (
                a.value.id
                for a in body
                if isinstance(a, ast.Assign)
                and [ast.unparse(t) for t in a.targets] == ["__call__"]
                and isinstance(a.value, ast.Name)
            ),
            "__call__",
        )
        calls = [n for n in body if isinstance(n, ast.FunctionDef) and n.name == called]
        assert _params(calls[-1]) == [(k, n, d) for k, n, d in _params(_replacement(plugin_source, name))], (
            name,
            table_name,
        )
    astype = [n for n in array.body if isinstance(n, ast.FunctionDef) and n.name == "astype"]
    assert [p[1] for p in _params(astype[-1])] == [p[1] for p in _params(_replacement(plugin_source, "astype"))]


def test_plugin_imports_no_numpy() -> None:
    code = (
        "import sys, jaxtypes.mypy_plugin; "
        "print(sorted(m for m in ('numpy', 'ml_dtypes', 'jaxtypes.promotion', 'jax') if m in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT.parent, capture_output=True, text=True, env=mypy_env(), timeout=120
    )
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr
