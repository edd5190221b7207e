"""Callers across modules: who calls a function of the run, where, how often, and with what.

A public function whose file shows no repetition may still run again and again: a test
calls it twice, an example calls it in a loop, a driver elsewhere calls it per load step.
Each module's summary records its calls of the run's functions and methods, read with
Python's ``ast`` (:func:`call_records`): the callee as the module spells it (through its
imports, its own definitions, ``self.m(...)``, or a receiver whose class a constructor call
or an annotation in the same function names), the line, the calling function, the loop
the call is in (and whether its items are numbers, other objects, or unknown), which
arguments change from one iteration to the next or read the caller's parameters, the
arguments' text (two calls passing the same text build the same program), and the
``if`` arms around it (two arms of one ``if`` are one run). :func:`call_sites` joins the
records of a run by the function each call reaches (a method through its class's
bases), and :func:`repeated_elsewhere` says whether they show the function running more
than once, and whether each run reads the same arguments: the evidence of a finding
whose own file shows neither.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from jitcheck.lint.astwalk import children, walk
from jitcheck.lint.names import CONSTRUCTOR_METHODS, NOT_LIBRARY, ONCE_FUNCTIONS, class_named
from jitcheck.lint.spelling import annotation_name
from jitcheck.lint.spelling import dotted as _dotted



class ProjectIndex(Protocol):
    """What this module reads of the run's project index (:class:`jitcheck.lint.index.ProjectIndex`, which imports
    this module: the index is described here by its shape, so that the imports run one way)."""

    @property
    def modules(self) -> Mapping[str, Any]: ...

    @property
    def paths(self) -> Mapping[str, str]: ...

    def resolve_in(self, module: str, spelled: str) -> str: ...

    def lookup(self, qualified: str, depth: int = 0) -> tuple[str, str, Any] | None: ...

    def cls(self, qualified: str) -> tuple[str, dict[str, Any]] | None: ...

    def attribute_type(self, qualified_class: str, attr: str, depth: int = 0) -> str | None: ...

    def attribute_default(self, qualified_class: str, attr: str, depth: int = 0) -> str | None: ...

    def returned_class(self, qualified: str) -> str | None: ...

    def call_sites(self) -> dict[str, list[Site]]: ...

    def passes_parameters_on(self, module: str, caller: str) -> bool: ...


def _indexed_module(index: ProjectIndex, qualified: str) -> str | None:
    """The longest prefix of ``qualified`` that names a module of the run, or None."""
    parts = qualified.split(".")
    while parts:
        if ".".join(parts) in index.modules:
            return ".".join(parts)
        parts.pop()
    return None

_EXTERNAL = frozenset({
    "jax", "numpy", "jnp", "np", "scipy", "functools", "itertools", "os", "sys", "math", "time", "typing",
    "collections", "optax", "flax", "equinox", "chex", "haiku", "torch", "tensorflow", "pytest", "absl", "unittest",
    "builtins", "re", "json", "logging", "warnings", "pathlib", "dataclasses", "abc", "copy", "random",
})
"""Top-level packages never part of a run's own code: their calls are not recorded."""

_COMPOUND = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith, ast.Try, ast.Match)
"""Statements with a body: what a test's history keeps of them is their header (their body's statements are walked)."""

_UNKNOWN_CALLER = "?"
"""The caller of a call made in a function whose name the module defines more than once."""
_DATA_CALLS = frozenset({"range", "arange", "linspace", "logspace", "geomspace"})
_PAIRING_CALLS = frozenset({"enumerate", "zip", "reversed", "sorted"})
_MAX_RECORDS = 2048
_ARM_SEPARATOR = ":"


class _Later:
    """A set of names worked out the first time a recorded call reads it: the names a function derives from its
    parameters, those a loop changes. Most functions and loops make no call of the run's, and never need them."""

    __slots__ = ("_make", "_made")

    def __init__(self, make: Callable[[], frozenset[str]]) -> None:
        self._make: Callable[[], frozenset[str]] | None = make
        self._made: frozenset[str] | None = None

    def get(self) -> frozenset[str]:
        if self._made is None:
            assert self._make is not None
            self._made, self._make = self._make(), None
        return self._made


_Loop = tuple[str, int, _Later]
"""The loop around a call: its items' kind, its line, and the names that change from one pass to the next."""
_NO_NAMES = _Later(frozenset)


def _stored_later(nodes: Sequence[ast.AST], outer: _Later | None = None, known: frozenset[str] = frozenset()) -> _Later:
    """The names bound under ``nodes`` (:func:`_names_stored`) with ``known`` and ``outer``'s, when first read."""
    return _Later(lambda: frozenset(_names_stored(nodes)) | known | (outer.get() if outer is not None else frozenset()))


def _configured(body: Sequence[ast.stmt]) -> frozenset[str]:
    """The objects a loop's body sets an attribute or an item of, as its own statement (``self.data_id = i``,
    ``cfg.lr = lr``, ``kwargs["width"] = w``): each pass configures them anew, so what is read from them (a property,
    another attribute, the keywords ``f(**kwargs)`` passes) may change with it."""
    found: set[str] = set()
    for statement in body:
        for node in walk(statement):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):  # not `self.n += 1`: a counter, the state carried
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                        found.add(target.value.id)
                    elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and node.value is not None \
                            and _names_read(node.value) | _names_read(target.slice):
                        found.add(target.value.id)  # (an item set to a constant on each pass is the same each pass)
    return frozenset(found)


def _names_read(node: ast.AST | None) -> set[str]:
    if node is None:
        return set()
    if type(node) is ast.Name:  # most arguments and values: a walk of one node finds itself
        return {node.id}
    if type(node) is ast.Constant:
        return set()
    return {n.id for n in walk(node) if isinstance(n, ast.Name)}


def _names_stored(nodes: Iterable[ast.AST]) -> set[str]:
    """The names bound under ``nodes``: assigned, and defined by a ``def`` or ``class`` (a new one each time)."""
    found: set[str] = set()
    for node in nodes:
        if type(node) is ast.Name:  # most targets (`x = ...`): a walk of one node finds itself
            if isinstance(node.ctx, ast.Store):
                found.add(node.id)
            continue
        for inner in walk(node):
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
                found.add(inner.id)
            elif isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.add(inner.name)
    return found


def _changed(node: ast.stmt) -> frozenset[str]:
    """The names a statement binds or changes: its targets (``x = ...``, ``x.a = ...``, ``x[i] += ...``, a ``for``
    or ``with`` target), and the receiver of a method called as a statement (``cc.add_view(...)``)."""
    targets: list[ast.AST] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
        targets = [node.target]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute):
        targets = [node.value.func.value]
    found: set[str] = set()
    for target in targets:
        target = _base(target)
        if isinstance(target, ast.Name):
            found.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            found |= _names_stored(target.elts)
            found |= {base.id for element in target.elts for base in [_base(element)] if isinstance(base, ast.Name)}
    return frozenset(found)


