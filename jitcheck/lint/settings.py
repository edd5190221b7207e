"""`Settings`: what a worker needs to check one file (picklable, and free of libcst)."""

from __future__ import annotations

import dataclasses
from typing import Literal

FixMode = Literal["safe", "unsafe"] | None


@dataclasses.dataclass(frozen=True)
class Settings:
    """What a worker needs to check a file (picklable)."""

    graph_constructors: tuple[str, ...] = ()
    jit_wrappers: tuple[str, ...] = ()
    fix: FixMode = None
    select: frozenset[str] = frozenset()
    """With a fix mode: the codes the fixes may touch (selected, not ignored for this file)."""


__all__ = ["FixMode", "Settings"]
