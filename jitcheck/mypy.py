"""``plugins = ["jitcheck.mypy"]``: jitcheck's mypy plugin under a name no project shadows.

The plugin lives in the top-level package ``mypy_plugin`` (the documented name, kept).
A project with its own ``mypy_plugin.py`` on mypy's path would load that one instead,
silently; ``jitcheck.mypy`` names jitcheck's plugin unambiguously. Importing it loads
:mod:`jitcheck` (lazy, no jax) and the plugin, nothing else.
"""

from __future__ import annotations

from mypy_plugin import JitcheckPlugin, plugin

__all__ = ["JitcheckPlugin", "plugin"]
