"""jax's configuration as it keys a trace: the trace context ``jax.jit`` keys its own cache on.

``jax.jit`` keys every cache entry on ``jax._src.config.trace_context()``: x64, dtype
promotion, the default device, matmul precision, rank promotion and every other
option jax marks as part of a trace. jitcheck keys its own memos of traces on the
same tuple (never a hand-kept list of options), so a trace made under one
configuration is never reused under another.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jax._src import config as _config

from jitcheck.core.events import ArgumentKey

trace_context: Callable[[], tuple[Any, ...]] = _config.trace_context
"""The current trace context: a tuple, equal under an equal configuration."""


def context_names() -> tuple[str, ...]:
    """The names of the options in `trace_context`, in its order (empty if this jax cannot say)."""
    try:
        return tuple(_config.trace_context_names())
    except NotImplementedError:
        return ()


def describe_change(before: tuple[Any, ...], after: tuple[Any, ...]) -> str:
    """The options that differ between two trace contexts, as ``jax_enable_x64: False -> True``."""
    names = context_names()
    changed = [
        f"{names[i] if i < len(names) else f'option {i}'}: {a!r} -> {b!r}"
        for i, (a, b) in enumerate(zip(before, after))
        if a is not b and a != b
    ]
    return ", ".join(changed) or "jax's configuration"


class Configuration:
    """jax's configuration as one part of a trace's cache key (for the retrace watch): equal
    exactly when the trace contexts are."""

    __slots__ = ("context",)

    def __init__(self, context: tuple[Any, ...]) -> None:
        self.context = context

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Configuration) and self.context == other.context

    def __hash__(self) -> int:
        return hash(self.context)

    def __repr__(self) -> str:
        return "<jax's configuration>"


def configuration_argument(context: tuple[Any, ...] | None = None) -> tuple[str, ArgumentKey]:
    """``("jax configuration", key)``: ``context`` (default: the current one) as a trace event's argument."""
    return CONFIGURATION, ArgumentKey("static", Configuration(trace_context() if context is None else context))


CONFIGURATION = "jax configuration"
"""The argument path under which trace events report jax's configuration."""


__all__ = ["CONFIGURATION", "Configuration", "configuration_argument", "context_names", "describe_change", "trace_context"]
