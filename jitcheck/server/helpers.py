"""Other processes that judge batches of parts while the analysis thread judges the others.

A file's first judgement is many batches of parts (:mod:`jitcheck.server.slices`), each
judged by the command line's own check; one thread can use one core only. The helpers
are started on the first judgement that has more than one batch to judge, or as the first
judgement of a long file begins (they take about a second to load the static pass; a small
file never starts them), each in a fresh interpreter (``spawn``: the server's threads are not
copied), with its standard output sent to the null device (the server's is the protocol's).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from concurrent.futures import Future, ProcessPoolExecutor

from jitcheck.lint.check import Checked, check_text
from jitcheck.lint.index import ProjectIndex
from jitcheck.lint.settings import Settings


def default_count() -> int:
    """One helper for each core but the analysis thread's, three at most (none on one core)."""
    return max(0, min(3, (os.cpu_count() or 1) - 1))


def _quiet() -> None:
    """In a helper: nothing it prints can reach the protocol's stream."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
    sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (the helper's stdout while it lives)


def _up() -> bool:
    return True  # the helper has started and imported the static pass (this module imports it)


def _check(source: str, path: str, settings: Settings, index: ProjectIndex | None, module_name: str) -> Checked:
    return check_text(source, path, settings, index=index, module_name=module_name)


class Helpers:
    """A pool of helper processes, started when first asked for (``count`` 0: none, everything in this thread)."""

    def __init__(self, count: int | None = None) -> None:
        self.count = default_count() if count is None else count
        self._pool: ProcessPoolExecutor | None = None
        self._started: Future[bool] | None = None
        self._lock = threading.Lock()

    def _running(self) -> tuple[ProcessPoolExecutor, Future[bool]]:
        with self._lock:
            if self._pool is None or self._started is None:
                self._pool = ProcessPoolExecutor(self.count, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_quiet)
                self._started = self._pool.submit(_up)
            return self._pool, self._started

    def start(self) -> None:
        """Start the helpers if they are not (without waiting for them to load the static pass)."""
        if self.count:
            self._running()

    @property
    def running(self) -> bool:
        """Whether the helpers were started (and not stopped since)."""
        return self._pool is not None

    def ready(self) -> None:
        """Start the helpers if they are not, and wait until one has loaded the static pass (raises if none can)."""
        self._running()[1].result()

    def check(self, source: str, path: str, settings: Settings, index: ProjectIndex | None,
              module_name: str) -> Future[Checked]:
        """``check_text(source, path, settings, index=index, module_name=module_name)`` in a helper."""
        return self._running()[0].submit(_check, source, path, settings, index, module_name)

    def stop(self, terminate: bool = False) -> None:
        """End the helpers (a batch one is judging is dropped); with ``terminate``, at once (the server is ending)."""
        with self._lock:
            pool, self._pool, self._started = self._pool, None, None
        if pool is None:
            return
        pool.shutdown(wait=False, cancel_futures=True)
        if terminate:
            for child in multiprocessing.active_children():  # the server starts no other processes
                child.terminate()


__all__ = ["Helpers", "default_count"]
