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
import functools
import re
from collections.abc import Iterable, Iterator
from typing import Union

from jitcheck.lint import names
from jitcheck.lint.astwalk import children, walk
from jitcheck.lint.collect import _ALIAS
from jitcheck.lint.index import Hints, StaticReach, fresh_returns, python_tree

Function = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_TRACING_METHODS: frozenset[str] = frozenset().union(*(wrapper.tracing_methods for wrapper in names.JIT_WRAPPERS.values()))
_KNOWN_PACKAGES = ("jax.", "flax.", "equinox.", "numpy.", "optax.", "functools.")
"""Packages whose names the prefilter trusts: a ``jit`` imported from one of them that is
not a known wrapper (``flax.linen.jit``) is not one. Other packages are left to libcst."""


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


_RECORDED = frozenset({
    ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.For, ast.AsyncFor, ast.While, ast.NamedExpr,
    *_COMPREHENSIONS, ast.Call, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Import, ast.ImportFrom})
"""The node types :meth:`_Index._walk` records something of (Python's parser makes nodes of these exact types)."""


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
        self.values: dict[str, list[ast.expr]] = {}
        """Values assigned to each simple name (``x = ...``), anywhere."""
        self.nested_defs: set[str] = set()
        self.binders: dict[str, set[tuple[int, bool]]] = {}
        """Where each name is bound by ``def`` or assignment: (id of the function or 0, in a loop)."""
        self.imported: set[str] = set()
        self.passed: set[str] = set()
        """Names handed to a call as an argument (a use of what they hold)."""
        self.modules: dict[str, str] = {}
        """Import aliases and the qualified names they stand for (``nn`` -> ``flax.linen``)."""
        self.import_targets: dict[str, list[str]] = {}
        """What each name an import binds (anywhere) stands for, as spelled: ``.m.f`` for ``from .m import f``."""
        self.stars = False
        """Whether the module takes names by ``from m import *``."""
        self.class_of: dict[int, ast.ClassDef] = {}
        self.classes: set[str] = set()
        self.outer: dict[int, Function | None] = {}
        """The function each function is defined in (None at module level)."""
        self.walrus_parents: dict[int, ast.AST | None] = {}
        """What holds each ``(f := value)``."""
        self.range_indices: set[str] = set()
        """Names a loop may count with: a ``for`` over ``range(...)``, ``enumerate``'s index, a name added to."""
        self.counters: set[str] = set()
        """Attributes changed by arithmetic on themselves (``self.n += 1``, ``self.n = self.n + 1``)."""
        self._walk(tree, None, None, False)

    def _walk(self, node: ast.AST, parent: ast.AST | None, function: Function | None, loop: bool) -> None:
        stack: list[tuple[ast.AST, ast.AST | None, Function | None, bool]] = [(node, parent, function, loop)]
        push = stack.append
        while stack:
            node, parent, function, loop = stack.pop()
            if type(node) not in _RECORDED:  # nothing of its own to record: its children, as the last line would push
                for child in children(node):
                    push((child, node, function, loop))
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                self.outer[id(node)] = function
            elif isinstance(node, ast.ClassDef):
                self.classes.add(node.name)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.defs.append(_Site(node, parent, function, loop))
                if function is not None:
                    self.nested_defs.add(node.name)
                self.binders.setdefault(node.name, set()).add((id(function) if function else 0, loop))
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
                if isinstance(node.target, ast.Name) and isinstance(node.iter, (ast.Tuple, ast.List)):
                    self.values.setdefault(node.target.id, []).append(node.iter)  # each item, as a static value
                if isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Call) and _last(node.iter.func) == "range":
                    self.range_indices.add(node.target.id)
                elif isinstance(node.target, ast.Tuple) and node.target.elts and isinstance(node.target.elts[0], ast.Name) \
                        and isinstance(node.iter, ast.Call) and _last(node.iter.func) == "enumerate":
                    self.range_indices.add(node.target.elts[0].id)
                stack.extend((child, node, function, loop) for child in (node.target, node.iter))
                stack.extend((child, node, function, True) for child in node.body)
                stack.extend((child, node, function, loop) for child in node.orelse)
                continue
            if isinstance(node, ast.While):
                stack.extend((child, node, function, True) for child in (node.test, *node.body))
                stack.extend((child, node, function, loop) for child in node.orelse)
                continue
            if isinstance(node, ast.NamedExpr):
                self.walrus_parents[id(node)] = parent
                self.values.setdefault(node.target.id, []).append(node.value)
                self.binders.setdefault(node.target.id, set()).add((id(function) if function else 0, loop))
            if isinstance(node, _COMPREHENSIONS):
                loop = True
                for clause in node.generators:
                    if isinstance(clause.target, ast.Name) and isinstance(clause.iter, ast.Call) \
                            and _last(clause.iter.func) in ("range", "enumerate"):
                        self.range_indices.add(clause.target.id)
                    elif isinstance(clause.target, ast.Tuple) and clause.target.elts \
                            and isinstance(clause.target.elts[0], ast.Name):
                        self.range_indices.add(clause.target.elts[0].id)
            elif isinstance(node, ast.Call):
                site = _Site(node, parent, function, loop)
                self.calls.append(site)
                spelled = _spelled(node.func)
                if spelled is not None:
                    self.by_name.setdefault(spelled, []).append(site)
                for arg in (*node.args, *(k.value for k in node.keywords)):
                    if isinstance(arg, ast.Name):
                        self.passed.add(arg.id)
            elif isinstance(node, ast.AugAssign):
                if isinstance(node.target, ast.Attribute):
                    self.counters.add(node.target.attr)
                elif isinstance(node.target, ast.Name):
                    self.range_indices.add(node.target.id)  # maybe a `while` loop's count
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Attribute) and isinstance(node.value, ast.BinOp) \
                            and isinstance(node.value.left, ast.Attribute) and node.value.left.attr == target.attr:
                        self.counters.add(target.attr)
                    if isinstance(target, ast.Name):
                        self.values.setdefault(target.id, []).append(node.value)
                        self.binders.setdefault(target.id, set()).add((id(function) if function else 0, loop))
                    elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(node.value, ast.Call):
                        for element in target.elts:  # `init, apply = make(...)`: maybe a factory's new functions
                            if isinstance(element, ast.Name):
                                self.binders.setdefault(element.id, set()).add((id(function) if function else 0, loop))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    self.imported.add(local)
                    self.modules[local] = alias.name if alias.asname else local
                    self.import_targets.setdefault(local, []).append(self.modules[local])
            elif isinstance(node, ast.ImportFrom):
                source = "." * node.level + (f"{node.module}." if node.module else "")
                for alias in node.names:
                    local = alias.asname or alias.name
                    self.imported.add(local)
                    if node.module and not node.level:
                        self.modules[local] = f"{node.module}.{alias.name}"
                    if alias.name == "*":
                        self.stars = True
                    else:
                        self.import_targets.setdefault(local, []).append(f"{source}{alias.name}")
            stack.extend((child, node, function, loop) for child in children(node))


