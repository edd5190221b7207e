"""The edit behind "silence with ``# noqa: JCxxx``": add a code to a line's ``# noqa``.

A line that already has ``# noqa: A, B`` gets the code added to its list; a bare
``# noqa`` already silences everything and is left alone; a line without one gets
``  # noqa: JCxxx`` appended after its code (before the line ending).
"""

from __future__ import annotations

import re

_NOQA = re.compile(r"#\s*noqa(?P<list>:[ \t]*[\w-]+(?:[ \t]*,[ \t]*[\w-]+)*)?", re.IGNORECASE)


def with_noqa(line: str, code: str) -> str | None:
    """``line`` (without its line ending) silenced for ``code``; None when it already is or cannot be."""
    match = _NOQA.search(line)
    if match is None:
        if line.rstrip().endswith("\\"):
            return None  # a comment after a line continuation would end it
        return f"{line.rstrip()}  # noqa: {code}"
    listed = match.group("list")
    if not listed:
        return None
    codes = [c for c in re.split(r"[\s,]+", listed[1:].strip()) if c]
    if code in codes:
        return None
    return line[: match.end()] + f", {code}" + line[match.end():]


__all__ = ["with_noqa"]
