"""The output formats of a run: text, json, github (workflow commands) and sarif."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from jitcheck import __version__, rules
from jitcheck.lint.findings import Finding

FORMATS = ("text", "json", "github", "sarif")


def text(findings: Sequence[Finding]) -> str:
    """``path:line:col: JCxxx message`` and a ``help:`` line per finding."""
    return "".join(f.render() + "\n" for f in findings)


def as_json(findings: Sequence[Finding]) -> str:
    rows = [
        {
            "code": f.code,
            "name": rules.BY_CODE[f.code].name if f.code in rules.BY_CODE else None,
            "message": f.message,
            "help": f.help,
            "filename": f.path,
            "location": {"row": f.line, "column": f.column},
            "end_location": {"row": f.end_line or f.line, "column": f.end_column or f.column},
            "fix": {"applicability": f.fix} if f.fix else None,
        }
        for f in findings
    ]
    return json.dumps(rows, indent=2) + "\n"


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(findings: Sequence[Finding]) -> str:
    """GitHub Actions workflow commands: each finding annotates its line in a pull request."""
    lines = []
    for f in findings:
        props = f"title={_escape_property(f'jitcheck ({f.code})')},file={_escape_property(f.path)},line={f.line},col={f.column}"
        if f.end_line:
            props += f",endLine={f.end_line},endColumn={f.end_column}"
        lines.append(f"::error {props}::{_escape_data(f'{f.code} {f.message} (help: {f.help})')}\n")
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
                        "level": "error",
                        "message": {"text": f"{f.message}\nhelp: {f.help}"},
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": {"uri": f.path.replace("\\", "/")},
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


__all__ = ["FORMATS", "as_json", "github", "render", "sarif", "statistics", "summary", "text"]