class _Judge:
    def __init__(self, index: _Index, jit: frozenset[str], graph: frozenset[str], jit_qualified: frozenset[str] = frozenset(),
                 hints: Hints | None = None, reach: StaticReach | None = None) -> None:
        self.index = index
        self.hints = hints if hints is not None else Hints()
        self.reach = reach
        self.jit = jit
        self.graph = graph
        self.sites = {id(site.node): site for site in index.calls}
        self.jit_qualified = frozenset(names.JIT_WRAPPERS) | jit_qualified
        self.partials = self.spellings(names.PARTIAL_TRIGGERS)
        self.transformations = self.spellings(names.TRANSFORMATION_TRIGGERS)
        self.own_cache = self.spellings(names.OWN_CACHE_TRIGGERS)

    def spellings(self, last_names: frozenset[str]) -> frozenset[str]:
        """These last names, and the local names imported as one of them."""
        return last_names | frozenset(
            local for local, qualified in self.index.modules.items() if qualified.rsplit(".", 1)[-1] in last_names
        )

    def exempt(self, function: Function | None, loop: bool = False) -> bool:
        """Mirrors the analysis's exemptions by name; nothing in a loop is exempt (the analysis decides the rest)."""
        if loop or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        name = function.name
        if name in names.ONCE_FUNCTIONS or name.startswith("test"):
            return len(self.index.by_name.get(name, ())) < 2
        return name in names.CONSTRUCTOR_METHODS and id(function) in self.index.class_of

    def called_in(self, spelled: str, function: Function | None) -> bool:
        """Called in ``function`` or a closure of it, or handed to a call (the analysis decides which counts)."""
        if spelled in self.index.passed:
            return True
        return any(self.within(site.function, function) for site in self.index.by_name.get(spelled, ()))

    def within(self, function: Function | None, outer: Function | None) -> bool:
        """True when code in ``function`` can see names bound in ``outer`` (it is ``outer`` or nested in it)."""
        if outer is None:
            return True
        current = function
        while current is not None:
            if current is outer:
                return True
            current = self.index.outer.get(id(current))
        return False

    def calls_seeing(self, spelled: str, bound_in: Function | None) -> list[_Site]:
        return [site for site in self.index.by_name.get(spelled, ()) if self.within(site.function, bound_in)]

    def factory_called(self, function: Function | None) -> bool:
        """True when this module calls the named function ``function`` (by any spelling ending in its name), or
        another module of the run may call it as a factory of new jitted functions (the index's hints, by name):
        where the analysis looks for the callers of a factory's product."""
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        name = function.name
        return name in self.hints.jit_factories or \
            any(spelled == name or spelled.endswith(f".{name}") for spelled in self.index.by_name)

    def product_used_here(self, site: _Site) -> bool:
        """A factory's call whose product is used where it is made: called at once, handed to a call, or bound
        (alone or unpacked from a tuple) to a name its function calls."""
        parent = site.parent
        if isinstance(parent, ast.Call):
            return True
        if isinstance(parent, (ast.Assign, ast.AnnAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            bound = [e for t in targets for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])]
            return any(isinstance(t, ast.Name) and self.called_in(t.id, site.function) for t in bound)
        return False

    def used_here(self, site: _Site) -> bool:
        parent = site.parent
        if isinstance(parent, ast.NamedExpr):  # `(f := jax.jit(g))(x)`: where it stands, and through `f`
            holder = self.index.walrus_parents.get(id(parent))
            return isinstance(holder, (ast.Call, ast.IfExp)) or self.called_in(parent.target.id, site.function) or \
                self.used_here(_Site(parent, holder, site.function, site.loop))
        if isinstance(parent, ast.Call):
            return True  # called right away, or handed to a call (which calls it)
        if isinstance(parent, ast.IfExp):
            return True  # `g = jax.jit(f) if jitting else f`: the analysis looks through it
        if isinstance(parent, ast.Attribute):
            return parent.attr in _TRACING_METHODS
        if isinstance(parent, ast.Return):
            return self.factory_called(site.function)  # a factory's product: judged where its callers here use it
        if isinstance(parent, (ast.Assign, ast.AnnAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            return any(isinstance(t, ast.Name) and (self.called_in(t.id, site.function) or
                                                    _returns_name(site.function, t.id) and self.factory_called(site.function))
                       for t in targets)
        return False

    def qualified(self, func: ast.expr) -> str | None:
        """The dotted name ``func`` stands for through the module's imports, if its head is imported."""
        parts: list[str] = []
        node = func
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.index.modules or node.id in self.index.binders:
            return None
        return ".".join([self.index.modules[node.id], *reversed(parts)])

    def static_callee(self, func: ast.expr) -> bool:
        """Can the analysis find ``func`` (``f`` or ``m.f``, its last name one of :attr:`Hints.static_jitted`) to be a
        jitted function of the run with static arguments? It asks libcst's qualified names of ``func``
        (:meth:`~jitcheck.lint.resolver.Resolver.indexed_jit`), which are made from how its first name is bound: by
        an import (anywhere in the module: ``from .m import f`` gives ``<package>.m.f``), at module level (``f``,
        ``m.f``), in a class (``C.m.f``), in a function (``g.<locals>.m.f``, never a module's), or not at all
        (``builtins.m.f``; with a star import, what the index says the module takes). Each of those a module may
        hold is asked of the index, through re-exports and installed packages; a module's own such function, a
        module with ``import *`` and a class named as a module stay sites, unasked."""
        reach = self.reach
        if reach is None or _last(func) in reach.own or self.index.stars:
            return True
        head = func.value if isinstance(func, ast.Attribute) else func
        if not isinstance(head, ast.Name):
            return True
        rest = f".{func.attr}" if isinstance(func, ast.Attribute) else ""
        for target in self.index.import_targets.get(head.id, ()):
            if reach.static(reach.absolute(target) + rest):
                return True
        if rest and reach.static(head.id + rest) or reach.static(f"builtins.{head.id}{rest}"):
            return True
        return any(reach.is_root(name) for name in self.index.classes)

    def is_jit(self, func: ast.expr) -> bool:
        """Spelled like a jit wrapper, and not imported as something known to be another thing."""
        if _last(func) not in self.jit:
            return False
        qualified = self.qualified(func)
        return qualified is None or qualified in self.jit_qualified or not qualified.startswith(_KNOWN_PACKAGES)

    def applies_jit(self, decorator: ast.expr) -> bool:
        """Could ``decorator`` apply a jit wrapper: ``@jax.jit``, ``@jax.jit(...)``, ``@partial(jax.jit, ...)``."""
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        return self.is_jit(target) or isinstance(decorator, ast.Call) and bool(decorator.args) and self.is_jit(decorator.args[0])

    @functools.cached_property
    def jitted_params(self) -> frozenset[str]:
        """The parameters of the module's functions a jit decorates: tracers while their body is traced (JC201 when
        handed on as a static argument). Worked out only when a static argument is a plain name."""
        jitted = [node for node in (site.node for site in self.index.defs)
                  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(map(self.applies_jit, node.decorator_list))]
        return frozenset(arg.arg for node in jitted for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs))

    def maybe_bad_callable(self, fun: ast.expr, site: _Site) -> bool:
        if isinstance(fun, ast.Name):
            where = id(site.function) if site.function is not None else 0
            function = site.function
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and fun.id in {
                    a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}:
                return True  # a parameter: what the callers hand in decides
            if any(fid == where and (fid or loop) for fid, loop in self.index.binders.get(fun.id, ())):
                return True
            # bound by a function this one is nested in: a new object on each run of that function
            outer_ids: set[int] = set()
            current = self.index.outer.get(id(function)) if function is not None else None
            while current is not None:
                outer_ids.add(id(current))
                current = self.index.outer.get(id(current))
            return any(fid in outer_ids for fid, _ in self.index.binders.get(fun.id, ()))
        if isinstance(fun, ast.Attribute):
            base = fun.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Call):
                return _last(base.func) == "super" or isinstance(fun.value, ast.Call)
            return isinstance(base, ast.Name) and base.id not in self.index.imported
        if isinstance(fun, ast.Call):
            applied = fun.func.func if isinstance(fun.func, ast.Call) else fun.func  # functools.wraps(f)(g)
            return _last(fun.func) in self.partials or _last(applied) in self.transformations \
                or self.factory_call(fun.func)
        return isinstance(fun, ast.Lambda)

    def suspicious(self, expr: ast.expr, depth: int = 0) -> bool:
        """Could ``expr`` break a static position (unhashable, or rebuilt per call)?"""
        if isinstance(expr, ast.Constant):
            return False
        if isinstance(expr, ast.Tuple):
            return any(self.suspicious(e, depth) for e in expr.elts)
        if isinstance(expr, ast.UnaryOp):
            return self.suspicious(expr.operand, depth)
        if isinstance(expr, ast.Name):
            if expr.id in self.index.nested_defs or expr.id in self.jitted_params:
                return True
            if depth >= 2:
                return expr.id in self.index.values
            return any(self.suspicious(value, depth + 1) for value in self.index.values.get(expr.id, ()))
        if isinstance(expr, ast.Attribute):
            base = expr.value
            while isinstance(base, ast.Attribute):
                base = base.value
            return not (isinstance(base, ast.Name) and base.id in self.index.imported)
        if isinstance(expr, ast.Call):
            return self.suspicious_call(expr.func)
        return isinstance(expr, (ast.List, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp, ast.Lambda))

    def suspicious_call(self, func: ast.expr) -> bool:
        """Could a call of ``func`` build an unhashable or identity-compared value the analysis can name?

        Only what libcst's analysis resolves: a class of this file, a builtin
        container, a partial, an array factory of numpy / jax (through imports), or a
        function of the run that returns a new function on every call (a factory).
        """
        if self.factory_call(func):
            return True  # `nl_fn=make_nl_fn(h)`: a new function on every call, in a static position
        if isinstance(func, ast.Name):
            if func.id in self.index.classes or func.id in ("list", "dict", "set", "bytearray") or func.id in self.partials:
                return True
        elif _last(func) in self.partials:
            return True
        if _last(func) in self.transformations:
            return True
        qualified = self.qualified(func)
        if qualified is None:
            return False
        return qualified.startswith(("numpy.", "jax.numpy.", "jax.random.", "jax.tree_util.")) or qualified in (
            "functools.partial",
        )

    def factory_call(self, func: ast.expr) -> bool:
        """Could a call of ``func`` return a new function on every call, as the analysis knows factories: a function
        of the run the index records as one (by its name), or a method of this file's classes that is one, called
        on an instance (``self._make_rhs()``)."""
        return _last(func) in self.hints.factories or (
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.attr in self.method_factories)

    @functools.cached_property
    def method_factories(self) -> frozenset[str]:
        """The names of this file's methods whose every call returns a new function (:func:`~jitcheck.lint.index.
        fresh_returns`, as the index records a class's ``factories``)."""
        return frozenset(site.node.name for site in self.index.defs if id(site.node) in self.index.class_of
                         and isinstance(site.node, (ast.FunctionDef, ast.AsyncFunctionDef))
                         and fresh_returns(site.node) is not None)

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

    def changing(self, expr: ast.expr, depth: int = 0) -> bool:
        """Does ``expr`` read a loop's index or a counter attribute, or a name bound to a value that does (JC207: a
        new static value each time)?"""
        index = self.index
        if not index.range_indices and not index.counters:
            return False
        return any(isinstance(node, ast.Name) and node.id in index.range_indices
                   or isinstance(node, ast.Attribute) and node.attr in index.counters for node in ast.walk(expr)) \
            or depth == 0 and any(isinstance(node, ast.Name) and any(self.changing(value, 1) for value in index.values.get(node.id, ()))
                                  for node in ast.walk(expr))

    def static_call_bad(self, call: ast.Call, spec: tuple[frozenset[int], frozenset[str]]) -> bool:
        nums, argnames = spec
        for index, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                break
            if index in nums and (self.suspicious(arg) or self.changing(arg)):
                return True
        for keyword in call.keywords:
            if keyword.arg is None:
                continue
            if (keyword.arg in argnames or nums) and (self.suspicious(keyword.value) or self.changing(keyword.value)):
                return True
        return False

    def binding_bad(self, spelled: str, spec: tuple[frozenset[int], frozenset[str]], bound_in: Function | None = None) -> bool:
        return any(self.static_call_bad(site.node, spec) for site in self.calls_seeing(spelled, bound_in))  # type: ignore[arg-type]

    def jit_call(self, site: _Site) -> bool:
        call = site.node
        assert isinstance(call, ast.Call)
        spec = self.static_spec(call.keywords)
        if call.args:
            if (site.function is not None or site.loop) and not self.exempt(site.function, site.loop) and self.used_here(site) \
                    and (_last(call.func) in self.own_cache or self.maybe_bad_callable(call.args[0], site)):
                return True  # a StatefulFunction built per call is reported whatever it wraps
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
                    if self.binding_bad(spelled, spec, site.function if "." not in spelled else None):
                        return True
                    if receiver_call is not None and any(
                        self.binding_bad(f"{other}.{receiver_call}", spec) for other in ("self", "cls")
                    ):
                        return True
        return False

    def vmapped(self, name: str) -> list[str]:
        """The names bound to ``jax.vmap(name, ...)``: calls through them hand the jitted function its arguments in
        the same positions, static ones included."""
        return [bound for bound, values in self.index.values.items()
                if any(isinstance(v, ast.Call) and _last(v.func) == "vmap" and v.args and isinstance(v.args[0], ast.Name)
                       and v.args[0].id == name for v in values)]

    def decorated(self, site: _Site) -> bool:
        function = site.node
        assert isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        for decorator in function.decorator_list:
            if not self.applies_jit(decorator):
                continue
            spec = self.static_spec(decorator.keywords) if isinstance(decorator, ast.Call) else None
            if site.function is not None and not self.exempt(site.function, site.loop) and self.called_in(function.name, site.function):
                return True
            if _returns_name(site.function, function.name) and self.factory_called(site.function):
                return True  # the factory's product: judged where its callers here use it
            if site.function is None and self.hints.identity_aux and _annotated_with(function, self.hints.identity_aux):
                return True  # takes a pytree whose aux data is new for each object: the run's loops may pass many (JC208)
            if spec is not None and id(function) not in self.index.class_of and any(
                    self.binding_bad(name, spec, site.function) for name in (function.name, *self.vmapped(function.name))):
                return True
            if spec is not None and id(function) in self.index.class_of and self.index.counters.union(self.index.range_indices) \
                    and any(self.changing(arg) for receiver in ("self", "cls")
                            for call in self.index.by_name.get(f"{receiver}.{function.name}", ())
                            for arg in (*call.node.args, *(k.value for k in call.node.keywords))):  # type: ignore[attr-defined]
                return True  # a method's receiver shifts its positions: any argument may be a static one (JC207)
        return False

    def positives(self) -> Iterator[ast.AST]:
        """Every call or def where some rule could fire (the analysis decides), in no particular order."""
        for site in self.index.calls:
            call = site.node
            assert isinstance(call, ast.Call)
            last = _last(call.func)
            if last in self.hints.static_jitted and _spelled(call.func) is not None \
                    and self.static_call_bad(call, _every_argument(call)) and self.static_callee(call.func):
                yield call  # a jitted function of another module: its static positions are the analysis's to read
            elif last in self.hints.jit_methods and isinstance(call.func, ast.Attribute) \
                    and self.static_call_bad(call, _every_argument(call)):
                yield call  # a jitted method with static arguments, on a receiver the analysis may type
            elif last in self.graph:
                yield call
            elif last in self.hints.jit_factories and _spelled(call.func) is not None and site.function is not None \
                    and self.product_used_here(site):
                yield call  # another module's factory of new jitted functions, whose product is used where it is made
            elif last in self.jit and self.is_jit(call.func) and self.jit_call(site):
                yield call
            elif call.args and self.is_jit(call.args[0]) and last in names.PARTIAL_TRIGGERS:
                spec = self.static_spec(call.keywords)
                applied = site.parent
                if spec is not None and isinstance(applied, ast.Call) and applied.func is call:
                    outer = self.sites.get(id(applied))
                    if outer is not None and self.applied_bad(outer, spec):
                        yield call
        for site in self.index.defs:
            if site.node.decorator_list and self.decorated(site):  # type: ignore[attr-defined]
                yield site.node

    def possible(self) -> bool:
        return next(self.positives(), None) is not None



