"""How ``ast`` spells a name: a dotted name (``jax.numpy.sum``) and the class an annotation names.

Read by the project index's summaries and by the callers' records (:mod:`jitcheck.lint.callers`), which
both walk Python's ``ast``; kept here, below both, so neither imports the other for it.
"""

from __future__ import annotations

import ast


def dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def annotation_name(node: ast.expr | None) -> str | None:
    """The class an annotation names (``Env``, ``pkg.Env``, ``"Env"``, ``Optional[Env]``, ``Env | None``)."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return annotation_name(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return None
    if isinstance(node, ast.Subscript) and (dotted(node.value) or "").rsplit(".", 1)[-1] == "Optional":
        return annotation_name(node.slice)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        sides = [annotation_name(node.left), annotation_name(node.right)]
        named = [s for s in sides if s not in (None, "None")]
        return named[0] if len(named) == 1 else None
    return dotted(node)


__all__ = ["annotation_name", "dotted"]
