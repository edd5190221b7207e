"""A module's top-level statements, each with its lines, its text and the module-level names it binds and loads.

The server's unit of reuse: a statement's text decides what it binds and loads (and its
part of the module's summary, :mod:`jitcheck.server.summaries`) wherever it stands, so
those are computed once per text and the module is parsed once per change.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
from collections import OrderedDict

from jitcheck.lint.astwalk import children, walk
from jitcheck.lint.index import python_tree

_Scoped = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
IMPLICIT: frozenset[str] = frozenset({"ValuePartial"})
"""Names the static pass looks up in the whole module, whatever a statement loads (a fix that imports
``ValuePartial`` is offered only where the module does not bind that name to something else)."""


@dataclasses.dataclass(frozen=True)
class Statement:
    """A top-level statement: its lines (1-based, inclusive, decorators included), text and names."""

    start: int
    end: int
    text: str
    binds: frozenset[str]
    loads: frozenset[str]
    is_import: bool
    aliases: tuple[tuple[str, str], ...] = ()
    """For an import: (imported name, bound name) pairs; ``("*", "*")`` for a star or ``__future__`` import."""
    node: ast.stmt | None = dataclasses.field(default=None, compare=False, repr=False)
    """The statement's node in the tree it was read from."""


def _binds(node: ast.stmt, nodes: list[ast.AST] | None = None) -> frozenset[str]:
    """Module-level names ``node`` may bind (more is harmless: it only joins more statements). ``nodes`` is
    ``walk(node)`` when the caller has it already.

    Outside functions and lambdas: the names a def or class, an assignment, an import, a ``match`` capture or an
    ``except ... as`` binds; anywhere: the names of a ``global`` and a walrus's target (a walrus binds in its function,
    or at module level: counted either way)."""
    found: set[str] = set()
    for item in walk(node) if nodes is None else nodes:  # anywhere, in a function or not
        if isinstance(item, ast.Global):
            found.update(item.names)
        elif isinstance(item, ast.NamedExpr) and isinstance(item.target, ast.Name):
            found.add(item.target.id)
    stack: list[ast.AST] = [node]
    while stack:  # outside functions and lambdas: what a function's header and body hold is its own
        item = stack.pop()
        if isinstance(item, ast.Name):
            if isinstance(item.ctx, (ast.Store, ast.Del)):
                found.add(item.id)
        elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.add(item.name)
            continue
        elif isinstance(item, ast.Lambda):
            continue
        elif isinstance(item, ast.ClassDef):
            found.add(item.name)
        elif isinstance(item, ast.alias):
            found.add((item.asname or item.name).split(".")[0])
        elif isinstance(item, (ast.MatchAs, ast.MatchStar, ast.ExceptHandler)) and item.name:
            found.add(item.name)
        stack.extend(children(item))
    return frozenset(found)


def _loads(node: ast.stmt, nodes: list[ast.AST] | None = None) -> frozenset[str]:
    return IMPLICIT | frozenset(item.id for item in (walk(node) if nodes is None else nodes)
                                if isinstance(item, ast.Name) and isinstance(item.ctx, ast.Load))


def statements(text: str, tree: ast.Module | None = None) -> list[Statement] | None:
    """The module's top-level statements, or None when ``ast`` cannot read it or two share a line.

    ``tree`` is ``python_tree(text)`` when the caller has it already (it is only read). The
    answer for the last few texts is kept (the summaries and the parts ask for the same text).
    """
    if text in _READ:
        return _READ[text]
    tree = tree if tree is not None else python_tree(text)
    found = None if tree is None else _statements(text.split("\n"), tree.body, 0)
    _remember(text, found)
    return found


