"""The Label and Place bounds of graph types, in written and in inferred type arguments.

``JitGraph[Name, str]`` written in an annotation, a base class or an alias, and
``JitGraph(...)`` whose type arguments mypy infers from the call, are judged the
same way: every type argument in a Label or Place position must be a valid jit
cache key (see :mod:`mypy_plugin.hashability`). A finding is JC301 (Label) or
JC302 (Place), naming the type, the graph class and why, with the fix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final

from mypy.nodes import Context, Expression
from mypy.maptype import map_instance_to_supertype
from mypy.types import Instance, TupleType, Type, UnionType, get_proper_type

from jitcheck import rules
from mypy_plugin.codes import Finding
from mypy_plugin.hashability import Env, Unhashable, problems
from mypy_plugin.roles import LABEL, NODE_MAPS, PLACE, Roles, is_graph_class, role_arguments
from mypy_plugin.source import literal_items, literal_keys, literal_leaves, type_text


def bound_findings(
    instance: Instance,
    context: Context,
    env: Env,
    extra: Mapping[str, Roles],
    *,
    arg_contexts: Sequence[Context] = (),
    already: frozenset[tuple[str, str]] = frozenset(),
    reported_bounds: set[tuple[str, str, str]] | None = None,
) -> list[Finding]:
    """JC301/JC302 findings for the Label and Place arguments of a graph type.

    ``arg_contexts`` are the written type arguments (to point at the one at fault);
    ``already`` holds (role, type) pairs judged where they were first written, which
    are not reported again; ``reported_bounds`` (kept by the caller across calls)
    holds the bad TypeVar bounds already reported, each reported once.
    """
    once: set[tuple[str, str, str]] = reported_bounds if reported_bounds is not None else set()
    found: list[Finding] = []
    for role, arg, _ in role_arguments(instance, extra):
        if (role, str(arg)) in already:
            continue
        where = _written_at(instance, arg, arg_contexts) or context
        written = type_text(arg, env.options)
        for problem in problems(arg, env):
            if problem.path and problem.path[-1].startswith("the bound of "):
                key = (role, problem.path[-1], problem.offender)
                if key in once:
                    continue  # a TypeVar's bad bound is reported where it is first used
                once.add(key)
            found.append(_finding(role, written, instance.type.name, problem, where))
    return found


def _finding(role: str, written: str, graph: str, problem: Unhashable, where: Context) -> Finding:
    """JC301/JC302: a short line naming the type and what is wrong; why and fix as notes."""
    rule = rules.LABEL_BOUND if role == LABEL else rules.PLACE_BOUND
    short = f"it {problem.what}" if problem.offender == written and not problem.path else f"{problem.subject} {problem.what}"
    fields: dict[str, object] = {"type": written, "graph": graph, "reason": short}
    why = f"{problem.because}; a {role} is part of the graph's jit cache key, so it must hash and compare by value"
    return Finding(rule, where, fields, help=problem.fix, summary=rule.format(**fields), why=why)


ELEMENT_ROLES: Final = {"inputs": (PLACE, False), "outputs": (PLACE, False), "nodes": (LABEL, True), "values": (PLACE, True)}
"""Constructor parameters whose written elements are labels or places: (role, written as mapping keys)."""


def element_findings(
    instance: Instance,
    formals: Sequence[str | None],
    args: Sequence[Sequence[Expression]],
    type_of: Callable[[Expression], Type | None],
    env: Env,
    extra: Mapping[str, Roles],
) -> tuple[list[Finding], frozenset[tuple[str, str]]]:
    """JC301/JC302 for labels and places written out in a constructor call, one by one,
    and the (role, type) pairs they report.

    mypy infers one type argument for all of them, their join: ``("x", Port())`` gives
    ``object`` and hides the bad ``Port``. Each finding points at the element (the
    key of ``NestingGraph({...})``), so :func:`bound_findings` leaves the types found
    here alone (pass the pairs as its ``already``).
    """
    found: list[Finding] = []
    pairs: set[tuple[str, str]] = set()
    for formal, actuals in zip(formals, args):
        if formal not in ELEMENT_ROLES:
            continue
        role, keys = ELEMENT_ROLES[formal]
        for actual in actuals:
            elements = literal_keys(actual, NODE_MAPS) if keys else literal_items(actual)
            # Written out: each element's own type. A variable (``places: tuple[Loose, ...]``):
            # the item types of its type, which mypy may have joined away (``NodeDefinition[object]``).
            typed = [(e, type_of(e)) for e in elements] if elements else [(actual, t) for t in _item_types(type_of(actual), keys)]
            for element, typ in typed:
                if typ is None:
                    continue
                written = type_text(typ, env.options)
                for problem in problems(typ, env):
                    found.append(_finding(role, written, instance.type.name, problem, element))
                    pairs.add((role, str(typ)))
    return found, frozenset(pairs)


def _item_types(typ: Type | None, keys: bool) -> list[Type]:
    """The element types of a collection type: a tuple's items, an iterable's item, a mapping's key."""
    proper = get_proper_type(typ) if typ is not None else None
    if isinstance(proper, TupleType):
        return list(proper.items)
    if isinstance(proper, Instance):
        wanted = "typing.Mapping" if keys else "typing.Iterable"
        for base in proper.type.mro:
            if base.fullname == wanted:
                mapped = map_instance_to_supertype(proper, base)
                return [mapped.args[0]] if mapped.args else []
    return []


def roles_within(args: Iterable[Expression], type_of: Callable[[Expression], Type | None], extra: Mapping[str, Roles]) -> frozenset[tuple[str, str]]:
    """The (role, type) pairs of the graphs a call is built from.

    A constructor whose type argument comes from an argument that already is a graph
    (``JitGraph(nesting)``, or a node inside ``OrderedMap({...})``) inherits it: it
    was judged where that graph was built or declared, and is not reported again.
    Only the argument expressions' own types count, not the types mypy gave the
    containers around them from the call's context.
    """
    found: set[tuple[str, str]] = set()
    for arg in args:
        for leaf in literal_leaves(arg, NODE_MAPS):
            typ = type_of(leaf)
            proper = get_proper_type(typ) if typ is not None else None
            members = proper.items if isinstance(proper, UnionType) else [proper]
            for member in members:
                member = get_proper_type(member)
                if isinstance(member, Instance) and is_graph_class(member.type, extra):
                    found.update((role, str(arg)) for role, arg, _ in role_arguments(member, extra))
    return frozenset(found)


def _written_at(instance: Instance, arg: Type, arg_contexts: Sequence[Context]) -> Context | None:
    for index, own in enumerate(instance.args):
        if own is arg and index < len(arg_contexts) and arg_contexts[index].line >= 0:
            return arg_contexts[index]
    return None


__all__ = ["ELEMENT_ROLES", "bound_findings", "element_findings", "roles_within"]
