"""What a module's pytree registrations keep in their aux data, read from Python's ``ast``.

jax compares a pytree's aux data with ``==`` and hashes it into a jit's cache key, with the
tree's structure. A value kept there that compares by identity (a plain object made anew for
each instance) makes every instance a new key, even two built alike, so a jitted function
called on one instance after another compiles once per instance. These pure functions find
the attributes a registration's flatten function returns as aux data, for the project index.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from typing import Any

from jitcheck.lint.astwalk import children
from jitcheck.lint.spelling import dotted

_REGISTERS = frozenset({"register_pytree_node", "register_pytree_with_keys"})
"""``jax.tree_util`` functions whose arguments are ``(cls, flatten, unflatten, ...)``: the flatten function (for the
``_with_keys`` form, the one returning key paths) returns ``(children, aux_data)``."""

_CLASS_DECORATORS = frozenset({"register_pytree_node_class", "register_pytree_with_keys_class"})
"""Class decorators whose class flattens itself with its ``tree_flatten`` method."""


def aux_attributes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The attributes of its first parameter that a flatten function returns as aux data: the second item of each
    ``return (children, aux)`` (or of a name bound once to such a tuple), itself an attribute (``node.data``), a
    tuple or list of them, or a name bound to one. Sorted; empty when the aux data is not read so."""
    params = function.args.posonlyargs + function.args.args
    if not params:
        return []
    owner = params[0].arg
    bound = _bound_once(function)
    found: set[str] = set()
    for node in _own_nodes(function):
        if not isinstance(node, ast.Return) or node.value is None:
            continue
        returned = _through(node.value, bound)
        if not isinstance(returned, ast.Tuple) or len(returned.elts) != 2:
            continue
        aux = _through(returned.elts[1], bound)
        items = aux.elts if isinstance(aux, (ast.Tuple, ast.List)) else [aux]
        for item in items:
            if isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name) and item.value.id == owner:
                found.add(item.attr)
    return sorted(found)


def registered(statements: Iterable[ast.AST], classes: Mapping[str, ast.ClassDef],
               functions: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef]) -> dict[str, list[str]]:
    """The aux attributes of each class of the module that a module-level statement registers as a pytree
    (``jax.tree_util.register_pytree_node(Cls, flatten, unflatten)``, flatten a module-level ``def``) or that a
    decorator registers (``@register_pytree_node_class`` with its ``tree_flatten`` method), by class name."""
    found: dict[str, list[str]] = {}
    for statement in statements:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not isinstance(call, ast.Call) or len(call.args) < 2 \
                or (dotted(call.func) or "").rsplit(".", 1)[-1] not in _REGISTERS:
            continue
        cls, flatten = call.args[0], call.args[1]
        if isinstance(cls, ast.Name) and cls.id in classes and isinstance(flatten, ast.Name) and flatten.id in functions:
            attributes = aux_attributes(functions[flatten.id])
            if attributes:
                found[cls.id] = attributes
    for name, node in classes.items():
        if not any((dotted(d) or "").rsplit(".", 1)[-1] in _CLASS_DECORATORS for d in node.decorator_list):
            continue
        for method in node.body:
            if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.name == "tree_flatten":
                attributes = aux_attributes(method)
                if attributes:
                    found[name] = attributes
    return found


def made_in_init(node: ast.ClassDef) -> dict[str, str]:
    """The attributes ``__init__`` sets to a new object of a class named by a call (``self.data = NodeData()``),
    each with the class as spelled: an object of the instance's own, made anew for each instance."""
    made: dict[str, str] = {}
    for method in node.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or method.name != "__init__":
            continue
        params = method.args.posonlyargs + method.args.args
        if not params:
            continue
        receiver = params[0].arg
        for inner in _own_nodes(method):
            value = inner.value if isinstance(inner, (ast.Assign, ast.AnnAssign)) else None
            targets = inner.targets if isinstance(inner, ast.Assign) else [inner.target] if isinstance(inner, ast.AnnAssign) else []
            spelled = dotted(value.func) if isinstance(value, ast.Call) else None
            if spelled is None or not spelled.rsplit(".", 1)[-1][:1].isupper():
                continue
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == receiver:
                    made.setdefault(target.attr, spelled)
    return made


def compares_by_identity(facts: Mapping[str, Any]) -> bool:
    """True when the index's facts of a class show a plain class: no base but ``object``, no decorator (which
    could make it a dataclass or attrs class), no ``__eq__``. Its instances are equal only to themselves."""
    return not facts.get("decorated") and "dataclass" not in facts and "__eq__" not in facts.get("methods", {}) \
        and all(base == "object" for base in facts.get("bases", ()))


def _own_nodes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterable[ast.AST]:
    """The nodes of ``function``'s body, not those of functions, lambdas or classes defined in it."""
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            pending.extend(children(node))


def _bound_once(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.expr]:
    """The local names ``function`` binds exactly once, by ``name = value``, with their values."""
    values: dict[str, ast.expr] = {}
    counts: dict[str, int] = {}
    for node in _own_nodes(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    counts[target.id] = counts.get(target.id, 0) + 1
                    values[target.id] = node.value
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
            counts[node.target.id] = counts.get(node.target.id, 0) + 2
    return {name: value for name, value in values.items() if counts.get(name) == 1}


def _through(value: ast.expr, bound: Mapping[str, ast.expr]) -> ast.expr:
    """``value``, or what it names when it is a name bound once."""
    if isinstance(value, ast.Name) and value.id in bound:
        return bound[value.id]
    return value
