"""Builds jaxtypes._speedups (the C fast paths of jaxtypes.promotion) into the wheel.

hatchling builds no C extensions itself; this hook compiles the one module
with setuptools' build_ext, which knows each platform's compiler and flags,
and adds it to the wheel, tagged for the interpreter.  Without a working
compiler the wheel is pure Python and jaxtypes runs its Python paths (same
answers, slower); set JAXTYPES_REQUIRE_SPEEDUPS=1 to make that an error.

For an editable install it also makes the one directory that install puts on
``sys.path`` (``DEV_SITE``, pyproject's ``dev-mode-dirs``).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SOURCE = "jaxtypes/_speedups.c"
MODULE = "jaxtypes._speedups"
DEV_SITE = ".dev-site"


class SpeedupsBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "speedups"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        if version == "editable":
            self._make_dev_site()
        self._work = Path(tempfile.mkdtemp(prefix="jaxtypes-speedups-"))
        try:
            built = self._compile(self._work)
        except Exception as err:
            if os.environ.get("JAXTYPES_REQUIRE_SPEEDUPS") == "1":
                raise
            print(f"jaxtypes: C fast paths not built ({err}); using the Python paths", file=sys.stderr)
            return
        if version == "editable":
            # The editable install imports jaxtypes from the checkout: the
            # module goes next to its source there (ignored by git).
            for old in Path(self.root, "jaxtypes").glob("_speedups*.so"):
                old.unlink()
            shutil.copy2(built, Path(self.root, "jaxtypes", built.name))
        else:
            build_data["force_include"][str(built)] = f"jaxtypes/{built.name}"
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        work = getattr(self, "_work", None)
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)

    def _make_dev_site(self) -> None:
        """An editable install puts DEV_SITE on ``sys.path``, not the checkout's
        root, so that its tests/ and tools/ are no importable names.  Type
        checkers follow only directories on the path (no import hook), so the
        directory's one entry links to jaxtypes/: made here, out of git, as
        the repository holds no link."""
        link = Path(self.root, DEV_SITE, "jaxtypes")
        target = Path("..", "jaxtypes")
        if link.is_symlink() and Path(os.readlink(link)) == target:
            return
        link.parent.mkdir(exist_ok=True)
        if link.is_symlink():
            link.unlink()
        link.symlink_to(target, target_is_directory=True)

    def _compile(self, work: Path) -> Path:
        from setuptools import Distribution, Extension
        from setuptools.command.build_ext import build_ext

        dist = Distribution({"name": "jaxtypes", "ext_modules": [Extension(MODULE, [SOURCE])]})
        cmd = build_ext(dist)
        cmd.build_lib = str(work / "lib")
        cmd.build_temp = str(work / "temp")
        cmd.ensure_finalized()
        here = os.getcwd()
        os.chdir(self.root)  # build_ext wants sources relative to the project
        try:
            cmd.run()
        finally:
            os.chdir(here)
        return Path(cmd.get_ext_fullpath(MODULE))
