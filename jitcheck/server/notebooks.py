"""Notebook cells as one module for the static pass, and findings mapped back to their cells.

A notebook's code cells run in one namespace, so a ``jax.jit`` made in one cell and
called in another is one program: the cells are joined, in order, into one source,
and each finding goes back to the cell (and the line in it) it came from.

When the static pass reads notebooks itself (:mod:`jitcheck.lint.notebook`), its
joining is used, so the editor and ``jitcheck`` agree on every magic and cell magic, on
a cell read dedented (its columns get the indent back) and on a cell left out because
it does not parse (reported in that cell alone).
Without it, IPython lines (``%magic``, ``!shell``) each become ``pass`` at their own
indentation, so no line moves.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

from jitcheck.lint.findings import Finding, unparsed_cell


@dataclasses.dataclass(frozen=True)
class Joined:
    """The cells' joined source, and the first line (1-based) in it of each cell that is in it."""

    text: str
    starts: tuple[tuple[int, int], ...]
    """(cell index, first line) pairs, in order; a cell left out (a cell magic) has none."""
    cells: int
    indents: tuple[int, ...] = ()
    """Per pair of ``starts``: the width of the indent the cell was read without (0: none)."""
    broken: tuple[tuple[int, int, int, str], ...] = ()
    """The cells left out because they do not parse: (cell index, line, column, Python's message)."""


def _python_line(line: str) -> str:
    stripped = line.lstrip()
    if stripped.startswith(("%", "!")):
        return line[: len(line) - len(stripped)] + "pass"
    return line


def joined(cells: Sequence[str]) -> Joined:
    """The source of ``cells`` as one module."""
    try:
        from jitcheck.lint.notebook import Notebook  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return _joined_here(cells)
    notebook = Notebook.parse(json.dumps({"cells": [{"cell_type": "code", "source": cell} for cell in cells]}))
    return Joined(notebook.source, tuple((span.index, span.first_line) for span in notebook.spans), len(cells),
                  tuple(len(span.indent) for span in notebook.spans),
                  tuple((cell.number - 1, cell.line, cell.column, cell.message) for cell in notebook.broken))


def _joined_here(cells: Sequence[str]) -> Joined:
    parts: list[str] = []
    starts: list[tuple[int, int]] = []
    line = 1
    for index, cell in enumerate(cells):
        starts.append((index, line))
        lines = [_python_line(text) for text in cell.split("\n")]
        parts.append("\n".join(lines))
        line += len(lines)
    return Joined("\n".join(parts) + "\n", tuple(starts), len(cells))


def split(findings: Sequence[Finding], source: Joined) -> list[list[Finding]]:
    """The findings of each cell, with lines counted from the cell's first line."""
    by_cell: list[list[Finding]] = [[] for _ in range(source.cells)]
    for cell, line, column, message in source.broken:
        by_cell[cell].append(unparsed_cell("", message, line, column))
    starts = source.starts
    if not starts:
        return by_cell
    for finding in findings:
        order = max((i for i, (_, start) in enumerate(starts) if start <= finding.line), default=0)
        cell, start = starts[order]
        offset = start - 1
        end_line = finding.end_line - offset if finding.end_line else 0
        if end_line and order + 1 < len(starts) and finding.end_line >= starts[order + 1][1] - 1:
            end_line = 0  # a span running into the next cell is cut at its own cell's end
        indent = source.indents[order] if order < len(source.indents) else 0  # a cell read dedented
        by_cell[cell].append(dataclasses.replace(finding, line=max(1, finding.line - offset), end_line=end_line,
                                                 column=finding.column + indent,
                                                 end_column=finding.end_column + indent if end_line else 0))
    return by_cell


__all__ = ["Joined", "joined", "split"]
