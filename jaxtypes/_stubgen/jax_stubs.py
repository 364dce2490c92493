"""``jaxtypes jax-stubs``: make the installed JAX's own ``jax.Array`` carry its dtype.

JAX declares ``jax.Array`` in the inline stub ``jax/_src/basearray.pyi``.  This
module reads that file from the JAX installed in the current environment,
transforms it (``jaxtypes._stubgen.basearray_stub``: ``Array`` generic in its dtype,
with jaxtypes' promotion-aware operators and methods) and lays the result out
for the checkers (``render``): installed as a PEP 561 partial stub package
(``install``), or written to a directory (``write``, ``--out``).
``jaxtypes/_array.pyi`` is laid out beside it, re-exporting the class: with the
stubs, ``jaxtypes.Array`` *is* ``jax.Array``, interchangeable both ways.

A JAX is accepted when its version is one the stubs were checked on
(``SUPPORTED``, by ``benchmarks/jax_versions.py``) and its module has every
part the transformation needs (``basearray_stub.check_shape``); otherwise
generation is refused (``UnsupportedJAX``), naming what is wrong.  Nothing of
JAX is kept in this repository: what is copied is read from the installation.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from jaxtypes._stubgen import (
    basearray_stub,
    flax_helpers,
    function_overloads,
    initializer_stubs,
    jax_transforms,
    layer_stubs,
    optax_stubs,
    package_stubs,
    syntax,
)
from jaxtypes._stubgen import install as stub_install
from jaxtypes._stubgen.record import (
    BASEARRAY,
    DISTRIBUTION,
    MARK,
    MYPY_DIR,
    PLUGIN_DIR,
    SEARCH_DIR,
    SUPPORTED,
    PackageInstall,
    Staleness,
    find_installed,
    installed_stubs,
    recorded_versions,
    staleness,
    supported_versions,
)

__all__ = [
    "SUPPORTED",
    "UnsupportedJAX",
    "JaxInstall",
    "locate_jax",
    "check_supported",
    "supported_versions",
    "render_basearray",
    "render",
    "write",
    "generate",
    "setup_lines",
    "installed_setup",
    "BASEARRAY",
    "LAYOUTS",
    "MYPY_DIR",
    "SEARCH_DIR",
    "MARK",
    "StubsError",
    "DISTRIBUTION",
    "install",
    "uninstall",
    "PACKAGES",
    "recorded_versions",
    "installed_stubs",
    "Staleness",
    "staleness",
    "Setting",
    "setup",
    "layer_status",
]

HEADER: Final = (
    MARK + " (jaxtypes {jaxtypes}, JAX {jax}) from\n"
    "# {source}; do not edit.  Regenerate after upgrading JAX or jaxtypes.\n"
    "# mypy: ignore-errors\n"
)


class StubsError(Exception):
    """The stubs cannot be made, written or installed (one line, for the CLI)."""


class UnsupportedJAX(StubsError):
    """The installed JAX is missing, or its stubs are not what the generator knows."""


@dataclass(frozen=True)
class JaxInstall(PackageInstall):
    @property
    def basearray(self) -> Path:
        return self.root / BASEARRAY


def locate_jax() -> JaxInstall:
    """The JAX installed in this environment (found without importing it)."""
    found = find_installed("jax")
    if found is None:
        raise UnsupportedJAX(
            "JAX is not installed in this Python environment; install it (pip install jax) "
            "and run `jaxtypes jax-stubs` with that environment's Python"
        )
    return JaxInstall(found.root, found.version)


def check_supported(source: str, version: str, where: str = "jax/_src/basearray.pyi") -> ast.Module:
    """``source`` parsed; ``UnsupportedJAX`` when JAX ``version`` is not one
    the stubs were checked on, or its module lacks a part they need."""
    versions = ", ".join(supported_versions())
    if version not in SUPPORTED:
        raise UnsupportedJAX(
            f"the installed JAX {version} is not supported: this jaxtypes was checked with "
            f"JAX {versions}. Install one of them, or a jaxtypes release that supports this JAX."
        )
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        raise UnsupportedJAX(f"the installed JAX {version}'s {where} does not parse: {e}") from None
    missing = basearray_stub.check_shape(tree)
    if missing:
        raise UnsupportedJAX(
            f"the installed JAX {version} is not supported: its {where} is not the one JAX "
            f"{version} ships (modified?): it lacks what the generator transforms "
            f"(missing: {'; '.join(missing)}). Supported JAX versions: {versions}."
        )
    return tree


def render_basearray(source: str, jax_version: str) -> str:
    """The transformed ``jax/_src/basearray.pyi`` of JAX ``jax_version``."""
    from jaxtypes._version import __version__

    tree = check_supported(source, jax_version)
    header = HEADER.format(jaxtypes=__version__, jax=jax_version, source="jax/_src/basearray.pyi")
    try:
        return basearray_stub.render_basearray(tree, header)
    except basearray_stub.ShapeError as e:
        raise UnsupportedJAX(f"the installed JAX {jax_version} is not supported: {e}") from None


def render_jaxtypes_array(jax_version: str) -> str:
    """``jaxtypes/_array.pyi``: jaxtypes.Array is the generic jax.Array."""
    from jaxtypes._version import __version__

    names = ["Array"] + [n for n in basearray_stub.prelude_names() if n != "Array"]
    lines = [
        HEADER.format(jaxtypes=__version__, jax=jax_version, source="jax/_src/basearray.pyi").rstrip("\n"),
        '"""jaxtypes.Array is jax.Array here (made generic in its dtype by `jaxtypes jax-stubs`)."""',
        "",
        "from jax._src.basearray import (",
    ]
    lines += [f"    {n} as {n}," for n in names]
    lines += [")", "", '__all__ = ["Array"]', ""]
    return "\n".join(lines)


# What each checker is pointed at, relative to the output directory.
LAYOUTS: Final = {"mypy": MYPY_DIR, "pyright": ".", "basedpyright": ".", "pyrefly": SEARCH_DIR, "ty": "."}


def _jaxtypes_root() -> Path:
    import jaxtypes

    return Path(jaxtypes.__file__).resolve().parent


def _inline_stubs(root: Path, skip: Iterable[str]) -> list[str]:
    """The package's inline ``.pyi`` files (relative paths), but ``skip``."""
    skip = set(skip)
    return [rel for rel in (p.relative_to(root).as_posix() for p in sorted(root.rglob("*.pyi"))) if rel not in skip]


