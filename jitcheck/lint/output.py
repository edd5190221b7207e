"""The output formats of a run: text, json, github (workflow commands) and sarif."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from jitcheck import __version__, rules
from jitcheck.lint.findings import Finding

FORMATS = ("text", "json", "github", "sarif")


def text(findings: Sequence[Finding]) -> str:
    """``path:line:col: JCxxx message`` and a ``help:`` line per finding."""
    return "".join(f.render() + "\n" for f in findings)


def rule_url(code: str) -> str | None:
    """Where a rule's documentation is: its section of docs/rules.md in this checkout, as a file URI (None without one)."""
    from jitcheck.lint.rules_doc import anchor

    page = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
    if code not in rules.BY_CODE or not page.is_file():
        return None
    return f"{page.as_uri()}#{anchor(rules.BY_CODE[code])}"


def _fix(f: Finding) -> dict[str, object] | None:
    if not f.fix:
        return None
    return {
        "applicability": f.fix,
        "message": f.fix_message or None,
        "edits": [
            {"content": e.content, "location": {"row": e.row, "column": e.column},
             "end_location": {"row": e.end_row, "column": e.end_column}}
            for e in f.edits
        ],
    }


def as_json(findings: Sequence[Finding]) -> str:
    """ruff's JSON: absolute ``filename``, ``url``, ``fix`` with ``message`` and ``edits``, ``noqa_row`` (and ``cell``),
    with what each finding rests on: ``evidence`` (``runs_again``, ``same_computation``, ``unproven``) and ``confidence``."""
    urls = {code: rule_url(code) for code in {f.code for f in findings}}
    rows = [
        {
            "cell": f.cell or None,
            "code": f.code,
            "confidence": f.confidence,
            "end_location": {"row": f.end_line or f.line, "column": f.end_column or f.column},
            "evidence": f.evidence.to_json(),
            "filename": os.path.abspath(f.path),
            "fix": _fix(f),
            "help": f.help,
            "location": {"row": f.line, "column": f.column},
            "message": f.message,
            "name": rules.BY_CODE[f.code].name if f.code in rules.BY_CODE else None,
            "noqa_row": f.line,
            "url": urls[f.code],
        }
        for f in findings
    ]
    return json.dumps(rows, indent=2) + "\n"


def file_uri(path: str) -> str:
    """A file's ``file://`` URI, percent-encoded (``#``, spaces, non-ASCII), as SARIF needs."""
    return Path(os.path.abspath(path)).as_uri()


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(findings: Sequence[Finding]) -> str:
    """GitHub Actions workflow commands: each finding annotates its line in a pull request."""
    lines = []
    for f in findings:
        title = _escape_property(f"jitcheck ({f.code})")
        if f.cell:
            # A notebook's lines count within a cell, and GitHub would place them in the JSON:
            # the annotation goes on the file's first line, and the message names the cell.
            props = f"title={title},file={_escape_property(f.path)},line=1,col=1"
            text = f"{f.where}:{f.line}:{f.column}: {f.code} {f.message} (help: {f.help})"
        else:
            props = f"title={title},file={_escape_property(f.path)},line={f.line},col={f.column}"
            if f.end_line:
                props += f",endLine={f.end_line},endColumn={f.end_column}"
            text = f"{f.code} {f.message} (help: {f.help})"
        # A finding that rests on a guess (shown only under --preview) is a notice, not an error.
        lines.append(f"::{'notice' if f.confidence == 'low' else 'error'} {props}::{_escape_data(text)}\n")
    return "".join(lines)


def sarif(findings: Sequence[Finding]) -> str:
    """SARIF 2.1.0, for code-scanning dashboards."""
    used = sorted({f.code for f in findings} | {r.code for r in rules.RULES if rules.STATIC in r.layers})
    catalogue = [rules.BY_CODE[c] for c in used if c in rules.BY_CODE]
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "jitcheck",
                        "version": __version__,
                        "rules": [
                            {
                                "id": r.code,
                                "name": r.name,
                                "shortDescription": {"text": r.title},
                                "fullDescription": {"text": r.why},
                                "help": {"text": r.help},
                            }
                            for r in catalogue
                        ],
                    }
                },
                "results": [
                    {
                        "ruleId": f.code,
                        "level": "note" if f.confidence == "low" else "error",
                        "message": {"text": f"{f.message}\nhelp: {f.help}"},
                        "properties": {"confidence": f.confidence, "evidence": f.evidence.to_json()},
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": {"uri": file_uri(f.path)},
                                    "region": {
                                        "startLine": f.line,
                                        "startColumn": f.column,
                                        "endLine": f.end_line or f.line,
                                        "endColumn": f.end_column or f.column,
                                    },
                                }
                            }
                        ],
                    }
                    for f in findings
                ],
            }
        ],
    }
    return json.dumps(document, indent=2) + "\n"


def render(findings: Sequence[Finding], output_format: str) -> str:
    if output_format == "json":
        return as_json(findings)
    if output_format == "github":
        return github(findings)
    if output_format == "sarif":
        return sarif(findings)
    return text(findings)


def statistics(findings: Sequence[Finding]) -> str:
    """One line per code: how many, the code, ``[*]`` when some can be fixed, the rule's name."""
    counts = Counter(f.code for f in findings)
    fixable = {f.code for f in findings if f.fix}
    width = max((len(str(n)) for n in counts.values()), default=1)
    lines = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        name = rules.BY_CODE[code].name if code in rules.BY_CODE else ""
        mark = "[*]" if code in fixable else "   "
        lines.append(f"{count:>{width}}\t{code}\t{mark} {name}")
    return "\n".join(lines) + ("\n" if lines else "")


def summary(findings: Sequence[Finding], fixed: int = 0) -> str:
    """The closing line, as ruff's: ``Found N findings (M fixed, K remaining).`` after ``--fix``, and what can be fixed."""
    safe = sum(1 for f in findings if f.fix == "safe")
    unsafe = sum(1 for f in findings if f.fix == "unsafe")
    total = len(findings) + fixed
    if not total:
        return "All checks passed!"
    line = f"Found {total} finding{'s' if total != 1 else ''}"
    extra = []
    if fixed:
        extra.append(f"{fixed} fixed")
        extra.append(f"{len(findings)} remaining")
    if safe:
        extra.append(f"{safe} fixable with `--fix`")
    if unsafe:
        extra.append(f"{unsafe} more with `--unsafe-fixes`")
    return line + (f" ({', '.join(extra)})" if extra else "") + "."


__all__ = ["FORMATS", "as_json", "file_uri", "rule_url", "github", "render", "sarif", "statistics", "summary", "text"]
