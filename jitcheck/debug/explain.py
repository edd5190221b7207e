"""Why a function was traced again: the arguments whose part of the cache key changed, and how.

Compares two cache keys, argument by argument (shape, dtype, weak type, pytree
structure, static value, the function itself), in the manner of jax's
``jax_explain_cache_misses``, and names the jitcheck rule behind a change where one
applies: a rebuilt ``functools.partial`` is JC102 and its fix `jitcheck.ValuePartial`,
a rebuilt closure JC105, and so on, judged by ``jitcheck.core.keys`` like every
other layer.
"""

from __future__ import annotations

import dataclasses
import functools
import types
from collections.abc import Sequence
from typing import Any

import jax.tree_util

from jitcheck.core.context import Configuration, describe_change
from jitcheck.core.events import ArgumentKey
from jitcheck.core.graphs import CallableGraph
from jitcheck.core.keys import describe, key_problems
from jitcheck.core.violations import node_name
from jitcheck.rules import Rule

TraceKey = tuple[tuple[str, ArgumentKey], ...]

_STATIC_FIX = (
    "a static argument is part of the cache key, so each new value is traced and compiled again: "
    "pass `{path}` as a traced (array) argument if it changes from call to call, "
    "or raise max_traces if these values are expected"
)
_SETTING_FIX = (
    "a node setting is part of the graph's cache key, so each new value traces and compiles the graph again: "
    "make it an input place (a traced value) if it changes from call to call, or raise max_traces if these values are expected"
)
_SHAPE_FIX = "keep `{path}`'s shape fixed from call to call (pad or bucket it), or raise max_traces if each shape is expected"
_DTYPE_FIX = "cast `{path}` to one dtype before the call, e.g. `x.astype(jnp.float32)`"
_WEAK_FIX = "pass `{path}` always as a jax array (`jnp.asarray(value, dtype)`) or always as a Python scalar"
_TREE_FIX = "pass `{path}` with the same pytree structure (the same keys, lengths and None entries) on every call"
_AGAIN_FIX = (
    "build the jitted function once (at module level, or in `__init__`) and call that one; "
    "`jax.jit(f)` or `watch(f)` of a new function object starts a new cache"
)


@dataclasses.dataclass(frozen=True)
class ArgumentChange:
    """How one argument's part of the cache key changed between two traces.

    ``aspect`` is what changed: ``shape``, ``dtype``, ``weak type``, ``structure``,
    ``static value``, ``function``, ``graph``, ``configuration``, ``added``, ``removed``, ``kind`` or
    ``cache`` (the same key traced again). ``rule`` is the jitcheck rule behind it,
    when one applies; ``fix`` says what to do.
    """

    path: str
    aspect: str
    before: str
    after: str
    detail: str
    fix: str
    rule: Rule | None = None

    def describe(self) -> str:
        """The change in words, with its rule code."""
        return self.detail + (f" [{self.rule.code}]" if self.rule is not None else "")

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of this change."""
        return {
            "argument": self.path,
            "aspect": self.aspect,
            "before": self.before,
            "after": self.after,
            "detail": self.detail,
            "rule": None if self.rule is None else self.rule.code,
            "fix": self.fix,
        }


def short(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters."""
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not hide the retrace
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def same_payload(a: object, b: object) -> bool:
    """True when two parts of a cache key are the same key (identity, then ``==``)."""
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _same(a: ArgumentKey, b: ArgumentKey) -> bool:
    return a.kind == b.kind and same_payload(a.payload, b.payload)


def same_key(a: TraceKey, b: TraceKey) -> bool:
    """True when two trace keys are equal, argument by argument."""
    return len(a) == len(b) and all(pa == pb and _same(ka, kb) for (pa, ka), (pb, kb) in zip(a, b))


