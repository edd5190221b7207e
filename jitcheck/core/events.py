"""Trace events: who traced, and under which cache key, for the debug layer's retrace watch.

Tracing code (``JitGraph.jit_call``, ``StatefulFunction``) calls :func:`notify_trace`
each time jax traces it for a new cache key. With no listener (debug mode off) that
costs one list check. The debug layer subscribes with :func:`subscribe` and explains
retraces by comparing the arguments of successive traces of the same owner.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.tree_util


class ArgumentKey(NamedTuple):
    """One argument's part of a cache key.

    ``kind`` is ``"array"`` (``payload`` = (shape, dtype, weak_type)), ``"static"``
    (``payload`` = the static value itself, compared with ``==``), or ``"tree"``
    (``payload`` = the pytree structure of a dynamic argument).
    """

    kind: str
    payload: Any


@dataclasses.dataclass(frozen=True)
class TraceEvent:
    """One trace of ``owner`` (a function, a StatefulFunction, a graph runner).

    ``name`` names the owner in messages; ``arguments`` maps an argument path
    (``"args[0]"``, ``"kwargs['lr']"``, ``"graph"``, ``"values['x']"``) to its key.
    ``wraps`` is the callable the owner wraps when the owner is a wrapper with its
    own cache that may be built again around the same callable (a
    ``StatefulFunction``): the retrace watch counts such traces per wrapped
    callable, so a wrapper rebuilt for every call is seen retracing.
    """

    owner: object
    name: str
    arguments: tuple[tuple[str, ArgumentKey], ...]
    wraps: object = None


def aval_key(aval: Any) -> ArgumentKey:
    """The key of one traced leaf from its abstract value: shape, dtype and weak type."""
    return ArgumentKey("array", (tuple(aval.shape), aval.dtype, bool(getattr(aval, "weak_type", False))))


def traced_argument_keys(path: str, value: Any) -> list[tuple[str, ArgumentKey]]:
    """A traced argument's part of a cache key: its tree structure, then each leaf's ``aval_key``.

    A bare array is its one leaf's key under ``path``; a pytree adds its structure under
    ``path`` and each leaf under ``path`` plus the leaf's key path (``args[0]['w']``).
    """
    with_paths, tree = jax.tree_util.tree_flatten_with_path(value)
    if len(with_paths) == 1 and not with_paths[0][0]:
        return [(path, aval_key(jax.typeof(with_paths[0][1])))]
    keys = [(path, ArgumentKey("tree", tree))]
    keys += [(path + jax.tree_util.keystr(leaf_path), aval_key(jax.typeof(leaf))) for leaf_path, leaf in with_paths]
    return keys


_listeners: list[Callable[[TraceEvent], None]] = []


def notify_trace(
    owner: object, name: str, arguments: Callable[[], tuple[tuple[str, ArgumentKey], ...]], *, wraps: object = None
) -> None:
    """Tell the listeners ``owner`` (a wrapper of ``wraps``, if given) is being traced; ``arguments`` is only built when someone listens."""
    if not _listeners:
        return
    event = TraceEvent(owner, name, arguments(), wraps)
    for listener in list(_listeners):
        listener(event)


def subscribe(listener: Callable[[TraceEvent], None]) -> Callable[[], None]:
    """Add a listener; returns the function that removes it."""
    _listeners.append(listener)

    def unsubscribe() -> None:
        if listener in _listeners:
            _listeners.remove(listener)

    return unsubscribe


def listening() -> bool:
    """True when some listener is subscribed."""
    return bool(_listeners)