def _init_copies(root: Path, modules: Iterable[str]) -> dict[str, Path]:
    """{``__init__.pyi`` path: its source} for every package above ``modules``."""
    out: dict[str, Path] = {}
    for rel in modules:
        parts = rel.split("/")[:-1]
        for i in range(len(parts) + 1):
            init = "/".join(parts[:i] + ["__init__.pyi"])
            src = root / init if (root / init).is_file() else root / init[:-1]
            out.setdefault(init, src)
    return out


def render(jax: JaxInstall) -> dict[str, str]:
    """{path relative to the output directory: content} for the installed JAX.

    The generated modules (``jax/_src/basearray.pyi``, JAX's function
    modules, ``jaxtypes/_array.pyi``, and with a supported flax or equinox
    installed ``flax/linen/__init__.pyi``, ``flax/nnx/__init__.pyi``, Flax's
    dtype helpers (``jaxtypes._stubgen.flax_helpers``) and
    ``equinox/nn/__init__.pyi``: ``jaxtypes._stubgen.layer_stubs``; with a
    supported optax ``optax/__init__.pyi`` and ``optax/losses/__init__.pyi``:
    ``jaxtypes._stubgen.optax_stubs``) are laid out three times, in the form each checker resolves as an override
    of part of an installed package without losing the rest of it:

    * ``jax-stubs/``, ``jaxtypes-stubs/`` (pyright, basedpyright: ``typings``
      is their default ``stubPath``; ty's ``extra-paths``): PEP 561 partial
      stub packages.  They also hold a copy of the packages' other inline
      ``.pyi`` modules, which pyright reads as empty modules once a stub
      package provides part of the package.
    * ``.mypy-path/`` (mypy's ``mypy_path``): regular packages; mypy only
      takes a module from a search-path package whose every level has an
      ``__init__``, so the ``__init__`` modules above the generated ones are
      copied (as stubs) from the installation; every other module still comes
      from site-packages.  (mypy ignores ``-stubs`` packages in ``mypy_path``.)
    * ``.search-path/`` (pyrefly's ``search-path``): packages holding just
      the generated modules.  (ty takes a package found on ``extra-paths`` for
      the whole package: ``import jax.tree_util`` would not resolve.)

    The two directories start with a dot so that pyright, which checks every
    file under the project, leaves them alone (pyrefly and ty check every
    layout: the stubs have no error of their own); none of the three is an
    importable name, so none shadows a real package.
    """
    source = jax.basearray.read_text(encoding="utf-8") if jax.basearray.is_file() else ""
    if not source:
        raise UnsupportedJAX(
            f"the installed JAX {jax.version} ({jax.root}) has no {BASEARRAY}; "
            f"supported JAX versions: {', '.join(supported_versions())}"
        )
    from jaxtypes._version import __version__

    # jaxtypes's own stubs come from the generator that made the descriptors
    # (also when running from a source checkout, where they are not installed).
    generated = {BASEARRAY: render_basearray(source, jax.version)}
    plugin_modules: dict[str, str] = {}  # rel -> the module as the mypy plugin reads it
    tables = function_overloads.FunctionTables()
    for rel, module in function_overloads.MODULES.items():
        path = jax.root / rel
        try:
            stub = function_overloads.transform_module(ast.parse(path.read_text(encoding="utf-8")), module, tables)
        except (SyntaxError, OSError):
            continue  # that module keeps JAX's own typing (its stub is copied as it is)
        generated[rel] = (
            HEADER.format(jaxtypes=__version__, jax=jax.version, source=f"jax/{rel}") + ast.unparse(stub) + "\n"
        )
        _add_plugin_module(plugin_modules, rel, stub, f"jax/{rel}", jax.version)
    for rel, module in function_overloads.RUNTIME_MODULES.items():
        if not (jax.root / rel).is_file() or (jax.root / rel).with_suffix(".pyi").is_file():
            continue  # (JAX's own stub, if any, is rewritten above)
        try:
            runtime = function_overloads.render_runtime_module(jax.root, rel, module, tables)
        except (syntax.ModuleShapeError, SyntaxError, OSError):
            continue  # that module keeps JAX's own typing
        if runtime is not None:
            rel_stub = rel[:-3] + ".pyi"
            generated[rel_stub] = (
                HEADER.format(jaxtypes=__version__, jax=jax.version, source=f"jax/{rel}") + ast.unparse(runtime) + "\n"
            )
            _add_plugin_module(plugin_modules, rel_stub, runtime, f"jax/{rel}", jax.version)
    try:
        initializers = initializer_stubs.render(jax.root)
    except (SyntaxError, OSError, ValueError):
        initializers = None  # jax.nn.initializers keeps JAX's own typing
    if initializers is not None:
        generated[initializer_stubs.STUB] = (
            HEADER.format(jaxtypes=__version__, jax=jax.version, source="jax/nn/initializers.py") + initializers
        )
    try:
        jax_init = jax_transforms.render_jax_init(jax.root)
    except (syntax.ModuleShapeError, SyntaxError, OSError):
        jax_init = None  # jax keeps JAX's own typing of its transforms
    if jax_init is not None:
        generated["__init__.pyi"] = (
            HEADER.format(jaxtypes=__version__, jax=jax.version, source="jax/__init__.py")
            + ast.unparse(jax_init)
            + "\n"
        )
    for rel in jax_transforms.TREE_FUNCTIONS:
        try:
            tree_stub = jax_transforms.render_tree_module(jax.root, rel)
        except (syntax.ModuleShapeError, SyntaxError, OSError):
            tree_stub = None  # that module keeps JAX's own typing
        if tree_stub is not None:
            generated[rel[:-3] + ".pyi"] = (
                HEADER.format(jaxtypes=__version__, jax=jax.version, source=f"jax/{rel}")
                + ast.unparse(tree_stub)
                + "\n"
            )
    markers = function_overloads.transform_markers(
        package_stubs.render_stubs()["jaxtypes/markers.pyi"],
        tables,
        [
            *layer_stubs.marker_typevar_lines(),
            *jax_transforms.marker_typevar_lines(),
            *initializer_stubs.marker_typevar_lines(),
            *optax_stubs.marker_typevar_lines(),
        ],
    )
    header = HEADER.format(jaxtypes=__version__, jax=jax.version, source="jaxtypes._stubgen.package_stubs")
    packages = {
        "jax": (jax.root, generated),
        "jaxtypes": (
            _jaxtypes_root(),
            {"_array.pyi": render_jaxtypes_array(jax.version), "markers.pyi": header + markers},
        ),
    }
    for library in (*layer_stubs.LIBRARIES, optax_stubs.LIBRARY):
        found = layer_stubs.locate(library)
        if found is None or not found.supported:
            continue
        # The layers of flax and equinox, and Optax's losses, typed in the
        # stubs of the packages that re-export them.
        packages[library] = (
            found.root,
            {
                rel: HEADER.format(
                    jaxtypes=__version__, jax=jax.version, source=f"{library}/{rel[:-1]} ({library} {found.version})"
                )
                + text
                for rel, text in _library_stubs(found).items()
            },
        )
    files: dict[str, str] = {}
    for name, (root, generated) in packages.items():
        for rel, text in generated.items():
            files[f"{name}-stubs/{rel}"] = text
            files[f"{MYPY_DIR}/{name}/{rel}"] = text
            files[f"{SEARCH_DIR}/{name}/{rel}"] = text
        files[f"{name}-stubs/py.typed"] = "partial\n"
        if name == "jax":
            for rel, text in plugin_modules.items():
                files[f"jax-stubs/{PLUGIN_DIR}/{rel}"] = text
                files[f"{MYPY_DIR}/jax/{PLUGIN_DIR}/{rel}"] = text
        for rel in _inline_stubs(root, generated):
            files[f"{name}-stubs/{rel}"] = _mark_copy(
                (root / rel).read_text(encoding="utf-8"), jax.version, f"{name}/{rel}"
            )
        if name == "jaxtypes" and not (root / "__init__.pyi").is_file():
            # pyrefly takes the runtime package's __init__ (and, through its
            # imports, the runtime markers) over a partial stub package that has none.
            files[f"{name}-stubs/__init__.pyi"] = _mark_copy(
                (root / "__init__.py").read_text(encoding="utf-8"), jax.version, f"{name}/__init__.py"
            )
        for init, src in _init_copies(root, generated).items():
            if init in generated:  # a package's own module, generated above
                continue
            text = src.read_text(encoding="utf-8") if src.is_file() else ""
            package = ".".join([name, *init.split("/")[:-1]])
            files[f"{MYPY_DIR}/{name}/{init}"] = _mark_copy(
                _absolute_imports(text, package), jax.version, f"{name}/{src.relative_to(root).as_posix()}"
            )
    return dict(sorted(files.items()))


