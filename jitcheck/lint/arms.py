"""Which runs of a function reach a statement in it: the ``if`` arms around the statement, and whether the literal
arguments a call passes (``train("adam")``) make each test take the arm the statement is in.

:mod:`~jitcheck.lint.sameness` asks this of a jit site that two calls of its function seem to build twice:
``train("adam")`` and ``train("sgd")`` around ``if solver == "adam": @jax.jit def step`` build it once.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

import libcst as cst


def branch_tests(function: cst.FunctionDef, target: cst.CSTNode) -> list[cst.BaseExpression]:
    """The tests of the ``if`` statements of ``function``'s own body (not its nested functions') that ``target``
    is in, an arm or an ``else`` of: what decides whether a run of ``function`` reaches it."""
    return [test for test, _ in arms_around(function, target)]


def arms_around(function: cst.FunctionDef, target: cst.CSTNode) -> list[tuple[cst.BaseExpression, bool]]:
    """:func:`branch_tests`, each test with the arm ``target`` is in: True for the ``if``'s body, False for
    its ``else`` (an ``elif`` is an ``if`` in the ``else`` of the one before)."""
    arms: list[tuple[cst.BaseExpression, bool]] = []
    found: list[tuple[cst.BaseExpression, bool]] = []
    done = [False]

    class _Path(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if done[0]:
                return False
            if node is target:
                found.extend(arms)
                done[0] = True
                return False
            if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) and node is not function:
                return False
            if isinstance(node, cst.If):
                arms.append((node.test, True))  # its test and body are visited first, then its `else`
            return True

        def visit_If_orelse(self, node: cst.If) -> None:
            if arms and arms[-1][0] is node.test:
                arms[-1] = (node.test, False)

        def on_leave(self, original_node: cst.CSTNode) -> None:
            if isinstance(original_node, cst.If) and arms and arms[-1][0] is original_node.test:
                arms.pop()

    function.visit(_Path())
    return found


def literal(text: str | None) -> tuple[bool, object]:
    """``(True, value)`` when ``text`` is a Python literal (a string, a number, ``True``/``False``/``None``, a tuple
    or list of them), else ``(False, None)``."""
    if text is None:
        return False, None
    try:
        return True, ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def holds(test: cst.BaseExpression, values: Mapping[str, object]) -> bool | None:
    """Whether ``test`` holds with the parameters in ``values`` bound to those literals: True, False, or None when
    it cannot be told (it reads something else, or is not a plain comparison of a parameter)."""
    if isinstance(test, cst.Name):
        return bool(values[test.value]) if test.value in values else None
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = holds(test.expression, values)
        return None if inner is None else not inner
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name) \
            and test.left.value in values:
        target = test.comparisons[0]
        known, value = literal(cst.Module(body=[]).code_for_node(target.comparator))
        if not known:
            return None
        mine = values[test.left.value]
        operator = target.operator
        try:
            if isinstance(operator, cst.Equal):
                return bool(mine == value)
            if isinstance(operator, cst.NotEqual):
                return bool(mine != value)
            if isinstance(operator, cst.In):
                return mine in value  # type: ignore[operator]
            if isinstance(operator, cst.NotIn):
                return mine not in value  # type: ignore[operator]
            if isinstance(operator, cst.Is):
                return mine is value if value is None or isinstance(value, bool) else None
            if isinstance(operator, cst.IsNot):
                return mine is not value if value is None or isinstance(value, bool) else None
        except TypeError:
            return None
    return None


__all__ = ["arms_around", "branch_tests", "holds", "literal"]
