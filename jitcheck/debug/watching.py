"""`watch`: ``jax.jit`` with every trace counted per cache key, and a retrace explained.

``step = watch(step, max_traces=1, static_argnums=0)`` is ``jax.jit(step,
static_argnums=0)`` whose traces are reported to the retrace tracker, each with its
cache key argument by argument: the function itself, each static argument by value,
each traced argument by shape, dtype and weak type (and pytree structure). The
traced wrapper is kept per function, so ``watch(f)`` called again on the same (or
an equal) function reuses jax's cache as ``jax.jit(f)`` does; rebuilt functions of
the same code share one count, so a closure or a ``functools.partial`` built anew
for every call is reported as the retrace it causes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Generic, ParamSpec, TypeVar, overload

import jax

from jitcheck.core.keys import describe
from jitcheck.debug.explain import TraceKey
from jitcheck.debug.owners import argument_keys, call_key, owner_for, traced_for
from jitcheck.debug.retrace import TRACKER, Policy, RetraceReport

P = ParamSpec("P")
R = TypeVar("R")


class WatchedFunction(Generic[P, R]):
    """A function under ``jax.jit`` whose traces are counted per cache key.

    Call it as the jitted function. ``traces``, ``cache_keys`` and ``reports`` tell
    what the tracker saw for this function (shared with rebuilt functions of the
    same code); ``jitted`` is the underlying ``jax.jit`` object (``lower``, ``trace``).
    """

    def __init__(self, fn: Callable[P, R], *, policy: Policy, jit_options: dict[str, Any]) -> None:
        self.policy = policy
        self._owner = owner_for(fn)
        TRACKER.watch_owner(self._owner, self._owner.name, policy)
        self.jitted: Any = jax.jit(traced_for(fn, self._owner), **jit_options)
        functools.update_wrapper(self, fn)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        result: R = self.jitted(*args, **kwargs)
        return result

    def lower(self, *args: Any, **kwargs: Any) -> Any:
        """``jax.jit(...).lower``: lower at these arguments (a trace, counted like any other)."""
        return self.jitted.lower(*args, **kwargs)

    @property
    def traces(self) -> int:
        """How many times this function (or a rebuilt one of the same code) was traced."""
        group = TRACKER.group(self._owner)
        return 0 if group is None else group.traces

    @property
    def cache_keys(self) -> list[TraceKey]:
        """The distinct cache keys traced, oldest first."""
        group = TRACKER.group(self._owner)
        return [] if group is None else list(group.keys)

    @property
    def reports(self) -> list[RetraceReport]:
        """The retraces beyond ``max_traces`` reported for this function."""
        group = TRACKER.group(self._owner)
        return [] if group is None else list(group.reports)


def _is_jitted(fn: object) -> bool:
    return all(hasattr(fn, name) for name in ("lower", "trace", "__wrapped__")) and not isinstance(fn, WatchedFunction)


@overload
def watch(
    fn: Callable[P, R], /, *, max_traces: int = 1, on_retrace: str | None = None, **jit_options: Any
) -> WatchedFunction[P, R]: ...


@overload
def watch(
    fn: None = None, /, *, max_traces: int = 1, on_retrace: str | None = None, **jit_options: Any
) -> Callable[[Callable[P, R]], WatchedFunction[P, R]]: ...


def watch(
    fn: Callable[P, R] | None = None, /, *, max_traces: int = 1, on_retrace: str | None = None, **jit_options: Any
) -> WatchedFunction[P, R] | Callable[[Callable[P, R]], WatchedFunction[P, R]]:
    """``jax.jit(fn, **jit_options)`` with its traces counted; a retrace beyond ``max_traces`` is explained.

    The report (rule JC503) names each argument whose part of the cache key changed
    and how: shape, dtype, weak type, pytree structure, static value, or the
    function itself; and the rule of the cause with its fix where one applies (a
    rebuilt ``functools.partial``: JC102, use `jitcheck.ValuePartial`). ``on_retrace``
    is ``"warn"`` (a `RetraceWarning`), ``"raise"`` (a `RetraceError` from the call)
    or ``"record"``; None takes debug mode's setting (``"warn"`` unless configured).
    Works with or without debug mode. Usable as ``@watch`` or ``@watch(max_traces=2,
    static_argnums=0)``.
    """
    policy = Policy(max_traces, on_retrace if on_retrace is not None else TRACKER.default.on_retrace)

    def wrap(function: Callable[P, R]) -> WatchedFunction[P, R]:
        if isinstance(function, WatchedFunction):
            raise TypeError("this function is already watched; watch the plain function once")
        if _is_jitted(function):
            raise TypeError(
                "watch takes the plain function and jax.jit's options, e.g. watch(step, static_argnums=0), "
                f"not a function already under jax.jit ({describe(function)})"
            )
        if not callable(function):
            raise TypeError(f"watch needs a callable, got {type(function).__name__}")
        return WatchedFunction(function, policy=policy, jit_options=dict(jit_options))

    return wrap if fn is None else wrap(fn)


__all__ = ["WatchedFunction", "argument_keys", "call_key", "watch"]

# Loaded first (``from jitcheck.debug import watch``), this module imported the core
# while the debug layer was loading, so the core left the JITCHECK_DEBUG switch to us.
from jitcheck.debug.switch import enable_from_environment as _enable_from_environment  # noqa: E402

_enable_from_environment()
