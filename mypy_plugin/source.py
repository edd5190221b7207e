"""Expressions and types written back as short source text, for messages.

mypy keeps the syntax tree, not the source text, so messages that quote the user's
code (``partial(scale, factor=2.0)``, ``self.step``) render it from the tree. Long
or unusual expressions are shortened rather than rendered wrongly.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Final

from mypy.messages import format_type_bare
from mypy.nodes import (
    ARG_NAMED,
    ARG_STAR,
    ARG_STAR2,
    BytesExpr,
    CallExpr,
    ComplexExpr,
    DictExpr,
    Expression,
    FloatExpr,
    IndexExpr,
    IntExpr,
    LambdaExpr,
    ListExpr,
    MemberExpr,
    NameExpr,
    OpExpr,
    RefExpr,
    SetExpr,
    StrExpr,
    TupleExpr,
    UnaryExpr,
)
from mypy.options import Options
from mypy.types import Instance, Type, get_proper_type

LIMIT = 72


def expr_text(expr: Expression, limit: int = LIMIT) -> str:
    """``expr`` as source text, shortened with ``...`` past ``limit`` characters."""
    text = _render(expr, depth=0)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def call_arguments(call: CallExpr, skip: int = 0) -> str:
    """The arguments of ``call`` as source text (``scale, factor=2.0``), the first ``skip`` left out."""
    return ", ".join(_argument(call, i, depth=1) for i in range(skip, len(call.args)))


def literal_leaves(expr: Expression, containers: Collection[str], depth: int = 0) -> Iterator[Expression]:
    """The values written inside literal containers: through dict, list and tuple displays
    and calls of ``containers`` (full names, such as ``OrderedMap``), ``expr`` itself otherwise.
    """
    if depth > 6:
        return
    if isinstance(expr, DictExpr):
        for _, value in expr.items:
            yield from literal_leaves(value, containers, depth + 1)
    elif isinstance(expr, (ListExpr, TupleExpr)):
        for item in expr.items:
            yield from literal_leaves(item, containers, depth + 1)
    elif isinstance(expr, CallExpr) and isinstance(expr.callee, RefExpr) and expr.callee.fullname in containers:
        for arg in expr.args:
            yield from literal_leaves(arg, containers, depth + 1)
    else:
        yield expr


def literal_items(expr: Expression) -> list[Expression]:
    """The items of a tuple, list or set display; nothing for another expression."""
    if isinstance(expr, (TupleExpr, ListExpr, SetExpr)):
        return list(expr.items)
    return []


def literal_keys(expr: Expression, containers: Collection[str]) -> list[Expression]:
    """The keys of a mapping written out: a dict display, or a call of ``containers`` on one
    (``OrderedMap({...})``) or on pairs (``OrderedMap([(k, v), ...])``)."""
    if isinstance(expr, DictExpr):
        return [key for key, _ in expr.items if key is not None]
    if isinstance(expr, CallExpr) and isinstance(expr.callee, RefExpr) and expr.callee.fullname in containers and expr.args:
        first = expr.args[0]
        if isinstance(first, (ListExpr, TupleExpr)):
            return [pair.items[0] for pair in first.items if isinstance(pair, TupleExpr) and len(pair.items) == 2]
        return literal_keys(first, containers)
    return []


FULL_NAMES: Final = {"jax.Array": "jax.Array", "jax._src.basearray.Array": "jax.Array"}
"""Types whose short name says too little (``Array``), printed in full."""


def type_text(typ: Type, options: Options) -> str:
    """A type as mypy writes it in its own messages (``list[int]``, ``Name``; ``jax.Array`` in full)."""
    proper = get_proper_type(typ)
    if isinstance(proper, Instance) and proper.type.fullname in FULL_NAMES:
        return FULL_NAMES[proper.type.fullname]
    return format_type_bare(typ, options)


def _argument(call: CallExpr, index: int, depth: int) -> str:
    value = _render(call.args[index], depth)
    kind = call.arg_kinds[index]
    if kind == ARG_STAR:
        return "*" + value
    if kind == ARG_STAR2:
        return "**" + value
    name = call.arg_names[index]
    if kind == ARG_NAMED and name is not None:
        return f"{name}={value}"
    return value


def _render(expr: Expression, depth: int) -> str:
    if depth > 4:
        return "..."
    inner = depth + 1
    if isinstance(expr, NameExpr):
        return expr.name
    if isinstance(expr, MemberExpr):
        return f"{_render(expr.expr, inner)}.{expr.name}"
    if isinstance(expr, (IntExpr, FloatExpr, ComplexExpr)):
        return repr(expr.value)
    if isinstance(expr, StrExpr):
        return repr(expr.value)
    if isinstance(expr, BytesExpr):
        return f"b{expr.value!r}"
    if isinstance(expr, CallExpr):
        args = ", ".join(_argument(expr, i, inner) for i in range(len(expr.args)))
        return f"{_render(expr.callee, inner)}({args})"
    if isinstance(expr, IndexExpr):
        return f"{_render(expr.base, inner)}[{_render(expr.index, inner)}]"
    if isinstance(expr, TupleExpr):
        items = [_render(item, inner) for item in expr.items]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(expr, ListExpr):
        return "[" + ", ".join(_render(item, inner) for item in expr.items) + "]"
    if isinstance(expr, SetExpr):
        return "{" + ", ".join(_render(item, inner) for item in expr.items) + "}"
    if isinstance(expr, DictExpr):
        pairs = [
            f"{_render(key, inner)}: {_render(value, inner)}" if key is not None else f"**{_render(value, inner)}"
            for key, value in expr.items
        ]
        return "{" + ", ".join(pairs) + "}"
    if isinstance(expr, UnaryExpr):
        operand = _render(expr.expr, inner)
        return f"{expr.op} {operand}" if expr.op == "not" else f"{expr.op}{operand}"
    if isinstance(expr, OpExpr):
        return f"{_render(expr.left, inner)} {expr.op} {_render(expr.right, inner)}"
    if isinstance(expr, LambdaExpr):
        names = ", ".join(arg.variable.name for arg in expr.arguments)
        return f"lambda {names}: ..." if names else "lambda: ..."
    return "..."


__all__ = ["call_arguments", "expr_text", "literal_items", "literal_keys", "literal_leaves", "type_text"]
