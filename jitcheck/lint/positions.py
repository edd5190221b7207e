"""The positions of a few libcst nodes, as libcst's ``PositionProvider`` gives them, without recording every node's.

``PositionProvider`` writes the module's code out once and records a range for each of
its nodes; a check needs the ranges of the nodes it reports only. :func:`positions_of`
writes the code out the same way (so lines and columns are counted exactly as there)
and records ranges only inside the nodes asked for: their own, and their descendants',
which libcst's ranges of some nodes are taken from (``end_node=self.body``); it stops
once the last of them is written out. :func:`lines_of` gives every node's first line (the start
line of its ``PositionProvider`` range) with a write-out that counts lines only; :func:`ranges_of` every node's
whole range, as plain numbers, with a write-out that keeps no text (a check that asks for lines, then for the
reported nodes' ranges, writes the module out once).
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Mapping
from typing import Any

import libcst as cst
from libcst._position import CodePosition, CodeRange
from libcst._nodes.internal import CodegenState
from libcst.metadata.position_provider import NEWLINE_RE, PositionProvidingCodegenState


class _Ranges:
    """Where the codegen state writes the ranges (the part of a metadata provider it uses)."""

    def __init__(self) -> None:
        self._computed: dict[cst.CSTNode, CodeRange] = {}


_NOTHING = contextlib.nullcontext()


class _Done(Exception):
    """Raised through the codegen once every wanted node is written out."""


class _State(PositionProvidingCodegenState):
    """libcst's position-recording codegen state, recording only inside the wanted nodes."""

    def __init__(self, module: cst.Module, wanted: Collection[cst.CSTNode], ranges: _Ranges) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline,
                         provider=ranges)  # type: ignore[arg-type]
        self.wanted = wanted
        self.left = len(wanted)
        self.inside = 0
        """How many nodes being written out, from the outermost wanted one down, are open."""

    def before_codegen(self, node: cst.CSTNode) -> None:
        if self.inside or node in self.wanted:
            self.inside += 1
            super().before_codegen(node)

    def after_codegen(self, node: cst.CSTNode) -> None:
        if self.inside:
            self.inside -= 1
            super().after_codegen(node)
            if node in self.wanted:
                self.left -= 1
                if not self.left:
                    raise _Done  # every wanted range is known: the rest of the code need not be written out

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None,
                                  end_node: cst.CSTNode | None = None) -> Any:
        if not self.inside:
            return _NOTHING
        return super().record_syntactic_position(node, start_node=start_node, end_node=end_node)


def positions_of(module: cst.Module, wanted: Collection[cst.CSTNode]) -> Mapping[cst.CSTNode, CodeRange]:
    """The ranges ``PositionProvider`` gives the ``wanted`` nodes of ``module`` (and their descendants)."""
    ranges = _Ranges()
    state = _State(module, set(wanted), ranges)
    try:
        module._codegen(state)
    except _Done:
        pass
    return ranges._computed


class _Entered:
    """``record_syntactic_position``'s context for :class:`_LineState` (a plain object: libcst's is a generator)."""

    __slots__ = ("line", "node", "start_node", "state")

    def __init__(self, state: _LineState, node: cst.CSTNode, start_node: cst.CSTNode | None) -> None:
        self.state, self.node, self.start_node, self.line = state, node, start_node, state.line

    def __enter__(self) -> None:
        return None

    def __exit__(self, *_: object) -> None:
        lines = self.state.lines
        lines[self.node] = lines[self.start_node] if self.start_node is not None else self.line


class _LineState(CodegenState):
    """A codegen state that keeps no text, only the line being written and each node's first line, as
    ``PositionProvider``'s state records them (its syntactic start, hoisted from ``start_node`` where libcst
    says so; else where the node's code begins)."""

    def __init__(self, module: cst.Module) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.line = 1
        self.lines: dict[cst.CSTNode, int] = {}
        self._starts: list[int] = []

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        if "\n" in value or "\r" in value:  # libcst's newlines: \r\n, \r and \n, each one line
            self.line += value.count("\n") + value.count("\r") - value.count("\r\n")

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._starts.append(self.line)

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._starts.pop()
        if node not in self.lines:  # a syntactic start recorded inside the node is kept
            self.lines[node] = start

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None,
                                  end_node: cst.CSTNode | None = None) -> Any:
        return _Entered(self, node, start_node)


def lines_of(module: cst.Module) -> dict[cst.CSTNode, int]:
    """The first line of every node of ``module``: ``PositionProvider``'s ``start.line``, without its ranges."""
    state = _LineState(module)
    module._codegen(state)
    return state.lines


Span = tuple[int, int, int, int]
"""A range as plain numbers: its start line and column, its end line and column (``CodeRange``'s, columns from 0)."""


Spans = dict[int, Span]
"""Ranges by the ``id`` of their node."""


class _Spanned:
    """``record_syntactic_position``'s context for :class:`_RangeState` (a plain object: libcst's is a generator)."""

    __slots__ = ("column", "end_node", "line", "node", "start_node", "state")

    def __init__(self, state: _RangeState, node: cst.CSTNode, start_node: cst.CSTNode | None,
                 end_node: cst.CSTNode | None) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node
        self.line, self.column = state.line, state.column

    def __enter__(self) -> None:
        return None

    def __exit__(self, *_: object) -> None:
        state = self.state
        spans = state.spans
        start = spans[id(self.start_node)] if self.start_node is not None else None
        end = spans[id(self.end_node)] if self.end_node is not None else None
        spans[id(self.node)] = (start[0] if start else self.line, start[1] if start else self.column,
                            end[2] if end else state.line, end[3] if end else state.column)


class _RangeState(CodegenState):
    """A codegen state that keeps no text, only the position being written and each node's range, as
    ``PositionProvidingCodegenState`` records them (its syntactic range, hoisted from ``start_node`` and ``end_node``
    where libcst says so; else where the node's code begins and ends)."""

    def __init__(self, module: cst.Module) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.line = 1
        self.column = 0
        self.spans: Spans = {}
        self._starts: list[tuple[int, int]] = []

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        if not self.tokens:  # the first token only: the module asks whether anything was written
            self.tokens.append(value)
        if "\n" in value or "\r" in value:  # libcst's newlines: \r\n, \r and \n, each one line
            segments = NEWLINE_RE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._starts.append((self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        line, column = self._starts.pop()
        key = id(node)  # (a node's own __hash__ is a Python function: two calls per node)
        if key not in self.spans:  # a syntactic range recorded inside the node is kept
            self.spans[key] = (line, column, self.line, self.column)

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None,
                                  end_node: cst.CSTNode | None = None) -> Any:
        return _Spanned(self, node, start_node, end_node)


def ranges_of(module: cst.Module) -> Spans:
    """Every node's ``PositionProvider`` range, as plain numbers (:data:`Span`), by the node's ``id`` (valid while
    ``module`` lives), with one write-out of ``module``."""
    state = _RangeState(module)
    module._codegen(state)
    return state.spans


def code_range(span: Span) -> CodeRange:
    """The ``CodeRange`` of ``span``."""
    return CodeRange(CodePosition(span[0], span[1]), CodePosition(span[2], span[3]))


__all__ = ["CodePosition", "CodeRange", "Span", "Spans", "code_range", "lines_of", "positions_of", "ranges_of"]
