"""Shared measuring tools for jitcheck's benchmarks.

These machines are noisy, so no absolute time is reported alone: every figure is a
ratio of a subject against a baseline measured in the same run, interleaved, taking
the best of several repeats of each (the least disturbed). `rotating` times several
subjects round by round, in an order that rotates each round, with the same number of
calls each; a figure built from it (`rotated_figure`) also gives the median of the
per-round ratios, which cancels most of a loaded machine's drift, and its target is
judged by that median.
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
    median_ratio: float | None = None
    """The median of the per-round ratios (`rotated_figure`); when given, the target is judged by it."""

    @property
    def ratio(self) -> float:
        return self.subject_seconds / self.baseline_seconds if self.baseline_seconds else float("inf")

    @property
    def judged_ratio(self) -> float:
        """The ratio the target is judged by: the median of the rounds when measured so, else the best."""
        return self.median_ratio if self.median_ratio is not None else self.ratio

    def ratio_text(self) -> str:
        if self.median_ratio is None:
            return f"{self.ratio:.2f}x"
        return f"{self.median_ratio:.2f}x median, {self.ratio:.2f}x best"

    @property
    def met(self) -> bool | None:
        if self.target is not None:
            return self.judged_ratio <= self.target
        if self.at_least is not None:
            return (1 / self.judged_ratio if self.judged_ratio else float("inf")) >= self.at_least
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


def rotating(subjects: dict[str, Callable[[], object]], *, rounds: int, number: int) -> dict[str, list[float]]:
    """Per-call seconds of each subject in each round: every round times ``number`` calls of
    each subject, one after another, starting one subject later than the round before, so
    no subject always runs first (or right after the same neighbour). Each subject should
    wait for its result (``jax.block_until_ready``)."""
    names = list(subjects)
    times: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(rounds):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            fn = subjects[name]
            gc.collect()
            start = time.perf_counter()
            for _ in range(number):
                fn()
            times[name].append((time.perf_counter() - start) / number)
    return times


def rotated_figure(
    name: str,
    times: dict[str, list[float]],
    subject: str,
    baseline: str,
    *,
    subject_label: str | None = None,
    baseline_label: str | None = None,
    target: float | None = None,
    note: str = "",
) -> Figure:
    """A figure from `rotating` times: the best of each (the least disturbed) and the median of
    the per-round ratios (both measured in the same round, so drift cancels)."""
    ratios = sorted(s / b for s, b in zip(times[subject], times[baseline]))
    middle = len(ratios) // 2
    median = ratios[middle] if len(ratios) % 2 else (ratios[middle - 1] + ratios[middle]) / 2
    return Figure(
        name,
        subject_label or subject,
        baseline_label or baseline,
        min(times[subject]),
        min(times[baseline]),
        target=target,
        note=note,
        median_ratio=median,
    )
