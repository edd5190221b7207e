"""``# noqa`` comments: a bare ``# noqa`` silences every finding on its line,
``# noqa: JC101, JC2`` only the codes (or prefixes, or rule names) it lists."""

from __future__ import annotations

import re
from collections.abc import Sequence

from jitcheck import rules

_NOQA = re.compile(r"#\s*noqa(?::[\s]*(?P<codes>[\w-]+(?:[\s,]+[\w-]+)*))?", re.IGNORECASE)

ALL: frozenset[str] = frozenset({"*"})


def directives(lines: Sequence[str]) -> dict[int, frozenset[str]]:
    """For each 1-based line with a ``# noqa``, the codes it silences (``ALL`` for a bare one)."""
    found: dict[int, frozenset[str]] = {}
    for number, line in enumerate(lines, start=1):
        if "noqa" not in line and "NOQA" not in line.upper():
            continue
        match = _NOQA.search(line)
        if match is None:
            continue
        listed = match.group("codes")
        if not listed:
            found[number] = ALL
            continue
        codes: set[str] = set()
        for selector in re.split(r"[\s,]+", listed.strip()):
            codes |= {r.code for r in rules.matching(selector)} if selector.upper().startswith("JC") or selector.lower() in rules.BY_NAME else set()
        found[number] = frozenset(codes)
    return found


def selectors(line: str) -> list[tuple[int, int, str]]:
    """Each selector listed in the line's ``# noqa: ...`` with its code-point span (start, end) in ``line``."""
    match = _NOQA.search(line)
    if match is None or not match.group("codes"):
        return []
    start = match.start("codes")
    return [(start + m.start(), start + m.end(), m.group()) for m in re.finditer(r"[\w-]+", match.group("codes"))]


def silenced(code: str, line: int, table: dict[int, frozenset[str]]) -> bool:
    """True when a ``# noqa`` on ``line`` covers ``code``."""
    codes = table.get(line)
    return codes is not None and (codes is ALL or code in codes)


__all__ = ["ALL", "directives", "selectors", "silenced"]
