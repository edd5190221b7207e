"""Command-line output into a closed pipe (``report ... | head -3``): end quietly, as a command stopped by SIGPIPE does.

Python ignores SIGPIPE, so a write to a pipe whose reader has gone raises
``BrokenPipeError``, and the flush at exit complains once more. A reader that
stopped early is no error of the command's: `quiet_on_closed_stdout` ends the
command with the status a shell gives a command killed by SIGPIPE (141), points
stdout at the null device so the flush at exit has nowhere to fail, and prints
nothing. A command that closed stdout itself (the language server does, after the
client's ``exit``) has nothing left to flush and keeps its own status.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
from collections.abc import Callable
from typing import ParamSpec

P = ParamSpec("P")

CLOSED_PIPE_STATUS = 128 + int(getattr(signal, "SIGPIPE", 13))
"""The exit status of a command whose stdout was closed by its reader: 141, as a shell reports SIGPIPE."""


def quiet_on_closed_stdout(main: Callable[P, int]) -> Callable[P, int]:
    """``main`` that, when its stdout is closed under it, ends with `CLOSED_PIPE_STATUS` and no traceback."""

    @functools.wraps(main)
    def run(*args: P.args, **kwargs: P.kwargs) -> int:
        try:
            status = main(*args, **kwargs)
            if not sys.stdout.closed:  # the language server closes its own stdout at exit: nothing is left to flush
                sys.stdout.flush()  # a reader that left shows here, while it can still be handled
        except BrokenPipeError:
            _stdout_to_null()
            return CLOSED_PIPE_STATUS
        return status

    return run


def _stdout_to_null() -> None:
    """Point stdout's file descriptor at the null device: what is still buffered goes nowhere, quietly."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (captured by a test runner): nothing to silence
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, descriptor)
    finally:
        os.close(null)


__all__ = ["CLOSED_PIPE_STATUS", "quiet_on_closed_stdout"]
