"""The project index the server keeps warm: which open files depend on which.

The seam: the server holds one object with the :class:`ProjectIndex` methods and
tells it about every file it sees (``update``) and forgets (``remove``); after a
change it re-judges ``dependents(path)``. :class:`ImportIndex` is the index used until
the static pass has a project index of its own: it reads each file's imports with
``ast`` and maps module names to files by their path. A static-pass index that
judges one file with facts from another plugs in here by providing the same three
methods (and :func:`jitcheck.server.project.Project` passes it to the check).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Protocol


class ProjectIndex(Protocol):
    """What the server needs from a project index."""

    def update(self, path: Path, text: str) -> None:
        """Record ``path``'s current text (called on open, change and save)."""

    def remove(self, path: Path) -> None:
        """Forget ``path`` (closed, or deleted)."""

    def dependents(self, path: Path) -> frozenset[Path]:
        """The recorded files whose findings may change when ``path`` changes (not ``path`` itself)."""
        ...


def module_names(path: Path) -> frozenset[str]:
    """Every dotted name ``path`` could be imported as (``a/b/c.py``: ``c``, ``b.c``, ``a.b.c``)."""
    parts = list(path.with_suffix("").parts[1:] if path.is_absolute() else path.with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return frozenset(".".join(parts[index:]) for index in range(len(parts)))


def imported_names(path: Path, text: str) -> frozenset[str] | None:
    """The dotted names a module imports (relative imports resolved against ``path``); None if it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    package = list(path.parent.parts[1:] if path.is_absolute() else path.parent.parts)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                names.update(".".join(parts[: n + 1]) for n in range(len(parts)))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                base = ".".join([*anchor, *filter(None, [node.module])])
            if base:
                names.add(base)
            names.update(f"{base}.{alias.name}" if base else alias.name for alias in node.names)
    return frozenset(names)


class ImportIndex:
    """A :class:`ProjectIndex` from the import statements of the files it has been shown."""

    def __init__(self) -> None:
        self._imports: dict[Path, frozenset[str]] = {}

    def update(self, path: Path, text: str) -> None:
        found = imported_names(path, text)
        if found is not None:  # a file that does not parse keeps the imports it last had
            self._imports[path] = found
        else:
            self._imports.setdefault(path, frozenset())

    def remove(self, path: Path) -> None:
        self._imports.pop(path, None)

    def dependents(self, path: Path) -> frozenset[Path]:
        names = module_names(path)
        return frozenset(other for other, imports in self._imports.items()
                         if other != path and not imports.isdisjoint(names))


__all__ = ["ImportIndex", "ProjectIndex", "imported_names", "module_names"]
