"""The static pass's faster walks give exactly what the standard ones give.

:mod:`jitcheck.lint.cstwalk` (libcst visitors without rebuilding nodes), :mod:`jitcheck.lint.positions`
(positions of a few nodes) and :mod:`jitcheck.lint.astwalk` (Python's tree walked into lists) are
checked against libcst's own walk, libcst's ``PositionProvider`` and ``ast.walk`` on a module that
holds most of Python's syntax.
"""

from __future__ import annotations

import ast
import gc
import textwrap
import weakref

import libcst as cst
import libcst.helpers
import pytest
from libcst._nodes.base import CSTNode
from libcst._batched_visitor import BatchableCSTVisitor
from libcst.metadata import MetadataWrapper, PositionProvider, ScopeProvider

from jitcheck.lint import cstwalk, resolver
from jitcheck.lint.astwalk import children, walk
from jitcheck.lint.positions import code_range, lines_of, positions_of, ranges_of

SOURCE = textwrap.dedent('''\
    """A module with most of Python's syntax."""
    from __future__ import annotations
    import os.path as osp, sys
    from . import sibling
    from .pkg.mod import (a as b, c,)
    from m import *

    X: int = 1; Y = X ** 2 if X else -X
    LAMBDA = lambda p, /, q=1, *r, s, **t: (p, q, r, s, t)

    @decorator(arg)
    class C(Base, metaclass=Meta):
        attr = [i for i in range(3) if i]
        def method(self, value: "C | None" = None) -> list[int]:
            global X
            nonlocal_free = {k: v for k, v in zip("ab", (1, 2))}
            def inner():
                nonlocal nonlocal_free
                nonlocal_free = [*(), *{**{}}]
            async def coroutine():
                async with manager() as (m, n):
                    async for item in stream():
                        await item
            yield from (x for x in ())
            return [*self.attr, f"{value!r:>{width}} {X=}"]

    def matching(arg):
        match arg:
            case [1, 2, *rest] if rest:
                pass
            case {"key": value, **others}:
                pass
            case Point(x=0, y=yy) | None:
                pass
            case _:
                pass
        try:
            raise ValueError from None
        except* (TypeError, ValueError) as group:
            del group
        finally:
            assert arg, "message"
        while (n := len(sys.argv)) > 1:
            break
        else:
            ...
        with open(osp.join("a", "b")) as handle, other():
            print(handle.read()[1:2, ::3], end="")
        return arg

    for i, (j, k) in enumerate([(1, 2)]):
        continue
    ''')

PEP_695 = textwrap.dedent('''\
    def generic[T: int, *Ts, **P](arg: T) -> T:
        type Alias[K] = dict[K, T]
        return arg
    ''')
SOURCE_ALL = SOURCE + PEP_695
"""With the syntax of Python 3.12 that libcst reads on any Python."""


class _Recorder(cst.CSTVisitor):
    """Every callback of a walk, in order (it answers attribute callbacks itself)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, int, str]] = []

    def on_visit(self, node: CSTNode) -> bool:
        self.calls.append(("visit", id(node), ""))
        return not isinstance(node, cst.Lambda)  # a visitor that skips a subtree is followed too

    def on_leave(self, original_node: CSTNode) -> None:
        self.calls.append(("leave", id(original_node), ""))

    def on_visit_attribute(self, node: CSTNode, attribute: str) -> None:
        self.calls.append(("visit attribute", id(node), attribute))

    def on_leave_attribute(self, original_node: CSTNode, attribute: str) -> None:
        self.calls.append(("leave attribute", id(original_node), attribute))


class _Hooks(cst.CSTVisitor):
    """A visitor with libcst's default dispatch and attribute hooks of its own."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.seen.append(node.value)

    def visit_FunctionDef_params(self, node: cst.FunctionDef) -> None:
        self.seen.append(f"params of {node.name.value}")

    def leave_FunctionDef_params(self, node: cst.FunctionDef) -> None:
        self.seen.append(f"end of params of {node.name.value}")


def _with_libcst_walk(function):  # type: ignore[no-untyped-def]
    """``function()`` with libcst's own ``CSTNode.visit``, then with jitcheck's."""
    saved = CSTNode.visit
    CSTNode.visit = cstwalk._libcst_visit  # type: ignore[method-assign]
    try:
        before = function()
    finally:
        CSTNode.visit = saved  # type: ignore[method-assign]
    cstwalk.install()
    return before, function()


def test_the_read_only_walk_makes_libcsts_callbacks_in_libcsts_order() -> None:
    module = cst.parse_module(SOURCE_ALL)

    def walked() -> list[tuple[str, int, str]]:
        recorder = _Recorder()
        module.visit(recorder)
        return recorder.calls

    before, after = _with_libcst_walk(walked)
    assert after == before
    assert len(before) > 1000


def test_the_read_only_walk_calls_a_visitors_own_hooks() -> None:
    module = cst.parse_module(SOURCE_ALL)

    def walked() -> list[str]:
        visitor = _Hooks()
        module.visit(visitor)
        return visitor.seen

    before, after = _with_libcst_walk(walked)
    assert after == before
    assert "params of method" in before and "end of params of generic" in before


