"""What libcst must read of a module to judge it: the module without the bodies nothing depends on.

libcst's parse and its scope analysis cost about as much per line as they cost in total,
while a module with a possible finding holds it in one or two of its functions. The bodies of
module-level functions and methods are the units that may be cut; what a finding depends on
grows from its sites (:func:`.prefilter.positive_sites`):

- a body that holds a site is kept, and so is one that names something a kept part wants: a
  module-level name that a kept part reads (only a name the body does not bind itself: a local
  or parameter of the same name reads nothing of the module), the name of a kept function (its
  callers count for the rules, and theirs), ``self.m`` of a kept method, or an attribute a kept
  part stores; each kept body adds what it names, until nothing more is kept;
- a class whose method is kept, or that a kept part names, keeps the bodies of its methods that
  store attributes (an instance's stored attributes are facts of its class);
- a module-level function that stores an attribute or declares ``global``/``nonlocal`` is kept, and so is a
  generator a kept part loops over a call of (``for x in self.gen(...)``: its yields tell how often that
  loop runs);
- a long module-level value (``NAME = value`` over three lines or more: tables, parameter lists)
  is cut unless a kept part reads its name; the module's other statements are always kept, and
  one that names something wanted (a call of a kept function) adds what it names.

A cut body is read as one string over the same lines (one libcst node, where blank lines would
be one node each); its ``def`` line, decorators and signature stay, and every line keeps its
number, so positions and ``# noqa`` are those of the file. Only a check reads the pruned text;
a fix always works on the whole module.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterable, Sequence

from jitcheck.lint.astwalk import children, walk
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
        stack.extend(children(node))
    for node in walk(tree):  # a function may bind a module name with `global`
        if isinstance(node, ast.Global):
            bound.update(node.names)
    return bound


def _members(tree: ast.Module) -> set[str]:
    """Every name the module defines as a function, class or attribute anywhere (``def m``, ``self.x = ...``)."""
    found: set[str] = set()
    for node in walk(tree):
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            found.add(node.attr)
    return found


_SCOPES = (*_FUNCTIONS, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _own_locals(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names ``function`` binds in its own scope: its parameters and what its body binds outside nested scopes
    (a read of one of them never reads the module's name)."""
    arguments = function.args
    found = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                             *(a for a in (arguments.vararg, arguments.kwarg) if a is not None))}
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            found.add(node.name)  # its decorators, defaults and bases are read here, its body is its own
            stack.extend((*node.decorator_list, *getattr(node, "bases", ()), *getattr(node, "keywords", ())))
            if not isinstance(node, ast.ClassDef):
                stack.extend((*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)))
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue  # a nested scope: what it binds is its own (a walrus in it is left out: kept, to be safe)
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update((alias.asname or alias.name).split(".")[0] for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            found.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            found.add(node.rest)
        stack.extend(children(node))
    return found


class _Body:
    """What one function body names (the module's names it may read, and attributes), and whether it must be
    kept whatever it names."""

    __slots__ = ("names", "attributes", "of_self", "stored", "pinned", "iterated", "yields", "bound_by_partial")

    def __init__(self, statements: Iterable[ast.AST], own: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        self.names: set[str] = set()
        self.iterated: set[str] = set()
        """Functions a ``for`` loops over a call of (``for x in gen(...)``, ``self.gen(...)``): a generator's
        yields tell how often the loop runs (:mod:`.generators`)."""
        self.yields = False
        """It holds a ``yield``: a generator, whose yields a loop over it may be judged by."""
        self.bound_by_partial: set[str] = set()
        """Functions a ``partial(f, ...)`` binds values to: whether ``f`` tests a bound value in Python control flow
        tells a baked constant from a configuration (:meth:`.sameness.Sameness.branched_on`)."""
        self.attributes: set[str] = set()
        self.stored: set[str] = set()
        self.of_self: set[str] = set()
        """Attributes read from ``self`` (``self.m()`` is a call of the method ``m``)."""
        self.pinned = False
        """It stores an attribute (an instance's stored attributes are facts of its class) or declares
        ``global``/``nonlocal``."""
        for statement in statements:
            for node in walk(statement):
                if isinstance(node, ast.Name):
                    self.names.add(node.id)
                elif isinstance(node, ast.Attribute):
                    self.attributes.add(node.attr)
                    if isinstance(node.value, ast.Name) and node.value.id == "self":
                        self.of_self.add(node.attr)
                    if not isinstance(node.ctx, ast.Load):
                        self.stored.add(node.attr)
                        self.pinned = True
                elif isinstance(node, (ast.Global, ast.Nonlocal)):
                    self.pinned = True
                elif isinstance(node, (ast.Yield, ast.YieldFrom)):
                    self.yields = True
                elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name) and (
                        isinstance(node.func, ast.Name) and node.func.id == "partial"
                        or isinstance(node.func, ast.Attribute) and node.func.attr == "partial"):
                    self.bound_by_partial.add(node.args[0].id)
                elif isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.iter, ast.Call):
                    func = node.iter.func
                    if isinstance(func, ast.Name):
                        self.iterated.add(func.id)
                    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                            and func.value.id in ("self", "cls"):
                        self.iterated.add(func.attr)
        self.names -= own


