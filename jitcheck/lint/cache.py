"""The per-file result cache: findings keyed by content hash, per configuration and version.

One JSON file per (jitcheck, Python and libcst versions, analysis configuration)
under the cache folder maps the BLAKE2 digest of a file's bytes to its findings, so a
second run over an unchanged tree reads and hashes each file and parses none. Saving
merges with what other runs saved meanwhile (under a lock), so two trees or two runs
sharing one cache folder never evict each other's entries. Writes are atomic; a
damaged cache file is ignored, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from jitcheck.atomic import write_atomic

from jitcheck.lint.findings import Finding

MAX_ENTRIES = 200_000
"""Past this many entries the oldest are dropped when the cache is saved."""


def digest(data: bytes, *, package_init: bool) -> str:
    """The cache key of a file's content (an empty ``__init__.py`` is fine, another empty file is not)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest() + ("i" if package_init else "")


class Cache:
    """Findings of files already checked, by content digest."""

    def __init__(self, folder: Path | None, fingerprint: str) -> None:
        self.file = folder / fingerprint[:2] / f"{fingerprint}.json" if folder is not None else None
        self.folder = folder
        self.entries: dict[str, list[list[Any]]] = self._load()
        self.added: dict[str, list[list[Any]]] = {}
        self.dirty = False

    def _load(self) -> dict[str, list[list[Any]]]:
        if self.file is None:
            return {}
        try:
            loaded = json.loads(self.file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        entries = loaded.get("entries") if isinstance(loaded, dict) else None
        return dict(entries) if isinstance(entries, dict) else {}

    def get(self, key: str, path: str) -> list[Finding] | None:
        rows = self.entries.get(key)
        if rows is None:
            return None
        try:
            return [Finding.from_row(path, row) for row in rows]
        except (TypeError, ValueError):
            return None

    def put(self, key: str, findings: list[Finding]) -> None:
        self.put_rows(key, [f.to_row() for f in findings])

    def put_rows(self, key: str, rows: list[list[Any]]) -> None:
        """Store JSON rows of the caller's own shape under ``key`` (the language server keeps parts' findings so)."""
        self.entries[key] = rows
        self.added[key] = rows
        self.dirty = True

    def save(self) -> None:
        if self.file is None or not self.dirty or self.folder is None:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            marker = self.folder / ".gitignore"
            if not marker.exists():
                marker.write_text("# made by jitcheck: its cache is never committed\n*\n")
            self.file.parent.mkdir(parents=True, exist_ok=True)
            with _locked(self.file.parent / ".lock"):
                # What other runs saved since this one loaded is kept; this run's entries go last (newest).
                entries = self._load()
                for key, rows in self.added.items():
                    entries.pop(key, None)
                    entries[key] = rows
                if len(entries) > MAX_ENTRIES:
                    entries = dict(list(entries.items())[-MAX_ENTRIES:])
                write_atomic(self.file, json.dumps({"entries": entries}, separators=(",", ":")))
            self.entries = entries
            self.added, self.dirty = {}, False  # saved: a later save writes only what is added after it
        except OSError:
            pass  # a cache that cannot be written only makes the next run slower


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (advisory, POSIX; elsewhere, none)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(path, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


__all__ = ["Cache", "digest", "write_atomic"]