def possible(source: str, graph_constructors: Iterable[str] = (), jit_wrappers: Iterable[str] = (),
             hints: Hints | None = None, tree: ast.Module | None = None, reach: StaticReach | None = None) -> bool:
    """False only when no static rule can report anything in ``source``.

    ``hints`` names what other files of the run define (factories, jitted functions
    with static arguments) that a call here may use. ``tree`` is ``ast.parse(source)``
    when the caller has it already (it is only read). ``reach`` (the index's :meth:`~jitcheck.lint.index.ProjectIndex.
    static_reach` of the module) says which calls of those jitted functions the module can make; without it, every
    call spelling one is a site.
    """
    judge = _judge(source, graph_constructors, jit_wrappers, hints, tree, reach)
    return judge is True or (isinstance(judge, _Judge) and judge.possible())


def positive_sites(source: str, tree: ast.Module, graph_constructors: Iterable[str] = (), jit_wrappers: Iterable[str] = (),
                   hints: Hints | None = None, reach: StaticReach | None = None) -> list[ast.AST]:
    """Every call or def of ``tree`` where a rule could fire; empty when none could (then :func:`possible` is False)."""
    judge = _judge(source, graph_constructors, jit_wrappers, hints, tree, reach)
    return list(judge.positives()) if isinstance(judge, _Judge) else []