class _Pruning(cst.CSTVisitor):
    """Hooks of every kind the walk dispatches itself: a visit that prunes, leaves, a static method, an inherited hook."""

    seen: list[str] = []

    def __init__(self) -> None:
        super().__init__()
        _Pruning.seen = []

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        _Pruning.seen.append(f"class {node.name.value}")
        return node.name.value != "C"  # C's body is not walked

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        _Pruning.seen.append(f"end of class {original_node.name.value}")

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def leave_Name(self, original_node: cst.Name) -> None:
        _Pruning.seen.append(original_node.value)

    @staticmethod
    def visit_Call(node: cst.Call) -> None:
        _Pruning.seen.append("call")

    def leave_Call_func(self, node: cst.Call) -> None:
        _Pruning.seen.append("after a call's function")


class _Inherited(_Pruning):
    def visit_Name(self, node: cst.Name) -> None:
        _Pruning.seen.append(f"visit {node.value}")


@pytest.mark.parametrize("kind", [_Pruning, _Inherited])
def test_the_read_only_walk_skips_only_libcsts_no_op_stubs(kind: type[cst.CSTVisitor]) -> None:
    module = cst.parse_module(SOURCE_ALL)

    def walked() -> list[str]:
        module.visit(kind())
        return list(_Pruning.seen)

    before, after = _with_libcst_walk(walked)
    assert after == before
    assert "class C" in before and "end of class C" in before and "call" in before and "after a call's function" in before
    assert "attr" not in before and "p" not in before  # C's body and the lambda's parameters are not walked


def _made_in_a_call() -> type[cst.CSTVisitor]:
    """A visitor class defined in a function, as several rules make one per call, with an attribute hook, a leave
    hook overriding a parent's and a hook that is one of libcst's no-op stubs again."""

    class _Local(_Inherited):
        def visit_Attribute_attr(self, node: cst.Attribute) -> None:
            _Pruning.seen.append(f"attribute {node.attr.value}")

        def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
            _Pruning.seen.append(f"left {original_node.name.value}")

        visit_Name = cst.CSTVisitor.visit_Name  # back to libcst's stub: no hook

    return _Local


def test_a_visitor_class_made_per_call_walks_as_libcsts_and_is_not_kept() -> None:
    module = cst.parse_module(SOURCE_ALL)

    def walked() -> list[str]:
        module.visit(_made_in_a_call()())
        return list(_Pruning.seen)

    before, after = _with_libcst_walk(walked)
    assert after == before
    assert "attribute path" in before and "left C" in before and "visit X" not in before
    # the hooks it answers are those every name of dir() that is not a no-op stub gives
    kind = _made_in_a_call()
    assert cstwalk._attribute_hooks(kind) == {
        name for name in dir(kind) if name.startswith(("visit_", "leave_")) and name.count("_") >= 2
        and not getattr(getattr(kind, name), "_is_no_op", False)}
    # walked many times, one new class each time: the walk's tables keep none of them alive
    kind = _made_in_a_call()
    module.visit(kind())
    made = weakref.ref(kind)
    del kind
    tables = len(cstwalk._modes), len(cstwalk._hook_stubs)
    for _ in range(5):
        module.visit(_made_in_a_call()())
    assert (len(cstwalk._modes), len(cstwalk._hook_stubs)) == tables
    gc.collect()
    assert made() is None


RETURNS = textwrap.dedent("""\
    def every_block(x):
        if x: return 1
        elif x > 1:
            return 2
        else:
            for i in x:
                while i:
                    return 3
                else:
                    return 4
            else:
                return lambda: 5
        try:
            with x as y:
                return y
        except ValueError:
            return 6
        else:
            return 7
        finally:
            return 8
        try:
            pass
        except* TypeError:
            return 9
        match x:
            case 1:
                return 10
            case _:
                def inner():
                    return 11
                class Inner:
                    def method(self):
                        return 12
                async def coroutine():
                    async for item in x:
                        return 13
        return
    """)


