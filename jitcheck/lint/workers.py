"""Worker processes that check one file at a time, so that no file can take the run down.

libcst's native parser can overflow its stack (a segfault) or take minutes on a
pathological file. Each file is sent to a worker process on its own; a worker that
dies costs its file a JC000 that says how it died, and one that runs past the
per-file time limit is killed and its file gets a JC000 naming ``file-timeout``. The
limit counts the worker's CPU time (read from ``/proc``), so a loaded machine, which
stretches the wall clock, does not change which files get JC000; a worker that uses
no CPU yet never answers is stopped after :data:`WALL_FACTOR` times the limit.
A fresh worker takes the dead one's place and the run goes on. Workers exit when
the process that started them dies (SIGKILL included): Linux's parent-death signal,
and a check of the parent every second while idle.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


@dataclasses.dataclass(frozen=True)
class Failure:
    """Why a worker gave no result for an item: it died (``signal``/``exitcode``) or ran out of time."""

    reason: str
    timed_out: bool = False


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies (a no-op elsewhere)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _serve(connection: Any, function: Callable[[Any], Any]) -> None:
    import faulthandler

    faulthandler.disable()  # a crash is reported by the parent as the file's JC000, not as a dump on stderr
    _die_with_parent()
    # The parent is the run's process when forked, the fork server (which ends with the run) otherwise.
    parent = os.getppid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # What the worker starts with (the function and the project index it holds, unpickled from a fork server or
    # inherited) lives as long as the worker: the collector's full passes need not scan it after every file.
    gc.freeze()
    while True:
        while not connection.poll(1.0):
            if os.getppid() != parent:
                os._exit(0)
        try:
            item = connection.recv()
        except (EOFError, OSError):
            os._exit(0)
        if item is None:
            os._exit(0)
        connection.send(function(item))


def _describe(exitcode: int | None) -> str:
    if exitcode is None:
        return "its worker process stopped answering"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        crash = " (a crash in libcst's native parser)" if name in ("SIGSEGV", "SIGBUS", "SIGABRT", "SIGILL") else ""
        return f"its worker process died of {name}{crash}"
    return f"its worker process exited with status {exitcode}"


WALL_FACTOR = 20
"""A worker that has not answered after this many times the limit in wall-clock time is stopped,
whatever its CPU time (one blocked without using CPU): far beyond what load stretches a check to."""


def cpu_seconds(pid: int) -> float | None:
    """The CPU time (user and system) process ``pid`` has used, from ``/proc``; None where there is none."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class _Worker:
    def __init__(self, context: Any, function: Callable[[Any], Any]) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, function), daemon=True)
        self.process.start()
        child.close()
        self.task: int | None = None
        self.started = 0.0
        """Wall-clock time when the task was sent."""
        self.cpu_start: float | None = None
        """The worker's CPU time when the task was sent (None: not readable, the limit is wall-clock)."""
        self.deadline = 0.0
        """When to look at the worker's time again."""

    def begin(self, timeout: float) -> None:
        self.started = time.monotonic()
        self.cpu_start = cpu_seconds(self.process.pid) if self.process.pid else None
        self.deadline = self.started + timeout

    def over(self, timeout: float) -> str | None:
        """Why the task is out of time (``timeout`` seconds of CPU time where readable), or None and the next look set."""
        now = time.monotonic()
        if now - self.started >= timeout * WALL_FACTOR:
            return f"checking it took longer than {timeout * WALL_FACTOR:g} s of wall-clock time ({WALL_FACTOR} times the limit)"
        used = cpu_seconds(self.process.pid) if self.cpu_start is not None and self.process.pid else None
        if used is None or self.cpu_start is None:
            return f"checking it took longer than {timeout:g} s" if now - self.started >= timeout else None
        spent = used - self.cpu_start
        if spent >= timeout:
            return f"checking it took longer than {timeout:g} s of CPU time"
        # CPU time grows no faster than the wall clock: look again when the rest could be spent.
        self.deadline = min(now + max(timeout - spent, 0.005), self.started + timeout * WALL_FACTOR)
        return None

    def stop(self, kill: bool = False) -> None:
        if kill:
            self.process.kill()
        else:
            try:
                self.connection.send(None)
            except OSError:
                self.process.kill()
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()


@dataclasses.dataclass
class Pool(Generic[Item, Result]):
    """Runs ``function`` over items in ``jobs`` worker processes, one item per message, each under ``timeout`` seconds of CPU time."""

    function: Callable[[Item], Result]
    jobs: int
    timeout: float
    context: Any = None

    def __post_init__(self) -> None:
        if self.context is None:
            self.context = _context()

    def run(self, items: Sequence[Item]) -> Iterator[tuple[int, Result | Failure]]:
        """(position in ``items``, result or :class:`Failure`) for every item, as they finish."""
        from multiprocessing.connection import wait

        pending = deque(range(len(items)))
        workers: list[_Worker] = []
        try:
            for _ in range(max(1, min(self.jobs, len(items)))):
                workers.append(_Worker(self.context, self.function))
            busy: dict[int, _Worker] = {}
            while pending or busy:
                for slot, worker in enumerate(workers):
                    if worker.task is None and pending:
                        worker.task = pending.popleft()
                        worker.begin(self.timeout)
                        try:
                            worker.connection.send(items[worker.task])
                        except OSError:
                            pass  # a dead worker: found below by its sentinel
                        busy[slot] = worker
                now = time.monotonic()
                soonest = min(w.deadline for w in busy.values())
                waitables: list[Any] = [w.connection for w in busy.values()] + [w.process.sentinel for w in busy.values()]
                wait(waitables, timeout=max(0.0, soonest - now))
                for slot, worker in list(busy.items()):
                    task = worker.task
                    assert task is not None
                    outcome: Result | Failure | None = None
                    replace = False
                    if worker.connection.poll():
                        try:
                            outcome = worker.connection.recv()
                        except (EOFError, OSError):
                            worker.process.join(1)
                            outcome, replace = Failure(_describe(worker.process.exitcode)), True
                    elif not worker.process.is_alive():
                        worker.process.join()
                        outcome, replace = Failure(_describe(worker.process.exitcode)), True
                    elif time.monotonic() >= worker.deadline and (late := worker.over(self.timeout)) is not None:
                        outcome, replace = Failure(late, timed_out=True), True
                    if outcome is None:
                        continue
                    del busy[slot]
                    worker.task = None
                    if replace:
                        worker.stop(kill=True)
                        workers[slot] = _Worker(self.context, self.function)
                    yield task, outcome
        finally:
            for worker in workers:
                worker.stop(kill=worker.task is not None)


def _context() -> Any:
    import multiprocessing

    # Forking is fast (workers inherit libcst) but unsafe once jax's threads run in this
    # process (an in-process call from a program that imported jax): then a fork server.
    method = "fork" if "jax" not in sys.modules and sys.platform.startswith("linux") else "forkserver"
    if method not in multiprocessing.get_all_start_methods():
        method = "spawn"
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        context.set_forkserver_preload(["jitcheck.lint.check"])
    return context


__all__ = ["WALL_FACTOR", "Failure", "Pool", "cpu_seconds"]