def _spellings(source: str, graph_constructors: Iterable[str], jit_wrappers: Iterable[str],
               hints: Hints | None) -> tuple[frozenset[str], frozenset[str]] | None:
    """The last names of the jit wrappers and graph constructors; None when ``source`` spells none of them (nor a
    jitted function of the run with static arguments): then no rule can fire, whatever the code."""
    jit_names = names.last_names((*names.JIT_WRAPPERS, *jit_wrappers, *(a for a, _ in (hints.jit_aliases if hints else ()))))
    if "chex" in source:
        jit_names |= frozenset(names.METHOD_WRAPPERS)
    graph_names = names.last_names((*names.NODE_CONSTRUCTORS, *names.GRAPH_CONSTRUCTORS, *graph_constructors))
    if not any(name in source for name in (*jit_names, *graph_names)) and not (
            hints is not None and (_spells_any(source, hints.static_jitted) or _spells_any(source, hints.jit_factories)
                                   or _spells_any(source, hints.jit_methods))):
        return None
    return jit_names, graph_names


def _spells_any(source: str, named: frozenset[str]) -> bool:
    """Whether one of ``named`` (identifiers) may be a name of ``source``'s tree: a word of an ASCII text (each
    name of the tree is one), a part of any other (Python reads an identifier's NFKC form). A project's jitted
    functions are hundreds of names: one search of the text for each cost as much as the rest of the test."""
    if not named:
        return False
    if source.isascii():
        return not named.isdisjoint(_text_words(source))
    return any(name in source for name in named)


