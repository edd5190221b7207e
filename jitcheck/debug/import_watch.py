"""Run a callback when a module is imported: how debug mode and the recompile recorder reach equinox.

`when_imported` calls the callback at once when the module is already imported,
and otherwise right after its first import (a finder on ``sys.meta_path`` wraps the
module's loader); `forget` takes a callback back. Used to replace
``equinox.filter_jit`` for a program that imports equinox after jitcheck started.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable
from typing import Any

_CALLBACKS: dict[str, list[Callable[[Any], None]]] = {}


class _Watcher(importlib.abc.MetaPathFinder):
    """Wraps the loader of each watched module so that its callbacks run once it has executed."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname not in _CALLBACKS:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        exec_module = loader.exec_module

        def patched_exec(module: Any) -> None:
            exec_module(module)
            for callback in _CALLBACKS.pop(fullname, []):
                callback(module)
            if not _CALLBACKS:
                _remove()

        spec.loader = _PatchingLoader(loader, patched_exec)
        return spec


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, loader: Any, exec_module: Callable[[Any], None]) -> None:
        self._loader = loader
        self._exec = exec_module

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._exec(module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


_WATCHER = _Watcher()


def _remove() -> None:
    while _WATCHER in sys.meta_path:
        sys.meta_path.remove(_WATCHER)


def when_imported(name: str, callback: Callable[[Any], None]) -> None:
    """Call ``callback(module)`` now if ``name`` is imported, else once it is (each callback once)."""
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
        return
    waiting = _CALLBACKS.setdefault(name, [])
    if callback not in waiting:
        waiting.append(callback)
    if _WATCHER not in sys.meta_path:
        sys.meta_path.insert(0, _WATCHER)


def forget(name: str, callback: Callable[[Any], None]) -> None:
    """Take back a callback not yet called."""
    waiting = _CALLBACKS.get(name, [])
    if callback in waiting:
        waiting.remove(callback)
    if not waiting:
        _CALLBACKS.pop(name, None)
    if not _CALLBACKS:
        _remove()


__all__ = ["forget", "when_imported"]