def compare(before: TraceKey, after: TraceKey) -> list[ArgumentChange]:
    """Every argument whose part of the cache key differs between ``before`` and ``after``."""
    old = dict(before)
    new = dict(after)
    changes: list[ArgumentChange] = []
    for path, key in after:
        if path not in old:
            changes.append(ArgumentChange(path, "added", "-", _key_text(key), f"`{path}` was not passed before", _TREE_FIX.format(path=path)))
            continue
        previous = old[path]
        if _same(previous, key):
            continue
        if previous.kind != key.kind:
            changes.append(
                ArgumentChange(
                    path, "kind", previous.kind, key.kind,
                    f"`{path}` was a {_kind_words(previous.kind)} and is now a {_kind_words(key.kind)}",
                    _TREE_FIX.format(path=path),
                )
            )
        elif key.kind == "array":
            changes.extend(_array_changes(path, previous.payload, key.payload))
        elif key.kind == "tree":
            changes.append(
                ArgumentChange(
                    path, "structure", short(previous.payload, 80), short(key.payload, 80),
                    f"`{path}` changed pytree structure from {short(previous.payload, 80)} to {short(key.payload, 80)}",
                    _TREE_FIX.format(path=path),
                )
            )
        else:
            changes.extend(static_changes(path, previous.payload, key.payload))
    for path, key in before:
        if path not in new:
            changes.append(ArgumentChange(path, "removed", _key_text(key), "-", f"`{path}` is no longer passed", _TREE_FIX.format(path=path)))
    return changes


def traced_again(path: str = "cache key") -> ArgumentChange:
    """The change that is no change: a key already traced, traced again."""
    return ArgumentChange(
        path, "cache", "traced", "traced again",
        "traced again with a cache key it had already traced: the jitted function was built anew "
        "(jax.jit or watch of a new function object) or its cache was cleared",
        _AGAIN_FIX,
    )


def closest(previous: Sequence[TraceKey], key: TraceKey) -> tuple[TraceKey, list[ArgumentChange]] | None:
    """The earlier key that differs least from ``key`` (the latest of equals), with the differences."""
    best: tuple[TraceKey, list[ArgumentChange]] | None = None
    for candidate in previous:
        changes = compare(candidate, key)
        if best is None or len(changes) <= len(best[1]):
            best = (candidate, changes)
    return best


def _kind_words(kind: str) -> str:
    return {"array": "traced array", "static": "static value", "tree": "pytree of traced arrays"}.get(kind, kind)


def _key_text(key: ArgumentKey) -> str:
    if key.kind == "array":
        shape, dtype, weak = key.payload
        return f"{dtype}{list(shape)}" + (" (weak)" if weak else "")
    return short(key.payload)


def _array_changes(path: str, before: Any, after: Any) -> list[ArgumentChange]:
    (shape_a, dtype_a, weak_a), (shape_b, dtype_b, weak_b) = before, after
    changes = []
    if tuple(shape_a) != tuple(shape_b):
        changes.append(
            ArgumentChange(
                path, "shape", str(tuple(shape_a)), str(tuple(shape_b)),
                f"`{path}` changed shape from {tuple(shape_a)} to {tuple(shape_b)}", _SHAPE_FIX.format(path=path),
            )
        )
    if str(dtype_a) != str(dtype_b):
        changes.append(
            ArgumentChange(path, "dtype", str(dtype_a), str(dtype_b), f"`{path}` changed dtype from {dtype_a} to {dtype_b}", _DTYPE_FIX.format(path=path))
        )
    if bool(weak_a) != bool(weak_b):
        words = {True: "a Python scalar (weakly typed)", False: "an array"}
        changes.append(
            ArgumentChange(
                path, "weak type", str(bool(weak_a)), str(bool(weak_b)),
                f"`{path}` was {words[bool(weak_a)]} and is now {words[bool(weak_b)]}", _WEAK_FIX.format(path=path),
            )
        )
    return changes


def _noun(value: object) -> tuple[str, str]:
    """What ``value`` is, and what a rebuilt one shares with the one before."""
    if isinstance(value, jax.tree_util.Partial):
        return "jax.tree_util.Partial", "function and arguments"
    if isinstance(value, functools.partial):
        return "functools.partial", "function and arguments"
    if isinstance(value, types.MethodType):
        return "bound method", "function, on a new receiver"
    if isinstance(value, types.FunctionType):
        return ("lambda" if value.__name__ == "<lambda>" else "function"), "code"
    return f"`{type(value).__qualname__}` instance", "class"