_TRIVIA = r"(?:[ \t\f\v\r\n]|\\\r?\n|\#[^\r\n]*+)*+"
"""What may stand between two tokens of one expression: blanks, line breaks, continuations, comments.

A comment runs to its line's end (``*+``: never given back), and so does the whole run (``*+``: no bracket can
start one of its pieces, so a shorter run is never followed by one). With ``#[^\r\n]*`` a comment could end
anywhere, and a start followed by a line of 60 ``#`` and then no bracket was tried 2^59 ways: on a tree of 177
libraries as one project, where ``step`` is a jitted function's name, the word ``step`` in ``# ... design step``
above a banner of ``#`` held one file's check until the worker's time limit (60 s of CPU, then JC000). Where
a bracket stands inside a comment (``step  # see g(x)``) the test no longer takes it for a call: no site can."""
_DECORATOR_LINE = re.compile(r"^[ \t\f\v]*@(?:\\\r?\n|[^\r\n])*", re.MULTILINE)
"""A line that starts with ``@``, with the lines a backslash joins to it: where every decorator stands."""


def _aliases(source: str, named: frozenset[str]) -> frozenset[str]:
    """The names ``source`` binds to one of ``named`` with ``as`` (``from jax import jit as fast``), as
    :data:`~jitcheck.lint.collect._ALIAS` reads them: its scan of every word is made only where one of ``named``
    stands before an ``as`` (most texts: nowhere)."""
    if not re.search(r"(?:%s)\s+as\s" % "|".join(map(re.escape, sorted(named))), source):
        return frozenset()
    return frozenset(m.group(2) for m in _ALIAS.finditer(source) if m.group(1) in named)


