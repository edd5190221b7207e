"""Run a markdown page's code blocks the way a reader would: top to bottom, one namespace."""

from __future__ import annotations

import contextlib
import io
import re
import sys
import types
from pathlib import Path

FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.M | re.S)


def blocks(path: Path, language: str) -> list[str]:
    """The bodies of the page's fenced blocks in ``language``, in order."""
    return [body for lang, body in FENCE.findall(path.read_text()) if lang == language]


def run_python_blocks(path: Path) -> str:
    """Execute every ``python`` block of ``path`` in a fresh module; return what they printed.

    The module is registered in ``sys.modules`` so functions defined in the page are
    module-level objects, as they would be in a reader's file.
    """
    name = "doc_" + re.sub(r"\W", "_", path.stem)
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            for body in blocks(path, "python"):
                exec(compile(body, str(path), "exec"), module.__dict__)
    finally:
        del sys.modules[name]
    return out.getvalue()