class _Functions(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[cst.FunctionDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.found.append(node)


def test_a_functions_returned_values_are_those_a_visitor_finds() -> None:
    module = cst.parse_module(SOURCE_ALL + RETURNS)
    functions = _Functions()
    module.visit(functions)
    assert len(functions.found) > 5
    for function in functions.found:
        finder = resolver._Returns()
        function.body.visit(finder)
        assert resolver.returned_values(function) == finder.values, function.name.value
    [every] = [f for f in functions.found if f.name.value == "every_block"]
    assert [module.code_for_node(v) for v in resolver.returned_values(every)] == [
        "1", "2", "3", "4", "lambda: 5", "y", "6", "7", "8", "9", "10"]


def test_scopes_resolved_with_the_read_only_walk_are_libcsts() -> None:
    def scopes() -> list[tuple[str, str, list[str]]]:
        module = cst.parse_module(SOURCE_ALL)
        found = MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider)
        rows = []
        for node, scope in found.items():
            if isinstance(node, (cst.Name, cst.Attribute)) and scope is not None:
                rows.append((cst.helpers.get_full_name_for_node(node) or "", type(scope).__name__,
                             sorted(q.name for q in scope.get_qualified_names_for(node))))
        return rows

    before, after = _with_libcst_walk(scopes)
    assert after == before
    assert ("osp.join", "FunctionScope", ["os.path.join"]) in before


def test_assignments_and_accesses_with_the_read_only_walk_are_libcsts() -> None:
    """Each scope's assignments in order (their index counts the assignment-like nodes left before them) and the
    accesses each one reaches."""

    def rows() -> list[tuple[str, str, int, list[tuple[str, int]]]]:
        module = cst.parse_module(SOURCE_ALL + "\nY = Y + 1\nfor X in Y:\n    X = X + Y\n")
        found = MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider)
        spans = {id(node): n for n, node in enumerate(found)}
        listed = []
        for scope in dict.fromkeys(s for s in found.values() if s is not None):
            for assignment in scope.assignments:
                node = getattr(assignment, "node", None)
                listed.append((type(scope).__name__, assignment.name, getattr(assignment, "_index", -1),
                               sorted((access.node.value if isinstance(access.node, cst.Name) else "", spans.get(id(access.node), -1))
                                      for access in assignment.references)
                               + [("node", spans.get(id(node), -1))]))
        return sorted(listed)  # a scope's assignments of one name are a set

    before, after = _with_libcst_walk(rows)
    assert after == before
    assert len(before) > 40 and {row[2] for row in before} != {0}


def test_a_transformer_still_rebuilds_the_tree() -> None:
    cstwalk.install()

    class Rename(cst.CSTTransformer):
        def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
            return updated_node.with_changes(value="renamed") if original_node.value == "X" else updated_node

    changed = cst.parse_module(SOURCE_ALL).visit(Rename()).code
    assert "renamed: int = 1" in changed and "global renamed" in changed


@pytest.mark.parametrize("count", [1, 3, 40])
def test_positions_of_a_few_nodes_are_libcsts(count: int) -> None:
    module = cst.parse_module(SOURCE_ALL)
    every = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    nodes = list(every)
    step = max(1, len(nodes) // count)
    wanted = nodes[::step][:count] + nodes[-1:]
    found = positions_of(module, wanted)
    assert {node: found[node] for node in wanted} == {node: every[node] for node in wanted}


def test_a_node_outside_the_module_has_no_position() -> None:
    module = cst.parse_module(SOURCE_ALL)
    assert cst.Name("elsewhere") not in positions_of(module, [cst.Name("elsewhere")])


_LEAVES = (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)


def test_pythons_tree_is_walked_in_ast_walks_order_without_contexts_and_operators() -> None:
    tree = ast.parse(SOURCE + "x = -a + b < c and not d; x += 1; del x[0]; [*y] = z\n")
    everything = list(ast.walk(tree))
    assert walk(tree) == [node for node in everything if not isinstance(node, _LEAVES)]
    assert len(everything) - len(walk(tree)) > 100  # the leaves left out
    for node in everything:
        assert children(node) == [child for child in ast.iter_child_nodes(node) if not isinstance(child, _LEAVES)]
    assert not any(isinstance(node, _LEAVES) and node._fields for node in everything)  # leaves indeed: nothing below


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_every_nodes_line_is_the_start_line_of_libcsts_position(newline: str) -> None:
    text = (SOURCE_ALL + 'S = """a\nb\r\nc"""  # a string over lines\nT = (\n    1,\n\n    2)\n').replace("\n", newline)
    module = cst.parse_module(text)
    every = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lines = lines_of(module)
    assert {node: lines[node] for node in every} == {node: where.start.line for node, where in every.items()}
    assert len(lines) == len(every) and max(lines.values()) > 60


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("end", ["", "\n", "\n\n# a comment\n", "\n\n# a comment"])
def test_every_nodes_range_is_libcsts_position(newline: str, end: str) -> None:
    text = (SOURCE_ALL + 'S = """a\nb\r\nc"""  # a string over lines\nT = (\n    1,\n\n    2)' + end).replace("\n", newline)
    for source in (text, "", newline, "# only a comment", "x = 1"):
        module = cst.parse_module(source)
        every = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        spans = ranges_of(module)
        assert {node: code_range(spans[id(node)]) for node in every} == dict(every)
        assert len(spans) == len(every)


def test_the_metadata_providers_hooks_are_libcsts() -> None:
    """A provider's hooks, found once per type (``cstwalk.install``), are those libcst's ``get_visitors`` finds."""
    cstwalk.install()
    from libcst.metadata import ExpressionContextProvider, ParentNodeProvider, QualifiedNameProvider

    for provider in (ScopeProvider, ExpressionContextProvider, ParentNodeProvider, QualifiedNameProvider, PositionProvider):
        if not issubclass(provider, BatchableCSTVisitor):
            continue
        for _ in range(3):
            instance = provider()
            mine, libcsts = instance.get_visitors(), cstwalk._libcst_get_visitors(instance)
            assert list(mine) == list(libcsts) and mine == libcsts