_WORD = re.compile(r"\w+")
"""A run of word characters (``\\w``: a letter, a digit or ``_``, as ``str.isalnum`` and ``\\b`` read them)."""


def _words(text: str) -> set[str]:
    """Every maximal run of word characters in ``text``: the words a name can stand as."""
    return set(_WORD.findall(text))


_LAST_WORDS: tuple[str, frozenset[str]] = ("", frozenset())


def _text_words(text: str) -> frozenset[str]:
    """:func:`_words` of a whole text, kept for the last text asked about (a check asks :func:`may_have_sites`,
    then :func:`positive_sites`, of one text)."""
    global _LAST_WORDS
    kept = _LAST_WORDS
    if kept[0] is text:
        return kept[1]
    found = frozenset(_words(text))
    _LAST_WORDS = (text, found)
    return found


def _as_word(names: Iterable[str], after: str, text: str, words: frozenset[str] | set[str] | None = None) -> bool:
    """Whether one of ``names`` stands in ``text`` as a whole word followed by the pattern ``after``.

    Only the names that are words of ``text`` (``words``, those of ``text`` or of a text holding it) go into
    the pattern: a project's jitted functions with static arguments are hundreds of names, and one alternation
    of them all made the regex engine try each name at almost every position of every file (on a tree of 134
    libraries as one project, most of the static pass's CPU). The names come first in the pattern, so that the
    engine skips to where one may start (a leading ``\\b`` would make it try every position), and the word's
    start is judged here; a match inside a longer word is passed over, and the search goes on from the next
    position (not from the match's end: a comment the match swallowed is searched too)."""
    wanted = sorted(frozenset(names).intersection(_words(text) if words is None else words))
    if not wanted:
        return False
    pattern = re.compile(r"(?:%s)\b%s" % ("|".join(map(re.escape, wanted)), after))
    match = pattern.search(text)
    while match is not None:
        start = match.start()
        if start == 0 or not (text[start - 1].isalnum() or text[start - 1] == "_"):
            return True
        match = pattern.search(text, start + 1)
    return False


def may_have_sites(source: str, graph_constructors: Iterable[str] = (), jit_wrappers: Iterable[str] = (),
                   hints: Hints | None = None, reach: StaticReach | None = None) -> bool:
    """False when :func:`positive_sites` of ``source`` (a text Python parses) is surely empty, known from the text.

    Every site :meth:`_Judge.positives` reports starts from a name (:func:`_spellings`, the module's aliases of
    one, a jitted function of the run with static arguments) as a call's function, a call's first argument or
    a def's decorator, each a name or an attribute, maybe in brackets. Spelled so, the name is a whole word
    followed (past blanks and comments) by ``(``, ``)`` or ``,``, or it stands in a decorator's line: a text
    where no start does is not parsed again to learn that it has no site. In a text with other than ASCII
    (Python reads an identifier's NFKC form) or with lone carriage returns, the tree decides. ``reach`` (the
    module's :meth:`~jitcheck.lint.index.ProjectIndex.static_reach`, as :func:`positive_sites` is given it) keeps
    of the jitted functions with static arguments only the names the module can reach (:func:`_reachable`)."""
    found = _spellings(source, graph_constructors, jit_wrappers, hints)
    if found is None:
        return False
    if not source.isascii() or source.count("\r") != source.count("\r\n"):
        return True
    named = found[0] | found[1]
    words = _text_words(source)  # a decorator's line holds no word the whole text lacks
    static = hints.static_jitted.intersection(words) if hints is not None else frozenset()
    if static and reach is not None:
        static = _reachable(source, static, reach)
    making = hints.jit_factories.intersection(words) if hints is not None else frozenset()
    methods = hints.jit_methods.intersection(words) if hints is not None else frozenset()
    starts = named | _aliases(source, named) | static | making | methods
    if _as_word(starts, r"(?=" + _TRIVIA + r"[(),])", source, words):
        return True
    return any(_as_word(starts, "", line, words) for line in _DECORATOR_LINE.findall(source))


