"""The project index's dependency keys, kept between runs so that a warm run does no index work.

Which modules each module's findings depend on is found by walking every call site of the project
(:meth:`jitcheck.lint.index.ProjectIndex.dependency_keys`), which also reads the installed packages
the calls reach: about a second on 600 files, most of a warm run. That result is a function of three
things only, and is kept with a record of each:

- the contents of the run's modules (their content digests, by module name), which name the entry;
- the installed files the walk read (each file's size and modification time);
- the folders on ``sys.path`` (installing or removing a package changes its folder's modification time).

An entry is used again only while all three are as recorded; anything else is a miss, and the keys are
worked out afresh. One entry per file: a run over another tree replaces it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

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


def load(file: Path, digest: str) -> dict[str, str] | None:
    """The keys kept under ``digest``, when every file and folder they were worked out from is unchanged."""
    try:
        entry = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("digest") != digest:
        return None
    folders, files, keys = entry.get("folders"), entry.get("files"), entry.get("keys")
    if not isinstance(folders, dict) or not isinstance(files, dict) or not isinstance(keys, dict):
        return None
    if folders != search_folders():
        return None
    if any(stamp(path) != recorded for path, recorded in files.items()):
        return None
    return {str(name): str(key) for name, key in keys.items()}


def save(file: Path, digest: str, keys: Mapping[str, str], files: Mapping[str, Stamp]) -> None:
    """Keep ``keys`` under ``digest`` with the stamps of the installed ``files`` read to make them.

    Written to a temporary file and renamed into place, so a reader never sees half an entry; a
    cache that cannot be written only costs the next run the work.
    """
    entry = {"digest": digest, "folders": search_folders(), "files": dict(files), "keys": dict(keys)}
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=file.parent, prefix=".deps-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(entry, out, separators=(",", ":"))
            os.replace(temporary, file)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        return
