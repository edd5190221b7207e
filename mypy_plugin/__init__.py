"""jitcheck's mypy plugin: enable with ``plugins = ["mypy_plugin"]`` in your mypy config.

It enforces the `Label` and `Place` bounds of jitcheck's graph classes where mypy's
own ``Hashable`` bound is too weak, and refuses node bodies that compare by
identity, reporting jitcheck's rule codes (see :mod:`jitcheck.rules`).
"""

from __future__ import annotations

from mypy.plugin import Plugin


class JitcheckPlugin(Plugin):
    """The plugin's entry class; its hooks live in the modules of this package."""


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point: the plugin class for this mypy version."""
    return JitcheckPlugin