def _library_stubs(install: layer_stubs.LayerInstall) -> dict[str, str]:
    """{stub path relative to the library's root: its text}: the packages of
    its typed layers, and for flax the modules of its dtype helpers (for
    optax: the packages of its typed losses)."""
    if install.library == optax_stubs.LIBRARY:
        return optax_stubs.render(install.root)
    stubs = layer_stubs.render(install)
    if install.library == "flax":
        stubs |= flax_helpers.render(install.root)
    return stubs


def _add_plugin_module(modules: dict[str, str], rel: str, stub: ast.Module, source: str, jax_version: str) -> None:
    """The generated module ``rel`` as the mypy plugin reads it, if it differs
    (``function_overloads.plugin_module``)."""
    from jaxtypes._version import __version__

    lighter = function_overloads.plugin_module(stub)
    if lighter is not None:
        modules[rel] = (
            HEADER.format(jaxtypes=__version__, jax=jax_version, source=source)
            + "# The mypy plugin's: JAX's declarations of the functions it answers.\n"
            + ast.unparse(lighter)
            + "\n"
        )


def _absolute_imports(text: str, package: str) -> str:
    """A copied ``__init__`` of ``package`` with its relative imports made
    absolute (``from ._ad import x``, equinox's): the same to mypy, and
    resolvable by ty and pyrefly, which check a ``--out`` tree inside a
    project, where the copy's sibling modules are not.  Without relative
    imports (or unparsable) the text is kept as it is."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    relative = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
    if not relative:
        return text
    for node in relative:
        node.module, node.level = syntax.absolute_module(node, package), 0
    return ast.unparse(tree) + "\n"


def _mark_copy(text: str, jax_version: str, rel: str) -> str:
    from jaxtypes._version import __version__

    head = HEADER.format(jaxtypes=__version__, jax=jax_version, source=rel)
    return head + "# (a copy: a stub directory that provides part of a package hides the rest)\n" + text


def _generated(path: Path) -> bool:
    """Whether ``path`` was written by this command (its first line), read as
    bytes: any other file, in any encoding, is the user's."""
    try:
        with path.open("rb") as f:
            return f.read(len(MARK)) == MARK.encode()
    except OSError:
        return False


