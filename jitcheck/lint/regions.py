"""What libcst must read of a module to judge it: the module without the bodies nothing depends on.

libcst's parse and its scope analysis cost about as much per line as they cost in total,
while a module with a possible finding holds it in one or two of its functions. A
module-level function or method whose body cannot matter to any finding is read as ``...``:

- no site of the prefilter (:func:`.prefilter.positive_sites`) is in it;
- its body names nothing bound at module level in this file (no other function, class or
  variable of the module, whose uses the rules count) and no attribute the module defines
  (``self.m()`` counts as a use of ``m``), only imported names, builtins, its own locals and
  attributes of other code; it stores no attribute (a class's stored attributes are facts
  the rules read) and declares nothing ``global`` or ``nonlocal``.

Its ``def`` line, decorators and signature stay, and every line keeps its number (the body's
lines become blank), so positions and ``# noqa`` are those of the file. Only a check reads
the pruned text; a fix always works on the whole module.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from jitcheck.lint.text import ending, lines

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _module_names(tree: ast.Module) -> set[str]:
    """Every name bound at module level other than by an import (defs, classes, assignments, ``global``)."""
    bound: set[str] = set()
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            bound.add(node.name)
            stack.extend(node.decorator_list)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.Lambda)):
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    for node in ast.walk(tree):  # a function may bind a module name with `global`
        if isinstance(node, ast.Global):
            bound.update(node.names)
    return bound


def _members(tree: ast.Module) -> set[str]:
    """Every name the module defines as a function, class or attribute anywhere (``def m``, ``self.x = ...``)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            found.add(node.attr)
    return found


def _independent(function: ast.FunctionDef | ast.AsyncFunctionDef, bound: set[str], members: set[str]) -> bool:
    """Whether ``function``'s body names nothing of the module (no module-level name, no attribute the module
    defines), stores no attribute (an instance's stored attributes are facts of its class) and declares no
    ``global``/``nonlocal``."""
    for statement in function.body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and node.id in bound:
                return False
            if isinstance(node, ast.Attribute) and (node.attr in members or not isinstance(node.ctx, ast.Load)):
                return False
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                return False
    return True


def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The module-level functions and the methods of module-level classes."""
    found = []
    for statement in tree.body:
        if isinstance(statement, _FUNCTIONS):
            found.append(statement)
        elif isinstance(statement, ast.ClassDef):
            found.extend(item for item in statement.body if isinstance(item, _FUNCTIONS))
    return found


def _header_end(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The last line of a def's header (its signature and return annotation)."""
    end = function.lineno
    for node in (function.args, *([function.returns] if function.returns else [])):
        for child in ast.walk(node):
            end = max(end, getattr(child, "end_lineno", None) or end)
    return end


def pruned(text: str, tree: ast.Module, sites: Iterable[ast.AST]) -> str | None:
    """``text`` with the bodies of the module-level functions no finding depends on read as ``...``; None when none is."""
    hot = {getattr(site, "lineno", 0) for site in sites}
    bound = _module_names(tree)
    members = _members(tree)
    cut: list[tuple[int, int, int]] = []  # (first body line, last line, body indent column), 1-based
    for statement in _functions(tree):
        if not statement.body:
            continue
        head = statement.body[0]
        first = min([head.lineno, *(d.lineno for d in getattr(head, "decorator_list", ()))])
        last = statement.end_lineno or statement.lineno
        start = min([statement.lineno, *(d.lineno for d in statement.decorator_list)])
        if any(start <= line <= last for line in hot) or first <= _header_end(statement) or last - first < 2:
            continue
        if not _independent(statement, bound, members):
            continue
        cut.append((first, last, head.col_offset))
    if not cut:
        return None
    source = lines(text, keepends=True)
    for first, last, column in cut:
        body = source[first - 1]
        indent = body[:len(body) - len(body.lstrip(" \t"))] if column else ""
        source[first - 1] = f"{indent}...{ending(body) or chr(10)}"
        for number in range(first, last):
            source[number] = ending(source[number]) or "\n"
    return "".join(source)


__all__ = ["pruned"]
