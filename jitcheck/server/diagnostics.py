"""A finding as an LSP diagnostic: the rule code, a link to the rule's page, a severity,
and the command line's message and ``help:`` line."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cattrs import Converter
from lsprotocol import types
from pygls.protocol import default_converter

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


def _line(lines: Sequence[str], number: int) -> str:
    return lines[number] if 0 <= number < len(lines) else ""


class Made:
    """The diagnostics made so far, by finding and the text of the lines it covers: a keystroke re-publishes
    every finding of its file, and most are where and what they were (diagnostics are never changed once made).
    Each one's JSON data is made once too (:func:`converter`)."""

    def __init__(self, most: int = 50_000) -> None:
        self._made: dict[tuple[Finding, str, str, str, str, str | None], types.Diagnostic] = {}
        self._plain: dict[int, tuple[types.Diagnostic, Any]] = {}
        """Each diagnostic made here (by identity: all are held in ``_made``) and its JSON data once made."""
        self._most = most

    def plain(self, diagnostic: types.Diagnostic, unstructure: Callable[[types.Diagnostic], Any]) -> Any:
        """``unstructure(diagnostic)``, kept for a diagnostic made here."""
        kept = self._plain.get(id(diagnostic))
        if kept is None or kept[0] is not diagnostic:  # not made here (a code action's), or forgotten since
            return unstructure(diagnostic)
        if kept[1] is None:
            kept = self._plain[id(diagnostic)] = (diagnostic, unstructure(diagnostic))
        return kept[1]

    def of(self, findings: Sequence[Finding], lines: Sequence[str], encoding: str, docs: str | None) -> list[types.Diagnostic]:
        """``[diagnostic(f, lines, encoding, docs) for f in findings]``."""
        found = []
        for finding in findings:
            first = max(finding.line - 1, 0)  # the lines finding_span reads
            last = finding.end_line - 1 if finding.end_line > 0 else first
            key = (finding, finding.confidence, _line(lines, first), _line(lines, last), encoding, docs)
            made = self._made.get(key)
            if made is None:
                if len(self._made) >= self._most:
                    self._made.clear()
                    self._plain.clear()
                made = self._made[key] = diagnostic(finding, lines, encoding, docs)
                self._plain[id(made)] = (made, None)
            found.append(made)
        return found


def converter(made: Made) -> Converter:
    """pygls's converter, turning each diagnostic ``made`` made into JSON data once (a keystroke publishes every
    diagnostic of its file again, most of them the same objects as before)."""
    converting: Converter = default_converter()  # type: ignore[no-untyped-call]
    unstructure = converting.get_unstructure_hook(types.Diagnostic)
    converting.register_unstructure_hook(types.Diagnostic, lambda d: made.plain(d, unstructure))
    return converting


__all__ = ["SOURCE", "Made", "converter", "diagnostic", "finding_span", "lsp_range", "message", "severity"]