def _base(node: ast.AST) -> ast.AST:
    """What an attribute, item or starred target changes: ``x`` of ``x.a``, ``x[i]``, ``*x``."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node


def _as_list(value: object) -> list[object]:
    return value if isinstance(value, list) else [value]


def _number(node: ast.expr) -> bool:
    inner = node.operand if isinstance(node, ast.UnaryOp) else node
    return isinstance(inner, ast.Constant) and isinstance(inner.value, (int, float)) and not isinstance(inner.value, bool)


def items_kind(iterable: ast.expr | None, depth: int = 0) -> str:
    """``"numbers"`` (a range, an ``arange``/``linspace``, a literal holding a float), ``"objects"`` (a literal of
    strings, names, calls: a different thing each pass) or ``"unknown"``: the rule of :mod:`.sameness`, on ``ast``."""
    if iterable is None or depth > 3:
        return "unknown"
    if isinstance(iterable, ast.Call):
        last = (_dotted(iterable.func) or "").rsplit(".", 1)[-1]
        if last in _DATA_CALLS:
            return "numbers"
        if last in _PAIRING_CALLS and iterable.args:
            kinds = {items_kind(arg, depth + 1) for arg in iterable.args}
            return "objects" if "objects" in kinds else ("numbers" if kinds == {"numbers"} else "unknown")
        return "unknown"
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
        items = [e for e in iterable.elts if not isinstance(e, ast.Starred)]
        if not items:
            return "unknown"
        if all(_number(item) for item in items):
            inner = [i.operand if isinstance(i, ast.UnaryOp) else i for i in items]
            floats = any(isinstance(i, ast.Constant) and isinstance(i.value, float) for i in inner)
            return "numbers" if floats else "unknown"
        return "objects"
    return "unknown"


_KEY_SPLITS = frozenset({"split", "fold_in"})


def _stepped(body: Sequence[ast.stmt], randoms: frozenset[str]) -> frozenset[str]:
    """The names a loop body binds only as a counter (``i += 1``) or as PRNG keys split from a key
    (``key, sub = jax.random.split(key)``, ``jax.random.fold_in``; ``randoms`` are the module's spellings of
    ``jax.random``): data of one shape on every pass, like the state the loop carries, not a new configuration."""
    kinds: dict[str, set[str]] = {}
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            kinds.setdefault(node.name, set()).add("other")  # a new function or class on each pass
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            counter = isinstance(node.value, ast.Constant) and isinstance(node.value.value, int) \
                and not isinstance(node.value.value, bool)
            kinds.setdefault(node.target.id, set()).add("counter" if counter else "other")
        elif isinstance(node, ast.Assign):
            func = node.value.func if isinstance(node.value, ast.Call) else None
            spelled = _dotted(func) if isinstance(func, ast.Attribute) else None
            prefix, _, last = (spelled or "").rpartition(".")
            kind = "key" if last in _KEY_SPLITS and prefix in randoms else "other"
            for name in _names_stored(node.targets):
                kinds.setdefault(name, set()).add(kind)
        elif isinstance(node, (ast.AnnAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr)):
            bound = [node.target] if isinstance(node, (ast.AnnAssign, ast.For, ast.AsyncFor, ast.NamedExpr)) else \
                [i.optional_vars for i in node.items if i.optional_vars is not None]
            for name in _names_stored(bound):
                kinds.setdefault(name, set()).add("other")
        pending.extend(children(node))
    return frozenset(name for name, found in kinds.items() if found <= {"counter", "key"})


_MASK_CALLS = frozenset({"isin", "logical_and", "logical_or", "logical_not", "logical_xor", "isfinite", "isnan",
                         "isinf", "flatnonzero", "nonzero", "argwhere"})
"""Calls whose result selects a data-dependent number of items when it indexes an array: boolean masks, and the
index arrays made from them."""
_KEEPING_CALLS = frozenset({"asarray", "array", "astype", "copy", "ravel", "flatten", "squeeze", "ascontiguousarray"})
"""Calls that keep the items of what they are handed (their number included)."""


def _mask(node: ast.expr, masks: set[str]) -> bool:
    """A boolean mask or the indices of one: a comparison, ``&``/``|``/``~`` of masks, a mask call (``np.isin``), or
    a name in ``masks``."""
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.Name):
        return node.id in masks
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return _mask(node.left, masks) or _mask(node.right, masks)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return _mask(node.operand, masks)
    if isinstance(node, ast.Call):
        return _called_name(node.func) in _MASK_CALLS
    return False


def _called_name(func: ast.expr) -> str:
    """The last name of a callee (``np.isin`` -> ``isin``, ``x.astype`` -> ``astype``), "" when it has none."""
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _selection(node: ast.expr, masks: set[str], selected: set[str]) -> bool:
    """An array indexed by a mask (``mem["FLUX"][msel][:, bands]``), as it is or through calls that keep its items,
    or a name in ``selected``: its size depends on the data."""
    while True:
        if isinstance(node, ast.Name):
            return node.id in selected
        if isinstance(node, ast.Call):
            func = node.func
            if _called_name(func) not in _KEEPING_CALLS:
                return False
            node = func.value if isinstance(func, ast.Attribute) and not node.args else node.args[0] if node.args else func
            continue
        if isinstance(node, ast.Subscript):
            index = node.slice
            if any(_mask(part, masks) for part in (index.elts if isinstance(index, ast.Tuple) else [index])):
                return True
            node = node.value
            continue
        return False


def selected_names(body: Sequence[ast.stmt]) -> frozenset[str]:
    """The names a loop body binds to an array selected by a mask it computes (``msel = np.isin(...)``, then
    ``mz = mem["Z"][msel]``): an array whose size may change from one pass to the next."""
    assigns = [node for statement in body for node in walk(statement) if isinstance(node, ast.Assign)]
    masks: set[str] = set()
    selected: set[str] = set()
    for _ in range(3):
        before = len(masks) + len(selected)
        for node in assigns:
            names = {t.id for t in node.targets if isinstance(t, ast.Name)}
            if _mask(node.value, masks):
                masks |= names
            elif _selection(node.value, masks, selected):
                selected |= names
        if len(masks) + len(selected) == before:
            break
    return frozenset(selected)


_SIMPLE_CONSTANTS = (int, bool, type(None))


def unparsed(node: ast.expr) -> str:
    """``ast.unparse(node)``: a name, a dotted name of names, an int, a bool or None (most of the arguments a call
    record writes out) spelled here as it spells them, without building its unparser for each."""
    if type(node) is ast.Name:
        return node.id
    if type(node) is ast.Attribute:
        parts = [node.attr]
        inner = node.value
        while type(inner) is ast.Attribute:
            parts.append(inner.attr)
            inner = inner.value
        if type(inner) is ast.Name:
            parts.append(inner.id)
            return ".".join(reversed(parts))
    elif type(node) is ast.Constant and type(node.value) in _SIMPLE_CONSTANTS and node.kind is None:
        return repr(node.value)
    return ast.unparse(node)


class _Recorder:
    """Walks one module's statements, recording its calls of names that may be the run's (see :func:`call_records`)."""

    def __init__(self, imports: Mapping[str, str], defined: set[str], classes: Mapping[str, set[str]],
                 walks: Mapping[int, list[ast.AST]] | None = None) -> None:
        self.walks: Mapping[int, list[ast.AST]] = walks or {}
        """The ``walk`` of defs already walked for the module's summary, by ``id``."""
        self.randoms = frozenset({"jax.random"} | {local for local, target in imports.items() if target == "jax.random"})
        """How the module spells ``jax.random`` (``jr``, ``random``)."""
        self.stepped: dict[int, _Later] = {}
        """For each outermost loop walked (by line): the names its body binds only as a counter or as PRNG keys
        (:func:`_stepped`), worked out when a recorded call first needs them."""
        self.selected: dict[int, _Later] = {}
        """For each outermost loop walked (by line): the names its body binds to arrays selected by a mask it
        computes (:func:`selected_names`), worked out when a recorded call first needs them."""
        self.heads = {local for local, target in imports.items() if target.lstrip(".").split(".", 1)[0] not in _EXTERNAL}
        self.defined = defined
        self.classes = classes
        self.records: list[list[Any]] = []
        self.versions: dict[str, int] = {}
        """How many times each name has been bound so far in the function walked: an argument's text carries the
        versions of the names it reads, so ``svi.run(k)`` twice with ``svi`` rebound between is two texts."""
        self.local_classes: dict[str, tuple[str, frozenset[str]]] = {}
        """Classes defined in the function walked: each one's base as the module spells it (one of the run's
        classes) and the methods it defines itself. An instance runs the base's methods it does not override."""
        self.overridden: dict[str, frozenset[str]] = {}
        """For a name holding an instance of a local class: the methods its own class defines (not the base's)."""
        self.history: list[tuple[frozenset[str], frozenset[str], list[ast.AST]]] | None = None
        """In a test function: the statements walked so far (for a compound one, its header), each with the names it
        binds or changes and the names it reads, to say how a test builds what it passes (:meth:`built`). None
        elsewhere."""
        self.test_params: frozenset[str] = frozenset()
        """The test function's parameters (fixtures, ``parametrize`` values) and decorators' texts."""
        self.decorators: tuple[str, ...] = ()
        self._texts: dict[int, str] = {}
        self.nested: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        """The functions the function walked defines directly (not traced ones), by name."""
        self.nested_loops: dict[str, tuple[_Loop, tuple[str, ...]]] = {}
        """For each of those its function calls in a loop: the first such loop, and the branches around the call."""
        self.aliases: dict[str, str] = {}
        """Local names bound to a function of the run in the function walked (``f = helper``), as it is spelled."""
        self.handed: set[int] = set()
        """The calls (by ``id``) walked since the last :meth:`settle` whose result is called at once or handed to a call."""
        self.name_uses: tuple[set[str], set[str]] = (set(), set())
        """The names called or handed to a call since the last :meth:`settle`: outside any loop, and in one."""
        self.pending: list[tuple[list[Any], list[str] | None, bool]] = []
        """Records whose product may be used where it is made (:meth:`settle` decides): the record, the names its
        result is bound to (None: called at once or handed to a call), and whether it is made in a loop."""
        self.binding: tuple[int, list[str], bool] | None = None
        """The call of the statement walked whose result the statement binds to names (by ``id``), those names, and
        whether the statement is in a loop."""
        self.own_defs: set[str] = set()
        """The functions defined by the code walked since the last :meth:`settle`, by name."""
        self.returns_own = False
        """Whether the code walked since the last :meth:`settle` returns a lambda or a function it defines (a factory
        of factories keeps what it builds in its own product: nothing it makes is used where it is made)."""
        self.carried: set[str] = set()
        """The names the statement walked binds (``x = self.step(x)``): an argument of its call that reads only
        them, changing in a loop, is the loop's carried state (same shapes each pass), not a new configuration."""

    def callee(self, func: ast.expr, types: Mapping[str, str], self_name: str | None, cls: str | None) -> str | None:
        """The callee as the module spells it, when it may be a function or method of the run."""
        if isinstance(func, ast.Name):
            if func.id in self.aliases:
                return self.aliases[func.id]  # `f = helper` above: a call of `f` is a call of `helper`
            return func.id if func.id in self.heads or func.id in self.defined else None
        if not isinstance(func, ast.Attribute):
            return None
        if isinstance(func.value, ast.Call):  # `Cls(...).method(...)`
            made = self.callee(func.value.func, types, self_name, cls)
            return f"{made}.{func.attr}" if made is not None else None
        spelled = _dotted(func)
        if spelled is None:
            return None
        head, _, rest = spelled.partition(".")
        if head == self_name and cls is not None and rest.count(".") <= 1:
            return f"{cls}.{rest}"  # `self.m(...)`, or `self.solver.solve(...)` through the attribute's class
        if head in types and "." not in rest:
            return f"{types[head]}.{rest}" if rest not in self.overridden.get(head, ()) else None
        if head in self.heads or head in self.defined:
            return spelled
        return None

    def module(self, tree: ast.Module) -> list[list[Any]]:
        types: dict[str, str] = {}
        for statement in tree.body:
            # Settled statement by statement, as the editor summarizes a module: a product one top-level statement
            # makes and another uses is built once per run of the module anyway.
            self.statement(statement, "", _NO_NAMES, types, None, None, None, ())
            self.settle()
        named: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str, str | None]] = []
        for statement in tree.body:
            if isinstance(statement, ast.ClassDef):
                named += [(inner, f"{statement.name}.{inner.name}", statement.name) for inner in statement.body
                          if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef))]
            elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                named.append((statement, statement.name, None))
        seen = [name for _, name, _ in named]
        for node, name, cls in named:
            # A name defined twice (two notebook cells, a redefinition) is two functions: which one a call reaches
            # depends on where it is made, so their calls are recorded under no caller a chain could follow.
            self.function(node, name if seen.count(name) == 1 else _UNKNOWN_CALLER, cls)
        return self.records

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, caller: str, cls: str | None) -> None:
        if any(_traces(d) for d in node.decorator_list):
            return  # it runs only while it is traced: what it calls is inlined there, and compiles nothing of its own
        args = node.args
        params = [a for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        self_name = params[0].arg if cls is not None and params and not any(
            (_dotted(d) or "").endswith("staticmethod") for d in node.decorator_list) else None
        types: dict[str, str] = {}
        for param in params:
            annotated = annotation_name(param.annotation)
            if annotated is not None and annotated.split(".", 1)[0] in (self.heads | self.defined):
                types[param.arg] = annotated
        names = {p.arg for p in params} | {a.arg for a in (args.vararg, args.kwarg) if a is not None}
        names.discard(self_name or "")
        self.versions = {}
        self.aliases = {}
        self.local_classes = {}
        self.overridden = {}
        testing = caller.rsplit(".", 1)[-1].startswith("test")
        self.history = [] if testing else None
        self._texts = {}
        self.test_params = frozenset(names) if testing else frozenset()
        self.decorators = tuple(ast.unparse(d) for d in node.decorator_list) if testing else ()
        self.nested = {s.name: s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                       and not any(_traces(d) for d in s.decorator_list)}
        self.nested_loops = {}
        walked = self.walks.get(id(node))
        derived = _Later(lambda: frozenset(_derived(node, names, walked)))
        self.body(node.body, caller, derived, types, self_name, cls, None, ())
        self.history = None
        # A helper the function defines and calls in a loop (`def go(x): return lib.f(x)`, then `for x in xs: go(x)`)
        # runs on every pass: its calls are the function's, made in that loop, its parameters changing with it.
        for name, (loop, arms) in list(self.nested_loops.items()):
            inner = self.nested.pop(name)
            own = {a.arg for a in (*inner.args.posonlyargs, *inner.args.args, *inner.args.kwonlyargs)}
            self.body(inner.body, caller, _stored_later((), derived, frozenset(own)), dict(types), self_name, cls,
                      (loop[0], loop[1], _stored_later((), loop[2], frozenset(own))), arms)
        self.settle()

    def settle(self) -> None:
        """Marks (``~used=1``) the records, made since the last call, of calls whose result the code walked uses where
        it makes it, as a factory's product is when it is rebuilt on every run of that code: called at once
        (``make(...)(x)``), handed to a call (``minimize(make(), x0)``), or bound to names (``f, g = make(y)``) that
        the code calls or hands to a call (in a loop only when it is built in one). A product built before a loop and
        used only in it serves every pass of that loop (a driver's one build), one stored in an attribute or an item,
        or handed to a constructor, is kept, and one returned is judged where the function returning it is called:
        none is marked."""
        if not self.returns_own:
            outside, inside = self.name_uses
            for record, bound, looped in self.pending:
                if bound is None or outside.intersection(bound) or looped and inside.intersection(bound):
                    record[6].append("~used=1")
        self.handed = set()
        self.name_uses = (set(), set())
        self.pending = []
        self.own_defs = set()
        self.returns_own = False

    def local_class(self, node: ast.ClassDef, types: Mapping[str, str], self_name: str | None, cls: str | None) -> None:
        """Note a class defined in a function when one of its bases is the run's (the first such base is kept:
        a method it does not define itself is looked for there)."""
        self.local_classes.pop(node.name, None)
        for base in node.bases:
            spelled = self.callee(base, types, self_name, cls)
            if spelled is not None:
                own = frozenset(item.name for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)))
                self.local_classes[node.name] = (spelled, own)
                return

    def body(self, statements: Sequence[ast.stmt], caller: str, params: _Later, types: dict[str, str],
             self_name: str | None, cls: str | None, loop: _Loop | None,
             arms: tuple[str, ...]) -> None:
        for statement in statements:
            self.statement(statement, caller, params, types, self_name, cls, loop, arms)

    def statement(self, node: ast.stmt, caller: str, params: _Later, types: dict[str, str], self_name: str | None,
                  cls: str | None, loop: _Loop | None, arms: tuple[str, ...]) -> None:
        if self.history is not None and isinstance(node, _COMPOUND):
            header = [h for field in ("target", "iter", "test", "items", "subject")
                      for h in _as_list(getattr(node, field, None)) if isinstance(h, ast.AST)]
            self.history.append((_changed(node), frozenset(n for h in header for n in _names_read(h)), header))
        self.carried = _names_stored(node.targets if isinstance(node, ast.Assign) else [node.target]) \
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) else set()
        self.binding = None
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            items = targets[0].elts if len(targets) == 1 and isinstance(targets[0], (ast.Tuple, ast.List)) else targets
            if len(targets) == 1 and all(isinstance(item, ast.Name) for item in items):
                self.binding = (id(node.value), [item.id for item in items if isinstance(item, ast.Name)], loop is not None)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.own_defs.add(node.name)
        elif isinstance(node, ast.Return) and node.value is not None:
            returned = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            self.returns_own |= any(isinstance(item, ast.Lambda) or isinstance(item, ast.Name) and item.id in self.own_defs
                                    for item in returned)
        self.walked(node, caller, params, types, self_name, cls, loop, arms)
        self.binding = None
        self.carried = set()
        if self.history is not None and not isinstance(node, (*_COMPOUND, ast.FunctionDef, ast.AsyncFunctionDef,
                                                               ast.ClassDef)):
            self.history.append((_changed(node), frozenset(_names_read(node)), [node]))

    def built(self, read: set[str]) -> str:
        """In a test function, how the names ``read`` were built before this point: the texts of the statements
        that bind or change them (walked back through every name those statements read), and the test's decorators
        when a parameter is among them. Two tests passing ``cc`` pass the same thing only when they build ``cc`` alike
        (one test's ``CrossCoder(nn=8)``, another's ``CrossCoder(nn=10)`` are two computations). "" elsewhere."""
        if self.history is None:
            return ""
        tracked = set(read)
        texts: list[str] = []
        for changed, names, nodes in reversed(self.history):
            if changed & tracked:
                tracked |= names
                texts.append(";".join(self.unparsed(n) for n in nodes))
        if tracked & self.test_params:
            texts += self.decorators
            texts.append("(" + ",".join(sorted(tracked & self.test_params)) + ")")
        return hashlib.sha1("\n".join(texts).encode()).hexdigest()[:12] if texts else ""

    def unparsed(self, node: ast.AST) -> str:
        """``ast.unparse(node)``, made once per node of the function walked."""
        text = self._texts.get(id(node))
        if text is None:
            text = self._texts[id(node)] = ast.unparse(node)
        return text

    def walked(self, node: ast.stmt, caller: str, params: _Later, types: dict[str, str], self_name: str | None,
               cls: str | None, loop: _Loop | None, arms: tuple[str, ...]) -> None:
        if isinstance(node, ast.ClassDef) and caller:
            self.local_class(node, types, self_name, cls)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return  # their own bodies run when they are called (top-level ones are walked apart)
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            changing = _stored_later([*([node.target] if isinstance(node, (ast.For, ast.AsyncFor)) else []), *node.body],
                                     loop[2] if loop is not None else None, _configured(node.body))
            kind = items_kind(node.iter) if isinstance(node, (ast.For, ast.AsyncFor)) else "unknown"
            if loop is None:
                body, randoms = node.body, self.randoms
                self.stepped[node.lineno] = _Later(lambda: _stepped(body, randoms))
                self.selected[node.lineno] = _Later(lambda: selected_names(body))
            if isinstance(node, (ast.For, ast.AsyncFor)):
                self.expressions(node.iter, caller, params, types, self_name, cls, loop, arms)
                if _one_item(node.iter) or retries(node):  # runs its body once, as collect.py reads it
                    self.body(node.body, caller, params, types, self_name, cls, loop, arms)
                    self.body(node.orelse, caller, params, types, self_name, cls, loop, arms)
                    return
            else:
                if retries(node):  # a retry after a failure: one pass when it succeeds, as collect.py reads it
                    self.expressions(node.test, caller, params, types, self_name, cls, loop, arms)
                    self.body(node.body, caller, params, types, self_name, cls, loop, arms)
                    self.body(node.orelse, caller, params, types, self_name, cls, loop, arms)
                    return
                self.expressions(node.test, caller, params, types, self_name, cls, (kind, node.lineno, changing),
                                 arms)
            inner = (kind, node.lineno, changing) if loop is None else (
                loop[0] if loop[0] != "numbers" else kind, loop[1], changing)
            self.body(node.body, caller, params, types, self_name, cls, inner, arms)
            self.body(node.orelse, caller, params, types, self_name, cls, loop, arms)
            return
        if isinstance(node, ast.If):
            self.expressions(node.test, caller, params, types, self_name, cls, loop, arms)
            self.body(node.body, caller, params, types, self_name, cls, loop, (*arms, f"{node.lineno}{_ARM_SEPARATOR}0"))
            self.body(node.orelse, caller, params, types, self_name, cls, loop, (*arms, f"{node.lineno}{_ARM_SEPARATOR}1"))
            return
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            bound = [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)) else \
                node.targets if isinstance(node, ast.Assign) else [i.optional_vars for i in node.items if i.optional_vars]
            for name in _names_stored(bound):
                self.versions[name] = self.versions.get(name, 0) + 1
                self.aliases.pop(name, None)  # bound again (`for f in fns:`): no longer the alias, unless set below
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            value = node.value
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            made: str | None = None
            if isinstance(node, ast.AnnAssign):
                made = annotation_name(node.annotation)
                if made is not None and made.split(".", 1)[0] not in (self.heads | self.defined):
                    made = None
            overridden: frozenset[str] = frozenset()
            if made is None and isinstance(value, ast.Call):
                local = self.local_classes.get(value.func.id) if isinstance(value.func, ast.Name) else None
                if local is not None:
                    made, overridden = local  # an instance of a class defined here: its base's methods
                else:
                    made = self.callee(value.func, types, self_name, cls)
            alias = self.callee(value, types, self_name, cls) if isinstance(value, (ast.Name, ast.Attribute)) \
                and len(targets) == 1 else None
            for target in targets:
                if isinstance(target, ast.Name):
                    self.aliases.pop(target.id, None)
                    if alias is not None:
                        self.aliases[target.id] = alias
                    self.overridden.pop(target.id, None)
                    if made is not None:
                        types[target.id] = made
                        if overridden:
                            self.overridden[target.id] = overridden
                    else:
                        types.pop(target.id, None)
        blocks = [getattr(node, field, None) for field in ("body", "orelse", "finalbody")]
        nested = [child for block in blocks if isinstance(block, list) for child in block if isinstance(child, ast.stmt)]
        if nested:
            for field in ("items", "test", "subject"):
                held = getattr(node, field, None)
                for item in held if isinstance(held, list) else [held]:
                    if isinstance(item, ast.AST):
                        self.expressions(item, caller, params, types, self_name, cls, loop, arms)
            self.body(nested, caller, params, types, self_name, cls, loop, arms)
            for handler in getattr(node, "handlers", ()) or ():
                self.body(handler.body, caller, params, types, self_name, cls, loop, arms)
            for case in getattr(node, "cases", ()) or ():
                self.body(case.body, caller, params, types, self_name, cls, loop, (*arms, f"{node.lineno}{_ARM_SEPARATOR}{case.pattern.lineno}"))
            return
        self.expressions(node, caller, params, types, self_name, cls, loop, arms)

    def expressions(self, node: ast.AST, caller: str, params: _Later, types: Mapping[str, str], self_name: str | None,
                    cls: str | None, loop: _Loop | None, arms: tuple[str, ...]) -> None:
        stack: list[tuple[ast.AST, _Loop | None]] = [(node, loop)]
        push = stack.append
        while stack and len(self.records) < _MAX_RECORDS:
            current, around = stack.pop()
            kind = type(current)
            if kind is ast.Name or kind is ast.Constant:
                continue  # a leaf: no children (the commonest nodes of an expression)
            if kind not in _EXPRESSIONS_HANDLED:  # neither a call, a lambda nor a comprehension: its children
                for child in children(current):
                    push((child, around))
                continue
            if isinstance(current, ast.Lambda):
                continue  # runs when it is called, maybe under a transformation: not a call of this code
            if isinstance(current, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                first = current.generators[0]
                stack.append((first.iter, around))
                if len(current.generators) == 1 and not first.ifs and _one_item(first.iter):
                    # `[f(t) for t in [0.5]]`: the element is evaluated once, as collect.py reads it
                    parts = [current.key, current.value] if isinstance(current, ast.DictComp) else [current.elt]
                    stack += [(part, around) for part in (*parts, first.target)]
                    continue
                inner = (items_kind(first.iter) if around is None else around[0], getattr(current, "lineno", 0),
                         _stored_later([g.target for g in current.generators], around[2] if around is not None else None))
                if isinstance(current, ast.DictComp):
                    stack += [(current.key, inner), (current.value, inner)]
                else:
                    stack.append((current.elt, inner))
                for generator in current.generators:
                    stack += [(node, inner) for node in (generator.target, *generator.ifs)]
                    if generator is not first:
                        stack.append((generator.iter, inner))  # the first iterable is evaluated once, before the loop
                continue
            if isinstance(current, ast.Call):
                self.note_uses(current, around is not None)
                self.record(current, caller, params, types, self_name, cls, around, arms)
                mapped = self.mapped(current, around)
                if mapped is not None:
                    self.record(mapped[0], caller, params, types, self_name, cls, mapped[1], arms)
            stack.extend((child, around) for child in children(current))

    def note_uses(self, call: ast.Call, looped: bool) -> None:
        """Notes what ``call`` uses where it stands: a call whose result it calls or is handed (:attr:`handed`), and the
        names it calls or is handed (:attr:`name_uses`, in a loop or not)."""
        names = self.name_uses[1] if looped else self.name_uses[0]
        func = call.func
        if isinstance(func, ast.Call):
            self.handed.add(id(func))
        elif isinstance(func, ast.Name):
            names.add(func.id)
        last = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if last in CONSTRUCTOR_METHODS or class_named(last):
            return  # handed to a constructor (`Model(step)`, `super().__init__(solver=s)`): kept by the object it builds
        for value in (*call.args, *(k.value for k in call.keywords)):
            value = value.value if isinstance(value, ast.Starred) else value
            if isinstance(value, ast.Call):
                self.handed.add(id(value))
            elif isinstance(value, ast.Name):
                names.add(value.id)

    def mapped(self, call: ast.Call, around: _Loop | None
               ) -> tuple[ast.Call, _Loop] | None:
        """``map(f, xs)`` (the builtin, not shadowed here) calls ``f`` once per item, as ``[f(x) for x in xs]`` does:
        that call, made up (``f(<item>)``, the item changing), and the loop it is made in."""
        if not (isinstance(call.func, ast.Name) and call.func.id == "map" and "map" not in self.heads | self.defined
                and len(call.args) == 2 and not call.keywords and not any(isinstance(a, ast.Starred) for a in call.args)):
            return None
        item = ast.Name(id="<item>", ctx=ast.Load())
        made = ast.Call(func=call.args[0], args=[item], keywords=[], lineno=call.lineno, col_offset=call.col_offset)
        changing = _stored_later((), around[2] if around is not None else None, frozenset({"<item>"}))
        return made, (items_kind(call.args[1]) if around is None else around[0], call.lineno, changing)

    def record(self, call: ast.Call, caller: str, params: _Later, types: Mapping[str, str], self_name: str | None,
               cls: str | None, loop: _Loop | None, arms: tuple[str, ...]) -> None:
        if loop is not None and isinstance(call.func, ast.Name) and call.func.id in self.nested:
            self.nested_loops.setdefault(call.func.id, (loop, arms))
        spelled = self.callee(call.func, types, self_name, cls)
        if spelled is None:
            return
        changing = (loop[2] if loop is not None else _NO_NAMES).get()
        varying: list[str] = []
        reading: list[str] = []
        texts: list[str] = []
        arguments: list[tuple[str, ast.expr]] = [(str(i), a) for i, a in enumerate(call.args)]
        arguments += [(k.arg or "*", k.value) for k in call.keywords]  # `**kwargs`: any keyword, unknown
        if isinstance(call.func, ast.Attribute) and not (isinstance(call.func.value, ast.Name)
                                                          and call.func.value.id in self.heads | self.defined):
            arguments.append(("self", call.func.value))  # the receiver of a method call
        read_by_all: set[str] = set()
        for key, value in arguments:
            if any(isinstance(a, ast.Starred) for a in call.args) and key != "self":
                key = "*"
            read = _names_read(value)
            read_by_all |= read
            if read & changing:
                varying.append(key)
                later = self.stepped.get(loop[1]) if loop is not None else None
                if read & changing <= self.carried or (later is not None and read & changing <= self.carried | later.get()):
                    texts.append(f"~carried={key}")
                chosen = self.selected.get(loop[1]) if loop is not None else None
                if chosen is not None and read & changing & chosen.get():
                    texts.append(f"~sized={key}")
            if read & params.get():
                reading.append(key)
            versions = ",".join(f"{n}#{self.versions[n]}" for n in sorted(read) if self.versions.get(n, 0) > 1)
            texts.append(f"{key}={unparsed(value)}"[:200] + (f"@{versions}" if versions else ""))
        if self.history is not None:
            built = self.built(read_by_all)
            if built:
                texts.append(f"~built={built}")
            receiver = next((value for key, value in arguments if key == "self"), None)
            if receiver is not None and any(_names_read(receiver) & changed and any(isinstance(n, ast.Call)
                                                                                    for node in nodes for n in walk(node))
                                            for changed, _, nodes in self.history):
                texts.append("~fresh=self")  # a receiver this test builds (`m = Model(...)`): another object in each test
        row = [spelled, call.lineno, caller, [loop[0], loop[1]] if loop is not None else None,
               sorted(set(varying)), sorted(set(reading)), texts, list(arms)]
        self.records.append(row)
        # Whether its result (a factory's product) is used where it is made: decided by `settle`, once the code using
        # it has been walked.
        if id(call) in self.handed:
            self.pending.append((row, None, False))
        elif self.binding is not None and self.binding[0] == id(call):
            self.pending.append((row, self.binding[1], self.binding[2]))


_EXPRESSIONS_HANDLED = frozenset({ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Call})
"""The node types :meth:`_Recorder.expressions` does more with than walk their children (exact types: Python's parser
makes no subclasses)."""

_TRACING_LAST = frozenset({
    "jit", "pmap", "pjit", "filter_jit", "filter_pmap", "vmap", "filter_vmap", "grad", "value_and_grad", "filter_grad",
    "filter_value_and_grad", "jacfwd", "jacrev", "hessian", "checkpoint", "remat", "filter_checkpoint", "custom_jvp",
    "custom_vjp", "shard_map", "checkify", "named_call",
})


def _traces(decorator: ast.expr) -> bool:
    """A decorator that jits or transforms its function (``@jax.jit``, ``@partial(jax.jit, ...)``, ``@jax.vmap``)."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    last = (_dotted(target) or "").rsplit(".", 1)[-1]
    if last in ("partial", "Partial") and isinstance(decorator, ast.Call) and decorator.args:
        last = (_dotted(decorator.args[0]) or "").rsplit(".", 1)[-1]
    return last in _TRACING_LAST


def _derived(function: ast.FunctionDef | ast.AsyncFunctionDef, params: set[str],
             nodes: list[ast.AST] | None = None) -> set[str]:
    """``params`` and the names the function assigns from them, transitively (two passes over its assignments):
    what may differ from one call of the function to the next (``nodes``: the function's ``walk``, when made)."""
    found = set(params)
    if not found:
        return found  # nothing derives from no parameter
    assignments = [n for n in (walk(function) if nodes is None else nodes) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr))
                   and n.value is not None]
    read = [_names_read(node.value) for node in assignments]  # read once, for both passes
    for _ in range(2):
        for node, names in zip(assignments, read):
            if names & found:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found |= _names_stored(targets)
    return found


