"""A read-only walk of libcst trees for visitors: the same callbacks, in the same order, without rebuilding.

libcst's ``CSTNode.visit`` rebuilds every node it walks (``_visit_and_replace_children``
constructs and validates a copy), for read-only ``CSTVisitor``\\ s too, which throw the copy
away; in the static pass that rebuild was about half the CPU of libcst's scope analysis and
of the collector. :func:`install` gives ``CSTNode.visit`` a path for ``CSTVisitor``\\ s (the
metadata providers' batched visitor and libcst's scope visitor are ones) that calls
``on_visit``, ``on_visit_attribute``, the children, ``on_leave_attribute`` and ``on_leave``
exactly as libcst does, and returns the node itself, as libcst does for a visitor. The order
of each node type's children is read once from the source of its own
``_visit_and_replace_children``; a node type whose method is not of the plain form keeps
libcst's own walk, and so does every transformer. An attribute callback no hook of the
visitor answers is not made, and a batched walk that hooks only the module (the metadata
providers of scopes and expression contexts, which walk the module themselves) stops there.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from types import FunctionType
from typing import Any

from libcst._nodes.base import CSTNode
from libcst._nodes.internal import (
    visit_body_iterable,
    visit_body_sequence,
    visit_iterable,
    visit_optional,
    visit_required,
    visit_sentinel,
    visit_sequence,
)
from libcst._batched_visitor import BatchableCSTVisitor, _BatchedCSTVisitor
from libcst import MaybeSentinel, Module
from libcst._visitors import CSTVisitor
from libcst.metadata import scope_provider

_REQUIRED, _OPTIONAL, _SENTINEL, _MANY = 0, 1, 2, 3
_KINDS = {
    visit_required.__name__: _REQUIRED,
    visit_optional.__name__: _OPTIONAL,
    visit_sentinel.__name__: _SENTINEL,
    visit_sequence.__name__: _MANY,
    visit_iterable.__name__: _MANY,
    visit_body_sequence.__name__: _MANY,
    visit_body_iterable.__name__: _MANY,
}

Plan = tuple[tuple[str, int, str, str], ...]
"""Each field visited: its name, how it is visited, and the names of its visit and leave hooks."""

_plans: dict[type, Plan | None] = {}
_libcst_visit = CSTNode.visit


def _in_order(node: ast.AST) -> list[ast.Call]:
    """The calls under ``node`` in the order Python evaluates them (arguments before the call)."""
    found: list[ast.Call] = []
    for child in ast.iter_child_nodes(node):
        found.extend(_in_order(child))
    if isinstance(node, ast.Call):
        found.append(node)
    return found


def plan_of(kind: type) -> Plan | None:
    """The fields ``kind``'s ``_visit_and_replace_children`` visits, in order, with how; None when it is not of the plain form."""
    if kind in _plans:
        return _plans[kind]
    plan: Plan | None = None
    try:
        method = next(k.__dict__["_visit_and_replace_children"] for k in kind.__mro__
                      if "_visit_and_replace_children" in k.__dict__)
        tree = ast.parse(textwrap.dedent(inspect.getsource(method)))
        plan = _read_plan(tree.body[0], kind.__name__)  # type: ignore[arg-type]
    except (OSError, TypeError, StopIteration, SyntaxError, IndexError):
        plan = None
    _plans[kind] = plan
    return plan


