"""Node bodies and node settings: the values a node constructor makes part of a cache key.

A node body must compare by value, so that a graph built twice is one cache key.
Refused (each with its own rule): a bound method, which compares its receiver by
identity (JC101); ``functools.partial(...)`` (JC102) and ``jax.tree_util.Partial(...)``
(JC103), which define no ``__eq__``; a lambda (JC104) and a nested function (JC105),
new objects each time they are evaluated. Accepted: module-level functions,
staticmethods, classmethods, ``jitcheck.ValuePartial(...)`` (whose function and
arguments are judged in turn) and instances of classes that hash by value, such as
frozen dataclasses. Node settings are refused when they do not hash by value
(JC201-JC204), like bodies that are callable objects of such classes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Final

from mypy.maptype import map_instance_to_supertype
from mypy.nodes import (
    GDEF,
    LDEF,
    CallExpr,
    Decorator,
    DictExpr,
    DictionaryComprehension,
    Expression,
    FuncDef,
    LambdaExpr,
    ListComprehension,
    ListExpr,
    MemberExpr,
    MypyFile,
    NameExpr,
    OverloadedFuncDef,
    RefExpr,
    SetComprehension,
    SetExpr,
    StrExpr,
    SymbolNode,
    TupleExpr,
    TypeAlias,
    TypeInfo,
    Var,
)
from mypy.types import (
    Instance,
    LiteralType,
    TupleType,
    Type,
    TypedDictType,
    TypeVarType,
    UnionType,
    get_proper_type,
)

from jitcheck import rules
from jitcheck.rules import Rule
from mypy_plugin.codes import Finding
from mypy_plugin.hashability import Env, Unhashable, problems
from mypy_plugin.roles import NODE_MAPS, VALUE_PARTIAL
from mypy_plugin.source import call_arguments, expr_text, literal_leaves

BODY: Final = "a node body"
GRAPH_NODE: Final = "a graph node"

FUNCTOOLS_PARTIAL: Final = "functools.partial"
BODY_METHOD_FIX: Final = (
    "pass a module-level function (or a staticmethod) as the node body, "
    "and hand the receiver's data to it as inputs or node settings"
)
"""JC101's fix where the bound method is a node body: no jitted wrapper to build once in ``__init__``."""
_SETTING_RULES: Final = (rules.ARRAY_STATIC, rules.MUTABLE_CONTAINER_STATIC, rules.MUTABLE_DATACLASS, rules.EQ_WITHOUT_HASH)


@dataclasses.dataclass(frozen=True)
class CallEnv:
    """What judging a call's arguments needs: the hashability environment and expression types."""

    env: Env
    type_of: Callable[[Expression], Type | None]
    """The type mypy inferred for an expression of the call, None when it has none."""


def body_findings(expr: Expression, env: CallEnv, position: str = BODY) -> list[Finding]:
    """Why ``expr``, used as a node body (or at ``position``), is not a good cache key."""
    return list(_value_findings(expr, env, position, hashing=True))


def graph_node_findings(expr: Expression, env: CallEnv) -> list[Finding]:
    """Identity-compared callables written directly among a graph's nodes (``{"a": lambda x: x}``)."""
    found: list[Finding] = []
    for leaf in literal_leaves(expr, NODE_MAPS):
        found.extend(_value_findings(leaf, env, GRAPH_NODE, hashing=False))
    return found


def settings_findings(expr: Expression, env: CallEnv) -> list[Finding]:
    """Settings values that do not hash by value, or that are identity-compared callables."""
    found: list[Finding] = []
    items = list(_mapping_items(expr))
    if items:
        for key, value in items:
            position = f"the node setting {key}" if key else "a node setting"
            found.extend(_value_findings(value, env, position, hashing=True))
        return found
    value_type = _mapping_value_type(env.type_of(expr))
    if value_type is not None:
        for problem in problems(value_type, env.env):
            if problem.rule in _SETTING_RULES:
                found.append(_hash_finding(problem.rule, problem, expr, "node settings", of_values=True))
    return found