def write(out: Path, files: Mapping[str, str]) -> list[Path]:
    """Write ``files`` under ``out`` at once: the stub directories are built in
    a temporary directory inside ``out`` and swapped in, so a failure (a full
    disk) leaves the earlier stubs as they were.  Files an earlier run
    generated (recognised by their first line) that are no longer produced go;
    any other file in those directories stays."""
    import os
    import shutil
    import tempfile

    out.mkdir(parents=True, exist_ok=True)
    tops = sorted({rel.split("/", 1)[0] for rel in files})
    staging = Path(tempfile.mkdtemp(prefix=".jaxtypes-stubs-", dir=out))
    try:
        for rel, text in files.items():
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="\n")
        for top in tops:  # what the user put in these directories stays
            for old in sorted((out / top).rglob("*")) if (out / top).is_dir() else []:
                kept = old.relative_to(out)
                if old.is_file() and kept.as_posix() not in files and not _generated(old):
                    (staging / kept).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(old, staging / kept)
        for top in tops:
            if (out / top).exists():
                os.replace(out / top, staging / f".replaced-{top}")
            os.replace(staging / top, out / top)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [out / rel for rel in files]


@dataclass(frozen=True)
class Setting:
    """One checker's configuration for stubs written with ``--out``."""

    checker: str
    file: str  # the configuration file it goes in
    section: str  # its section there ("" for JSON)
    line: str  # the setting, verbatim ("" when nothing is needed)
    note: str = ""


