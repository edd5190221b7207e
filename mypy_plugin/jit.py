"""jax.jit call sites judged with mypy's types: static arguments, and bound methods jitted over and over.

Static positions come from the decorators of the jitted function as written in its
module's source (read by :mod:`.specs`). An argument passed in a static position is hashed into jax's cache key: its type
must hash by value (JC201-JC204, the same judgement as labels). ``eqx.filter_jit``
makes every non-array argument static; there only classes that hash by identity
or not at all are refused (lists and dicts are pytrees, walked into).

``jax.jit(x.method)`` / ``jax.pmap(x.method)`` where ``x.method`` is a bound method
is a new cache key for each wrapper: JC101 when the wrapper is built inside a loop,
or called where it is built inside a function other than ``__init__``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from mypy.nodes import (
    ARG_NAMED,
    ARG_POS,
    AssignmentStmt,
    Block,
    CallExpr,
    Decorator,
    Expression,
    ExpressionStmt,
    ForStmt,
    FuncItem,
    IfStmt,
    MemberExpr,
    OperatorAssignmentStmt,
    ReturnStmt,
    Statement,
    TryStmt,
    WhileStmt,
    WithStmt,
)
from mypy.types import Instance, Type, get_proper_type

from jitcheck import rules
from mypy_plugin.bodies import CallEnv, body_findings, is_bound_method
from mypy_plugin.codes import Finding
from mypy_plugin.source import expr_text, type_text
from mypy_plugin.specs import StaticSpec

_PYTREE_BASES: Final = frozenset({"equinox._module.Module", "equinox._module._module.Module"})


def static_call_findings(call: CallExpr, decorator: Decorator, spec: StaticSpec, env: CallEnv) -> list[Finding]:
    """JC201-JC204 (and the callable rules) for the arguments of ``call`` in static positions."""
    func = decorator.func
    formals = func.arg_names
    positional = [i for i, kind in enumerate(func.arg_kinds) if kind.is_positional()]
    found: list[Finding] = []
    index = 0
    for kind, name, arg in zip(call.arg_kinds, call.arg_names, call.args):
        if kind == ARG_POS:
            formal_index = positional[index] if index < len(positional) else None
            index += 1
        elif kind == ARG_NAMED and name is not None:
            formal_index = formals.index(name) if name in formals else None
        else:
            continue  # *args, **kwargs: positions unknown
        formal = formals[formal_index] if formal_index is not None else name
        static = spec.every_leaf or (formal_index is not None and formal_index in spec.argnums) or formal in spec.argnames
        if not static:
            continue
        position = f"static argument `{formal}` of `{func.name}` ({spec.wrapper})"
        if spec.every_leaf:
            found.extend(_leaf_findings(arg, env, position))
        else:
            found.extend(body_findings(arg, env, position))
    return found


def _leaf_findings(arg: Expression, env: CallEnv, position: str) -> Iterator[Finding]:
    """``eqx.filter_jit``: a non-array, non-pytree object is hashed; one that does not hash is refused."""
    typ = env.type_of(arg)
    proper = get_proper_type(typ) if typ is not None else None
    if not isinstance(proper, Instance) or any(b.fullname in _PYTREE_BASES for b in proper.type.mro):
        return
    for finding in body_findings(arg, env, position):
        if finding.rule in (rules.MUTABLE_DATACLASS, rules.EQ_WITHOUT_HASH):
            yield finding


class _Sites:
    """The calls of a function body that are inside a loop, and those called where they are built.

    A plain walk over the statements that hold code (mypy's visitors are compiled
    traits that a plugin cannot subclass); nested functions are judged on their own.
    """

    def __init__(self) -> None:
        self.in_loop: set[int] = set()
        self.called: set[int] = set()

    def statements(self, body: list[Statement], loop: bool) -> None:
        for statement in body:
            self.statement(statement, loop)

    def statement(self, node: Statement, loop: bool) -> None:
        if isinstance(node, Block):
            self.statements(node.body, loop)
        elif isinstance(node, (ForStmt, WhileStmt)):
            self.expression(node.expr, loop)
            self.statements(node.body.body, True)
            if node.else_body is not None:
                self.statements(node.else_body.body, loop)
        elif isinstance(node, IfStmt):
            for condition in node.expr:
                self.expression(condition, loop)
            for block in node.body:
                self.statements(block.body, loop)
            if node.else_body is not None:
                self.statements(node.else_body.body, loop)
        elif isinstance(node, WithStmt):
            for item in node.expr:
                self.expression(item, loop)
            self.statements(node.body.body, loop)
        elif isinstance(node, TryStmt):
            blocks: list[Block | None] = [node.body, *node.handlers, node.else_body, node.finally_body]
            for part in blocks:
                if part is not None:
                    self.statements(part.body, loop)
        elif isinstance(node, (ExpressionStmt, ReturnStmt)) and node.expr is not None:
            self.expression(node.expr, loop)
        elif isinstance(node, (AssignmentStmt, OperatorAssignmentStmt)):
            self.expression(node.rvalue, loop)

    def expression(self, node: Expression, loop: bool) -> None:
        if isinstance(node, CallExpr):
            if loop:
                self.in_loop.add(id(node))
            if isinstance(node.callee, CallExpr):
                self.called.add(id(node.callee))
            self.expression(node.callee, loop)
            for arg in node.args:
                self.expression(arg, loop)
        elif isinstance(node, MemberExpr):
            self.expression(node.expr, loop)


class LoopSites:
    """Where each function's calls stand (in a loop, called where built), computed once per function."""

    def __init__(self) -> None:
        self._by_function: dict[int, _Sites] = {}

    def of(self, function: FuncItem) -> _Sites:
        sites = self._by_function.get(id(function))
        if sites is None:
            sites = _Sites()
            sites.statements(function.body.body, loop=False)
            self._by_function[id(function)] = sites
        return sites


def rebuilt_method_findings(
    call: CallExpr, builder: str, function: FuncItem | None, sites: LoopSites, env: CallEnv
) -> list[Finding]:
    """JC101 for ``jax.jit(x.method)`` built in a loop, or built and called in a function (not ``__init__``)."""
    if function is None or not call.args or function.name == "__init__":
        return []
    target = call.args[0]
    if not isinstance(target, MemberExpr) or not is_bound_method(target, env):
        return []
    where = sites.of(function)
    if id(call) in where.in_loop:
        how = "on every loop iteration"
    elif id(call) in where.called:
        how = f"on every call of `{function.name}`"
    else:
        return []
    receiver = env.type_of(target.expr)
    owner = type_text(receiver, env.env.options) if receiver is not None else "?"
    text = expr_text(target, limit=40)
    summary = f"Bound method `{text}` of `{owner}` is jitted anew {how}"
    fields: dict[str, object] = {"subject": text, "position": f"the function of `{builder}`"}
    why = (
        f"a bound method compares its receiver (a `{owner}`) by identity, so each `{builder}` wrapper "
        "built here is a new jit cache key: jax traces and compiles again"
    )
    return [Finding(rules.BOUND_METHOD, target, fields, summary=summary, why=why)]


def type_name(typ: Type | None) -> str | None:
    proper = get_proper_type(typ) if typ is not None else None
    return proper.type.fullname if isinstance(proper, Instance) else None


__all__ = ["LoopSites", "rebuilt_method_findings", "static_call_findings", "type_name"]
