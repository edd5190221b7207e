"""The recorder's JSON file kept current while the run goes, so that a run killed by a time limit keeps its records.

`write` replaces the file in one step (`jitcheck.atomic`: a file beside it, then a rename):
a reader, or a kill, never meets half a file. `checkpoint` writes what was recorded so
far (``"complete": false``, the per-site counts without the trace list) when anything
was traced since the last write; the pytest plugin calls it after each test.
`write_on_termination` makes SIGTERM (what ``timeout`` sends first) write the records,
traces included, before the process ends as SIGTERM would have ended it.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import types
from typing import Any

from jitcheck.atomic import write_atomic

_written = {"traces": -1}
"""The recorder's trace count at the last checkpoint (nothing new traced: nothing to write)."""


def write(path: str, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` atomically: the old file stays whole until the new one replaces it."""
    write_atomic(path, json.dumps(data, indent=1) + "\n")


def checkpoint(path: str, *, with_traces: bool = False) -> bool:
    """Write the records so far to ``path`` (``"complete": false``) if anything was traced since the last write; True if written."""
    from jitcheck.debug.recompile_table import to_json
    from jitcheck.debug.recompiles import counts

    traced = counts()["traces"]
    if traced == 0 or (traced == _written["traces"] and not with_traces):
        return False
    write(path, to_json(with_traces=with_traces, complete=False))
    _written["traces"] = traced
    return True


def write_on_termination(path: str) -> bool:
    """On SIGTERM, write the records (traces included, ``"complete": false``) to ``path``, then end as SIGTERM does.

    Only where SIGTERM still has its default action (a program's own handler is left alone)
    and only from the main thread (where Python runs signal handlers); True if installed.
    Python runs the handler between bytecodes: during a long XLA compile it waits for the
    compile to end, so a kill that follows soon after (``timeout -k``) still finds the last
    `checkpoint`.
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return False

    def on_sigterm(signum: int, frame: types.FrameType | None) -> None:
        try:
            checkpoint(path, with_traces=True)
        except Exception:  # the records are a courtesy: the process ends as asked, whatever happens here
            pass
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, on_sigterm)
    return True


__all__ = ["checkpoint", "write", "write_on_termination"]
