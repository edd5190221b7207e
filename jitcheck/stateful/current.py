"""The recording in effect: which StatefulFunction trace, if any, a State's reads and writes go to.

A context variable, so threads and nested traces each see their own. `State`
(:mod:`jitcheck.stateful.state`) reads it on every access and the trace record
(:mod:`jitcheck.stateful.recording`) sets it; both import it from here, so neither
imports the other to find it.
"""

from __future__ import annotations

import contextvars
from typing import Any, Protocol


class Recording(Protocol):
    """What a State asks of the trace in progress (`jitcheck.stateful.recording.Frame`)."""

    owner: str

    def read(self, state: Any) -> Any: ...

    def write(self, state: Any, value: Any) -> None: ...


CURRENT: contextvars.ContextVar[Any] = contextvars.ContextVar("jitcheck_state_frame", default=None)
"""The `Recording` in effect in this thread (None outside any StatefulFunction trace)."""


def current() -> Recording | None:
    """The recording in effect in this thread, or None."""
    frame: Recording | None = CURRENT.get()
    return frame


__all__ = ["CURRENT", "Recording", "current"]