def _value_findings(expr: Expression, env: CallEnv, position: str, *, hashing: bool) -> Iterator[Finding]:
    if isinstance(expr, LambdaExpr):
        yield Finding(rules.LAMBDA, expr, {"position": position, "subject": "lambda"})
        return
    if isinstance(expr, CallExpr) and _refers_to(expr.callee, VALUE_PARTIAL):
        if expr.args:
            inner = f"the function of a `jitcheck.ValuePartial` in {position}"
            yield from _value_findings(expr.args[0], env, inner, hashing=hashing)
            for arg in expr.args[1:]:
                yield from _value_findings(arg, env, f"an argument of a `jitcheck.ValuePartial` in {position}", hashing=True)
        return
    typ = env.type_of(expr)
    partial = _partial_rule(typ)
    if partial is not None:
        args = call_arguments(expr) if isinstance(expr, CallExpr) else "..."
        yield Finding(partial, expr, {"position": position, "subject": expr_text(expr), "args": args})
        return
    if isinstance(expr, MemberExpr) and is_bound_method(expr, env):
        fix = BODY_METHOD_FIX if "node" in position else None
        yield Finding(rules.BOUND_METHOD, expr, {"position": position, "subject": expr_text(expr)}, help=fix)
        return
    if isinstance(expr, NameExpr) and expr.kind == LDEF and isinstance(expr.node, (FuncDef, Decorator, OverloadedFuncDef)):
        yield Finding(rules.NESTED_FUNCTION, expr, {"position": position, "subject": expr.name})
        return
    if hashing and typ is not None:
        for problem in problems(typ, env.env):
            if problem.rule in _SETTING_RULES:
                yield _hash_finding(problem.rule, problem, expr, position)


def _hash_finding(rule: Rule, problem: Unhashable, expr: Expression, position: str, *, of_values: bool = False) -> Finding:
    """JC201-JC204 for a value (or, ``of_values``, the values of a mapping) that does not hash by value.

    The error line names the expression and the part at fault by their types, never by
    the rule's kind word: a tuple holding an array is not "an array", a mapping of
    lists is not "a list".
    """
    text = expr_text(expr, limit=40)
    where = ", in ".join(reversed(problem.path))
    display = not problem.path and not of_values and isinstance(expr, _DISPLAYS)
    if display:  # `[3, 4]` is a list; its inferred type (`list[Any]`) says nothing more
        detail = f"it {problem.what}"
    elif of_values:
        detail = f"its values' type {problem.subject} {problem.what}"
    elif problem.path:
        detail = f"{problem.subject} {problem.what}"
    else:
        detail = f"its type `{problem.offender}` {problem.what}"
    summary = f"`{text}` used as {position} cannot be a jit cache key: {detail}"
    if len(summary) > 150:  # a long type: named on the note instead, the part at fault (a field) still here
        summary = f"`{text}` used as {position} cannot be a jit cache key: {where + ' ' if where else 'it '}{problem.what}"
    subject = f"`{text}`" if display else problem.subject
    why = f"{subject} {problem.what}: {problem.because}, and {position} is hashed into the cache key"
    fields: dict[str, object] = {**problem.fields, "subject": f"`{text}`", "position": position}
    fields.setdefault("type", problem.offender)
    fix = problem.fix if problem.fix is not None else rule.format_help(**fields)
    return Finding(rule, expr, fields, help=fix, summary=summary, why=why)


_DISPLAYS = (ListExpr, DictExpr, SetExpr, ListComprehension, DictionaryComprehension, SetComprehension)
"""Expressions that spell their container: named by what they are, not by mypy's inferred type."""


def _refers_to(expr: Expression, fullname: str) -> bool:
    return isinstance(expr, RefExpr) and expr.fullname == fullname