_GAP = r"(?:[ \t\f]|\\\r?\n)"
"""What may stand between two tokens of one line: blanks and continuations."""
_IMPORT = re.compile(r"import(?<!\wimport)\b")
"""The word ``import`` (the literal first: the engine skips to where it stands)."""
_FROM = re.compile(r"\bfrom%s*+([\w.]*+(?:%s*+[\w.]++)*+)%s*+$" % (_GAP, _GAP, _GAP))
"""``from <module>`` just before an ``import`` (the text of its line up to the keyword), its module's spelling."""
_STATEMENT_START = re.compile(r"(?:^|[;:])%s*+$" % _GAP)
"""Where a statement may start, before an ``import``: a line's start (past blanks), ``;`` or ``:``."""
_STAR = re.compile(r"import(?<!\wimport)%s*+\*" % _GAP)
_BLANKS = re.compile(r"%s*+" % _GAP)
_LOGICAL = re.compile(r"(?:[^\\\r\n;#]|\\\r?\n)*+")
"""The rest of a logical line up to a ``;`` or a comment (continuations included)."""
_ITEM = re.compile(r"\s*(\w+(?:\s*\.\s*\w+)*)(?:\s+as\s+(\w+))?\s*")
_CLASS = re.compile(r"class(?<!\wclass)%s+(\w+)" % _GAP)
_SPACES = re.compile(r"[ \t\f\r\n\\]")
_CONTINUATION = re.compile(r"\\\r?\n")


def _prefixes(source: str, line_start: int, keyword: int, befores: list[str]) -> set[str | None]:
    """How the ``import`` at ``keyword`` may read: ``from``'s module spelled as a prefix of its names (``.m.``), None
    for a plain import; each way its line (and its logical line, if continued) may read (a superset)."""
    while line_start >= 2 and source[line_start - 2] == "\\" or line_start >= 3 and source[line_start - 3:line_start] == "\\\r\n":
        line_start = source.rfind("\n", 0, line_start - 2) + 1
    if line_start < keyword - len(befores[0]):
        befores = [*befores, source[line_start:keyword]]
    prefixes: set[str | None] = set()
    for before in befores:
        origin = _FROM.search(before)
        if origin is not None:
            module = _SPACES.sub("", origin.group(1))
            level = len(module) - len(module.lstrip("."))
            prefixes.add("." * level + (f"{module[level:]}." if module[level:] else ""))
        if _STATEMENT_START.search(before) is not None:
            prefixes.add(None)
    return prefixes


def _import_bindings(source: str) -> dict[str, list[str]] | None:
    """What each name an import of ``source`` binds (anywhere) stands for, spelled as :attr:`_Index.import_targets`
    spells it (``.m.f`` for ``from .m import f``), read from the text: a superset (an ``import`` in a string or a
    comment that reads as a statement adds names). None when the module may take names by ``import *``, or an
    ``import`` where a statement may start does not read as one (then the caller keeps every name)."""
    if _STAR.search(source):
        return None
    bindings: dict[str, list[str]] = {}
    for match in _IMPORT.finditer(source):
        line_start = source.rfind("\n", 0, match.start()) + 1
        befores = [source[line_start:match.start()]]  # its line up to the keyword; and its logical line, if continued
        if not befores[0].strip(" \t\f") and (line_start < 2 or source[line_start - 2] not in "\\\r"):
            prefixes: set[str | None] = {None}  # at a line's start: a plain import (most imports)
        else:
            prefixes = _prefixes(source, line_start, match.start(), befores)
        if not prefixes:
            continue  # not where an import statement's keyword stands
        start = _BLANKS.match(source, match.end()).end()  # type: ignore[union-attr]
        if source.startswith("(", start):
            parts = []  # the bracket's lines, their comments cut (an import holds no string: `#` starts one)
            position = start + 1
            while True:
                end = source.find("\n", position)
                code = source[position:end if end >= 0 else len(source)].split("#", 1)[0]
                close = code.find(")")
                if close >= 0:
                    parts.append(code[:close])
                    break
                parts.append(code)
                if end < 0:
                    return None
                position = end + 1
            body = " ".join(parts)
        else:
            body = _CONTINUATION.sub(" ", _LOGICAL.match(source, start).group())  # type: ignore[union-attr]
        for item in body.split(","):
            if not item.strip():
                continue
            parsed = _ITEM.fullmatch(item)
            if parsed is None:
                return None
            name = "".join(parsed.group(1).split())
            alias = parsed.group(2)
            for prefix in prefixes:
                if prefix is None:
                    local = alias or name.split(".")[0]
                    bindings.setdefault(local, []).append(name if alias else local)
                elif "." in name:
                    return None
                else:
                    bindings.setdefault(alias or name, []).append(prefix + name)
    return bindings


