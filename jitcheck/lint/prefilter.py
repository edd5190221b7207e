"""Can this module have a finding at all? A conservative test on Python's own ``ast``.

libcst's visitors are thorough but slow (a walk costs about as much as the parse,
and scope analysis about three times more), while almost no module of a JAX code
base holds a finding: its jit calls are module-level decorators, wrap module-level
functions, or are factories. This test reads the same source with the C-speed
``ast`` parser and mirrors each rule's necessary conditions by spelling alone; it
answers False only when no rule could fire, and anything it is unsure of goes on to
the full libcst analysis, which alone decides what is reported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Union

from jitcheck.lint import names
from jitcheck.lint.collect import _ALIAS

Function = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_HARMLESS_CALLS = frozenset({"int", "float", "str", "bool", "bytes", "tuple", "frozenset", "len", "range", "complex", "type"})


def _last(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _spelled(node: ast.expr) -> str | None:
    """``name`` or ``receiver.attr`` (one level), the way a jitted binding is called."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


class _Site:
    __slots__ = ("node", "parent", "function", "loop")

    def __init__(self, node: ast.AST, parent: ast.AST | None, function: Function | None, loop: bool) -> None:
        self.node = node
        self.parent = parent
        self.function = function
        self.loop = loop


class _Index:
    """One walk recording calls, defs and bindings with their parent, function and loop."""

    def __init__(self, tree: ast.Module) -> None:
        self.calls: list[_Site] = []
        self.defs: list[_Site] = []
        self.by_name: dict[str, list[_Site]] = {}
        self.bound: set[str] = set()
        self.imported: set[str] = set()
        self.class_of: dict[int, ast.ClassDef] = {}
        self._walk(tree, None, None, False)

    def _walk(self, node: ast.AST, parent: ast.AST | None, function: Function | None, loop: bool) -> None:
        stack: list[tuple[ast.AST, ast.AST | None, Function | None, bool]] = [(node, parent, function, loop)]
        while stack:
            node, parent, function, loop = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.defs.append(_Site(node, parent, function, loop))
                if function is not None:
                    self.bound.add(node.name)
                if isinstance(parent, ast.ClassDef):
                    self.class_of[id(node)] = parent
                outer = [*node.decorator_list, node.args, *([node.returns] if node.returns else [])]
                stack.extend((child, node, function, loop) for child in outer)
                stack.extend((child, node, node, False) for child in node.body)
                continue
            if isinstance(node, ast.Lambda):
                stack.append((node.args, node, function, loop))
                stack.append((node.body, node, node, False))
                continue
            if isinstance(node, (ast.For, ast.AsyncFor)):
                stack.extend((child, node, function, loop) for child in (node.target, node.iter))
                stack.extend((child, node, function, True) for child in node.body)
                stack.extend((child, node, function, loop) for child in node.orelse)
                continue
            if isinstance(node, ast.While):
                stack.extend((child, node, function, True) for child in (node.test, *node.body))
                stack.extend((child, node, function, loop) for child in node.orelse)
                continue
            if isinstance(node, _COMPREHENSIONS):
                loop = True
            elif isinstance(node, ast.Call):
                site = _Site(node, parent, function, loop)
                self.calls.append(site)
                spelled = _spelled(node.func)
                if spelled is not None:
                    self.by_name.setdefault(spelled, []).append(site)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.bound.add(node.id)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    self.imported.add((alias.asname or alias.name).split(".")[0])
            stack.extend((child, node, function, loop) for child in ast.iter_child_nodes(node))


