"""An import that failed with ``TypeError: unhashable type: 'X'`` while building a graph: the label rule and its fix.

A node label (or place) of a class whose instances do not hash (a dataclass that
is not frozen, a class defining ``__eq__`` without ``__hash__``) fails where Python
first hashes it, often in the user's own dict literal ``OrderedMap({X(...): node})``,
before any jitcheck check can run. The import report would call that a generic
import failure; `explain` finds the class named in the message, says why its
instances do not hash, and returns the label rule (JC301) with the fix.
"""

from __future__ import annotations

import dataclasses
import linecache
import re
from types import TracebackType

from jitcheck import rules

_UNHASHABLE = re.compile(r"unhashable type: '([A-Za-z_][A-Za-z0-9_.]*)'")
_GRAPH_WORDS = ("OrderedMap", "NestingGraph", "JitGraph", "CallableGraph", "NodeDefinition", "GraphWithValues")


@dataclasses.dataclass(frozen=True)
class Unhashable:
    """What `explain` found: the rule, its message and help, filled in."""

    rule: rules.Rule
    message: str
    help: str


def _frames(tb: TracebackType | None) -> list[TracebackType]:
    found = []
    while tb is not None:
        found.append(tb)
        tb = tb.tb_next
    return found


def _find_class(name: str, tbs: list[TracebackType]) -> type | None:
    short = name.rsplit(".", 1)[-1]
    for tb in reversed(tbs):
        frame = tb.tb_frame
        for scope in (frame.f_locals, frame.f_globals):
            value = scope.get(short)
            if isinstance(value, type) and value.__name__ == short:
                return value
    return None


def _reason(cls: type | None, name: str) -> tuple[str, str]:
    """Why instances of ``cls`` do not hash, and the fix."""
    if cls is not None and dataclasses.is_dataclass(cls):
        params = getattr(cls, "__dataclass_params__", None)
        if params is not None and not params.frozen:
            return (
                f"`{name}` is a dataclass that is not frozen (eq=True sets its __hash__ to None), so its instances do not hash",
                f"declare it `@dataclasses.dataclass(frozen=True)` so `{name}` hashes and compares by value",
            )
    if cls is not None and "__eq__" in vars(cls) and vars(cls).get("__hash__", 0) is None:
        return (
            f"`{name}` defines __eq__ without __hash__, so its instances do not hash",
            f"define `__hash__` on `{name}` consistent with its __eq__ (or make it a frozen dataclass)",
        )
    return (
        f"instances of `{name}` do not hash",
        f"make `{name}` hashable by value: a frozen dataclass, a NamedTuple, an enum, a str or a tuple of them",
    )


def explain(error: BaseException) -> Unhashable | None:
    """The label rule for an ``unhashable type`` error raised while building a graph, or None for any other error."""
    if not isinstance(error, TypeError):
        return None
    found = _UNHASHABLE.search(str(error))
    if found is None:
        return None
    name = found.group(1)
    tbs = _frames(error.__traceback__)
    lines = [linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno) for tb in tbs]
    words = [word for line in lines for word in _GRAPH_WORDS if word in line]
    in_core = any(tb.tb_frame.f_globals.get("__name__", "").startswith("jitcheck.core") for tb in tbs)
    if not words and not in_core:
        return None
    graphs = [(line.find(w), w) for line in lines for w in _GRAPH_WORDS if w.endswith("Graph") and w in line]
    graph = min(graphs)[1] if graphs else "graph"
    reason, fix = _reason(_find_class(name, tbs), name)
    rule = rules.LABEL_BOUND
    message = rule.format(type=name, graph=graph, reason=f"unhashable type: '{name}': {reason}")
    help_ = f"{fix}; {rule.format_help()} (a place, JC302, needs the same)"
    return Unhashable(rule, message, help_)


__all__ = ["Unhashable", "explain"]