def setup(out: str) -> list[Setting]:
    """Each checker's configuration for stubs written to ``out`` (as given)."""
    out = out.rstrip("/\\") or "."
    default = out in ("typings", "./typings")
    pyright = "" if default else f'"stubPath": "{out}"'
    return [
        Setting(
            "pyright",
            "pyrightconfig.json",
            "",
            pyright,
            "nothing: their stubPath defaults to typings" if default else "",
        ),
        Setting(
            "basedpyright",
            "pyrightconfig.json",
            "",
            pyright,
            "nothing: their stubPath defaults to typings" if default else "",
        ),
        Setting(
            "mypy", "mypy.ini", "[mypy]", f"mypy_path = {out}/{MYPY_DIR}", f"{MYPY_PLUGIN_NOTE}; {MYPY_RESULTS_NOTE}"
        ),
        Setting(
            "pyrefly",
            "pyproject.toml",
            "[tool.pyrefly]",
            f'search-path = ["{out}/{SEARCH_DIR}"]',
            f"and {PYREFLY_PRESET}; run `pyrefly check` on the project: given file names, pyrefly 1.4 ignores it",
        ),
        Setting("ty", "pyproject.toml", "[tool.ty.environment]", f'extra-paths = ["{out}"]'),
    ]


# mypy's supported set-up with the stubs: without the plugin, mypy resolves a
# call of JAX's functions against the declared type of where its result goes
# first, then falls back to JAX's signature, missing the wrong dtype.
MYPY_PLUGIN_NOTE: Final = "and plugins = jaxtypes.mypy_plugin: mypy's supported set-up"
# mypy does not infer a function's result from its body: without a return
# annotation it is Any, and the dtype is lost (mypy's documentation, "Functions"
# in "Type inference and type annotations").
MYPY_RESULTS_NOTE: Final = "mypy gives a function without a return annotation the result Any: annotate results"
# pyrefly without a configuration file runs its "basic" preset, which reports
# none of the dtype errors (pyrefly's documentation, "Configuration": presets).
PYREFLY_PRESET: Final = 'preset = "default"'


