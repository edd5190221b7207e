"""A module's top-level statements, each with its lines, its text and the module-level names it binds and loads.

The server's unit of reuse: a statement's text decides what it binds and loads (and its
part of the module's summary, :mod:`jitcheck.server.summaries`) wherever it stands, so
those are computed once per text and the module is parsed once per change.
"""

from __future__ import annotations

import ast
import dataclasses

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


def _binds(node: ast.stmt) -> frozenset[str]:
    """Module-level names ``node`` may bind (more is harmless: it only joins more statements)."""
    found: set[str] = set()

    def visit(item: ast.AST, in_function: bool) -> None:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not in_function:
            found.add(item.name)
        if isinstance(item, ast.Global):
            found.update(item.names)
        if not in_function:
            if isinstance(item, ast.Name) and isinstance(item.ctx, (ast.Store, ast.Del)):
                found.add(item.id)
            elif isinstance(item, ast.alias):
                found.add((item.asname or item.name).split(".")[0])
            elif isinstance(item, (ast.MatchAs, ast.MatchStar)) and item.name:
                found.add(item.name)
            elif isinstance(item, ast.ExceptHandler) and item.name:
                found.add(item.name)
        if isinstance(item, ast.NamedExpr) and isinstance(item.target, ast.Name):
            found.add(item.target.id)  # a walrus binds in its function, or at module level: counted either way
        for child in ast.iter_child_nodes(item):
            visit(child, in_function or isinstance(item, _Scoped))

    visit(node, False)
    return frozenset(found)


def _loads(node: ast.stmt) -> frozenset[str]:
    return IMPLICIT | frozenset(item.id for item in ast.walk(node) if isinstance(item, ast.Name) and isinstance(item.ctx, ast.Load))


def statements(text: str, tree: ast.Module | None = None) -> list[Statement] | None:
    """The module's top-level statements, or None when ``ast`` cannot read it or two share a line.

    ``tree`` is ``python_tree(text)`` when the caller has it already (it is only read).
    """
    tree = tree if tree is not None else python_tree(text)
    if tree is None:
        return None
    lines = text.split("\n")
    found: list[Statement] = []
    for node in tree.body:
        decorators = getattr(node, "decorator_list", [])
        start = min([node.lineno, *(d.lineno for d in decorators)])
        end = node.end_lineno or node.lineno
        if found and start <= found[-1].end:
            return None
        piece = "\n".join(lines[start - 1:end])
        names_of = _NAMES.get(piece)
        if names_of is None:
            names_of = _NAMES[piece] = (_binds(node), _loads(node), _aliases(node))
            if len(_NAMES) > 50_000:
                _NAMES.clear()
        found.append(Statement(start, end, piece, names_of[0], names_of[1], isinstance(node, (ast.Import, ast.ImportFrom)),
                               names_of[2], node))
    return found


_NAMES: dict[str, tuple[frozenset[str], frozenset[str], tuple[tuple[str, str], ...]]] = {}
"""The names of a statement's text (the same text binds and loads the same names wherever it is)."""


def _aliases(node: ast.stmt) -> tuple[tuple[str, str], ...]:
    if not isinstance(node, (ast.Import, ast.ImportFrom)):
        return ()
    star = any(a.name == "*" for a in node.names)
    future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
    return (("*", "*"),) if star or future else tuple((a.name, a.asname or a.name.split(".")[0]) for a in node.names)


__all__ = ["IMPLICIT", "Statement", "statements"]
