"""Shared measuring tools for jitcheck's benchmarks.

These machines are noisy, so no absolute time is reported alone: every figure is a
ratio of a subject against a baseline measured in the same run, interleaved, taking
the best of several repeats of each (the least disturbed).
"""

from __future__ import annotations

import dataclasses
import gc
import time
from collections.abc import Callable


@dataclasses.dataclass
class Figure:
    """One measured ratio: ``subject`` seconds over ``baseline`` seconds."""

    name: str
    subject: str
    baseline: str
    subject_seconds: float
    baseline_seconds: float
    target: float | None = None
    """The ratio must be at most this (None: reported only)."""
    at_least: float | None = None
    """The inverse ratio (baseline / subject) must be at least this (None: no such target)."""
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.subject_seconds / self.baseline_seconds if self.baseline_seconds else float("inf")

    @property
    def met(self) -> bool | None:
        if self.target is not None:
            return self.ratio <= self.target
        if self.at_least is not None:
            return (1 / self.ratio if self.ratio else float("inf")) >= self.at_least
        return None

    def target_text(self) -> str:
        if self.target is not None:
            return f"<= {self.target:g}x"
        if self.at_least is not None:
            return f">= {self.at_least:g}x faster"
        return "reported"


@dataclasses.dataclass
class Section:
    """A benchmark's figures, with the command and notes that explain them."""

    title: str
    figures: list[Figure]
    notes: list[str] = dataclasses.field(default_factory=list)


def best_of(fn: Callable[[], object], *, repeat: int = 7, number: int = 1) -> float:
    """The best (least disturbed) of ``repeat`` timings of ``number`` calls, per call."""
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def interleaved(
    subject: Callable[[], object],
    baseline: Callable[[], object],
    *,
    repeat: int = 7,
    number: int = 1,
) -> tuple[float, float]:
    """Best-of timings of ``subject`` and ``baseline``, alternated so drift hits both alike."""
    s_times, b_times = [], []
    for _ in range(repeat):
        for fn, sink in ((baseline, b_times), (subject, s_times)):
            gc.collect()
            start = time.perf_counter()
            for _ in range(number):
                fn()
            sink.append((time.perf_counter() - start) / number)
    return min(s_times), min(b_times)


def calibrate(fn: Callable[[], object], *, budget: float = 0.05) -> int:
    """How many calls of ``fn`` take about ``budget`` seconds (at least one)."""
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    return max(1, int(budget / once))