def _functions(tree: ast.Module) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.ClassDef | None]]:
    """The module-level functions and the methods of module-level classes, each with its class."""
    found: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.ClassDef | None]] = []
    for statement in tree.body:
        if isinstance(statement, _FUNCTIONS):
            found.append((statement, None))
        elif isinstance(statement, ast.ClassDef):
            found.extend((item, statement) for item in statement.body if isinstance(item, _FUNCTIONS))
    return found


def _header_end(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The last line of a def's header (its signature and return annotation)."""
    end = function.lineno
    for node in (function.args, *([function.returns] if function.returns else [])):
        for child in walk(node):
            end = max(end, getattr(child, "end_lineno", None) or end)
    return end


def _site_statements(tree: ast.Module, hot: Sequence[int]) -> Iterable[tuple[ast.AST, ast.ClassDef | None]]:
    """The statements outside every function body that hold a site, each with its class: module-level
    statements, and a class's own statements and header."""
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef):
            for item in (*statement.body, *statement.decorator_list, *statement.bases, *statement.keywords):
                if not isinstance(item, _FUNCTIONS) and _holds(item, hot):
                    yield item, statement
        elif not isinstance(statement, _FUNCTIONS) and _holds(statement, hot):
            yield statement, None


def _holds(node: ast.AST, hot: Sequence[int]) -> bool:
    """Whether a line of ``hot`` (sorted) is among ``node``'s lines (its decorators' included)."""
    first = min([getattr(node, "lineno", 0), *(d.lineno for d in getattr(node, "decorator_list", ()))])
    last = getattr(node, "end_lineno", None) or first
    at = bisect.bisect_left(hot, first)
    return at < len(hot) and hot[at] <= last


class _Unit:
    """A part of the module that may be cut (a function's body, a long module-level value) or is always kept
    (another module-level statement), with what it names."""

    __slots__ = ("node", "owner", "body", "header", "provides", "kind")

    def __init__(self, node: ast.stmt, owner: ast.ClassDef | None, kind: str = "function") -> None:
        self.node = node
        self.owner = owner
        self.kind = kind
        """``function`` (its body may be cut), ``value`` (``NAME = value``: its value may be cut), ``statement`` (kept)."""
        self.header: set[str] = set()
        self.provides: set[str] = set()
        if isinstance(node, _FUNCTIONS):
            self.body = _Body(node.body, _own_locals(node))
            self.header = _Body([*node.decorator_list, node.args, *([node.returns] if node.returns else [])]).names
            self.provides = {node.name}
        elif kind == "value":
            self.body = _Body([node.value])  # type: ignore[attr-defined]
            self.provides = {t.id for t in _targets(node)}
        else:
            self.body = _Body([node])


def _targets(node: ast.stmt) -> list[ast.Name]:
    return [t for t in (node.targets if isinstance(node, ast.Assign) else [node.target])  # type: ignore[attr-defined]
            if isinstance(t, ast.Name)]


