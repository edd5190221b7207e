"""Code actions for a document's findings: each fix as a quick fix (unsafe ones marked),
"fix all jitcheck findings in this file", and "silence with ``# noqa: JCxxx``".

Fixes re-run the analysis, so their edits are made on ``codeAction/resolve`` when the
client can resolve them (the list of actions stays instant); ``data`` says what to
compute. The noqa edit is one line's text and is always made at once.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from jitcheck import rules
from jitcheck.lint.findings import Finding
from jitcheck.server.noqa_edit import with_noqa
from jitcheck.server.positions import Replacement, Span, replacement, units

FIX_ALL_KIND = "source.fixAll.jitcheck"
FIX_ALL_TITLE = "Fix all jitcheck findings in this file"


def fix_title(finding: Finding) -> str:
    title = f"Fix {finding.code}: {rules.BY_CODE[finding.code].title}" if finding.code in rules.BY_CODE else f"Fix {finding.code}"
    return title + (" (unsafe fix: review the change)" if finding.fix == "unsafe" else "")


def noqa_title(code: str) -> str:
    return f"Silence {code} with # noqa: {code}"


def workspace_edit(uri: str, change: Replacement) -> types.WorkspaceEdit:
    where = change.span
    edit = types.TextEdit(types.Range(types.Position(where.line, where.character),
                                      types.Position(where.end_line, where.end_character)), change.text)
    return types.WorkspaceEdit(changes={uri: [edit]})


def text_edit(uri: str, old: str, new: str, encoding: str) -> types.WorkspaceEdit:
    """The edit that turns the document's ``old`` text into ``new``."""
    return workspace_edit(uri, replacement(old, new, encoding))


def noqa_edit(uri: str, lines: Sequence[str], finding: Finding, encoding: str) -> types.WorkspaceEdit | None:
    """Add ``finding``'s code to the ``# noqa`` of its line; None when that cannot silence it."""
    if finding.code == rules.UNREADABLE_FILE.code or not 0 < finding.line <= len(lines):
        return None
    raw = lines[finding.line - 1]
    line = raw.rstrip("\r\n")
    new = with_noqa(line, finding.code)
    if new is None:
        return None
    return workspace_edit(uri, Replacement(Span(finding.line - 1, 0, finding.line - 1, units(line, encoding)), new))


def fix_data(uri: str, version: int | None, finding: Finding | None) -> dict[str, object]:
    """What ``codeAction/resolve`` needs to make a fix's edit (``finding`` None: fix all)."""
    data: dict[str, object] = {"uri": uri, "version": version, "kind": "fix-all" if finding is None else "fix"}
    if finding is not None:
        data.update(line=finding.line, column=finding.column, code=finding.code)
    return data


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """Whether the client asked for actions of ``kind`` (``only`` lists kinds or their prefixes)."""
    return not only or any(kind == base or kind.startswith(base + ".") for base in only)


__all__ = ["FIX_ALL_KIND", "FIX_ALL_TITLE", "fix_data", "fix_title", "noqa_edit", "noqa_title", "text_edit", "wanted",
           "workspace_edit"]
