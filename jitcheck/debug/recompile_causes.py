"""Why one site compiled a program it had compiled before: a new callable, a rebuilt static argument, or new constants.

`classify` compares what jax keyed the two compiles on (the callable it traced, the
static arguments, the constants baked into the program) and names the cause with the
catalogue's rule and help line (``jitcheck.rules``), judged by ``jitcheck.core.keys``
as every other layer judges a cache key:

- ``constants``: only values baked into the program differ (a closure's captured
  value, a static argument used as a number): pass them as arguments;
- ``callable``: the function jax traced is a new object built from the same code
  (a bound method on a new receiver, a partial, a lambda, a nested def);
- ``static``: a static argument is a new object equal in value to the one before,
  but compared by identity (a lambda, a partial, an object without ``__eq__``);
- ``other``: nothing jax keys on changed (a cleared cache, other jit options).
"""

from __future__ import annotations

import dataclasses
import functools
import types
from collections.abc import Mapping
from typing import Any

from jitcheck.core.graphs import CallableGraph
from jitcheck.core.keys import callable_problem, describe, key_problems
from jitcheck.debug.explain import graph_changes, rebuilt, short
from jitcheck.rules import IDENTITY_CALLABLE, STATEFUL_FUNCTION_REBUILT, Rule

CAUSES = ("callable", "static", "constants", "other")
"""Every cause a recompile is put down to, in the order of the JSON ``causes`` counts."""

_OTHER_HELP = (
    "nothing jax keys this site on changed between the two compiles (the same function object, equal static "
    "arguments, the same constants): a cleared cache (jax.clear_caches) or other jit options (donation, "
    "shardings) for the same function compile it again"
)


@dataclasses.dataclass(frozen=True)
class Subject:
    """What jax keyed one compile on: the callable it traced, the static arguments by path, the constants' digest."""

    function: Any
    statics: tuple[tuple[str, Any], ...]
    constants: str


@dataclasses.dataclass(frozen=True)
class Cause:
    """The cause of an avoidable recompile, the catalogue rule that should have caught it (if any), and the fix."""

    kind: str
    rule: Rule | None
    help: str
    detail: str


def _equal(a: object, b: object) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b) and hash(a) == hash(b)
    except Exception:
        return False


def same_value(a: object, b: object, depth: int = 4) -> bool:
    """True when ``b`` is ``a`` built again: equal, or rebuilt from the same code and equal parts."""
    if _equal(a, b) or rebuilt(a, b):
        return True
    if depth <= 0 or type(a) is not type(b):
        return False
    if isinstance(a, types.FunctionType) and isinstance(b, types.FunctionType):
        cells_a = [c.cell_contents for c in a.__closure__ or () if _filled(c)]
        cells_b = [c.cell_contents for c in b.__closure__ or () if _filled(c)]
        return a.__code__ is b.__code__ and len(cells_a) == len(cells_b) and all(
            same_value(x, y, depth - 1) for x, y in zip(cells_a, cells_b)
        )
    if isinstance(a, (tuple, list)):
        other: Any = b
        return len(a) == len(other) and all(same_value(x, y, depth - 1) for x, y in zip(a, other))
    if isinstance(a, functools.partial) and isinstance(b, functools.partial):
        return same_value(a.func, b.func, depth - 1) and same_value((a.args, tuple(a.keywords.items())), (b.args, tuple(b.keywords.items())), depth - 1)
    return False


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _callable_cause(function: object, detail: str, constants: bool) -> Cause:
    kind = "constants" if constants else "callable"
    problem = callable_problem(function)
    if problem is not None:
        rule, fields = problem
        if isinstance(function, functools.partial):
            bound = [short(a) for a in function.args] + [f"{k}={short(v)}" for k, v in function.keywords.items()]
            fields = {"function": describe(function.func), "bound": ", ".join(bound), **fields}
        return Cause(kind, rule, rule.format_jitted_help(**{"position": "the jitted function", **fields}), detail)
    if not isinstance(function, (types.FunctionType, types.MethodType, functools.partial)) and type(function).__eq__ is object.__eq__:
        fields = {"subject": describe(function), "type": type(function).__qualname__}
        return Cause(kind, IDENTITY_CALLABLE, IDENTITY_CALLABLE.format_help(**fields), detail)
    return Cause(kind, None, "build the jitted function once and pass what changes as arguments", detail)


def _graph_cause(before: CallableGraph[Any, Any], after: CallableGraph[Any, Any], constants: bool) -> Cause | None:
    """A static graph (``JitGraph.jit_call``) whose nodes changed: the first change, by node and setting."""
    change = next(iter(graph_changes("graph", before, after)), None)
    if change is None:
        return None
    if constants:
        detail = f"{change.detail}, and only the constants of the program with it"
        help_ = f"make `{change.path}` an input place (a traced value) instead of a node setting: it only changes a constant of the program"
        return Cause("constants", None, help_, detail)
    return Cause("static", change.rule, change.fix, change.detail)