def installed_setup() -> list[Setting]:
    """Each checker's configuration for the installed stubs (``install``)."""
    return [
        Setting("pyright", "pyrightconfig.json", "", "", "nothing"),
        Setting("basedpyright", "pyrightconfig.json", "", "", "nothing"),
        Setting(
            "mypy",
            "mypy.ini",
            "[mypy]",
            "plugins = jaxtypes.mypy_plugin",
            "mypy's supported set-up: without it mypy misses wrong dtypes of JAX's functions "
            f"in returns, assignments and arguments; {MYPY_RESULTS_NOTE}",
        ),
        Setting(
            "pyrefly",
            "pyproject.toml",
            "[tool.pyrefly]",
            PYREFLY_PRESET,
            "without a configuration file pyrefly's basic preset reports none of the dtype errors",
        ),
        Setting("ty", "pyproject.toml", "[tool.ty.environment]", "", "nothing"),
    ]


def setup_lines(out: str | None) -> list[str]:
    """``setup(out)`` (``installed_setup()`` for None) as the command prints it."""
    lines: list[str] = []
    for s in installed_setup() if out is None else setup(out):
        where = f"{s.file}" + (f" {s.section}" if s.section else "")
        text = f"{s.line} ({where})" if s.line else ""
        lines.append(f"{s.checker + ':':13} " + "; ".join(t for t in (text, s.note) if t))
    return lines


# JAX's configuration beyond its defaults, as the plugin reads it ([tool.jaxtypes]
# of pyproject.toml, or [jaxtypes] of mypy.ini): the lines `jax-stubs` prints.
CONFIGURATION_SETTINGS: Final = (
    ('promotion = "strict"', "jax_numpy_dtype_promotion='strict': every implicit promotion between dtypes is an error"),
    ("x64 = true", "jax_enable_x64 (JAX_ENABLE_X64): 64-bit dtypes, as JAX runs with it"),
)


def configuration_lines() -> list[str]:
    """What `jax-stubs` prints about checking JAX's strict promotion and x64."""
    width = max(len(line) for line, _ in CONFIGURATION_SETTINGS)
    return [
        "Strict promotion and x64: the stubs type JAX's defaults (standard promotion, x64 off) in every "
        "checker; mypy with the plugin checks a project's own, in pyproject.toml [tool.jaxtypes] "
        "(mypy.ini [jaxtypes]):",
        *(f"  {line:{width}}  # {why}" for line, why in CONFIGURATION_SETTINGS),
        "pyright, basedpyright, pyrefly, ty and mypy without the plugin cannot check them.",
    ]


def layer_status() -> list[str]:
    """One line per installed layer library (flax, equinox) and Optax on what the stubs do for it."""
    lines = [layer_stubs.status(layer_stubs.locate(library)) for library in layer_stubs.LIBRARIES]
    lines.append(optax_stubs.status(layer_stubs.locate(optax_stubs.LIBRARY)))
    return [line for line in lines if line is not None]


def generate(out: Path, jax: JaxInstall | None = None) -> list[Path]:
    """Generate the stubs for ``jax`` (default: the installed JAX) into ``out``."""
    return write(out, render(jax or locate_jax()))


# ----------------------------------------------------------------- install
PACKAGES: Final = stub_install.PACKAGES  # its top-level directories


def _wheel_version(jax_version: str) -> str:
    from jaxtypes._version import __version__

    local = re.sub(r"[^0-9a-zA-Z]+", ".", f"jaxtypes{__version__}").strip(".")
    base = jax_version if re.fullmatch(r"\d+(\.\d+)*", jax_version) else "0"
    return f"{base}+{local}"


def install(jax: JaxInstall | None = None, site: Path | None = None) -> stub_install.Installed:
    """Install the stubs for ``jax`` (default: the installed JAX) into ``site``
    (default: this interpreter's site-packages) as the distribution
    ``DISTRIBUTION``, without pip (``jaxtypes._stubgen.install``)."""
    jax = jax or locate_jax()
    files = {rel: text for rel, text in render(jax).items() if rel.split("/", 1)[0] in PACKAGES}
    try:
        return stub_install.install_files(
            files,
            _wheel_version(jax.version),
            f"jax.Array generic in its dtype, for JAX {jax.version} (made by `jaxtypes jax-stubs install`)",
            site,
        )
    except stub_install.InstallError as e:
        raise StubsError(str(e)) from None


def uninstall(site: Path | None = None) -> list[Path]:
    """Remove the installed stubs from ``site`` (default: this interpreter's site-packages)."""
    try:
        return stub_install.uninstall(site)
    except stub_install.InstallError as e:
        raise StubsError(str(e)) from None
