"""`Settings`: what a worker needs to check one file (picklable, and free of libcst)."""

from __future__ import annotations

import dataclasses
from typing import Literal

from jitcheck.lint.limits import DEFAULT_MAX_EXPRESSION_DEPTH

FixMode = Literal["safe", "unsafe"] | None


@dataclasses.dataclass(frozen=True)
class Settings:
    """What a worker needs to check a file (picklable)."""

    graph_constructors: tuple[str, ...] = ()
    jit_wrappers: tuple[str, ...] = ()
    fix: FixMode = None
    select: frozenset[str] = frozenset()
    """With a fix mode: the codes the fixes may touch (selected, not ignored for this file)."""
    max_expression_depth: int = DEFAULT_MAX_EXPRESSION_DEPTH
    """Past this estimated expression depth a file gets JC000 before libcst parses it (0: no limit)."""
    edits: bool = False
    """Give each fixable finding its fix's text edits (for JSON output; costs a rewrite per finding)."""
    preview: bool = False
    """Findings that rest on a guess (``confidence == "low"``) are reported, and so may be fixed (``--preview``)."""


__all__ = ["FixMode", "Settings"]