def _long_value(node: ast.stmt) -> bool:
    """``NAME = value`` (or annotated) at module level whose value spans three lines or more, binds nothing else
    (no walrus) and names no dunder (``__all__`` says what is public)."""
    if isinstance(node, ast.Assign):
        targets: list[ast.expr] = list(node.targets)
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets = [node.target]
    else:
        return False
    value = node.value
    if value is None or not all(isinstance(t, ast.Name) and not t.id.startswith("__") for t in targets):
        return False
    if (value.end_lineno or value.lineno) - value.lineno < 2:
        return False
    return not any(isinstance(child, ast.NamedExpr) for child in walk(value))


class _Wanted:
    """What the kept parts read or define that other bodies may name: module names, attributes, methods, classes."""

    def __init__(self, bound: set[str], classes: set[str]) -> None:
        self.bound = bound
        self.class_names = classes
        self.names: set[str] = set()
        self.attributes: set[str] = set()
        self.methods: set[str] = set()
        self.classes: set[int] = set()
        self.iterated: set[str] = set()
        self.bound_by_partial: set[str] = set()

    def want_class(self, owner: ast.ClassDef) -> None:
        """Count the class's facts as read: what its header and own statements name, its stored attributes."""
        if id(owner) in self.classes:
            return
        self.classes.add(id(owner))
        header = _Body([*owner.decorator_list, *owner.bases, *owner.keywords])
        own = _Body([item for item in owner.body if not isinstance(item, _FUNCTIONS)])
        self.names |= (header.names | own.names) & self.bound

    def reach(self, unit: _Unit) -> None:
        """``unit`` holds a site or names something wanted: what it names is wanted, and its callers."""
        self.names |= (unit.body.names | unit.header) & self.bound | unit.provides
        self.attributes |= unit.body.stored
        self.iterated |= unit.body.iterated
        self.bound_by_partial |= unit.body.bound_by_partial
        if unit.owner is not None and isinstance(unit.node, _FUNCTIONS):
            self.methods.add(unit.node.name)
            self.want_class(unit.owner)

    def keep(self, unit: _Unit) -> None:
        """``unit`` is kept for the facts it stores (a method of a wanted class): the classes it names are wanted."""
        if unit.owner is not None:
            self.names |= unit.body.names & self.class_names

    def reaches(self, unit: _Unit) -> bool:
        """Whether ``unit`` names something wanted (a module name, a stored attribute, ``self.m`` of a method) or
        binds a name a kept part reads (a module-level value)."""
        return bool(unit.body.names & self.names or unit.body.attributes & self.attributes
                    or unit.body.of_self & self.methods or (unit.kind == "value" and unit.provides & self.names)
                    or (unit.kind == "function" and unit.body.yields and unit.provides & self.iterated)
                    or (unit.kind == "function" and unit.owner is None and unit.provides & self.bound_by_partial))

    def kept(self, unit: _Unit) -> bool:
        """Whether ``unit`` holds facts kept whatever it names: a module-level function that stores an attribute
        or declares ``global``, a method of a wanted class that stores an attribute."""
        return unit.kind == "function" and unit.body.pinned and (unit.owner is None or id(unit.owner) in self.classes)