def edited(old: str | None, new: str) -> list[Statement] | None:
    """``statements(new)`` where ``new`` is an edit of ``old``: only the top-level statements the edit touched
    (with the one before and the one after it) are parsed again, the others kept with their lines moved.

    Whatever the region cannot settle alone (it does not parse by itself, ``old`` was not read) is read
    whole. A region that parses by itself, between two unchanged whole statements, parses the same
    inside the module: no bracket, string or block is open where it starts or ends.
    """
    if new in _READ:
        return _READ[new]
    before = _READ.get(old) if old is not None else None
    found = _spliced(old, new, before) if old is not None and before else None
    if found is None:
        return statements(new)
    _remember(new, found)
    return found


def _spliced(old: str, new: str, before: list[Statement]) -> list[Statement] | None:
    old_lines, new_lines = old.split("\n"), new.split("\n")
    shortest = min(len(old_lines), len(new_lines))
    head = 0
    while head < shortest and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < shortest - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    first, last = head + 1, len(old_lines) - tail  # the old lines replaced (1-based; last < first: an insertion)
    kept_before = before[:bisect.bisect_left(before, first, key=lambda s: s.end)]  # in order, none overlapping
    kept_after = before[bisect.bisect_right(before, last, key=lambda s: s.start):]
    if kept_before:
        kept_before.pop()  # the statement just before the edit is read again: the edit may continue it
    if kept_after:
        kept_after.pop(0)  # and so is the one just after it
    start = kept_before[-1].end + 1 if kept_before else 1  # old line numbers of the region
    stop = kept_after[0].start - 1 if kept_after else len(old_lines)
    shift = len(new_lines) - len(old_lines)
    region = new_lines[start - 1:stop + shift]
    tree = python_tree("\n".join(region))
    if tree is None:
        return None
    middle = _statements(region, tree.body, start - 1)
    if middle is None:
        return None
    if shift:  # the statements after the edit move by the lines it added or took away (a keystroke moves none)
        kept_after = [Statement(s.start + shift, s.end + shift, s.text, s.binds, s.loads, s.is_import, s.aliases, s.node)
                      for s in kept_after]
    return [*kept_before, *middle, *kept_after]


def _statements(lines: list[str], body: list[ast.stmt], offset: int) -> list[Statement] | None:
    """The statements of ``body``, read from ``lines``; their line numbers moved down by ``offset``."""
    found: list[Statement] = []
    for node in body:
        decorators = getattr(node, "decorator_list", [])
        start = min([node.lineno, *(d.lineno for d in decorators)])
        end = node.end_lineno or node.lineno
        if found and start + offset <= found[-1].end:
            return None
        piece = "\n".join(lines[start - 1:end])
        names_of = _NAMES.get(piece)
        if names_of is None:
            nodes = walk(node)
            names_of = _NAMES[piece] = (_binds(node, nodes), _loads(node, nodes), _aliases(node))
            if len(_NAMES) > 50_000:
                _NAMES.clear()
        found.append(Statement(start + offset, end + offset, piece, names_of[0], names_of[1],
                               isinstance(node, (ast.Import, ast.ImportFrom)), names_of[2], node))
    return found


_READ: OrderedDict[str, list[Statement] | None] = OrderedDict()
"""The statements of the last texts read (by text)."""


def _remember(text: str, found: list[Statement] | None) -> None:
    _READ[text] = found
    _READ.move_to_end(text)
    while len(_READ) > 8:
        _READ.popitem(last=False)


_NAMES: dict[str, tuple[frozenset[str], frozenset[str], tuple[tuple[str, str], ...]]] = {}
"""The names of a statement's text (the same text binds and loads the same names wherever it is)."""


def _aliases(node: ast.stmt) -> tuple[tuple[str, str], ...]:
    if not isinstance(node, (ast.Import, ast.ImportFrom)):
        return ()
    star = any(a.name == "*" for a in node.names)
    future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
    return (("*", "*"),) if star or future else tuple((a.name, a.asname or a.name.split(".")[0]) for a in node.names)


__all__ = ["IMPLICIT", "Statement", "edited", "statements"]
