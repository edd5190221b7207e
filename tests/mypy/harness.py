"""Run mypy (in this process, through ``mypy.api``) and compare what it reports with markers.

A line of a case or fixture file that must draw errors carries a trailing comment::

    graph: JitGraph[Name, str]  # mypy-expect: jitcheck-label
    node = NodeDefinition(lambda x: x, ("x",), ("y",))  # mypy-expect: jitcheck-body # mypy-says: JC104 lambda

``mypy-expect`` lists the error codes reported on that line (all of them, mypy's own
included); every other line must draw no error. ``mypy-says`` (repeatable) is text
that one of the messages (errors or notes) on that line must contain. ``mypy-caret``
is text on that line where the line's jitcheck errors must point (their column), checked
when mypy ran with ``--show-column-numbers``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import tokenize
from collections.abc import Iterator, Sequence
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parent.parent.parent

_LINE = re.compile(
    r"^(?P<path>[^:\n]+):(?P<line>\d+):(?:(?P<column>\d+):)? (?P<severity>error|note): (?P<message>.*?)(?:  \[(?P<code>[a-z0-9-]+)\])?$"
)
_MARKER = re.compile(r"#\s*mypy-(?P<kind>expect|says|caret):\s*(?P<value>.*?)\s*(?=#\s*mypy-|$)")


@dataclasses.dataclass(frozen=True)
class Message:
    """One line of mypy's report."""

    path: str
    line: int
    severity: str
    message: str
    code: str | None
    column: int | None = None


@dataclasses.dataclass(frozen=True)
class Report:
    """What a mypy run printed, parsed."""

    messages: tuple[Message, ...]
    stdout: str
    stderr: str
    status: int

    def errors(self) -> list[Message]:
        return [m for m in self.messages if m.severity == "error"]

    def in_file(self, path: Path | str) -> list[Message]:
        wanted = _relative(path)
        return [m for m in self.messages if m.path == wanted]

    def error_keys(self) -> set[tuple[str, int, str]]:
        return {(m.path, m.line, m.code or "?") for m in self.errors()}


@dataclasses.dataclass(frozen=True)
class Expectations:
    """The markers of one file."""

    codes: dict[int, set[str]]
    says: dict[int, list[str]]
    carets: dict[int, str] = dataclasses.field(default_factory=dict)


def run_mypy(args: Sequence[str], *, cwd: Path = ROOT) -> Report:
    """``mypy <args>`` run in ``cwd`` (paths in the report are relative to it)."""
    with _chdir(cwd):
        stdout, stderr, status = api.run(["--no-error-summary", "--show-error-codes", "--no-pretty", "--hide-error-context", *args])
    messages = []
    for line in stdout.splitlines():
        match = _LINE.match(line)
        if match is not None:
            messages.append(
                Message(
                    _relative(match["path"], cwd),
                    int(match["line"]),
                    match["severity"],
                    match["message"],
                    match["code"],
                    int(match["column"]) if match["column"] else None,
                )
            )
    return Report(tuple(messages), stdout, stderr, status)


def expectations(path: Path) -> Expectations:
    """The ``mypy-expect`` and ``mypy-says`` markers in a file's comments, by line."""
    codes: dict[int, set[str]] = {}
    says: dict[int, list[str]] = {}
    carets: dict[int, str] = {}
    with tokenize.open(path) as source:
        comments = [(t.start[0], t.string) for t in tokenize.generate_tokens(source.readline) if t.type == tokenize.COMMENT]
    for number, text in comments:
        for match in _MARKER.finditer(text):
            if match["kind"] == "expect":
                codes.setdefault(number, set()).update(c.strip() for c in match["value"].split(",") if c.strip())
            elif match["kind"] == "caret":
                carets[number] = match["value"]
            else:
                says.setdefault(number, []).append(match["value"])
    return Expectations(codes, says, carets)


def mismatches(path: Path, report: Report) -> list[str]:
    """Every difference between a file's markers and what mypy reported for it, in words."""
    expected = expectations(path)
    messages = report.in_file(path)
    got: dict[int, set[str]] = {}
    for m in messages:
        if m.severity == "error":
            got.setdefault(m.line, set()).add(m.code or "?")
    problems = []
    name = _relative(path)
    for line in sorted(set(expected.codes) | set(got)):
        want, have = expected.codes.get(line, set()), got.get(line, set())
        if want != have:
            texts = [f"    {m.severity}: {m.message} [{m.code}]" for m in messages if m.line == line]
            problems.append(f"{name}:{line}: expected codes {sorted(want)}, mypy reported {sorted(have)}" + "".join("\n" + t for t in texts))
    for line, needles in sorted(expected.says.items()):
        texts = [m.message for m in messages if m.line == line]
        for needle in needles:
            if not any(needle in t for t in texts):
                shown = "".join(f"\n    {t}" for t in texts) or " (nothing)"
                problems.append(f"{name}:{line}: no message contains {needle!r}; mypy said:{shown}")
    source = path.read_text().splitlines()
    for line, text in sorted(expected.carets.items()):
        column = source[line - 1].find(text) + 1
        for m in messages:
            if m.line == line and m.severity == "error" and (m.code or "").startswith("jitcheck-") and m.column is not None and m.column != column:
                problems.append(f"{name}:{line}: the error points at column {m.column}, not at {text!r} (column {column}): {m.message}")
    return problems


def marked_keys(paths: Sequence[Path]) -> set[tuple[str, int, str]]:
    """(file, line, error code) for every ``mypy-expect`` marker in ``paths``."""
    keys: set[tuple[str, int, str]] = set()
    for path in paths:
        for line, codes in expectations(path).codes.items():
            keys.update((_relative(path), line, code) for code in codes)
    return keys


def _relative(path: Path | str, base: Path = ROOT) -> str:
    candidate = Path(path)
    if not candidate.is_absolute():
        candidate = base / candidate
    try:
        return candidate.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return candidate.as_posix()


@contextlib.contextmanager
def _chdir(path: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)
