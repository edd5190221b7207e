"""Wrappers rebuilt around the same callable: how the retrace watch sees a `StatefulFunction` built per call.

A wrapper with its own cache (a ``StatefulFunction``) built again for every call
around the same function starts with an empty cache each time, so each call traces
and compiles again, yet each wrapper alone traces only once. The retrace watch
therefore counts a wrapper's traces under what it wraps (`wrapped_identity`),
remembers which wrapper objects traced (`Wrappers`, held weakly: a wrapper built
per call is garbage after its call), and explains a trace by a new wrapper with
`rebuilt_wrapper` (rule JC503, plus the rule of the wrapped callable from
``jitcheck.core.keys.callable_problem``).
"""

from __future__ import annotations

import functools
import types
import weakref
from collections.abc import Callable, Hashable

from jitcheck.core.keys import callable_problem, describe
from jitcheck.debug.explain import ArgumentChange


def wrapped_identity(fn: object) -> Hashable:
    """What stays the same when ``fn`` is built again for the next call, so wrappers of it share one count.

    A function (a lambda, a closure included) by its module, qualified name and
    code; a bound method by its function and its receiver (the same object); a
    ``functools.partial`` (or ``jax.tree_util.Partial``) by its function, since a
    rebuilt partial is never equal to the one before; any other callable by
    itself (by value when it defines ``==`` and ``hash``, else by identity).
    """
    if isinstance(fn, functools.partial):
        return ("partial", wrapped_identity(fn.func))
    if isinstance(fn, types.MethodType):
        return ("method", wrapped_identity(fn.__func__), _Same(fn.__self__))
    if isinstance(fn, types.FunctionType):
        return ("function", fn.__module__, fn.__qualname__, fn.__code__)
    try:
        hash(fn)
    except TypeError:
        return ("callable", _Same(fn))
    return ("callable", fn)


class _Same:
    """An object held, compared and hashed by identity (a receiver whose ``==`` or ``hash`` would say otherwise)."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)


class Wrappers:
    """The wrapper objects seen tracing, held weakly where they allow it (a wrapper rebuilt per call dies after it)."""

    __slots__ = ("_refs",)

    def __init__(self) -> None:
        self._refs: list[Callable[[], object]] = []

    def add(self, wrapper: object) -> None:
        """Remember ``wrapper`` (once); forget the ones that died."""
        if wrapper in self:
            return
        self._refs = [ref for ref in self._refs if ref() is not None]
        try:
            self._refs.append(weakref.ref(wrapper))
        except TypeError:  # no weak references to it: keep it
            self._refs.append(lambda: wrapper)

    def __contains__(self, wrapper: object) -> bool:
        return any(ref() is wrapper for ref in self._refs)

    def __bool__(self) -> bool:
        return bool(self._refs)


def _what(fn: object) -> str:
    """The wrapped callable in words: what a rebuilt wrapper was built around again."""
    if isinstance(fn, types.MethodType):
        return f"the same bound method `{describe(fn)}` (the same function on the same receiver)"
    if isinstance(fn, functools.partial):
        return f"a `{type(fn).__name__}` of the same function `{describe(fn.func)}`"
    if isinstance(fn, types.FunctionType):
        if fn.__name__ == "<lambda>":
            return f"a lambda of the same code (`{describe(fn)}`)"
        if "<locals>" in fn.__qualname__:
            return f"a nested function of the same code (`{describe(fn)}`)"
        return f"the same function `{describe(fn)}`"
    return f"the same callable `{describe(fn)}`"


def _build_once(kind: str, fn: object) -> str:
    """The fix in code: the wrapper built once, where the user's code can keep it."""
    if isinstance(fn, types.MethodType) and not isinstance(fn.__self__, type):
        name = fn.__func__.__name__
        return f"build the {kind} once, in `__init__` (`self.{name}_fn = {kind}(self.{name})`), and call that one on every step"
    return f"build the {kind} once (at module level, or in `__init__`) and call that one on every step"


def rebuilt_wrapper(wrapper: object, wrapped: object) -> ArgumentChange:
    """The change behind a trace by a new wrapper of an already traced callable: the wrapper was rebuilt, so its cache is new.

    Its rule is the wrapped callable's, where it breaks one (JC101 for a bound method,
    JC102 for a ``functools.partial``, JC104 for a lambda, JC105 for a nested
    function); the fix is to build the wrapper once.
    """
    kind = type(wrapper).__name__
    problem = callable_problem(wrapped)
    fix = f"{_build_once(kind, wrapped)}: a new {kind} starts with an empty cache, so it traces and compiles again"
    rule = None
    if problem is not None:
        rule, fields = problem
        fix += f"; {rule.code}: {rule.format_help(**{'position': f'the function of a {kind}', **fields})}"
    return ArgumentChange(
        "wrapper",
        "wrapper",
        f"a {kind} of {describe(wrapped)}",
        f"a new {kind} of {describe(wrapped)}",
        f"a new {kind} was built around {_what(wrapped)}: the wrapper was rebuilt, so its cache is new "
        "and this call traced again",
        fix,
        rule,
    )


__all__ = ["Wrappers", "rebuilt_wrapper", "wrapped_identity"]
