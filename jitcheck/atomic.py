"""Writing a file whole or not at all: a temporary file beside it, then one rename.

Shared by the static pass's caches and the recompile recorder's JSON, whose readers
(another run, a kill mid-write) must never meet half a file.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def write_atomic(path: Path | str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it and a rename.

    An existing file keeps its mode; a new one gets what a plain ``open`` gives (the umask's).
    """
    path = Path(path)
    mode = None
    try:
        mode = path.stat().st_mode & 0o7777
    except OSError:
        pass
    temporary = path.parent / f".{path.name}.jitcheck-{os.getpid()}-{secrets.token_hex(4)}.tmp"
    try:
        with open(temporary, "x", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


__all__ = ["write_atomic"]
