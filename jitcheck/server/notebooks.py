"""Notebook cells as one module for the static pass, and findings mapped back to their cells.

A notebook's code cells run in one namespace, so a ``jax.jit`` made in one cell and
called in another is one program: the cells are joined, in order, into one source,
and each finding goes back to the cell (and the line in it) it came from. IPython
lines (``%magic``, ``!shell``) are not Python; each becomes ``pass`` at its own
indentation, so no line moves. A static-pass module that reads notebooks itself
plugs in by replacing :func:`joined`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from jitcheck.lint.findings import Finding


@dataclasses.dataclass(frozen=True)
class Joined:
    """The cells' joined source, and the first line (1-based) of each cell in it."""

    text: str
    starts: tuple[int, ...]


def _python_line(line: str) -> str:
    stripped = line.lstrip()
    if stripped.startswith(("%", "!")):
        return line[: len(line) - len(stripped)] + "pass"
    return line


def joined(cells: Sequence[str]) -> Joined:
    """The source of ``cells`` as one module."""
    parts: list[str] = []
    starts: list[int] = []
    line = 1
    for cell in cells:
        starts.append(line)
        lines = [_python_line(text) for text in cell.split("\n")]
        parts.append("\n".join(lines))
        line += len(lines)
    return Joined("\n".join(parts) + "\n", tuple(starts))


def split(findings: Sequence[Finding], starts: Sequence[int]) -> list[list[Finding]]:
    """The findings of each cell, with lines counted from the cell's first line."""
    by_cell: list[list[Finding]] = [[] for _ in starts]
    for finding in findings:
        cell = max((i for i, start in enumerate(starts) if start <= finding.line), default=0)
        offset = starts[cell] - 1 if starts else 0
        end_line = finding.end_line - offset if finding.end_line else 0
        if end_line and cell + 1 < len(starts) and finding.end_line >= starts[cell + 1]:
            end_line = 0  # a span running into the next cell is cut at its own cell's end
        by_cell[cell].append(dataclasses.replace(finding, line=finding.line - offset, end_line=end_line,
                                                 end_column=finding.end_column if end_line else 0))
    return by_cell


__all__ = ["Joined", "joined", "split"]
