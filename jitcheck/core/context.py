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


__all__ = ["context_names", "describe_change", "trace_context"]
