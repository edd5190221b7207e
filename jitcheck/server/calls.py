"""A module's call records (:func:`jitcheck.lint.callers.call_records`), made statement by statement.

The records walk every function of the module: tens of milliseconds on a 5,000-line
file, on every keystroke. But a top-level function's records depend only on its own
text, the module's imports of the run's packages, the names the module defines, and
whether its name is defined twice; the module-level statements' records depend on those
statements alone, one after the other. So each statement's records are kept by its text
(their lines counted from its first line) and placed at its lines now: a keystroke walks
the one function it touched. The module's records are those of its module-level
statements, then those of its functions and methods in order, cut at the records' bound,
as :func:`~jitcheck.lint.callers.call_records` makes them.

A statement read from an edited region or moved by an edit (:func:`jitcheck.server.statements.edited`)
keeps a node whose line numbers are not the file's; the records are placed by the
statement's own lines, so they are right in either case.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from jitcheck.lint.callers import _MAX_RECORDS, _UNKNOWN_CALLER, _Recorder
from jitcheck.server.statements import Statement

Record = list[Any]
"""One row of :func:`jitcheck.lint.callers.call_records`: ``[callee, line, caller, [items kind, loop line] or None,
varying, reading, texts, arms]``, each arm ``"<if line>:0"``, ``"<if line>:1"`` or ``"<match line>:<case line>"``."""

_WORD = re.compile(r"[^\s!-/:-@\[-^`{-~]+")
"""A run of characters that are neither white space nor ASCII punctuation: every name a statement spells is one."""
_Functions = tuple[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str, str | None], ...]


def _first_line(node: ast.stmt) -> int:
    """A statement's first line in its node's own numbering (its decorators included)."""
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def shifted(record: Record, by: int) -> Record:
    """``record`` with every line it names moved down by ``by``."""
    if not by:
        return record
    callee, line, caller, loop, varying, reading, texts, arms = record
    moved_arms = []
    for arm in arms:
        at, _, which = arm.partition(":")
        # an if's arm is 0 or 1; a case's is its pattern's line (below its match: never line 0 or 1)
        moved_arms.append(f"{int(at) + by}:{which if which in ('0', '1') else int(which) + by}")
    return [callee, line + by, caller, [loop[0], loop[1] + by] if loop is not None else None, varying, reading, texts,
            moved_arms]


class _Kept:
    """A statement's records with their lines counted from its first line, and as last placed."""

    __slots__ = ("placed", "records", "start")

    def __init__(self, records: list[Record]) -> None:
        self.records = records
        self.start = 1
        self.placed = records

    def at(self, start: int) -> list[Record]:
        """The records of the statement starting at line ``start``."""
        if start != self.start:
            self.start, self.placed = start, [shifted(record, start - 1) for record in self.records]
        return self.placed


class CallRecords:
    """``call_records`` of modules given as their statements, each statement's records kept by its text."""

    def __init__(self, most: int = 50_000) -> None:
        self._functions: dict[tuple[str, frozenset[str], frozenset[str], tuple[str, ...]], _Kept] = {}
        """A def's or class's records by its text, the run's imported names, the module's definitions it may spell
        (the walk asks about no other: a def pasted elsewhere leaves them standing) and its callers' names (a name
        defined twice calls as none)."""
        self._words: dict[str, frozenset[str]] = {}
        self._names: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
        """The last run's imported names and definitions: the same objects again while they are equal (a key's
        lookup then compares them by identity, not name by name)."""
        self._module_level: tuple[tuple[object, ...], list[Record]] = ((), [])
        self._most = most

    def of(self, found: Sequence[Statement], imports: Mapping[str, str]) -> list[Record]:
        """``call_records(ast.Module(body=[s.node for s in found]), imports)``, with each statement's lines as
        ``found`` says (every statement must have its node)."""
        defined: set[str] = set()
        classes: dict[str, set[str]] = {}
        named: list[tuple[Statement, _Functions]] = []
        for statement in found:
            node = statement.node
            assert node is not None
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defined.add(node.name)
                named.append((statement, ((node, node.name, None),)))
            elif isinstance(node, ast.ClassDef):
                defined.add(node.name)
                methods = [inner for inner in node.body if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef))]
                classes[node.name] = {inner.name for inner in methods}
                named.append((statement, tuple((inner, f"{node.name}.{inner.name}", node.name) for inner in methods)))
        names = (frozenset(_Recorder(imports, defined, classes).heads), frozenset(defined))
        if names != self._names:
            self._names = names
        heads, frozen = self._names
        records = self._module(found, imports, defined, classes, heads, frozen)
        counts: dict[str, int] = {}
        for _, functions in named:
            for _, name, _ in functions:
                counts[name] = counts.get(name, 0) + 1
        for statement, functions in named:
            if len(records) >= _MAX_RECORDS:
                break
            callers = tuple(name if counts[name] == 1 else _UNKNOWN_CALLER for _, name, _ in functions)
            key = (statement.text, heads, frozen & self._spelled(statement.text), callers)
            kept = self._functions.get(key)
            if kept is None:
                assert statement.node is not None
                recorder = _Recorder(imports, defined, classes)
                for (node, _, cls), caller in zip(functions, callers, strict=True):
                    recorder.function(node, caller, cls)
                start = _first_line(statement.node)
                kept = _Kept([shifted(record, 1 - start) for record in recorder.records])
                if len(self._functions) >= self._most:
                    self._functions.clear()
                self._functions[key] = kept
            records.extend(kept.at(statement.start))
        return records[:_MAX_RECORDS]

    def _spelled(self, text: str) -> frozenset[str]:
        """Every name ``text`` may spell: its runs of characters between spaces and ASCII punctuation (in code or
        in a string annotation), as written and as Python reads an identifier (NFKC)."""
        found = self._words.get(text)
        if found is None:
            words = set(_WORD.findall(text))
            words |= {unicodedata.normalize("NFKC", word) for word in words if not word.isascii()}
            if len(self._words) >= self._most:
                self._words.clear()
            found = self._words[text] = frozenset(words)
        return found

    def _module(self, found: Sequence[Statement], imports: Mapping[str, str], defined: set[str],
                classes: dict[str, set[str]], heads: frozenset[str], frozen: frozenset[str]) -> list[Record]:
        """The records of the module-level statements (a def's or class's body runs when it is called), kept while
        those statements, their lines and the names they can call stay the same."""
        level = [s for s in found if not isinstance(s.node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        key = (heads, frozen, *((s.text, s.start) for s in level))
        if key != self._module_level[0]:
            recorder = _Recorder(imports, defined, classes)
            types: dict[str, str] = {}
            records: list[Record] = []
            for statement in level:  # one walk, as call_records makes it: a name's type and rebinding carry over
                assert statement.node is not None
                recorder.records = []
                recorder.statement(statement.node, "", set(), types, None, None, None, ())
                by = statement.start - _first_line(statement.node)
                records.extend(shifted(record, by) for record in recorder.records)
                if len(records) >= _MAX_RECORDS:
                    break
            self._module_level = (key, records[:_MAX_RECORDS])
        return list(self._module_level[1])


__all__ = ["CallRecords", "Record", "shifted"]
