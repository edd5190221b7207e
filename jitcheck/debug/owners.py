"""Who is traced, and the traced wrapper of a function: shared by `watch` and debug mode's replaced ``jax.jit``.

One `_Owner` per function code (rebuilt functions of the same code share it, so a
closure or a ``functools.partial`` built anew for every call is seen retracing), and
one traced wrapper per function (an equal function gets the same one, so jax's cache
is reused as ``jax.jit(f)`` reuses it). Each trace of the wrapper reports its cache key,
argument by argument, to the retrace tracker. Both :mod:`jitcheck.debug.watching` and
:mod:`jitcheck.debug.compiles` build on this module, which imports neither.
"""

from __future__ import annotations

import collections
import functools
import inspect
import types
from collections.abc import Callable, Hashable
from typing import Any

import jax
import jax.tree_util

from jitcheck.core.events import ArgumentKey, notify_trace, traced_argument_keys
from jitcheck.core.keys import describe
from jitcheck.core.partial import ValuePartial
from jitcheck.debug.explain import TraceKey

_WRAPPERS_KEPT = 512


class _Owner:
    """Who is traced: one per function code, shared by rebuilt functions of that code."""

    __slots__ = ("name", "__weakref__")

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<watched {self.name}>"


_OWNERS: dict[Hashable, _Owner] = {}
_WRAPPERS: collections.OrderedDict[object, Callable[..., Any]] = collections.OrderedDict()


def _identity(fn: object) -> Hashable:
    """What stays the same when ``fn`` is built again: its code, its function, its class."""
    if isinstance(fn, functools.partial):
        return ("partial", _identity(fn.func))
    if isinstance(fn, ValuePartial):
        return ("ValuePartial", _identity(fn.func))
    if isinstance(fn, types.MethodType):
        return ("method", _identity(fn.__func__))
    if isinstance(fn, types.FunctionType):
        return ("function", fn.__module__, fn.__qualname__, fn.__code__)
    return ("callable", type(fn))


def owner_for(fn: object) -> _Owner:
    identity = _identity(fn)
    owner = _OWNERS.get(identity)
    if owner is None:
        owner = _OWNERS[identity] = _Owner(describe(fn))
    return owner


def argument_keys(path: str, value: Any) -> list[tuple[str, ArgumentKey]]:
    """One argument's part of the cache key: static by value, traced by shape, dtype and structure."""
    leaves = jax.tree_util.tree_leaves(value)
    if leaves and not all(isinstance(leaf, jax.core.Tracer) for leaf in leaves):
        return [(path, ArgumentKey("static", value))]
    return traced_argument_keys(path, value)


def _positional_names(fn: Callable[..., Any]) -> tuple[str, ...]:
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return ()
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return tuple(p.name for p in parameters if p.kind in kinds)


def call_key(fn: object, names: tuple[str, ...], args: tuple[Any, ...], kwargs: dict[str, Any]) -> TraceKey:
    """The cache key of one traced call: the function, then each argument by name."""
    parts: list[tuple[str, ArgumentKey]] = [("function", ArgumentKey("static", fn))]
    for i, value in enumerate(args):
        parts += argument_keys(names[i] if i < len(names) else f"args[{i}]", value)
    for name, value in kwargs.items():
        parts += argument_keys(name, value)
    return tuple(parts)


def _make_traced(fn: Callable[..., Any], owner: _Owner) -> Callable[..., Any]:
    names = _positional_names(fn)

    @functools.wraps(fn)
    def traced(*args: Any, **kwargs: Any) -> Any:
        # Runs only while jax traces: once per new cache key.
        notify_trace(owner, owner.name, lambda: call_key(fn, names, args, kwargs))
        return fn(*args, **kwargs)

    traced._jitcheck_traced = True  # type: ignore[attr-defined]  # the recompile recorder looks through it
    return traced


def traced_for(fn: Callable[..., Any], owner: _Owner) -> Callable[..., Any]:
    """The traced wrapper of ``fn``: the same one for the same (or an equal) function, so jax's cache is reused."""
    try:
        wrapper = _WRAPPERS.get(fn)
    except TypeError:  # an unhashable callable: no reuse
        return _make_traced(fn, owner)
    if wrapper is None:
        wrapper = _WRAPPERS[fn] = _make_traced(fn, owner)
        while len(_WRAPPERS) > _WRAPPERS_KEPT:
            _WRAPPERS.popitem(last=False)
    else:
        _WRAPPERS.move_to_end(fn)
    return wrapper


__all__ = ["argument_keys", "call_key", "owner_for", "traced_for"]
