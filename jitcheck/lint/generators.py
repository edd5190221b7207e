"""Generators of a module that yield at most once: a ``for`` loop over a call of one runs its body once at most.

A test helper such as ``def _generate_x(self, shape): yield rand(shape)`` (one ``yield`` on every path) is
iterated like a loop, ``for x in self._generate_x(n): jax.jit(lambda: x @ w)()``, yet its body runs once, so
a wrapper built there is not rebuilt by the loop. Only generators whose every run provably yields at most
once count: a ``yield`` in a loop, a ``yield from``, or two on one path make the loop a real loop.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

_MANY = 2
"""Two yields or more: the count stops mattering there."""


def single_yield_generators(module: cst.Module) -> frozenset[str]:
    """The names of the module-level functions and methods of ``module`` that are generators yielding at most
    once on every run; a name some other def of the module (a method of another class) yields more under is left
    out, since a call by name cannot tell them apart."""
    once: set[str] = set()
    many: set[str] = set()
    for function in _defs(module):
        count = _yields(function.body.body)
        if count == 0:
            continue  # not a generator: what it returns is not known here
        (once if count == 1 else many).add(function.name.value)
    return frozenset(once - many)


def _defs(module: cst.Module) -> list[cst.FunctionDef]:
    """The module's own functions and the methods of its own classes (nested defs apart)."""
    found: list[cst.FunctionDef] = []
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            found.append(statement)
        elif isinstance(statement, cst.ClassDef) and isinstance(statement.body, cst.IndentedBlock):
            found += [s for s in statement.body.body if isinstance(s, cst.FunctionDef)]
    return found


def _yields(statements: Sequence[cst.CSTNode]) -> int:
    """The most yields one run through ``statements`` can make (:data:`_MANY` standing for two or more)."""
    total = 0
    for statement in statements:
        total = min(_MANY, total + _statement_yields(statement))
    return total


def _statement_yields(node: cst.CSTNode) -> int:
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return 0  # a scope of its own: its yields are its own
    if isinstance(node, cst.If):
        orelse = node.orelse
        other = 0 if orelse is None else _statement_yields(orelse) if isinstance(orelse, cst.If) \
            else _yields(orelse.body.body)
        return max(_yields(node.body.body), other)
    if isinstance(node, (cst.For, cst.While)):
        inside = _yields(node.body.body) + (_yields(node.orelse.body.body) if node.orelse is not None else 0)
        return _MANY if inside else 0
    if isinstance(node, cst.Match):
        return max((_yields(case.body.body) for case in node.cases), default=0)
    if isinstance(node, (cst.Try, cst.TryStar)):
        total = _yields(node.body.body)
        for handler in node.handlers:
            total += _yields(handler.body.body)
        total += _yields(node.orelse.body.body) if node.orelse is not None else 0
        total += _yields(node.finalbody.body.body) if node.finalbody is not None else 0
        return min(_MANY, total)
    if isinstance(node, cst.With):
        return _yields(node.body.body)
    if isinstance(node, cst.SimpleStatementLine):
        return _yields(node.body)
    finder = _YieldCounter()
    node.visit(finder)
    return min(_MANY, finder.count)


class _YieldCounter(cst.CSTVisitor):
    """Counts the ``yield`` expressions of one small statement (a ``yield from`` counts as many)."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def visit_Yield(self, node: cst.Yield) -> bool:
        self.count += _MANY if isinstance(node.value, cst.From) else 1
        return True

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


__all__ = ["single_yield_generators"]
