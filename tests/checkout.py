"""A copy of this checkout that pip can build (what a user's install is made from), for install tests."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def copy_checkout(folder: Path) -> Path:
    """The files a build of jitcheck reads (pyproject, README, both packages) copied into ``folder``, which it returns."""
    folder.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, folder / name)
    for package in ("jitcheck", "mypy_plugin"):
        shutil.copytree(ROOT / package, folder / package, ignore=shutil.ignore_patterns("__pycache__"))
    return folder
