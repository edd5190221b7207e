"""`Finding`: one diagnostic of the static pass, as every output format reads it."""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from jitcheck import rules
from jitcheck.lint.evidence import NONE, Confidence, Evidence

Applicability = Literal["safe", "unsafe"]


@dataclasses.dataclass(frozen=True, order=True)
class Edit:
    """One text edit of a fix: replace from ``(row, column)`` to ``(end_row, end_column)`` (1-based) by ``content``."""

    content: str
    row: int
    column: int
    end_row: int
    end_column: int


@dataclasses.dataclass(frozen=True, order=True)
class Finding:
    """One finding: where (1-based line and column), which rule, what and how to fix.

    ``fix`` says whether ``--fix`` (``"safe"``) or ``--unsafe-fixes`` (``"unsafe"``)
    can rewrite it, or None when only the help line can.
    """

    path: str
    line: int
    column: int
    code: str
    message: str
    help: str
    end_line: int = 0
    end_column: int = 0
    fix: Applicability | None = None
    cell: int = 0
    """In a notebook, the 1-based cell the line and column count in (0: a plain file)."""
    fix_message: str = ""
    """What the fix does, in a few words (ruff's ``fix.message``)."""
    edits: tuple[Edit, ...] = ()
    """The fix's text edits, when they were asked for (JSON output)."""
    evidence: Evidence = dataclasses.field(default=NONE, compare=False)
    """What the finding rests on: why its site runs again, why each run is the same computation, what is unproven."""

    @property
    def confidence(self) -> Confidence:
        """``"low"`` when the finding rests on a guess: reported only under ``--preview``."""
        return self.evidence.confidence

    @property
    def where(self) -> str:
        """The path as diagnostics show it: ``nb.ipynb:cell 3`` in a notebook, as ruff does."""
        return f"{self.path}:cell {self.cell}" if self.cell else self.path

    def render(self) -> str:
        """The one diagnostic format: ``path:line:col: JCxxx message`` and a ``help:`` line."""
        return rules.format_diagnostic(self.where, self.line, self.column, self.code, self.message, self.help)

    def with_path(self, path: str) -> Finding:
        return dataclasses.replace(self, path=path)

    def to_row(self) -> list[Any]:
        """A compact JSON row for the cache (the path is not stored: it is the key's file)."""
        return [self.line, self.column, self.end_line, self.end_column, self.code, self.message, self.help, self.fix,
                self.cell, self.fix_message, [dataclasses.astuple(e) for e in self.edits], self.evidence.to_row()]

    @classmethod
    def from_row(cls, path: str, row: list[Any]) -> Finding:
        line, column, end_line, end_column, code, message, help_, fix, cell, fix_message, edits, evidence = row
        return cls(path, line, column, code, message, help_, end_line, end_column, fix, int(cell), str(fix_message),
                   tuple(Edit(*e) for e in edits), Evidence.from_row(evidence))


def unreadable(path: str, reason: str, fix: str, line: int = 1, column: int = 1, *, what: str = "this file") -> Finding:
    """A JC000 finding: the file (or ``what`` of it, such as a notebook cell) could not be checked, and why."""
    rule = rules.UNREADABLE_FILE
    return Finding(path, line, column, rule.code, rule.format(what=what, reason=reason), rule.format_help(fix=fix))


def unparsed_cell(path: str, message: str, line: int, column: int) -> Finding:
    """The JC000 of a notebook cell Python cannot parse (``message``: Python's, at ``line`` and ``column`` of the
    cell): that cell is left out and the notebook's other cells are checked, on the command line and in the editor."""
    return unreadable(path, f"it does not parse: {message}",
                      "fix the syntax error; the notebook's other cells are checked without this one", line, column,
                      what="this cell")


__all__ = ["Applicability", "Edit", "Finding", "unparsed_cell", "unreadable"]