def _partial_rule(typ: Type | None) -> Rule | None:
    """JC103 for a ``jax.tree_util.Partial``, JC102 for another ``functools.partial``, else None."""
    for info in _instance_infos(typ):
        names = [base.fullname for base in info.mro]
        if FUNCTOOLS_PARTIAL in names:
            if any(name.endswith("tree_util.Partial") for name in names):
                return rules.TREE_UTIL_PARTIAL
            return rules.FUNCTOOLS_PARTIAL
    return None


def is_bound_method(expr: MemberExpr, env: CallEnv) -> bool:
    """``receiver.method`` where the receiver is an instance and ``method`` an instance method.

    A receiver that is a module-level object is the same object each time the graph
    is built, so its bound methods are accepted, as at runtime.
    """
    receiver = expr.expr
    if isinstance(receiver, RefExpr) and isinstance(receiver.node, (MypyFile, TypeInfo, TypeAlias)):
        return False
    if _module_level(receiver):
        return False
    for info in _instance_infos(env.type_of(receiver)):
        symbol = info.get(expr.name)
        if symbol is not None and _is_instance_method(symbol.node):
            return True
    return False


def _module_level(expr: Expression) -> bool:
    if isinstance(expr, NameExpr):
        return expr.kind == GDEF and isinstance(expr.node, Var)
    if isinstance(expr, MemberExpr):
        return isinstance(expr.expr, RefExpr) and isinstance(expr.expr.node, MypyFile) and isinstance(expr.node, Var)
    return False


def _is_instance_method(node: SymbolNode | None) -> bool:
    if isinstance(node, Decorator):
        return not (node.func.is_static or node.func.is_class or node.var.is_property)
    if isinstance(node, (FuncDef, OverloadedFuncDef)):
        return not (node.is_static or node.is_class or node.is_property)
    return False


def _instance_infos(typ: Type | None, depth: int = 0) -> Iterator[TypeInfo]:
    """The classes of the instances a value of ``typ`` can be (not type objects)."""
    if typ is None or depth > 8:
        return
    proper = get_proper_type(typ)
    if isinstance(proper, Instance):
        yield proper.type
    elif isinstance(proper, TupleType):
        yield proper.partial_fallback.type
    elif isinstance(proper, (TypedDictType, LiteralType)):
        yield proper.fallback.type
    elif isinstance(proper, TypeVarType):
        yield from _instance_infos(proper.upper_bound, depth + 1)
    elif isinstance(proper, UnionType):
        for item in proper.items:
            yield from _instance_infos(item, depth + 1)


def _mapping_items(expr: Expression) -> Iterator[tuple[str | None, Expression]]:
    """(key text, value) of a literal mapping: ``{...}``, ``OrderedMap({...})``, ``dict(k=v)``, pairs."""
    if isinstance(expr, DictExpr):
        for key, value in expr.items:
            yield (_key_text(key) if key is not None else None), value
    elif isinstance(expr, CallExpr) and isinstance(expr.callee, RefExpr) and expr.callee.fullname in NODE_MAPS:
        for name, arg in zip(expr.arg_names, expr.args):
            if name is not None:
                yield f"`{name}`", arg
            elif isinstance(arg, (ListExpr, TupleExpr)):
                for pair in arg.items:
                    if isinstance(pair, TupleExpr) and len(pair.items) == 2:
                        yield _key_text(pair.items[0]), pair.items[1]
            else:
                yield from _mapping_items(arg)


def _key_text(key: Expression) -> str:
    return f"`{key.value}`" if isinstance(key, StrExpr) else f"`{expr_text(key)}`"


def _mapping_value_type(typ: Type | None) -> Type | None:
    """The value type of a mapping type (``OrderedMap[str, Cfg]`` -> ``Cfg``), else None."""
    proper = get_proper_type(typ) if typ is not None else None
    if isinstance(proper, Instance):
        for base in proper.type.mro:
            if base.fullname == "typing.Mapping":
                mapped = map_instance_to_supertype(proper, base)
                return mapped.args[1] if len(mapped.args) == 2 else None
    return None


__all__ = ["BODY", "CallEnv", "GRAPH_NODE", "body_findings", "graph_node_findings", "is_bound_method", "settings_findings"]