def _changed_leaf(path: str, before: object, after: object) -> tuple[str, object, object] | None:
    """The first leaf that differs between two pytrees of one structure (an equinox module's lambda field), if any."""
    import jax.tree_util

    try:
        flat_a: Any = jax.tree_util.tree_flatten_with_path(before)
        flat_b: Any = jax.tree_util.tree_flatten_with_path(after)
    except Exception:
        return None
    (leaves_a, tree_a), (leaves_b, tree_b) = flat_a, flat_b
    if tree_a != tree_b or len(leaves_b) == 1 and not leaves_b[0][0]:
        return None  # another structure, or a leaf itself
    for (key, a), (_, b) in zip(leaves_a, leaves_b):
        if not _equal(a, b):
            return path + jax.tree_util.keystr(key), a, b
    return None


def _static_cause(path: str, before: object, after: object, constants: bool) -> Cause:
    if isinstance(before, CallableGraph) and isinstance(after, CallableGraph):
        found = _graph_cause(before, after, constants)
        if found is not None:
            return found
    leaf = _changed_leaf(path, before, after)
    if leaf is not None:
        path, before, after = leaf
    problem = next(iter(key_problems(after, path, callable_position=callable(after))), None)
    if constants:
        detail = f"static argument `{path}` changed from {short(before)} to {short(after)}, and only the constants of the program with it"
        return Cause("constants", None, f"pass `{path}` as a traced argument instead of a static one: it only changes a constant of the program", detail)
    if problem is not None and same_value(before, after):
        detail = f"static argument `{path}` is `{describe(after)}` built again, equal in value but compared by identity"
        return Cause("static", problem.rule, problem.rule.format_help(**{"position": "a static argument", **problem.fields}), detail)
    detail = f"static argument `{path}` changed from {short(before)} to {short(after)} without changing the program"
    return Cause("static", problem.rule if problem is not None else None, f"pass `{path}` as a traced argument, or leave it out of the jitted function's arguments", detail)


def classify(before: Subject | None, after: Subject, wrapper: str = "jax.jit") -> Cause:
    """Why ``after`` compiled again the program ``before`` compiled (same site, same fingerprint, one ``wrapper``).

    ``before`` is None when the recorder let go of it (a site with many programs):
    the cause is then judged from ``after`` alone.
    """
    if wrapper == "jitcheck.StatefulFunction":  # a StatefulFunction keeps its cache in the object: a new one traces again
        subject = describe(after.function)
        detail = f"`{subject}` is traced by a new StatefulFunction, whose cache starts empty"
        return Cause("callable", STATEFUL_FUNCTION_REBUILT, STATEFUL_FUNCTION_REBUILT.format_help(subject=subject), detail)
    if before is None:
        return _alone(after)
    constants = before.constants != after.constants
    new_function = not _equal(before.function, after.function)
    changed = [(path, a, b) for (path, a), (_, b) in zip(before.statics, after.statics) if not _equal(a, b)]
    if len(before.statics) != len(after.statics):
        changed.append(("arguments", len(before.statics), len(after.statics)))
    if new_function:
        verb = "with other constants baked in" if constants else "built again from the same code"
        return _callable_cause(after.function, f"the jitted function `{describe(after.function)}` is a new object, {verb}", constants)
    if changed:
        path, a, b = changed[0]
        return _static_cause(path, a, b, constants)
    if constants:
        detail = "the same function compiled again with other constants baked in (a value it reads from outside changed)"
        return Cause("constants", None, "pass the values the function reads from outside (globals, attributes) as arguments", detail)
    return Cause("other", None, _OTHER_HELP, "the same function and static arguments compiled the same program again")


def _alone(after: Subject) -> Cause:
    if callable_problem(after.function) is not None:
        return _callable_cause(after.function, f"the jitted function `{describe(after.function)}` compiled a program again", False)
    for path, value in after.statics:
        problem = next(iter(key_problems(value, path, callable_position=callable(value))), None)
        if problem is not None:
            detail = f"static argument `{path}` is `{describe(value)}`, compared by identity"
            return Cause("static", problem.rule, problem.rule.format_help(**{"position": "a static argument", **problem.fields}), detail)
    return Cause("other", None, _OTHER_HELP, "the program was compiled again (what it was keyed on before is no longer kept)")


def cause_counts(counted: Mapping[str, int]) -> dict[str, int]:
    """How many recompiles each cause explains, every cause present (zero where none), in `CAUSES` order."""
    return {kind: counted.get(kind, 0) for kind in CAUSES}


__all__ = ["CAUSES", "Cause", "Subject", "cause_counts", "classify", "same_value"]
