"""``jitcheck doctor [FOLDER]``: what would make jitcheck's mypy plugin silent in a project, found from outside.

Two things the plugin cannot say about itself:

- a ``mypy_plugin`` module of the project's own (a ``mypy_plugin.py`` in the folder, or
  another package of that name on the path) shadows jitcheck's, so with
  ``plugins = ["mypy_plugin"]`` mypy loads that one and jitcheck checks nothing, silently
  (nothing of jitcheck's runs to say so); ``plugins = ["jitcheck.mypy"]`` cannot be shadowed;
- plugin options mypy's run never reads (:mod:`mypy_plugin.unread`, also said by the
  plugin itself on each run).

The module is found as ``python -m mypy`` run in FOLDER finds it (the folder first on
the path, then PYTHONPATH and the installed packages). Exit status 0 when nothing is
wrong, 1 when something is.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

MARKER = "class JitcheckPlugin("
"""A line only jitcheck's own ``mypy_plugin/__init__.py`` has."""
_FIND = "import importlib.util as u; s = u.find_spec('mypy_plugin'); print(s.origin if s and s.origin else '')"


def plugin_module(folder: Path) -> Path | None:
    """The file Python imports as ``mypy_plugin`` from ``folder`` (None when there is none)."""
    found = subprocess.run([sys.executable, "-c", _FIND], cwd=folder, capture_output=True, text=True, timeout=120)
    origin = found.stdout.strip()
    return Path(origin) if found.returncode == 0 and origin else None


def is_jitchecks(module: Path) -> bool:
    try:
        return MARKER in module.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def config_files(folder: Path) -> list[Path]:
    """The mypy config files in ``folder``, in mypy's order of precedence (mypy reads the first)."""
    return [folder / name for name in ("mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg") if (folder / name).is_file()]


def problems(folder: Path) -> list[str]:
    """What would make jitcheck's mypy plugin silent in ``folder``, one line each."""
    found: list[str] = []
    module = plugin_module(folder)
    if module is None:
        found.append(f"{folder}: no module named mypy_plugin can be imported here: install jitcheck in the environment "
                     "mypy runs in (plugins = [\"jitcheck.mypy\"] then loads its plugin)")
    elif not is_jitchecks(module):
        found.append(f"{module}: shadows jitcheck's mypy plugin: mypy run here loads this file for "
                     'plugins = ["mypy_plugin"], and jitcheck checks nothing; use plugins = ["jitcheck.mypy"], '
                     "or rename this module")
    from mypy_plugin.unread import warnings

    configs = config_files(folder)
    if configs:
        found.extend(warnings(str(configs[0])))
    return found


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="jitcheck doctor",
                                     description="Report what would make jitcheck's mypy plugin silent in a project.")
    parser.add_argument("folder", nargs="?", type=Path, default=Path("."), help="the project's folder (default: here)")
    args = parser.parse_args(list(argv))
    folder = args.folder.resolve()
    found = problems(folder)
    for line in found:
        print(line)
    if not found:
        module = plugin_module(folder)
        print(f"{folder}: mypy_plugin is jitcheck's ({module}); no unread plugin options")
    return 1 if found else 0


__all__ = ["main", "problems"]
