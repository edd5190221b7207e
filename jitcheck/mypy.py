"""``plugins = ["jitcheck.mypy"]``: jitcheck's mypy plugin under a name no project shadows.

The plugin lives in the top-level package ``mypy_plugin`` (the documented name, kept),
installed beside the ``jitcheck`` package. A project with its own ``mypy_plugin.py``
first on the path would be imported in its place under that generic name, silently; so
this module loads jitcheck's ``mypy_plugin`` from beside jitcheck itself, whatever the
path holds, and refuses, naming both files, when another module already took the name.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

PACKAGE = Path(__file__).resolve().parent.parent / "mypy_plugin"
"""jitcheck's plugin package: installed (or checked out) beside the jitcheck package."""


def _load() -> ModuleType:
    loaded = sys.modules.get("mypy_plugin")
    if loaded is not None:
        origin = Path(getattr(loaded, "__file__", "") or "").resolve()
        if origin != PACKAGE / "__init__.py":
            raise ImportError(f"{origin}: this module was imported as mypy_plugin, which is the name of jitcheck's "
                              f'mypy plugin ({PACKAGE}); drop "mypy_plugin" from plugins, keep "jitcheck.mypy", '
                              "or rename the module")
        return loaded
    spec = importlib.util.spec_from_file_location("mypy_plugin", PACKAGE / "__init__.py",
                                                  submodule_search_locations=[str(PACKAGE)])
    if spec is None or spec.loader is None:
        raise ImportError(f"jitcheck's mypy plugin is missing: no {PACKAGE / '__init__.py'}; reinstall jitcheck")
    module = importlib.util.module_from_spec(spec)
    sys.modules["mypy_plugin"] = module  # its own modules import each other as mypy_plugin.*
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules["mypy_plugin"]
        raise
    return module


_plugin = _load()
JitcheckPlugin = _plugin.JitcheckPlugin
plugin = _plugin.plugin

__all__ = ["JitcheckPlugin", "plugin"]
