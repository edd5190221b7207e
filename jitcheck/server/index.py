"""The project index the server keeps warm: which open files depend on which.

The seam: the server holds one object with the :class:`ProjectIndex` methods and
tells it about every file it sees (``update``) and forgets (``remove``); after a
change it re-judges ``dependents(path)``. :class:`ImportIndex` answers from each
file's import statements (read by their spelling, so a file being typed keeps its
imports) and maps module names to files by their path.

The static pass's own project index (:class:`jitcheck.lint.index.ProjectIndex`, module
summaries joined by name) lets ``analyze`` judge one file with facts from another;
its command-line wiring (``check_text`` taking the index) is not on main yet. When it
is, an index here also keeps ``jitcheck.lint.index.summarize`` of each file, the
server passes the joined index to the check, and a part's key in
:mod:`jitcheck.server.slices` takes in the digest of the summaries it imports.
"""

from __future__ import annotations

import ast
import re
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


_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+import[ \t]*(?:\([^)]*\)|[^\n]*)|import[ \t]+[^\n]*)", re.M)


def imported_names(path: Path, text: str) -> frozenset[str] | None:
    """The dotted names a module imports (relative imports resolved against ``path``); None if none can be read.

    Only the import statements are read (found by their spelling, each parsed alone),
    so a file being typed keeps its imports while some other line does not parse.
    """
    package = list(path.parent.parts[1:] if path.is_absolute() else path.parent.parts)
    names: set[str] = set()
    nodes: list[ast.AST] = []
    for match in _IMPORT.finditer(text):
        try:
            nodes += ast.parse(match.group(0).strip().split(";")[0]).body
        except SyntaxError:
            continue
    if not nodes and ("import" in text):
        try:
            ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            return None
    for node in nodes:
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
