"""The project index's dependency keys, kept between runs so that a warm run does no index work.

Which modules each module's findings depend on is found by walking every call site of the project
(:meth:`jitcheck.lint.index.ProjectIndex.dependency_keys`), which also reads the installed packages
the calls reach: about a second on 600 files, most of a warm run. That result is a function of three
things only, and is kept with a record of each:

- the contents of the run's modules (their content digests, by module name), which name the entry;
- the installed files the walk read (each file's size and modification time);
- the folders on ``sys.path`` (installing or removing a package changes its folder's modification time).

An entry is used again only while all three are as recorded; anything else is a miss, and the keys are
worked out afresh. The file keeps the last few entries (``KEEP``): the same tree checked from two
environments, or as ``jitcheck`` and as ``python -m jitcheck`` (whose ``sys.path`` differ), keeps one each.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

KEEP = 4
"""Entries kept in one file, newest first."""

Stamp = list[int]
"""``[st_mtime_ns, st_size]`` of a file or folder, or ``[]`` where it is missing."""


def contents_digest(contents: Mapping[str, str], installed: bool) -> str:
    """A digest of every module's name and content digest (and whether installed packages are read)."""
    text = "\n".join(f"{name}={key}" for name, key in sorted(contents.items()))
    return hashlib.blake2b(f"{int(installed)}\n{text}".encode(), digest_size=16).hexdigest()


def stamp(path: str) -> Stamp:
    """What a change to ``path`` would change: its modification time and size."""
    try:
        status = os.stat(path)
    except OSError:
        return []
    return [status.st_mtime_ns, status.st_size]


def search_folders() -> dict[str, Stamp]:
    """The folders an installed module is looked for in (``sys.path``), each with its stamp."""
    return {entry: stamp(entry) for entry in dict.fromkeys(os.path.abspath(p or os.curdir) for p in sys.path)}


def _entries(file: Path) -> list[dict[str, object]]:
    try:
        kept = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    entries = kept.get("entries") if isinstance(kept, dict) else None
    return [entry for entry in entries if isinstance(entry, dict)] if isinstance(entries, list) else []


def load(file: Path, digest: str) -> dict[str, str] | None:
    """The keys kept under ``digest``, when every file and folder they were worked out from is unchanged."""
    folders = search_folders()
    for entry in _entries(file):
        files, keys = entry.get("files"), entry.get("keys")
        if entry.get("digest") != digest or entry.get("folders") != folders:
            continue
        if not isinstance(files, dict) or not isinstance(keys, dict):
            continue
        if any(stamp(path) != recorded for path, recorded in files.items()):
            continue
        return {str(name): str(key) for name, key in keys.items()}
    return None


def save(file: Path, digest: str, keys: Mapping[str, str], files: Mapping[str, Stamp]) -> None:
    """Keep ``keys`` under ``digest`` with the stamps of the installed ``files`` read to make them.

    Written to a temporary file and renamed into place, so a reader never sees half an entry; a
    cache that cannot be written only costs the next run the work.
    """
    folders = search_folders()
    entry = {"digest": digest, "folders": folders, "files": dict(files), "keys": dict(keys)}
    older = [kept for kept in _entries(file) if kept.get("folders") != folders]
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=file.parent, prefix=".deps-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump({"entries": [entry, *older][:KEEP]}, out, separators=(",", ":"))
            os.replace(temporary, file)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        return