def _read_plan(function: ast.FunctionDef, node_type: str) -> Plan | None:
    """The plan of a ``_visit_and_replace_children`` that is one ``return`` of a constructor call (or of ``self``, a leaf)."""
    body = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return None
    returned = body[0].value
    if isinstance(returned, ast.Name) and returned.id == "self":
        return ()
    if not isinstance(returned, ast.Call) or returned.args:
        return None
    plan: list[tuple[str, int, str, str]] = []
    for call in _in_order(returned)[:-1]:
        name = call.func.id if isinstance(call.func, ast.Name) else None
        if name not in _KINDS or len(call.args) != 4 or call.keywords:
            return None
        parent, field, value, visitor = call.args
        if not (isinstance(parent, ast.Name) and parent.id == "self" and isinstance(field, ast.Constant)
                and isinstance(field.value, str) and isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
                and value.value.id == "self" and value.attr == field.value and isinstance(visitor, ast.Name)):
            return None
        plan.append((field.value, _KINDS[name], f"visit_{node_type}_{field.value}", f"leave_{node_type}_{field.value}"))
    for keyword in returned.keywords:  # every other argument passes a field through unchanged
        if keyword.arg is None:
            return None
        value = keyword.value
        if isinstance(value, ast.Call):
            continue
        if not (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self"):
            return None
    return tuple(plan)


_LIBCST, _ALWAYS, _BATCHED = object(), object(), object()
_UNREAD = object()
_modes: dict[type, Any] = {}
"""How to walk for each visitor type defined at a module's top level (a type defined in a function keeps its own under
:data:`_MODE`, so that the table does not keep every such type ever made alive)."""
_MODE = "_jitcheck_walk_mode"


def _no_op(function: object) -> bool:
    """One of libcst's typed-visitor stubs (``visit_Name``, ``leave_Name_value``, ...): it does nothing, returns None."""
    return getattr(function, "_is_no_op", False) is True


_hook_stubs: dict[type, tuple[frozenset[str], frozenset[str]]] = {}
"""Per class of a visitor's MRO that no ``<locals>`` defines: the attribute-hook names its own ``__dict__`` holds, and
those of them that do something (libcst's typed stubs are some 1,500 no-ops)."""


def _own_hooks(klass: type) -> tuple[frozenset[str], frozenset[str]]:
    """The attribute-hook names (``visit_<Node>_<field>``, ``leave_<Node>_<field>``) ``klass`` itself defines, and
    those of them that are more than a no-op stub."""
    found = _hook_stubs.get(klass)
    if found is None:
        named = {name: value for name, value in vars(klass).items()
                 if name.startswith(("visit_", "leave_")) and name.count("_") >= 2}
        found = (frozenset(named), frozenset(name for name, value in named.items() if not _no_op(value)))
        if "<locals>" not in klass.__qualname__:  # a class made per call would only grow the table
            _hook_stubs[klass] = found
    return found


def _attribute_hooks(kind: type) -> frozenset[str]:
    """The attribute-hook names of ``kind`` that do something: each name as the first class of its MRO that defines it
    has it. The same as testing ``getattr(kind, name)`` for every name ``dir(kind)`` lists, without reading libcst's
    stubs again for every visitor class (a class defined in a function is a new class on every call)."""
    seen: frozenset[str] = frozenset()
    live: set[str] = set()
    for klass in kind.__mro__:
        named, does = _own_hooks(klass)
        if does:
            live |= does - seen
        seen = seen | named if seen else named
    return frozenset(live)


class _Hooks:
    """A plain visitor type's hooks: libcst's ``CSTVisitor`` callbacks call ``visit_<Node>``, ``leave_<Node>`` and the
    attribute hooks by name, and a name that only libcst's no-op stub answers needs no call (its result is None: the
    children are visited)."""

    __slots__ = ("attributes", "kind", "plain_visit", "plain_leave", "scope_leave", "steps")

    def __init__(self, kind: type) -> None:
        self.kind = kind
        self.attributes = _attribute_hooks(kind)
        self.plain_visit = kind.on_visit is CSTVisitor.on_visit  # type: ignore[attr-defined]
        self.plain_leave = kind.on_leave is CSTVisitor.on_leave  # type: ignore[attr-defined]
        self.scope_leave = kind is scope_provider.ScopeVisitor and _SCOPE_LEAVE is not None  # libcst's own, not a subclass
        self.steps: dict[type, Any] = {}
        """Per node type, what :func:`_plain` does (:func:`_steps`)."""

    def hook(self, prefix: str, node_type: type) -> Any:
        """The function ``CSTVisitor.on_visit``/``on_leave`` would call for ``node_type`` (None: a no-op or none)."""
        name = f"{prefix}{node_type.__name__}"
        function = inspect.getattr_static(self.kind, name, None)
        hook: Any = None
        if isinstance(function, FunctionType):
            hook = None if _no_op(function) else function
        elif function is not None:  # a static method, a callable object, ...: looked up on the visitor as libcst does
            def hook(visitor: Any, node: CSTNode, name: str = name) -> Any:
                bound = getattr(visitor, name, None)
                return bound(node) if bound is not None else None
        return hook


_SCOPE_ON_LEAVE = """\
def on_leave(self, original_node: cst.CSTNode) -> None:
    self.provider.set_metadata(original_node, self.scope)
    if isinstance(original_node, _ASSIGNMENT_LIKE_NODES):
        self.scope._assignment_count += 1
    super().on_leave(original_node)
"""
"""libcst's ``ScopeVisitor.on_leave``, which :func:`_visit` makes itself (without 18 failed ``isinstance`` tests of
abstract classes per node) only while libcst's is this text."""


def _scope_leave() -> Any:
    """libcst's ``ScopeVisitor.on_leave`` when its source is :data:`_SCOPE_ON_LEAVE`, else None (then it is called)."""
    function = getattr(scope_provider.ScopeVisitor, "on_leave", None)
    try:
        same = textwrap.dedent(inspect.getsource(function)) == _SCOPE_ON_LEAVE  # type: ignore[arg-type]
    except (OSError, TypeError):
        same = False
    return function if same and isinstance(getattr(scope_provider, "_ASSIGNMENT_LIKE_NODES", None), tuple) else None


_SCOPE_LEAVE = _scope_leave()


def _mode_of(kind: type) -> Any:
    """How to walk for a visitor type: libcst's own walk (a transformer), ``_BATCHED`` (the metadata providers'
    batched visitor: its attribute hooks are the keys of its ``visitor_methods``), ``_ALWAYS`` (it handles
    attribute callbacks itself), or the :class:`_Hooks` of its class (libcst's default ``on_visit_attribute``
    calls only ``visit_<Node>_<field>``/``leave_<Node>_<field>`` hooks: a field no hook but a no-op stub names
    needs no call)."""
    if not issubclass(kind, CSTVisitor):
        mode: Any = _LIBCST
    elif issubclass(kind, _BatchedCSTVisitor) and kind.on_visit_attribute is _BatchedCSTVisitor.on_visit_attribute \
            and kind.on_leave_attribute is _BatchedCSTVisitor.on_leave_attribute:
        mode = _BATCHED
    elif kind.on_visit_attribute is CSTVisitor.on_visit_attribute and kind.on_leave_attribute is CSTVisitor.on_leave_attribute:
        mode = _Hooks(kind)
    else:
        mode = _ALWAYS
    if "<locals>" in kind.__qualname__:  # made per call: kept on the class, which goes when its call is done with it
        setattr(kind, _MODE, mode)
    else:
        _modes[kind] = mode
    return mode


def _module_only(visitor: _BatchedCSTVisitor) -> bool:
    """A batched visitor that hooks the module alone (libcst's scope and expression-context providers do all
    their work in ``visit_Module``, with a walk of their own), with no hook run before or after every node."""
    return visitor.before_visit is None and visitor.after_leave is None and all(
        name in ("visit_Module", "leave_Module") for name in visitor.visitor_methods)


def _visit(self: CSTNode, visitor: Any) -> Any:
    mode: Any = _modes.get(type(visitor))
    if mode is None:
        mode = type(visitor).__dict__.get(_MODE)
        if mode is None:
            mode = _mode_of(type(visitor))
    if mode is _LIBCST:
        return _libcst_visit(self, visitor)  # a transformer: libcst's own walk, which builds the new tree
    if type(mode) is _Hooks:
        return _plain(self, visitor, mode)
    return _general(self, visitor, mode)


def _steps(mode: _Hooks, kind: type) -> Any:
    """For a plain visitor type (``mode``) and a node type: None when libcst must walk it (its children are not of
    the plain form), else the node's visit hook, its leave hook (each None when there is none to call), and each
    field with how it is visited and whether its attribute hooks are called."""
    plan: Any = _plans.get(kind, _UNREAD)
    if plan is _UNREAD:
        plan = plan_of(kind)
    steps: Any = None
    if plan is not None:
        visit = mode.hook("visit_", kind) if mode.plain_visit else _UNREAD
        leave = mode.hook("leave_", kind) if mode.plain_leave or mode.scope_leave else _UNREAD
        fields = tuple((field, how, visit_hook in mode.attributes, leave_hook in mode.attributes)
                       for field, how, visit_hook, leave_hook in plan)
        assigns = mode.scope_leave and issubclass(kind, scope_provider._ASSIGNMENT_LIKE_NODES)
        steps = (visit, leave, fields, assigns)
    mode.steps[kind] = steps
    return steps


def _plain(self: CSTNode, visitor: Any, mode: _Hooks) -> Any:
    """:func:`_visit` for a visitor whose attribute hooks are libcst's default (the commonest walk), with what to call
    for each node type found once (:func:`_steps`); its children are walked here directly."""
    kind = type(self)
    steps = mode.steps.get(kind, _UNREAD)
    if steps is _UNREAD:
        steps = _steps(mode, kind)
    if steps is None:
        return _libcst_visit(self, visitor)
    visit, leave, fields, assigns = steps
    if visit is _UNREAD:
        enter = visitor.on_visit(self)
    else:
        enter = visit is None or visit(visitor, self) is not False
    if enter:
        for field, how, visit_attribute, leave_attribute in fields:
            if visit_attribute:
                visitor.on_visit_attribute(self, field)
            value = getattr(self, field)
            if how == _MANY:
                for child in value:
                    _plain(child, visitor, mode)
            elif how == _REQUIRED or (value is not None if how == _OPTIONAL else value is not MaybeSentinel.DEFAULT):
                _plain(value, visitor, mode)
            if leave_attribute:
                visitor.on_leave_attribute(self, field)
    if leave is _UNREAD:
        visitor.on_leave(self)
        return self
    if mode.scope_leave:  # libcst's ScopeVisitor.on_leave, its isinstance test kept per node type
        visitor.provider.set_metadata(self, visitor.scope)
        if assigns:
            visitor.scope._assignment_count += 1
    if leave is not None:
        leave(visitor, self)
    return self


def _general(self: CSTNode, visitor: Any, mode: Any) -> Any:
    """:func:`_visit` for a batched visitor or one that handles attribute callbacks itself."""
    kind = type(self)
    plan: Any = _plans.get(kind, _UNREAD)
    if plan is _UNREAD:
        plan = plan_of(kind)
    if plan is None:
        return _libcst_visit(self, visitor)
    if visitor.on_visit(self) and plan:
        if mode is _BATCHED:
            hooks = visitor.visitor_methods
            if kind is Module and _module_only(visitor):
                visitor.on_leave(self)  # nothing below the module is hooked: walking it would call nothing
                return self
        else:
            hooks = mode
        always = hooks is _ALWAYS
        for field, how, visit_hook, leave_hook in plan:
            if always or visit_hook in hooks:
                visitor.on_visit_attribute(self, field)
            value = getattr(self, field)
            if how == _MANY:
                for child in value:
                    child.visit(visitor)
            elif how == _REQUIRED or (value is not None if how == _OPTIONAL else value is not MaybeSentinel.DEFAULT):
                value.visit(visitor)
            if always or leave_hook in hooks:
                visitor.on_leave_attribute(self, field)
    visitor.on_leave(self)
    return self


_libcst_get_visitors = BatchableCSTVisitor.get_visitors
_hook_names: dict[type, tuple[str, ...]] = {}


def _get_visitors(self: BatchableCSTVisitor) -> Any:
    """libcst's ``BatchableCSTVisitor.get_visitors`` (the hooks a batched walk calls: ``inspect.getmembers`` of the
    visitor, a ``dir`` and a ``getattr`` of some 1,500 names, on every resolve), with the hooks' names found once per
    type for libcst's own metadata providers: a function of their class, while no instance attribute names a hook."""
    kind = type(self)
    names = _hook_names.get(kind)
    if names is None or any(name.startswith(("visit_", "leave_")) for name in getattr(self, "__dict__", ())):
        found = _libcst_get_visitors(self)
        if kind.__module__.startswith("libcst.metadata.") and not any(
                name.startswith(("visit_", "leave_")) for name in getattr(self, "__dict__", ())):
            _hook_names[kind] = tuple(found)
        return found
    return {name: getattr(self, name) for name in names}


def install() -> None:
    """Give ``CSTNode.visit`` the read-only walk for visitors (once; transformers keep libcst's), and libcst's
    metadata providers their hooks without ``inspect.getmembers`` on every resolve."""
    if CSTNode.visit is not _visit:
        CSTNode.visit = _visit  # type: ignore[method-assign]
    if BatchableCSTVisitor.get_visitors is not _get_visitors:
        BatchableCSTVisitor.get_visitors = _get_visitors  # type: ignore[method-assign]


__all__ = ["install", "plan_of"]
