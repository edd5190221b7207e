"""Can this module have a finding at all? A conservative test on Python's own ``ast``.

libcst's visitors are thorough but slow (a walk costs about as much as the parse,
and scope analysis several times more), while most modules of a JAX code base hold
nothing to judge: their jit calls are module-level decorators or wrap module-level
functions. This test reads the same source with the C-speed ``ast`` parser and
answers False only when no rule could fire; anything it is unsure of goes on to
the full libcst analysis, which alone decides what is reported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from jitcheck.lint import names
from jitcheck.lint.collect import _ALIAS


def _last(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


class _Scan(ast.NodeVisitor):
    def __init__(self, jit: frozenset[str], graph: frozenset[str], stable: frozenset[str]) -> None:
        self.jit = jit
        self.graph = graph
        self.stable = stable
        self.functions: list[str] = []
        self.loops = 0
        self.possible = False

    def _per_call(self) -> bool:
        return bool(self.functions) or self.loops > 0

    def _exempt(self) -> bool:
        return bool(self.functions) and (self.functions[-1] in names.ONCE_FUNCTIONS or self.functions[-1].startswith("test"))

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            last = _last(target)
            jit_like = last in self.jit or (
                isinstance(decorator, ast.Call) and bool(decorator.args) and _last(decorator.args[0]) in self.jit
            )
            if jit_like:
                if self._per_call() and not self._exempt():
                    self.possible = True
                if isinstance(decorator, ast.Call) and any((k.arg or "").startswith("static") for k in decorator.keywords):
                    self.possible = True
            self.visit(decorator)
        self.visit(node.args)
        self.functions.append(node.name)
        loops, self.loops = self.loops, 0
        for statement in node.body:
            self.visit(statement)
        self.loops = loops
        self.functions.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.functions.append("<lambda>")
        self.generic_visit(node)
        self.functions.pop()

    def _loop(self, node: ast.AST) -> None:
        self.loops += 1
        self.generic_visit(node)
        self.loops -= 1

    visit_For = visit_AsyncFor = visit_While = _loop
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _loop

    def visit_Call(self, node: ast.Call) -> None:
        last = _last(node.func)
        if last in self.graph:
            self.possible = True
        elif last in self.jit:
            if any((k.arg or "").startswith("static") for k in node.keywords):
                self.possible = True
            elif self._per_call() and not self._exempt() and node.args and self._maybe_bad(node.args[0]):
                self.possible = True
        elif node.args and _last(node.args[0]) in self.jit and last in names.PARTIAL_TRIGGERS | self.jit:
            if any((k.arg or "").startswith("static") for k in node.keywords):
                self.possible = True
        if not self.possible:
            self.generic_visit(node)

    def _maybe_bad(self, fun: ast.expr) -> bool:
        if isinstance(fun, ast.Name):
            return fun.id not in self.stable
        if isinstance(fun, ast.Attribute):
            return isinstance(fun.value, ast.Name) and fun.value.id not in self.stable
        return isinstance(fun, (ast.Lambda, ast.Call))


def _stable_names(tree: ast.Module) -> frozenset[str]:
    """Names bound once at module level (defs, classes, imports) and never inside a function."""
    top: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            top.add(statement.name)
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:
                top.add((alias.asname or alias.name).split(".")[0])
    local: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
                    local.add(inner.id)
                elif isinstance(inner, ast.arg):
                    local.add(inner.arg)
                elif inner is not node and isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    local.add(inner.name)
    return frozenset(top - local)


def possible(source: str, graph_constructors: Iterable[str] = (), jit_wrappers: Iterable[str] = ()) -> bool:
    """False only when no static rule can report anything in ``source``."""
    jit_names = names.last_names((*names.JIT_WRAPPERS, *jit_wrappers))
    graph_names = names.last_names((*names.NODE_CONSTRUCTORS, *names.GRAPH_CONSTRUCTORS, *graph_constructors))
    if not any(name in source for name in (*jit_names, *graph_names)):
        return False
    aliases = {m.group(2) for m in _ALIAS.finditer(source) if m.group(1) in jit_names | graph_names}
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True  # let libcst decide, and report
    scan = _Scan(jit_names | frozenset(aliases), graph_names | frozenset(aliases), _stable_names(tree))
    scan.visit(tree)
    return scan.possible


__all__ = ["possible"]
