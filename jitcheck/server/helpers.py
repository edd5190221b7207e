"""Other processes that judge batches of parts while the analysis thread judges the others.

A file's first judgement is many batches of parts (:mod:`jitcheck.server.slices`), each
judged by the command line's own check; one thread can use one core only. ``jitcheck server``
loads the static pass and judges a small module once (:func:`warm`: the walks' per-type
tables, libcst's hooks) as it starts, before it loads the protocol's modules or starts any
thread, and *forks* its helpers then (:meth:`Helpers.start` with ``preloaded``): they are
ready at once, loaded and warm, with no interpreter of their own to start (a fresh one took
about a second of CPU beside the server's own start, and on a loaded machine could still be
loading when the editor opened its first file). Helpers
started later (a server built otherwise, as the tests do, or new helpers after one died,
when the server runs threads a fork would not copy) are fresh interpreters (``spawn``),
started on the first judgement that has more than one batch to judge, or as the first
judgement of a long file begins. Each helper's standard output goes to the null device (the
server's is the protocol's). This module imports no static pass itself: starting spawned
helpers waits for nothing.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jitcheck.lint.check import Checked
    from jitcheck.lint.index import ProjectIndex
    from jitcheck.lint.settings import Settings

WARM_SOURCE = """\
import functools
import jax
import jax.numpy as jnp


def loss(params, x):
    return jnp.mean((x @ params) ** 2)


step = jax.jit(loss)


class Model:
    def __init__(self, w):
        self.w = w
        self.apply_jit = jax.jit(self.apply)

    def apply(self, x):
        return x @ self.w

    def predict(self, x):
        return jax.jit(self.apply)(x)


@functools.partial(jax.jit, static_argnums=(1,))
def scaled(x, n: int = 2):
    return [x * k for k in range(n)] if n else {"x": x}


def train(params, batches):
    for x in batches:
        params = jax.jit(lambda p: p - 0.1 * jax.grad(loss)(p, x))(params)
    while params is None:
        with open("f") as handle:
            params = handle.read()
    return params
"""
"""A small module with jit sites, judged once by each process that will judge files (:func:`warm`)."""


def default_count() -> int:
    """One helper for each core but the analysis thread's, three at most (none on one core)."""
    return max(0, min(3, (os.cpu_count() or 1) - 1))


def warm() -> None:
    """Import the static pass and judge :data:`WARM_SOURCE` once: what a process's first check pays once (the walks'
    per-type tables, libcst's hooks, compiled patterns) is paid before a file's first judgement."""
    from jitcheck.lint.check import check_text
    from jitcheck.lint.settings import Settings

    check_text(WARM_SOURCE, "warm.py", Settings())


def _start() -> None:
    """In a helper, as it starts: nothing it prints can reach the protocol's stream; then :func:`warm`, and what
    survives it (the static pass's modules) set aside from the collector's full passes, as the server does."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
    sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (the helper's stdout while it lives)
    warm()
    gc.collect()
    gc.freeze()


def _forked() -> None:
    """In a helper forked from a server that has loaded and warmed the static pass: only the output sent away."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
    sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (the helper's stdout while it lives)


def _up() -> bool:
    return True  # the helper has started, imported the static pass and judged a module once (its initializer did)


def _check(source: str, path: str, settings: Settings, index: ProjectIndex | None, module_name: str) -> Checked:
    """A batch's check, with the collector's automatic passes paused while it runs and the young generations
    collected after it, as the analysis thread judges the batches of a first judgement (:mod:`jitcheck.server.slices`):
    with the passes on, the full ones scan the batch's whole libcst tree again and again while it is alive."""
    from jitcheck.lint.check import check_text

    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return check_text(source, path, settings, index=index, module_name=module_name)
    finally:
        if paused:
            gc.collect(1)  # the batch's garbage (libcst's trees and their cycles) goes at once
            gc.enable()


class Helpers:
    """A pool of helper processes, started when first asked for (``count`` 0: none, everything in this thread)."""

    def __init__(self, count: int | None = None) -> None:
        self.count = default_count() if count is None else count
        self._pool: ProcessPoolExecutor | None = None
        self._started: Future[bool] | None = None
        self._lock = threading.Lock()

    def _running(self, preloaded: bool = False) -> tuple[ProcessPoolExecutor, Future[bool]]:
        with self._lock:
            if self._pool is None or self._started is None:
                fork = preloaded and threading.active_count() == 1 and sys.platform.startswith("linux")
                self._pool = ProcessPoolExecutor(self.count, mp_context=multiprocessing.get_context("fork" if fork else "spawn"),
                                                 initializer=_forked if fork else _start)
                self._started = self._pool.submit(_up)  # (forked: the pool forks its processes here, before its own thread)
            return self._pool, self._started

    def start(self, preloaded: bool = False) -> None:
        """Start the helpers if they are not (without waiting for them to load the static pass).

        ``preloaded``: this process has loaded the static pass and judged :data:`WARM_SOURCE` (:func:`warm`), and what
        survives is set aside from the collector (``gc.freeze``): the helpers are forked from it, ready at once. Only
        while this process runs no other thread (a fork copies the calling thread alone, and the locks the others
        hold stay held in the copy), and on Linux only (macOS's system libraries are not safe in a forked child:
        Python spawns there by default); else they are spawned as fresh interpreters.
        """
        if self.count:
            self._running(preloaded)

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


__all__ = ["WARM_SOURCE", "Helpers", "default_count", "warm"]
