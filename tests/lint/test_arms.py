"""Which runs of a function reach a statement: the if arms around it, and what a call's literal arguments decide
(:mod:`jitcheck.lint.arms`), on small parsed functions."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from jitcheck.lint.arms import arms_around, branch_tests, holds, literal

SOURCE = textwrap.dedent("""\
    def train(solver, x, fast=False):
        if solver == "adam":
            first = 1
        elif solver in ("sgd", "momentum"):
            second = 2
        else:
            if not fast:
                third = 3
        def inner():
            if x:
                hidden = 4
        return x
    """)


def _function_and(name: str) -> tuple[cst.FunctionDef, cst.CSTNode]:
    """The parsed ``train`` and the assignment that binds ``name`` in it."""
    module = cst.parse_module(SOURCE)
    function = module.body[0]
    assert isinstance(function, cst.FunctionDef)
    found: list[cst.CSTNode] = []

    class _Find(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            target = node.targets[0].target
            if isinstance(target, cst.Name) and target.value == name:
                found.append(node)

    function.visit(_Find())
    return function, found[0]


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def test_the_arms_around_a_statement_name_each_test_and_the_side_it_is_on() -> None:
    function, first = _function_and("first")
    assert [(_code(test), side) for test, side in arms_around(function, first)] == [('solver == "adam"', True)]
    function, second = _function_and("second")
    assert [(_code(test), side) for test, side in arms_around(function, second)] == [
        ('solver == "adam"', False), ('solver in ("sgd", "momentum")', True)]
    function, third = _function_and("third")
    assert [(_code(test), side) for test, side in arms_around(function, third)] == [
        ('solver == "adam"', False), ('solver in ("sgd", "momentum")', False), ("not fast", True)]


def test_a_nested_function_s_ifs_are_its_own() -> None:
    function, hidden = _function_and("hidden")
    assert arms_around(function, hidden) == [] and branch_tests(function, hidden) == []


@pytest.mark.parametrize(("test", "values", "expected"), [
    ('solver == "adam"', {"solver": "adam"}, True),
    ('solver == "adam"', {"solver": "sgd"}, False),
    ('solver != "adam"', {"solver": "sgd"}, True),
    ('solver in ("sgd", "momentum")', {"solver": "momentum"}, True),
    ('solver not in ("sgd", "momentum")', {"solver": "momentum"}, False),
    ("fast", {"fast": 0}, False),
    ("not fast", {"fast": False}, True),
    ("x is None", {"x": None}, True),
    ("x is not None", {"x": None}, False),
    ('solver == "adam"', {}, None),  # not passed as a literal: cannot be told
    ("solver == other", {"solver": "adam"}, None),  # compared with a name: cannot be told
    ("solver.startswith('a')", {"solver": "adam"}, None),  # a call: cannot be told
    ("n in 3", {"n": 1}, None),  # `in` on a number raises in Python: cannot be told
])
def test_a_test_holds_or_not_with_literal_values_or_cannot_be_told(test: str, values: dict[str, object],
                                                                     expected: bool | None) -> None:
    assert holds(cst.parse_expression(test), values) is expected


def test_literals_are_read_and_anything_else_is_not() -> None:
    assert literal('"adam"') == (True, "adam")
    assert literal("(1, 2.0, None)") == (True, (1, 2.0, None))
    assert literal("solver") == (False, None)
    assert literal(None) == (False, None)