def call_records(tree: ast.Module, imports: Mapping[str, str],
                 walks: Mapping[int, list[ast.AST]] | None = None) -> list[list[Any]]:
    """The calls a module makes of functions and methods that may be the run's (its imports of packages other
    than well-known ones, its own definitions), one row each: ``[callee as spelled here, line, calling function
    ("" at module level, "f", "Cls.m"), [items kind, line] of the loop around it or None, the argument keys that
    change in that loop, those that read the caller's parameters, the arguments' text, the if arms around it]``.
    Calls in nested functions and lambdas are not recorded (they run when those are called). ``walks``: the
    ``walk`` of some of the module's defs already made (by ``id``), read instead of walking them again."""
    defined: set[str] = set()
    classes: dict[str, set[str]] = {}
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defined.add(statement.name)
        elif isinstance(statement, ast.ClassDef):
            defined.add(statement.name)
            classes[statement.name] = {s.name for s in statement.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return _Recorder(imports, defined, classes, walks).module(tree)


# -- joining the records of a run ----------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Site:
    """One call of a function of the run, as another (or the same) module's summary records it."""

    module: str
    line: int
    caller: str
    loop_kind: str | None
    loop_line: int
    varying: tuple[str, ...]
    reading: tuple[str, ...]
    texts: tuple[str, ...]
    arms: tuple[str, ...]

    def exclusive(self, other: Site) -> bool:
        """Two calls in the arms of one ``if`` of the same caller: one run, not two."""
        if self.module != other.module or self.caller != other.caller:
            return False
        mine = dict(a.split(_ARM_SEPARATOR, 1) for a in self.arms)
        return any(line in mine and mine[line] != arm for line, arm in (a.split(_ARM_SEPARATOR, 1) for a in other.arms))

    def text(self, key: str) -> str | None:
        for text in self.texts:
            name, _, value = text.partition("=")
            if name == key:
                return value
        return None


def reached(index: ProjectIndex, module: str, spelled: str) -> str | None:
    """The qualified function or method a call spelled ``spelled`` in ``module`` reaches (a method: on the class
    that defines it, through the bases), or None when it is not the run's."""
    qualified = index.resolve_in(module, spelled)
    if _indexed_module(index, qualified) is None:
        return None
    found = index.lookup(qualified)
    if found is not None:
        if found[1] in found[2]["functions"]:
            return f"{found[0]}.{found[1]}"
        if found[1] in found[2]["classes"]:
            return None  # a constructor call
    owner, _, method = qualified.rpartition(".")
    held = index.cls(owner)
    if held is None and index.cls(owner.rpartition(".")[0]) is not None:
        holder, _, attr = owner.rpartition(".")
        typed = index.attribute_type(holder, attr)  # `self.solver.solve(...)`
        held = index.cls(typed) if typed is not None else None
        if held is None or _defining(index, held, method, 0) is None:
            # the declared class (`self.solver: Base = solver`) lacks the method: the object the
            # constructor makes when given none (`solver = Plain()`) is the one the code shows
            default = index.attribute_default(holder, attr)
            constructed = index.cls(default) if default is not None else None
            if constructed is not None and _defining(index, constructed, method, 0) is not None:
                held = constructed
    if held is None:
        made = index.returned_class(owner)  # `t = make()` with `def make() -> T`
        held = index.cls(made) if made is not None else None
    if held is None:
        maker_of = index.cls(owner.rpartition(".")[0])  # `t = Model.create()`, a classmethod returning `cls(...)`
        if maker_of is not None and owner.rpartition(".")[2] in maker_of[1].get("makers", ()):
            held = maker_of
    if held is None:
        return None
    return _defining(index, held, method, 0)


def _defining(index: ProjectIndex, held: tuple[str, dict[str, Any]], method: str, depth: int) -> str | None:
    module, facts = held
    if depth > 12:
        return None
    names = [name for name, value in index.modules.get(module, {}).get("classes", {}).items() if value is facts]
    if method in facts["methods"]:
        return f"{module}.{names[0]}.{method}" if names and facts["methods"][method] in ("method", "static", "class") else None
    for base in facts["bases"]:
        found = index.cls(index.resolve_in(module, base))
        if found is not None:
            answer = _defining(index, found, method, depth + 1)
            if answer is not None:
                return answer
    return None


def call_sites(index: ProjectIndex, only: str | None = None) -> dict[str, list[Site]]:
    """Every recorded call of the run (``only``: of that module), by the qualified function or method it reaches."""
    joined: dict[str, list[Site]] = {}
    for module, summary in index.modules.items():
        if only is not None and module != only:
            continue
        for row in summary.get("calls", ()):
            try:
                spelled, line, caller, loop, varying, reading, texts, arms = row
            except ValueError:
                continue
            target = reached(index, module, spelled)
            if target is None:
                continue
            joined.setdefault(target, []).append(Site(module, line, caller, loop[0] if loop else None, loop[1] if loop else 0,
                                                      tuple(varying), tuple(reading), tuple(texts), tuple(arms)))
    return joined


@dataclasses.dataclass(frozen=True)
class Elsewhere:
    """What the calls of a function in the run show: the sites that repeat it, in words, and how to read its
    parameters' arguments (see :meth:`verdict`)."""

    sites: tuple[Site, ...]
    words: str
    chain: tuple[str, ...] = ()
    moved: bool = False
    """Through a chain of callers: whether the call that repeats at its top (in a loop) passes arguments that
    change on each pass. What the chain's functions build from them (data of other shapes, a model of another
    size) may be another program each time, whatever the rebuilt callable itself reads."""
    looped: bool = False
    """Through a chain of callers: whether what repeats at its top is a loop (not two call sites or tests, which
    may pass two different things)."""

    def verdict(self, keys: Sequence[tuple[str, ...]]) -> tuple[str, str]:
        """``("same", why)``, ``("numbers", why)``, ``("objects", why)`` or ``("unknown", why)``: whether the
        arguments of the parameters ``keys`` names (each as its alternatives: position as text, keyword name;
        ``("self",)`` for the receiver) change between the runs the sites show."""
        looping = [s for s in self.sites if s.loop_kind is not None]
        if looping:
            site = looping[0]
            moving = [k[-1] for k in keys if _flagged(site, k, site.varying)]
            if not moving:
                return "same", "the arguments it reads do not change in that loop"
            if "self" in moving:
                return "unknown", "the receiver is another object on each iteration of that loop"
            sized = [t.partition("=")[2] for t in site.texts if t.startswith("~sized=")]
            selected = [k[-1] for k in keys if _flagged(site, k, sized)]
            if selected:
                one = len(selected) == 1
                return "unknown", f"{', '.join(f'`{k}`' for k in selected)} {'is' if one else 'are'} selected by a mask " \
                                  f"made on each pass of that loop: {'its size' if one else 'their sizes'}, and so the " \
                                  "program, may change"
            return site.loop_kind or "unknown", f"{', '.join(f'`{k}`' for k in moving)} change(s) in that loop"
        if self.chain:
            if self.moved:
                return "unknown", "the loop at the top of its callers passes arguments that change on each pass"
            if not [k for k in keys if _flagged(self.sites[0], k, self.sites[0].reading)]:
                return "same", "the arguments it reads are built the same way on each run of the caller"
            if self.looped:
                return "same", "the arguments it reads come down its callers from a loop that passes the same values, " \
                               "or the state it carries (counters and PRNG keys too), on each pass"
            return "unknown", "the arguments it reads come from the caller's parameters"
        if ("self",) in keys and any(site.text("~fresh") == "self" for site in self.sites):
            return "unknown", "each test calls it on an object of its own"
        # Every argument, not only those the rebuilt callable reads: data of other shapes is another program.
        if all(sorted(site.texts) == sorted(self.sites[0].texts) for site in self.sites) and \
                None not in [_passed(self.sites[0], k) for k in keys]:
            return "same", "every call passes the same arguments"
        return "unknown", "the calls pass different arguments"


def _flagged(site: Site, alternatives: tuple[str, ...], flags: Sequence[str]) -> bool:
    """The argument of a parameter is among ``flags`` (or, not passed by name or position, a ``*``/``**`` is)."""
    if any(k in flags for k in alternatives):
        return True
    return "*" in flags and all(site.text(k) is None for k in alternatives)


def _passed(site: Site, alternatives: tuple[str, ...]) -> str | None:
    """The text a site passes for a parameter, "" when it passes none, None when a ``*``/``**`` may pass it."""
    for key in alternatives:
        text = site.text(key)
        if text is not None:
            return text
    return None if site.text("*") is not None else ""


def public_caller(index: ProjectIndex, site: Site) -> bool:
    """True when the function making the call ``site`` is public API a user may call again and again: neither
    module level nor a test (each runs once), nor a constructor (once per object), nor private (``_helper``,
    ``Cls._m``, in a ``_private`` module), nor in a script, an example or a notebook (what runs there, its own code
    runs)."""
    if not site.caller or site.caller == _UNKNOWN_CALLER:
        return False
    parts = [*site.module.split("."), *site.caller.split(".")]
    last = site.module.rsplit(".", 1)[-1]
    path = index.paths.get(site.module)
    # A file outside any package (`demos/fit.py`) has a module name of one part: the folders just above it say what
    # it is (not those higher up, which are wherever the project happens to lie).
    folders = {part.lower() for part in os.path.normpath(path).split(os.sep)[-3:-1]} if path is not None else set()
    return not any(part.startswith("_") and not part.startswith("__") for part in parts) and \
        not site.caller.rsplit(".", 1)[-1].startswith("test") and not last.startswith("test") and \
        not last.endswith("_test") and not (folders | set(parts[:-1])) & NOT_LIBRARY and \
        site.caller.rsplit(".", 1)[-1] not in ONCE_FUNCTIONS | CONSTRUCTOR_METHODS


def place(index: ProjectIndex, site: Site) -> str:
    """Where ``site`` is, as a finding names it: its file (relative to the working folder when under it) and line."""
    path = index.paths.get(site.module)
    if path is not None:
        try:
            relative = os.path.relpath(path)
            path = relative if not relative.startswith("..") else path
        except ValueError:
            pass
    return f"{path or site.module}:{site.line}"


def _test_callers(sites: Sequence[Site]) -> list[Site]:
    """One site for each test function (``test...`` in a ``test_*``/``*_test`` module) that calls the function in
    its own body: a test runner runs every test of a session in one process, so two such tests run it twice there,
    eagerly (a call in a nested function or a lambda is not recorded, a traced test function not walked). Only
    calls passing the same arguments (by their text), built by the same statements (:meth:`_Recorder.built`: two
    tests' ``cc`` built with other options are two things), are shown to be the same computation: tests of two
    systems, or of another option, are not; two or more tests alike among others are."""
    found: dict[tuple[str, str], Site] = {}
    for site in sites:
        stem = site.module.rsplit(".", 1)[-1]
        test_module = stem.startswith("test") or stem.endswith("_test") or stem.endswith("_tests")
        if test_module and site.caller.rsplit(".", 1)[-1].startswith("test"):
            found.setdefault((site.module, site.caller), site)
    return list(found.values())


def _inherited_self_calls(index: ProjectIndex, qualified: str) -> list[Site]:
    """The calls ``self.m(...)`` in loops of a base class's own methods that reach ``qualified``, a method ``m``
    its class overrides: on an instance of the class, the base's loop runs the override on every iteration (a
    base's ``solve`` loop over ``self.step()``). A base's single ``self.m()`` is not followed to the base
    method's callers: they may call it on other objects each time (a loop over a model's layers)."""
    owner, _, method = qualified.rpartition(".")
    chain: list[str] = []
    found = index.cls(owner)
    while found is not None and len(chain) < 12:
        module, facts = found
        bases = [index.resolve_in(module, base) for base in facts["bases"]]
        found = None
        for base in bases:
            if index.cls(base) is not None:
                chain.append(base)
                found = index.cls(base)
                break
    sites: list[Site] = []
    for base in chain:
        for site in index.call_sites().get(f"{base}.{method}", []):
            if site.loop_kind is not None and "self=self" in site.texts \
                    and f"{site.module}.{site.caller.rpartition('.')[0]}" in chain:
                sites.append(site)
    return sites


def repeated_elsewhere(index: ProjectIndex, qualified: str, depth: int = 0,
                       seen: frozenset[str] = frozenset(), product: bool = False) -> Elsewhere | None:
    """The evidence, from the run's call records, that the function ``qualified`` runs more than once: a call in
    a loop, two calls in one function that can both run, or a call from a function that itself runs more than
    once (by the same evidence, three levels at most). None when the records show no repetition. ``product``: the
    function is a factory, and only the calls that use its product where they make it count (a product kept, or
    built once for a loop of the caller's own, is not built again)."""
    if depth > 3 or qualified in seen:
        return None
    sites = index.call_sites().get(qualified, []) + _inherited_self_calls(index, qualified)
    if product:
        sites = [site for site in sites if site.text("~used")]
    if not sites:
        return None
    name = qualified.rsplit(".", 1)[-1]
    # A loop that passes the same arguments on each pass first: another may hand in a new object each time.
    for site in sorted((s for s in sites if s.loop_kind is not None), key=lambda s: bool(s.varying)):
        return Elsewhere((site,), f"`{name}` is called in a loop at {place(index, site)}")
    by_caller: dict[tuple[str, str], list[Site]] = {}
    for site in sites:
        by_caller.setdefault((site.module, site.caller), []).append(site)
    for (_, caller), group in by_caller.items():
        if caller == _UNKNOWN_CALLER:
            continue
        kept: list[Site] = []
        for site in group:
            if not any(site.exclusive(other) for other in kept):
                kept.append(site)
        if len(kept) >= 2:
            where = ", ".join(place(index, s) for s in kept[:3])
            return Elsewhere(tuple(kept), f"`{name}` is called at {where}, which can all run")
    alike: dict[tuple[str, ...], list[Site]] = {}
    # Tests making the same call, built the same way (others may vary it); not a factory's: each test building the
    # product it uses is a helper run once per test.
    for test in _test_callers(sites) if not product else ():
        alike.setdefault(tuple(sorted(test.texts)), []).append(test)
    tests = max(alike.values(), key=len, default=[])
    if len(tests) >= 2:
        where = ", ".join(f"`{s.caller}` ({place(index, s)})" for s in tests[:3])
        return Elsewhere(tuple(tests), f"`{name}` is called by the tests {where}, which one test session all runs")
    for site in sites:
        if not site.caller or site.caller == _UNKNOWN_CALLER:
            continue
        outer = repeated_elsewhere(index, f"{site.module}.{site.caller}", depth + 1, seen | {qualified})
        if outer is not None:
            words = f"`{name}` is called at {place(index, site)}, from `{site.caller}`; {outer.words}"
            moved = outer.moved if outer.chain else any(
                s.loop_kind is not None and set(s.varying) - {t.partition("=")[2] for t in s.texts if t.startswith("~carried=")}
                for s in outer.sites) and index.passes_parameters_on(site.module, site.caller)
            looped = outer.looped if outer.chain else any(s.loop_kind is not None for s in outer.sites)
            return Elsewhere((site,), words, (site.caller, *outer.chain), moved, looped)
    return None


def retries(loop: ast.For | ast.AsyncFor | ast.While) -> bool:
    """A loop that runs its body again only after an attempt raised (``collect.py``'s ``_retries``, read on Python's
    ``ast``): a ``try`` directly in its body whose body or ``else`` ends with ``return`` or ``break``, and no
    ``continue`` outside the handlers."""
    def leaves(block: list[ast.stmt]) -> bool:
        return bool(block) and isinstance(block[-1], (ast.Return, ast.Break))

    if not any(isinstance(statement, ast.Try) and (leaves(statement.body) or leaves(statement.orelse))
               for statement in loop.body):
        return False
    stack: list[ast.AST] = list(loop.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Continue):
            return False
        if isinstance(node, (ast.ExceptHandler, ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef,
                             ast.ClassDef, ast.Lambda)) or isinstance(node, ast.expr):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return True


def _one_item(iterable: ast.expr) -> bool:
    """A literal list or tuple of one item (``for t in [0.5]:``): a loop over it runs its body once."""
    return isinstance(iterable, (ast.List, ast.Tuple)) and len(iterable.elts) == 1 \
        and not isinstance(iterable.elts[0], ast.Starred)


__all__ = ["Elsewhere", "Site", "call_records", "call_sites", "items_kind", "place", "public_caller", "reached",
           "repeated_elsewhere", "retries", "selected_names"]