def _cuttable(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``function``'s body is long enough to be cut (it starts below the header and spans three lines or more)."""
    head = function.body[0]
    first = min([head.lineno, *(d.lineno for d in getattr(head, "decorator_list", ()))])
    last = function.end_lineno or function.lineno
    return not (first <= _header_end(function) or last - first < 2)


def _may_cut(tree: ast.Module, hot: Sequence[int]) -> bool:
    """Whether :func:`pruned` may cut anything: some function body long enough to be cut, or some long module-level
    value, holds no site (one that holds a site is always kept). When none does, the module is read whole, without
    working out what the sites depend on (a module dense with sites)."""
    for node, _ in _functions(tree):
        if node.body and not _holds(node, hot) and _cuttable(node):
            return True
    return any(not isinstance(statement, (*_FUNCTIONS, ast.ClassDef)) and _long_value(statement)
               and not _holds(statement, hot) for statement in tree.body)


def pruned(text: str, tree: ast.Module, sites: Iterable[ast.AST]) -> str | None:
    """``text`` with the bodies of the module-level functions no finding depends on read as ``...``; None when none is.

    What a finding depends on grows from its site: the statement or body that holds it, the
    module's names and the attributes it stores or defines (the calls of a function or method that
    holds a site count, so its callers are kept, and theirs), and the class of a method kept (the
    bodies of that class that store attributes, and what the class's header and own statements
    name). A body that names something wanted is kept and adds what it names, until nothing more is
    kept. A body of a module-level function that stores an attribute or declares
    ``global``/``nonlocal`` is always kept.
    """
    hot = sorted({getattr(site, "lineno", 0) for site in sites})
    if not _may_cut(tree, hot):
        return None
    wanted = _Wanted(_module_names(tree), {node.name for node in tree.body if isinstance(node, ast.ClassDef)})
    members = _members(tree)
    for statement, owner in _site_statements(tree, hot):
        seen = _Body([statement])
        wanted.names |= seen.names & wanted.bound
        wanted.attributes |= seen.attributes & members
        wanted.iterated |= seen.iterated
        if owner is not None:
            wanted.want_class(owner)
    waiting = [_Unit(node, owner) for node, owner in _functions(tree) if node.body]
    for statement in tree.body:  # module-level statements: a long value may be cut; the others are kept, and read
        if not isinstance(statement, (*_FUNCTIONS, ast.ClassDef)):
            waiting.append(_Unit(statement, None, "value" if _long_value(statement) else "statement"))
    reached = [unit for unit in waiting if _holds(unit.node, hot)]
    kept: list[_Unit] = []
    while reached or kept:
        for unit in reached:
            wanted.reach(unit)
        for unit in kept:
            wanted.keep(unit)
        done = {id(unit) for unit in (*reached, *kept)}
        waiting = [unit for unit in waiting if id(unit) not in done]
        for unit in waiting:  # a class named by what is kept: its facts are read
            if unit.owner is not None and unit.owner.name in wanted.names:
                wanted.want_class(unit.owner)
        reached = [unit for unit in waiting if wanted.reaches(unit)]
        kept = [unit for unit in waiting if wanted.kept(unit) and not wanted.reaches(unit)]
    cut: list[tuple[int, int, int]] = []  # (first body line, last line, body indent column), 1-based
    values: list[ast.expr] = []
    for unit in waiting:
        if unit.kind == "value":
            values.append(unit.node.value)  # type: ignore[attr-defined]
        statement = unit.node
        if not isinstance(statement, _FUNCTIONS) or not _cuttable(statement):
            continue
        head = statement.body[0]
        first = min([head.lineno, *(d.lineno for d in getattr(head, "decorator_list", ()))])
        cut.append((first, statement.end_lineno or statement.lineno, head.col_offset))
    if not cut and not values:
        return None
    source = lines(text, keepends=True)
    for value in values:  # one string over the value's lines, the rest of its first and last lines kept
        first, last = value.lineno, value.end_lineno or value.lineno
        lead = source[first - 1].encode("utf-8")[:value.col_offset].decode("utf-8")
        tail_line = source[last - 1]
        tail = tail_line.encode("utf-8")[value.end_col_offset:].decode("utf-8")
        source[first - 1] = f'{lead}"""{ending(source[first - 1]) or chr(10)}'
        for number in range(first, last - 1):
            source[number] = ending(source[number]) or "\n"
        source[last - 1] = f'"""{tail}' if tail else f'"""{ending(tail_line) or chr(10)}'
    for first, last, column in cut:
        # One string spans the body's lines: one node for libcst, where blank lines would be one each.
        body = source[first - 1]
        indent = body[:len(body) - len(body.lstrip(" \t"))] if column else ""
        source[first - 1] = f'{indent}"""{ending(body) or chr(10)}'
        for number in range(first, last - 1):
            source[number] = ending(source[number]) or "\n"
        source[last - 1] = f'"""{ending(source[last - 1]) or chr(10)}'
    return "".join(source)


__all__ = ["pruned"]
