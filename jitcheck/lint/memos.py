"""Caches written by hand on an instance: code that runs once per object, not once per call.

A method that keeps what it builds in an attribute and hands back the kept one when it is
there (``if self.fn is not None: return self.fn`` ... ``self.fn = jax.jit(step)``, or the
same as ``if self.fn is None: self.fn = ...``) builds its wrapper once per object: a call
after the first finds it. These tests read a method's own statements (libcst), for the
collector's ``memoised`` context (:mod:`jitcheck.lint.collect`).
"""

from __future__ import annotations

import libcst as cst


def memo_return(function: cst.FunctionDef, self_name: str | None) -> cst.If | None:
    """The ``if`` among ``function``'s top-level statements that returns the attribute it tests when the object
    holds one (``if self.fn is not None: return self.fn``, ``if self.fn: ...``, ``if hasattr(self, "fn"): ...``)
    and that the function sets below it (``self.fn = ...``): what follows it runs once per object. None when there
    is none (or ``function`` is no method)."""
    if self_name is None or not isinstance(function.body, cst.IndentedBlock):
        return None
    statements = function.body.body
    for index, statement in enumerate(statements):
        if not isinstance(statement, cst.If) or statement.orelse is not None:
            continue
        held = _held_attribute(statement.test, self_name, present=True)
        if held is None or not _returns_attribute(statement.body, self_name, held):
            continue
        if any(_sets(later, self_name, held) for later in statements[index + 1:]):
            return statement
    return None


def attribute_memo(node: cst.If, self_name: str | None) -> bool:
    """True when ``node`` tests that the object holds no attribute yet (``if self.fn is None:``, ``if not
    self.fn:``, ``if not hasattr(self, "fn"):``) and its block sets it: the block runs once per object."""
    if self_name is None or node.orelse is not None:
        return False
    held = _held_attribute(node.test, self_name, present=False)
    return held is not None and _sets(node.body, self_name, held)


def _held_attribute(test: cst.BaseExpression, self_name: str, *, present: bool) -> str | None:
    """The attribute of ``self_name`` that ``test`` asks about: whether it is there (``present``) or missing."""
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    inner = test.expression if isinstance(test, cst.UnaryOperation) and negated else test
    if isinstance(inner, cst.Comparison) and len(inner.comparisons) == 1 and not negated:
        target = inner.comparisons[0]
        if isinstance(target.comparator, cst.Name) and target.comparator.value == "None":
            wanted = cst.IsNot if present else cst.Is
            if isinstance(target.operator, wanted):
                return _attribute_of(inner.left, self_name)
        return None
    if negated == present:
        return None
    if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name) and inner.func.value == "hasattr" \
            and len(inner.args) == 2 and isinstance(inner.args[0].value, cst.Name) \
            and inner.args[0].value.value == self_name and isinstance(inner.args[1].value, cst.SimpleString):
        return inner.args[1].value.evaluated_value if isinstance(inner.args[1].value.evaluated_value, str) else None
    return _attribute_of(inner, self_name)


def _attribute_of(expr: cst.BaseExpression, self_name: str) -> str | None:
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == self_name:
        return expr.attr.value
    return None


def _returns_attribute(block: cst.BaseSuite, self_name: str, attribute: str) -> bool:
    """True when ``block`` is a ``return self.<attribute>`` (alone, or as its last statement)."""
    statements = block.body if isinstance(block, cst.IndentedBlock) else [block]
    last = statements[-1] if statements else None
    smalls = last.body if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else ()
    return bool(smalls) and isinstance(smalls[-1], cst.Return) and smalls[-1].value is not None \
        and _attribute_of(smalls[-1].value, self_name) == attribute


def _sets(node: cst.CSTNode, self_name: str, attribute: str) -> bool:
    """True when ``node`` (not a function or class defined in it) assigns ``self.<attribute>``."""

    class _Sets(cst.CSTVisitor):
        found = False

        def visit_AssignTarget(self, target: cst.AssignTarget) -> None:
            if _attribute_of(target.target, self_name) == attribute:
                self.found = True

        def visit_AnnAssign(self, assign: cst.AnnAssign) -> None:
            if _attribute_of(assign.target, self_name) == attribute:
                self.found = True

        def visit_FunctionDef(self, inner: cst.FunctionDef) -> bool:
            return False

        def visit_ClassDef(self, inner: cst.ClassDef) -> bool:
            return False

    visitor = _Sets()
    node.visit(visitor)
    return visitor.found
