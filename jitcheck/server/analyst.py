"""The one thread the static pass runs in, so that no request waits behind an analysis.

The server's event loop only reads and answers messages; every judgement, and every
request that needs the analysis (a fix's edit), is work for this thread, one at a time
(the project's warm state is touched by this thread alone). Work is queued by key (a
document's URI): a newer judgement of the same document replaces the one still queued,
so stale work is dropped before it starts. A judgement that finishes after its document
changed again is not published (the caller checks the version when its result comes
back on the loop). The thread is a daemon: an exit never waits for an analysis.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
Then = Callable[[], None]
"""What to do on the event loop with a finished judgement (publish it, judge the dependents)."""
Work = Callable[[], Then | None]
"""A judgement, run in the analysis thread; returns what to do on the loop, or None."""

SETTLE_PARTS = 50
"""A judgement that judged at least this many parts anew (a file's first) leaves its garbage collected and what
survives it set aside (:func:`settle`) before it is published."""
STACK_BYTES = 64 * 1024 * 1024
"""The analysis thread's stack: libcst and the static pass recurse as deep as the code they read."""

_log = logging.getLogger(__name__)


class Analyst:
    """A worker thread for the static pass, with a queue of judgements keyed by document."""

    def __init__(self) -> None:
        self._inbox: queue.SimpleQueue[tuple[Callable[[], Any], asyncio.Future[Any], asyncio.AbstractEventLoop]] = \
            queue.SimpleQueue()
        self._queued: dict[str, Work] = {}
        self._draining: asyncio.Task[None] | None = None
        self._thread: threading.Thread | None = None

    def submit(self, key: str, work: Work) -> None:
        """Queue ``work`` for ``key``, replacing the one queued for it (a stale judgement never starts)."""
        self._queued.pop(key, None)
        self._queued[key] = work
        if self._draining is None or self._draining.done():
            self._draining = asyncio.get_running_loop().create_task(self._drain())

    async def call(self, function: Callable[[], T]) -> T:
        """``function()`` run in the analysis thread (after what it is running now), its result on the loop."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._start()
        self._inbox.put((function, future, loop))
        return await future

    async def _drain(self) -> None:
        while self._queued:
            key = next(iter(self._queued))
            work = self._queued.pop(key)
            try:
                then = await self.call(work)
            except Exception:  # one document's failure never stops the others' judgements
                _log.exception("jitcheck: judging %s failed", key)
                continue
            if then is not None:
                then()

    @property
    def started(self) -> bool:
        """Whether the analysis thread was started (it runs until the process ends)."""
        return self._thread is not None

    def _start(self) -> None:
        if self._thread is not None:
            return
        previous = threading.stack_size(STACK_BYTES)
        try:
            self._thread = threading.Thread(target=self._serve, name="jitcheck-analysis", daemon=True)
            self._thread.start()
        finally:
            threading.stack_size(previous)

    def _serve(self) -> None:
        while True:
            function, future, loop = self._inbox.get()
            try:
                result = function()
            except BaseException as error:  # handed to the waiting coroutine, raised there
                _hand_back(loop, future, None, error)
            else:
                _hand_back(loop, future, result, None)


def settle() -> None:
    """Collect the garbage now and set every surviving object aside from the collector's later full passes.

    A file's first judgement builds and drops many libcst trees (cycles the collector must free) and keeps
    many objects (its parts' findings, its statements). Collected here, at once, the next full pass does not
    land on a keystroke, and the objects kept are not scanned again and again while the user types. What
    was set aside earlier is put back first, so garbage among it is collected now.
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def _hand_back(loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], result: object,
               error: BaseException | None) -> None:
    """Hand a finished judgement to the loop that waits for it; nothing when that loop is closed (the server exited
    while the judgement ran: no one waits for it, and the exit must stay clean)."""
    try:
        loop.call_soon_threadsafe(_settle, future, result, error)
    except RuntimeError:
        if not loop.is_closed():
            raise


def _settle(future: asyncio.Future[Any], result: object, error: BaseException | None) -> None:
    if future.done():  # the request was cancelled meanwhile
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


__all__ = ["SETTLE_PARTS", "Analyst", "Then", "Work", "settle"]
