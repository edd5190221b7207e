"""The seam between the server and a project index: which files depend on which.

The server holds one object with the :class:`ProjectIndex` methods and tells it about
every file it judges (``update``, with the unsaved text), every file closed
(``remove``) and every file the editor's watcher saw change on disk (``on_disk``);
after each it re-judges the open files in ``dependents(path)``.
The one in use is :class:`jitcheck.server.summaries.Summaries`, the static pass's own
project index (:mod:`jitcheck.lint.index`) kept warm.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class ProjectIndex(Protocol):
    """What the server needs from a project index."""

    def update(self, path: Path, text: str) -> object:
        """Record ``path``'s current text (called on open, change and save; what it returns is not read)."""

    def remove(self, path: Path) -> None:
        """Forget ``path``'s unsaved text (closed in the editor)."""

    def on_disk(self, path: Path) -> bool:
        """``path`` changed on disk: read it again, unless it is open (False: nothing changed)."""
        ...

    def dependents(self, path: Path) -> frozenset[Path]:
        """The open files whose findings may change when ``path`` changes (not ``path`` itself)."""
        ...


__all__ = ["ProjectIndex"]