@functools.lru_cache(maxsize=4096)
def _attribute(name: str) -> re.Pattern[str]:
    """``.name`` (past blanks and comments), the dot first: the engine skips to each dot."""
    return re.compile(r"\.%s%s\b" % (_TRIVIA, re.escape(name)))


def _receiver(source: str, dot: int) -> str | None:
    """The name before the dot at ``dot`` (``m`` of ``m.f``); ``""`` when none (``x[0].f``, ``"a".f``: not a name);
    None when unsure (a receiver in brackets, ``(m).f``, or a comment may stand between)."""
    before = source[max(0, dot - 4096):dot]
    code = before.rstrip(" \t\f\r\n\\")
    if "\n" in before[len(code):]:  # across lines (in brackets): a comment may stand between
        line_start = code.rfind("\n")
        if "#" in code[line_start + 1:] or line_start < 0 and len(before) == 4096:
            return None
    if not code or code[-1] == ")":
        return None if code else ""
    end = len(code)
    start = end
    while start > 0 and (code[start - 1].isalnum() or code[start - 1] == "_"):
        start -= 1
    if start == 0 and len(before) == 4096:
        return None
    return code[start:end]


def _reachable(source: str, named: frozenset[str], reach: StaticReach) -> frozenset[str]:
    """The names of ``named`` (jitted functions of the run with static arguments, words of ``source``) that a call
    of ``source``'s module can reach as :meth:`_Judge.static_callee` asks it: the module's own; a name an import
    binds to one (``from .m import f``), or ``builtins``'s; an attribute of a name (``m.f``) where that name is
    one of the run's or an installed module (``m.f``), or imported as one (``import pkg.m as m``), or ``builtins``'s;
    every name where the receiver is in brackets (``(m).f``), the module may take names by ``import *``, or a class
    is named as a module. Read from the text: only the names this cannot keep are no start of the text's test."""
    kept = set(named & reach.own)
    if len(kept) == len(named) or any(reach.is_root(name) for name in frozenset(_CLASS.findall(source))):
        return named
    bindings = _import_bindings(source)
    if bindings is None:
        return named
    for name in named - reach.own:
        if any(reach.static(reach.absolute(target)) for target in bindings.get(name, ())) or reach.static(f"builtins.{name}"):
            kept.add(name)
    for name in named - kept:
        for match in _attribute(name).finditer(source):
            receiver = _receiver(source, match.start())
            if receiver == "":
                continue
            if receiver is None or reach.static(f"{receiver}.{name}") or reach.static(f"builtins.{receiver}.{name}") \
                    or any(reach.static(f"{reach.absolute(target)}.{name}") for target in bindings.get(receiver, ())):
                kept.add(name)
                break
    return frozenset(kept)


def _judge(source: str, graph_constructors: Iterable[str], jit_wrappers: Iterable[str], hints: Hints | None,
           tree: ast.Module | None, reach: StaticReach | None = None) -> _Judge | bool | None:
    """The judge of ``source``; None when no rule can fire by spelling alone, True when Python cannot parse it."""
    found = _spellings(source, graph_constructors, jit_wrappers, hints)
    if found is None:
        return None
    jit_names, graph_names = found
    aliases = _aliases(source, jit_names | graph_names)
    if tree is None:
        tree = python_tree(source)
        if tree is None:
            return True  # let libcst decide, and report
    return _Judge(_Index(tree), jit_names | frozenset(aliases), graph_names | frozenset(aliases), frozenset(jit_wrappers), hints,
                  reach)



def _every_argument(call: ast.Call) -> tuple[frozenset[int], frozenset[str]]:
    """Every position and keyword ``call`` passes, as a static spec: the callee's real one is the analysis's to read."""
    return frozenset(range(len(call.args))), frozenset(k.arg for k in call.keywords if k.arg)


def _annotated_with(function: ast.FunctionDef | ast.AsyncFunctionDef, classes: frozenset[str]) -> bool:
    """True when a parameter's annotation of ``function`` names one of ``classes`` (by last name; in a union, an
    ``Optional`` or a string as well)."""
    for arg in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs):
        if arg.annotation is None:
            continue
        for node in walk(arg.annotation):
            if isinstance(node, ast.Name) and node.id in classes or isinstance(node, ast.Attribute) and node.attr in classes:
                return True
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _words(node.value) & classes:
                return True
    return False


def _returns_name(function: Function | None, name: str) -> bool:
    """True when ``function`` (not a closure in it) has a ``return name`` statement, or returns ``name`` as an item
    of a tuple (``return step, indices``)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Return) and any(isinstance(item, ast.Name) and item.id == name for item in (
                node.value.elts if isinstance(node.value, ast.Tuple) else (node.value,))):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            pending.extend(ast.iter_child_nodes(node))
    return False

__all__ = ["may_have_sites", "positive_sites", "possible"]
