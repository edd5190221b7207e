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

from jitcheck.lint.callers import _MAX_RECORDS, _NO_NAMES, _UNKNOWN_CALLER, _Recorder
from jitcheck.server.statements import Statement

Record = list[Any]
"""One row of :func:`jitcheck.lint.callers.call_records`: ``[callee, line, caller, [items kind, loop line] or None,
varying, reading, texts, arms]``, each arm ``"<if line>:0"``, ``"<if line>:1"`` or ``"<match line>:<case line>"``."""

_WORD = re.compile(r"[^\s!-/:-@\[-^`{-~]+")
"""A run of characters that are neither white space nor ASCII punctuation: every name a statement spells is one."""
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_Shape = tuple[str, str, tuple[str, ...]]
"""``("def", name, ())``, ``("class", name, its methods' names)``, or ``("", "", ())`` for any other statement."""


def _callers(kind: str, name: str, methods: tuple[str, ...]) -> tuple[str, ...]:
    """The callers a def's or class's records name: the function, or ``Class.method`` for each method."""
    return (name,) if kind == "def" else tuple(f"{name}.{method}" for method in methods)


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
        self._shapes: dict[str, _Shape] = {}
        self._names: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
        """The last run's imported names and definitions: the same objects again while they are equal (a key's
        lookup then compares them by identity, not name by name)."""
        self._module_level: tuple[tuple[object, ...], list[Record]] = ((), [])
        self._most = most

    def of(self, found: Sequence[Statement], imports: Mapping[str, str]) -> list[Record]:
        """``call_records(ast.Module(body=[s.node for s in found]), imports)``, with each statement's lines as
        ``found`` says (every statement must have its node)."""
        shaped = [(statement, self._shape(statement)) for statement in found]
        defined = {name for _, (kind, name, _) in shaped if kind}
        named = [(statement, shape) for statement, shape in shaped if shape[0]]
        counts: dict[str, int] = {}
        for _, (kind, name, methods) in named:
            for caller in _callers(kind, name, methods):
                counts[caller] = counts.get(caller, 0) + 1
        names = (frozenset(_Recorder(imports, set(), {}).heads), frozenset(defined))
        if names != self._names:
            self._names = names
        heads, frozen = self._names
        classes: dict[str, set[str]] = {}
        for _, (kind, name, methods) in named:
            if kind == "class":
                classes[name] = set(methods)
        records = self._module([s for s, (kind, _, _) in shaped if not kind], imports, defined, classes, heads, frozen)
        for statement, (kind, name, methods) in named:
            if len(records) >= _MAX_RECORDS:
                break
            callers = tuple(caller if counts[caller] == 1 else _UNKNOWN_CALLER for caller in _callers(kind, name, methods))
            key = (statement.text, heads, frozen & self._spelled(statement.text), callers)
            kept = self._functions.get(key)
            if kept is None:
                node = statement.node
                assert node is not None
                recorder = _Recorder(imports, defined, classes)
                inner = [node] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else \
                    [m for m in getattr(node, "body", ()) if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
                for function, caller in zip(inner, callers, strict=True):
                    recorder.function(function, caller, name if kind == "class" else None)
                start = _first_line(node)
                kept = _Kept([shifted(record, 1 - start) for record in recorder.records])
                if len(self._functions) >= self._most:
                    self._functions.clear()
                self._functions[key] = kept
            records.extend(kept.at(statement.start))
        return records[:_MAX_RECORDS]

    def _shape(self, statement: Statement) -> _Shape:
        """Whether the statement is a def or a class (its text says), its name and its methods' names."""
        shape = self._shapes.get(statement.text)
        if shape is None:
            node = statement.node
            if isinstance(node, _DEFS):
                shape = ("def", node.name, ())
            elif isinstance(node, ast.ClassDef):
                shape = ("class", node.name, tuple(inner.name for inner in node.body if isinstance(inner, _DEFS)))
            else:
                shape = ("", "", ())
            if len(self._shapes) >= self._most:
                self._shapes.clear()
            self._shapes[statement.text] = shape
        return shape

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

    def _module(self, level: Sequence[Statement], imports: Mapping[str, str], defined: set[str],
                classes: dict[str, set[str]], heads: frozenset[str], frozen: frozenset[str]) -> list[Record]:
        """The records of the module-level statements ``level`` (a def's or class's body runs when it is called),
        kept while those statements, their lines and the names they can call stay the same."""
        key = (heads, frozen, *((s.text, s.start) for s in level))
        if key != self._module_level[0]:
            recorder = _Recorder(imports, defined, classes)
            types: dict[str, str] = {}
            records: list[Record] = []
            for statement in level:  # one walk, as call_records makes it: a name's type and rebinding carry over
                assert statement.node is not None
                recorder.records = []
                recorder.statement(statement.node, "", _NO_NAMES, types, None, None, None, ())
                recorder.settle()  # as `call_records` marks them, statement by statement
                by = statement.start - _first_line(statement.node)
                records.extend(shifted(record, by) for record in recorder.records)
                if len(records) >= _MAX_RECORDS:
                    break
            self._module_level = (key, records[:_MAX_RECORDS])
        return list(self._module_level[1])


__all__ = ["CallRecords", "Record", "shifted"]
