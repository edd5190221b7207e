"""A finding as an LSP diagnostic: the rule code, a link to the rule's page, a severity,
and the command line's message and ``help:`` line."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from jitcheck import rules
from jitcheck.lint.findings import Finding
from jitcheck.server.positions import Span, span
from jitcheck.server.ruledocs import link

SOURCE = "jitcheck"


def message(finding: Finding) -> str:
    """The text the command line prints after the location: the message, then ``help: ...``."""
    return f"{finding.message}\nhelp: {finding.help}"


def severity(code: str, confidence: str = "high") -> types.DiagnosticSeverity:
    """An error for a file that could not be checked (JC000), a warning for a bad cache key, and a hint for one
    that rests on a guess (``confidence == "low"``, the command line's ``--preview`` findings)."""
    if code == rules.UNREADABLE_FILE.code:
        return types.DiagnosticSeverity.Error
    return types.DiagnosticSeverity.Hint if confidence == "low" else types.DiagnosticSeverity.Warning


def lsp_range(where: Span) -> types.Range:
    return types.Range(types.Position(where.line, where.character), types.Position(where.end_line, where.end_character))


def finding_span(finding: Finding, lines: Sequence[str], encoding: str) -> Span:
    return span(lines, finding.line, finding.column, finding.end_line, finding.end_column, encoding)


def diagnostic(finding: Finding, lines: Sequence[str], encoding: str, docs: str | None) -> types.Diagnostic:
    """The diagnostic for ``finding`` in a document of ``lines``; ``data`` lets a code action find it again."""
    href = link(finding.code, docs)
    return types.Diagnostic(
        range=lsp_range(finding_span(finding, lines, encoding)),
        message=message(finding),
        severity=severity(finding.code, finding.confidence),
        code=finding.code,
        code_description=types.CodeDescription(href=href) if href else None,
        source=SOURCE,
        data={"line": finding.line, "column": finding.column, "code": finding.code, "fix": finding.fix},
    )


__all__ = ["SOURCE", "diagnostic", "finding_span", "lsp_range", "message", "severity"]
