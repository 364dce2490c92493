"""Have mypy read the JAX stubs' modules made for the plugin.

``jaxtypes jax-stubs`` writes, beside JAX's typed modules in each layout mypy
reads (the installed ``jax-stubs/`` and ``--out``'s ``.mypy-path/jax/``), the
same modules without the typed overloads of the functions the plugin answers
from their rule (``.mypy-plugin/``: ``function_overloads.plugin_module``).
The plugin never reads those overloads, and analysing them was most of what
the stubs cost a cold run of mypy with the plugin (docs/costs.md).  mypy's
``shadow_file`` option (``--shadow-file SOURCE SHADOW``: "when encountering
SOURCE_FILE, read and type check the contents of SHADOW_FILE instead", in
mypy's command-line help) makes it read them, and report any error under the
stub's own name; the project's configuration stays the one line the install
prints.  Stubs made before these modules existed are read as they are.
"""

from __future__ import annotations

from pathlib import Path

from mypy.options import Options

__all__ = ["read_plugin_modules", "shadow_pairs"]


def _jax_stub_dirs(options: Options) -> list[Path]:
    """The directories mypy may take ``jax``'s stub modules from."""
    from jaxtypes._stubgen import record

    dirs = [Path(d) / "jax" for d in options.mypy_path if Path(d).name == record.MYPY_DIR]
    installed = record.installed_stubs()  # .../jax-stubs/_src/basearray.pyi
    if installed is not None:
        dirs.append(installed.parent.parent)
    return dirs


def shadow_pairs(options: Options) -> list[list[str]]:
    """[stub module, the plugin's module of it] for every module the stubs
    mypy may read have one for."""
    from jaxtypes._stubgen import record

    pairs: list[list[str]] = []
    for root in _jax_stub_dirs(options):
        lighter = root / record.PLUGIN_DIR
        if not lighter.is_dir():
            continue
        for module in sorted(lighter.rglob("*.pyi")):
            stub = root / module.relative_to(lighter)
            if stub.is_file():
                pairs.append([str(stub), str(module)])
    return pairs


def read_plugin_modules(options: Options) -> None:
    """Add the pairs to mypy's ``shadow_file`` (the plugin is made before
    mypy's build reads the option).  A failure leaves the option as it was:
    mypy then reads the full stubs, slower and with the same answers."""
    try:
        pairs = shadow_pairs(options)
    except Exception:  # noqa: BLE001 - never a crash: the full stubs still work
        return
    if pairs:
        options.shadow_file = [*(options.shadow_file or []), *pairs]