def rebuilt(before: object, after: object) -> bool:
    """True when ``after`` is ``before`` built again: equal parts, but not equal (compared by identity)."""
    if before is after or type(before) is not type(after):
        return False
    try:
        if isinstance(after, functools.partial) and isinstance(before, functools.partial):
            return bool(before.func == after.func and before.args == after.args and before.keywords == after.keywords)
        if isinstance(after, types.MethodType) and isinstance(before, types.MethodType):
            return before.__func__ is after.__func__
        if isinstance(after, types.FunctionType) and isinstance(before, types.FunctionType):
            return before.__code__ is after.__code__
        return type(after).__eq__ is object.__eq__
    except Exception:  # an argument whose == fails (an array) is not "equal parts"
        return False


def static_changes(path: str, before: object, after: object, *, fix: str | None = None) -> list[ArgumentChange]:
    """How a static part of the key changed: a new value, or the same value rebuilt and compared by identity."""
    if isinstance(before, CallableGraph) and isinstance(after, CallableGraph):
        found = graph_changes(path, before, after)
        if found:
            return found
    if isinstance(before, Configuration) and isinstance(after, Configuration):
        changed = describe_change(before.context, after.context)
        return [
            ArgumentChange(
                path, "configuration", "before", "now",
                f"jax's configuration changed ({changed}); jax.jit keys its cache on it too, so the function is "
                "traced again under the new configuration",
                "set jax's configuration (jax.config.update, or a context manager such as jax.enable_x64 or "
                "jax.numpy_dtype_promotion) once, outside the loop, rather than switching it between calls",
            )
        ]
    problem = next(iter(key_problems(after, path, callable_position=callable(after))), None)
    rule = problem.rule if problem is not None else None
    fields: dict[str, object] = {"position": "a static argument", **(problem.fields if problem is not None else {})}
    if rule is not None:
        fix = f"{rule.code}: {rule.format_help(**fields)}"
    elif fix is None:
        fix = _STATIC_FIX.format(path=path)
    subject = "the function being traced" if path == "function" else f"`{path}`"
    noun, shared = _noun(after)
    if rule is not None and rebuilt(before, after):
        detail = (
            f"{subject} is a new {noun} `{describe(after)}`, built again from the same {shared} as the one before; "
            "it compares by identity, so every rebuild is a new cache key"
        )
    elif rule is not None:
        detail = f"{subject} changed from `{describe(before)}` to `{describe(after)}`, a {noun} that compares by identity"
    else:
        detail = f"{subject} changed value from {short(before)} to {short(after)}"
    aspect = "function" if path == "function" else "static value"
    return [ArgumentChange(path, aspect, short(before), short(after), detail, fix, rule)]


def graph_changes(path: str, before: CallableGraph[Any, Any], after: CallableGraph[Any, Any]) -> list[ArgumentChange]:
    """The nodes of two graphs that differ: a body, a setting, the places; labels added or removed."""
    old = {(p, label): node for p, label, node in before.graph.flat()}
    new = {(p, label): node for p, label, node in after.graph.flat()}
    changes: list[ArgumentChange] = []
    for where, node in new.items():
        name = node_name(*where)
        if where not in old:
            changes.append(ArgumentChange(path, "graph", "-", name, f"`{path}` has a new node {name}", _STATIC_FIX.format(path=path)))
            continue
        previous = old[where]
        if previous == node:
            continue
        if not same_payload(previous.body, node.body):
            changes.extend(static_changes(f"{path} node {name} body", previous.body, node.body))
        for key in dict.fromkeys([*previous.settings, *node.settings]):
            a, b = previous.settings.get(key, "<unset>"), node.settings.get(key, "<unset>")
            if not same_payload(a, b):
                changes.extend(static_changes(f"{path} node {name} settings[{key!r}]", a, b, fix=_SETTING_FIX))
        if previous.inputs != node.inputs or previous.outputs != node.outputs:
            changes.append(
                ArgumentChange(
                    path, "graph", f"{previous.inputs} -> {previous.outputs}", f"{node.inputs} -> {node.outputs}",
                    f"`{path}` node {name} changed places from {previous.inputs} -> {previous.outputs} to {node.inputs} -> {node.outputs}",
                    _STATIC_FIX.format(path=path),
                )
            )
    for where in old:
        if where not in new:
            name = node_name(*where)
            changes.append(ArgumentChange(path, "graph", name, "-", f"`{path}` lost its node {name}", _STATIC_FIX.format(path=path)))
    return changes


__all__ = ["ArgumentChange", "TraceKey", "closest", "compare", "graph_changes", "rebuilt", "same_key", "static_changes", "traced_again"]
