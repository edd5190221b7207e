"""Python's ``ast.walk`` and ``ast.iter_child_nodes``, in their order, as lists built in one loop.

The static pass walks Python's tree of every file of a run several times (the project
index, the prefilter, the cuts); the standard helpers cost two generator layers per node.
These give the same nodes in the same order, about twice as fast.
"""

from __future__ import annotations

import ast


def walk(node: ast.AST) -> list[ast.AST]:
    """``node`` and every node under it, breadth-first, in ``ast.walk``'s order."""
    found = [node]
    append = found.append
    for current in found:  # the list grows as it is read: each node's children join the end
        for field in current._fields:
            value = getattr(current, field, None)
            if isinstance(value, ast.AST):
                append(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        append(item)
    return found


def children(node: ast.AST) -> list[ast.AST]:
    """The direct children of ``node``, in ``ast.iter_child_nodes``'s order."""
    found = []
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, ast.AST):
            found.append(value)
        elif isinstance(value, list):
            found.extend(item for item in value if isinstance(item, ast.AST))
    return found


__all__ = ["children", "walk"]
