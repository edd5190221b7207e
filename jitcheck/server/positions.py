"""Positions between the static pass (1-based line, 1-based code-point column) and LSP
(0-based line, 0-based column in the negotiated unit: UTF-16 by default, or UTF-8/32).

Kept apart from pygls so the conversion is a pure function of a line's text.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


@dataclasses.dataclass(frozen=True)
class Span:
    """A 0-based range in client units: ``(line, character)`` to ``(end_line, end_character)``."""

    line: int
    character: int
    end_line: int
    end_character: int


def units(text: str, encoding: str) -> int:
    """How many client units ``text`` takes."""
    if encoding == UTF32:
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", errors="surrogatepass"))
    return len(text.encode("utf-16-le", errors="surrogatepass")) // 2


def code_points(line: str, character: int, encoding: str) -> int:
    """The code-point offset in ``line`` of a client column ``character`` (clamped to the line)."""
    if encoding == UTF32:
        return min(character, len(line))
    count = 0
    for index, char in enumerate(line):
        if count >= character:
            return index
        count += units(char, encoding)
    return len(line)


def _line(lines: Sequence[str], number: int) -> str:
    return lines[number] if 0 <= number < len(lines) else ""


def span(lines: Sequence[str], line: int, column: int, end_line: int, end_column: int, encoding: str) -> Span:
    """The client range of a finding (1-based line and column; ``end_*`` 0 when unknown).

    A finding without an end covers the rest of its line's first token, or at least one
    character, so an editor can underline it.
    """
    start_line = max(line - 1, 0)
    text = _line(lines, start_line).rstrip("\r\n")
    start = min(max(column - 1, 0), len(text))
    if end_line <= 0:
        stop_line, stop = start_line, start
        while stop < len(text) and not text[stop].isspace():
            stop += 1
        stop = max(stop, min(start + 1, len(text)))
    else:
        stop_line = end_line - 1
        stop = max(end_column - 1, 0)
    end_text = _line(lines, stop_line).rstrip("\r\n")
    stop = min(stop, len(end_text))
    return Span(start_line, units(text[:start], encoding), stop_line, units(end_text[:stop], encoding))


@dataclasses.dataclass(frozen=True)
class Replacement:
    """One text edit: replace the client range ``span`` with ``text``."""

    span: Span
    text: str


def replacement(old: str, new: str, encoding: str) -> Replacement:
    """The smallest single edit that turns ``old`` into ``new`` (common prefix and suffix kept)."""
    limit = min(len(old), len(new))
    head = 0
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
        tail += 1
    start = _position(old, head, encoding)
    stop = _position(old, len(old) - tail, encoding)
    return Replacement(Span(start[0], start[1], stop[0], stop[1]), new[head:len(new) - tail])


def _position(text: str, offset: int, encoding: str) -> tuple[int, int]:
    line = text.count("\n", 0, offset)
    line_start = text.rfind("\n", 0, offset) + 1
    return line, units(text[line_start:offset], encoding)


__all__ = ["Replacement", "Span", "UTF16", "UTF32", "UTF8", "code_points", "replacement", "span", "units"]