class _Judge:
    def __init__(self, index: _Index, jit: frozenset[str], graph: frozenset[str], stable: frozenset[str]) -> None:
        self.index = index
        self.jit = jit
        self.graph = graph
        self.stable = stable
        self.sites = {id(site.node): site for site in index.calls}

    def exempt(self, function: Function | None) -> bool:
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        name = function.name
        if name in names.ONCE_FUNCTIONS or name.startswith("test"):
            return True
        return name in names.CONSTRUCTOR_METHODS and id(function) in self.index.class_of

    def called_in(self, spelled: str, function: Function | None) -> bool:
        return any(site.function is function for site in self.index.by_name.get(spelled, ()))

    def used_here(self, site: _Site) -> bool:
        parent = site.parent
        if isinstance(parent, ast.Call) and parent.func is site.node:
            return True
        if isinstance(parent, ast.Attribute):
            return parent.attr in ("lower", "trace", "eval_shape")
        if isinstance(parent, (ast.Assign, ast.AnnAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            return any(isinstance(t, ast.Name) and self.called_in(t.id, site.function) for t in targets)
        return False

    def maybe_bad_callable(self, fun: ast.expr) -> bool:
        if isinstance(fun, ast.Name):
            return fun.id not in self.stable
        if isinstance(fun, ast.Attribute):
            return isinstance(fun.value, ast.Name) and fun.value.id not in self.index.imported
        return isinstance(fun, (ast.Lambda, ast.Call))

    def suspicious(self, expr: ast.expr) -> bool:
        """Could ``expr`` break a static position (unhashable, or rebuilt per call)?"""
        if isinstance(expr, ast.Constant):
            return False
        if isinstance(expr, ast.Tuple):
            return any(self.suspicious(e) for e in expr.elts)
        if isinstance(expr, ast.UnaryOp):
            return self.suspicious(expr.operand)
        if isinstance(expr, ast.Name):
            return expr.id in self.index.bound
        if isinstance(expr, ast.Attribute):
            base = expr.value
            while isinstance(base, ast.Attribute):
                base = base.value
            return not (isinstance(base, ast.Name) and base.id in self.index.imported)
        if isinstance(expr, ast.Call):
            return not (isinstance(expr.func, ast.Name) and expr.func.id in _HARMLESS_CALLS)
        return isinstance(expr, (ast.List, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp, ast.Lambda))

    def static_spec(self, keywords: Iterable[ast.keyword]) -> tuple[frozenset[int], frozenset[str]] | None:
        nums: set[int] = set()
        argnames: set[str] = set()
        for keyword in keywords:
            if not (keyword.arg or "").startswith("static"):
                continue
            values = keyword.value.elts if isinstance(keyword.value, (ast.Tuple, ast.List)) else [keyword.value]
            for value in values:
                if not isinstance(value, ast.Constant):
                    return None  # not literal: the analysis cannot read it either
                if isinstance(value.value, int) and not isinstance(value.value, bool):
                    nums.add(value.value)
                elif isinstance(value.value, str):
                    argnames.add(value.value)
                else:
                    return None
        if not nums and not argnames:
            return None
        return frozenset(nums), frozenset(argnames)

    def static_call_bad(self, call: ast.Call, spec: tuple[frozenset[int], frozenset[str]]) -> bool:
        nums, argnames = spec
        for index, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                break
            if index in nums and self.suspicious(arg):
                return True
        for keyword in call.keywords:
            if keyword.arg is None:
                continue
            if (keyword.arg in argnames or nums) and self.suspicious(keyword.value):
                return True
        return False

    def binding_bad(self, spelled: str, spec: tuple[frozenset[int], frozenset[str]]) -> bool:
        return any(self.static_call_bad(site.node, spec) for site in self.index.by_name.get(spelled, ()))  # type: ignore[arg-type]

    def jit_call(self, site: _Site) -> bool:
        call = site.node
        assert isinstance(call, ast.Call)
        spec = self.static_spec(call.keywords)
        if call.args:
            if (site.function is not None or site.loop) and not self.exempt(site.function) \
                    and self.maybe_bad_callable(call.args[0]) and self.used_here(site):
                return True
        if spec is not None:
            return self.applied_bad(site, spec)
        return False

    def applied_bad(self, site: _Site, spec: tuple[frozenset[int], frozenset[str]]) -> bool:
        """The jitted wrapper built at ``site`` is called with a bad static argument."""
        parent = site.parent
        if isinstance(parent, ast.Call) and parent.func is site.node:
            return self.static_call_bad(parent, spec)
        if isinstance(parent, (ast.Assign, ast.AnnAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            for target in targets:
                spelled = _spelled(target)
                if spelled is not None:
                    receiver_call = spelled.split(".", 1)[-1] if "." in spelled else None
                    if self.binding_bad(spelled, spec):
                        return True
                    if receiver_call is not None and any(
                        self.binding_bad(f"{other}.{receiver_call}", spec) for other in ("self", "cls")
                    ):
                        return True
        return False

    def decorated(self, site: _Site) -> bool:
        function = site.node
        assert isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        for decorator in function.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            spec = None
            if _last(target) in self.jit:
                spec = self.static_spec(decorator.keywords) if isinstance(decorator, ast.Call) else None
            elif isinstance(decorator, ast.Call) and decorator.args and _last(decorator.args[0]) in self.jit:
                spec = self.static_spec(decorator.keywords)
            else:
                continue
            if site.function is not None and not self.exempt(site.function) and self.called_in(function.name, site.function):
                return True
            if spec is not None and id(function) not in self.index.class_of and self.binding_bad(function.name, spec):
                return True
        return False

    def possible(self) -> bool:
        for site in self.index.calls:
            call = site.node
            assert isinstance(call, ast.Call)
            last = _last(call.func)
            if last in self.graph:
                return True
            if last in self.jit and self.jit_call(site):
                return True
            if call.args and _last(call.args[0]) in self.jit and last in names.PARTIAL_TRIGGERS:
                spec = self.static_spec(call.keywords)
                applied = site.parent
                if spec is not None and isinstance(applied, ast.Call) and applied.func is call:
                    outer = self.sites.get(id(applied))
                    if outer is not None and self.applied_bad(outer, spec):
                        return True
        return any(self.decorated(site) for site in self.index.defs if site.node.decorator_list)  # type: ignore[attr-defined]


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
    judge = _Judge(_Index(tree), jit_names | frozenset(aliases), graph_names | frozenset(aliases), _stable_names(tree))
    return judge.possible()


__all__ = ["possible"]
