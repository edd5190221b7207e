"""This repository's own entry to jitcheck's mypy plugin (``[tool.mypy] plugins`` in pyproject.toml).

Users install jitcheck and write ``plugins = ["mypy_plugin"]``. In this checkout
``mypy_plugin`` is not installed, and the ``mypy`` console script does not put the
working directory on ``sys.path``, so the repository config names this file
instead (mypy loads plugin files by path, relative to the config file); it puts
the checkout on the path and hands mypy the real entry point.
"""

from __future__ import annotations

import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    # After mypy's own entry for this folder, which it removes once the import is done.
    sys.path.insert(1, _ROOT)

from mypy_plugin import __version__, plugin  # noqa: E402

__all__ = ["__version__", "plugin"]
