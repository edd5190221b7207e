"""Checks per level of a class hierarchy, run at construction, and how to skip them.

Each class declares only its own checks in a class attribute (``checks`` for the
whole object, ``checks_node`` for every node of a graph); :func:`per_level` joins
them along the class's bases, base first, so a subclass adds to its parents' checks
and never repeats them. :func:`run_checks` runs them all and raises one error with
every violation; :func:`unchecked` builds an object without them.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterable
from typing import Annotated, Any, TypeAlias, TypeVar

T = TypeVar("T")

PerLevel: TypeAlias = Annotated[T, "per level"]
"""Marks a class attribute whose value is one level's part of a hierarchy-wide tuple."""

_JOINED: dict[tuple[type, str], tuple[Any, ...]] = {}

_SKIP: contextvars.ContextVar[type | None] = contextvars.ContextVar("jitcheck_skip_checks", default=None)

force_checks: bool = False
"""When true (debug mode), :func:`unchecked` still runs every check."""

construction_hooks: tuple[Callable[[object], None], ...] = ()
"""Called with every checked object after its checks pass (the debug layer listens here).

Changed only through :func:`add_construction_hook` and :func:`remove_construction_hook`,
which also choose the :func:`run_checks` that calls them: with no hook (debug mode off)
construction does not even loop over an empty list."""


def per_level(cls: type, attribute: str) -> tuple[Any, ...]:
    """The ``attribute`` tuples of ``cls`` and its bases, joined base first.

    Only what each class declares in its own body counts, so inherited values are
    never counted twice. Joined once per class and kept.
    """
    key = (cls, attribute)
    joined = _JOINED.get(key)
    if joined is None:
        items: list[Any] = []
        for klass in reversed(cls.__mro__):
            own = klass.__dict__.get(attribute, ())
            items.extend(item for item in own if item not in items)
        joined = _JOINED[key] = tuple(items)
    return joined


def collect(obj: object) -> list[Any]:
    """Every violation the object's checks (all levels) find, in level order."""
    found: list[Any] = []
    for check in per_level(type(obj), "checks"):
        found.extend(check(obj))
    return found


def _collect_memoised(obj: Any) -> list[Any]:
    """:func:`collect`, answered from the object's :class:`~jitcheck.core.memo.GraphEntry`
    when an object of the same key (same class, type-strictly equal fields) was checked before."""
    obj.jitcheck_key()
    entry = obj.__dict__.get("_jitcheck_entry")
    if entry is None:
        return collect(obj)
    found = entry.violations
    if found is None:
        found = entry.violations = tuple(collect(obj))
    return list(found)


def _checks(obj: object) -> None:
    """:func:`run_checks` with no construction hook: the checks alone."""
    skip = _SKIP.get()
    if skip is not None and type(obj) is skip:
        _SKIP.set(None)
        if not force_checks:
            return
    found = _collect_memoised(obj) if getattr(obj, "memoise_checks", False) else collect(obj)
    if found:
        from jitcheck.core.violations import refusal

        raise refusal(type(obj).__name__, found)


def _checks_then_hooks(obj: object) -> None:
    """:func:`run_checks` while some construction hook is added: the checks, then every hook."""
    _checks(obj)
    for hook in construction_hooks:
        hook(obj)


run_checks: Callable[[object], None] = _checks
"""Run ``obj``'s checks and raise one error listing every violation; then call every
construction hook.

Skipped when ``obj`` is being built by :func:`unchecked` (unless debug mode forces
checks). Callers look it up here at each call (``checking.run_checks(obj)``): adding
the first construction hook swaps in the function that calls the hooks."""


def add_construction_hook(hook: Callable[[object], None]) -> None:
    """Call ``hook`` with every object whose checks pass, from now on (once, however often added)."""
    global construction_hooks, run_checks
    if hook not in construction_hooks:
        construction_hooks = (*construction_hooks, hook)
    run_checks = _checks_then_hooks


def remove_construction_hook(hook: Callable[[object], None]) -> None:
    """Stop calling ``hook``; with no hook left, construction runs the checks alone again."""
    global construction_hooks, run_checks
    construction_hooks = tuple(h for h in construction_hooks if h != hook)
    if not construction_hooks:
        run_checks = _checks


def unchecked(cls: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Build ``cls(*args, **kwargs)`` without running its checks.

    For callers that have already checked what they build, or that knowingly
    accept a graph the checks refuse. Debug mode (``JITCHECK_DEBUG=1``) runs the
    checks anyway.
    """
    token = _SKIP.set(cls if isinstance(cls, type) else None)
    try:
        return cls(*args, **kwargs)
    finally:
        _SKIP.reset(token)


def violations_of(checks: Iterable[Callable[..., Iterable[Any]]], *args: Any) -> list[Any]:
    """Every violation the given checks find for ``args``."""
    return [v for check in checks for v in check(*args)]
