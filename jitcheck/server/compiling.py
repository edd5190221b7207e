"""Whether Python compiles a module, asked statement by statement (each statement's answer kept by its text).

A fix is offered only for a file Python compiles (:func:`jitcheck.lint.fixes.compiles`), and
compiling a 5,000-line file on every keystroke costs tens of milliseconds. Python's compiler
judges each top-level statement on its own, but for two things of the module as a whole: the
``from __future__`` imports, allowed only at its start (after a docstring) and changing how
the rest compiles, and ``global`` at module level, checked against the module's other
statements. A module whose futures are all at its start is compiled statement by statement
under their flags; one with a ``global`` or a future anywhere else is compiled whole.
"""

from __future__ import annotations

import __future__
import ast
from collections.abc import Sequence

from jitcheck.lint.fixes import compiles
from jitcheck.server.statements import Statement

_KNOWN_FUTURES = {name: getattr(__future__, name).compiler_flag for name in __future__.all_feature_names
                  if name != "barry_as_FLUFL"}
"""The features a statement-by-statement compile can pass on as flags (the joke one changes the grammar)."""
_KEPT: dict[tuple[str, int], bool] = {}


def compiles_by_statement(text: str, found: Sequence[Statement] | None) -> bool:
    """``compiles(text)``, where ``found`` is ``statements(text)`` (None: compiled whole)."""
    if found is None:
        return compiles(text)
    flags = 0
    leading = True
    for index, statement in enumerate(found):
        node = statement.node
        if node is None or "global" in statement.text:
            return compiles(text)
        future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if future:
            assert isinstance(node, ast.ImportFrom)
            if not leading or any(alias.name not in _KNOWN_FUTURES for alias in node.names):
                return compiles(text)
            for alias in node.names:
                flags |= _KNOWN_FUTURES[alias.name]
        elif not (index == 0 and _is_docstring(node)):
            leading = False
        if not _compiles(statement.text, flags):
            return False
    return True


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _compiles(text: str, flags: int) -> bool:
    key = (text, flags)
    found = _KEPT.get(key)
    if found is None:
        if len(_KEPT) > 50_000:
            _KEPT.clear()
        try:
            compile(text, "<jitcheck fix>", "exec", flags=flags, dont_inherit=True)
        except Exception:  # SyntaxError, ValueError, RecursionError, MemoryError, ...: as fixes.compiles
            found = False
        else:
            found = True
        _KEPT[key] = found
    return found


__all__ = ["compiles_by_statement"]
