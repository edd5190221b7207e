"""The retrace watch: traces counted per owner and cache key, a retrace beyond the limit explained.

`RetraceTracker` listens to ``jitcheck.core.events``: every trace of a watched
function (`jitcheck.debug.watch`), and under debug mode every trace of any owner
that reports its traces (``JitGraph.jit_call``, ``StatefulFunction``). It keeps each
owner's cache keys and how often each was traced; a wrapper with its own cache (a
``StatefulFunction``) is counted under the callable it wraps, so one rebuilt around
the same function for every call is seen retracing (``jitcheck.debug.wrapped``).
A trace beyond the owner's ``max_traces`` becomes a `RetraceReport` (rule JC503,
plus the rule of the cause where one applies) that warns (`RetraceWarning`, the
default: a retrace costs time, not correctness; once per cause and call site, as
Python warns once per location), raises (`RetraceError`) or is only recorded, as
configured.
"""

from __future__ import annotations

import dataclasses
import sys
import warnings
from collections.abc import Callable, Hashable
from typing import Any

from jitcheck import rules
from jitcheck.core.events import TraceEvent, subscribe
from jitcheck.core.graphs import CallableGraph
from jitcheck.core.violations import Violation, violation
from jitcheck.debug.explain import ArgumentChange, TraceKey, closest, same_key, traced_again
from jitcheck.debug.location import Location, user_frame
from jitcheck.debug.settings import max_traces as checked_max_traces
from jitcheck.debug.settings import on_retrace as checked_on_retrace
from jitcheck.debug.wrapped import Wrappers, rebuilt_wrapper, wrapped_identity
from jitcheck.rules import Rule


class RetraceWarning(UserWarning):
    """A function was traced more often than its ``max_traces``; the message says which argument changed and how."""


class RetraceError(RuntimeError):
    """Raised (with ``on_retrace="raise"``) from the call that traced beyond ``max_traces``; ``report`` explains it."""

    def __init__(self, report: RetraceReport) -> None:
        self.report = report
        super().__init__(str(report))


@dataclasses.dataclass(frozen=True)
class Policy:
    """How many traces an owner may take, and what a retrace beyond that does."""

    max_traces: int = 1
    on_retrace: str = "warn"

    def __post_init__(self) -> None:
        checked_max_traces(self.max_traces, "max_traces")
        object.__setattr__(self, "on_retrace", checked_on_retrace(self.on_retrace, "on_retrace"))


@dataclasses.dataclass(frozen=True)
class RetraceReport:
    """One retrace beyond the limit: who, how many traces, what changed, and where the call was."""

    subject: str
    count: int
    limit: int
    changes: tuple[ArgumentChange, ...]
    location: Location | None

    @property
    def causes(self) -> tuple[Rule, ...]:
        """The rules behind the changes (JC102 for a rebuilt functools.partial, ...), without repeats."""
        return tuple(dict.fromkeys(c.rule for c in self.changes if c.rule is not None))

    @property
    def codes(self) -> tuple[str, ...]:
        """JC503 and the codes of the causes."""
        return (rules.RETRACE.code, *(r.code for r in self.causes))

    @property
    def violation(self) -> Violation:
        """The report as a JC503 violation (message and help filled)."""
        return violation(
            rules.RETRACE,
            leaf=", ".join(dict.fromkeys(c.path for c in self.changes)) or None,
            subject=self.subject,
            count=self.count,
            limit=self.limit,
            changes="; ".join(c.describe() for c in self.changes),
            fix="; ".join(dict.fromkeys(c.fix for c in self.changes)),
        )

    def __str__(self) -> str:
        return self.render()

    def render(self, shown_path: Callable[[str], str] | None = None) -> str:
        """The diagnostic (``path:line:col: JC503 ...`` and ``help:``), its path passed through ``shown_path`` if given."""
        found = self.violation
        where = self.location
        file = "<unknown>" if where is None else where.file if shown_path is None else shown_path(where.file)
        return rules.format_diagnostic(file, where.line if where else 0, where.column if where else 0, found.code, found.message, found.help)

    @property
    def cause(self) -> Hashable:
        """What this retrace is, less how many traces it came after: the same at every call that repeats it."""
        where = self.location
        place = None if where is None else (where.file, where.line, where.column)
        return (self.subject, place, tuple((c.path, c.aspect, c.detail) for c in self.changes))

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of this report."""
        found = self.violation
        return {
            "code": found.code,
            "causes": [r.code for r in self.causes],
            "subject": self.subject,
            "count": self.count,
            "limit": self.limit,
            "message": found.message,
            "help": found.help,
            "location": None if self.location is None else self.location.to_json(),
            "changes": [c.to_json() for c in self.changes],
        }


@dataclasses.dataclass
class TraceGroup:
    """One owner's traces (for ``JitGraph.jit_call``, one graph layout's): its cache keys and their counts.

    For a wrapper's traces (a ``StatefulFunction``), ``owner`` is the callable it
    wraps, and ``wrappers``/``tracers`` the wrapper objects that traced in this
    group / traced each key (held weakly), to tell a rebuilt wrapper from a cache
    cleared or outgrown.
    """

    name: str
    owner: object
    keys: list[TraceKey] = dataclasses.field(default_factory=list)
    counts: list[int] = dataclasses.field(default_factory=list)
    reports: list[RetraceReport] = dataclasses.field(default_factory=list)
    wrappers: Wrappers = dataclasses.field(default_factory=Wrappers)
    tracers: list[Wrappers] = dataclasses.field(default_factory=list)
    forgotten: int = 0
    """Traces of keys dropped to keep at most `KEYS_KEPT` keys (still counted in `traces`)."""

    @property
    def traces(self) -> int:
        """How many times the owner was traced."""
        return sum(self.counts) + self.forgotten

    def keep_bounded(self) -> None:
        """Drop the oldest keys past `KEYS_KEPT` (their traces stay counted) and the oldest reports past `REPORTS_KEPT`."""
        while len(self.keys) > KEYS_KEPT:
            self.keys.pop(0)
            self.forgotten += self.counts.pop(0)
            self.tracers.pop(0)
        if len(self.reports) > REPORTS_KEPT:
            del self.reports[: len(self.reports) - REPORTS_KEPT]


KEYS_KEPT = 256
"""The most distinct cache keys remembered per owner (a retrace is explained against these)."""

REPORTS_KEPT = 1000
"""The most retrace reports kept, per owner and in all (the oldest first out; `RetraceTracker.total` counts all)."""


def _layout(graph: CallableGraph[Any, Any]) -> Hashable:
    """A graph's labels and places without its bodies and settings: what stays put when it is rebuilt."""
    layout = (tuple((path, label, node.inputs, node.outputs) for path, label, node in graph.graph.flat()), graph.outputs)
    try:
        hash(layout)
    except TypeError:
        return id(graph)
    return layout


class RetraceTracker:
    """Counts traces per owner and cache key, and reports a retrace beyond the owner's limit.

    Watched owners (`watch_owner`) are always tracked; others only while ``auto`` is
    on (debug mode), under ``default``. ``JitGraph.jit_call`` serves every graph from
    one jitted function, so its traces are grouped by graph layout: a graph built
    again equal is not a retrace, a rebuilt graph whose settings changed is.
    """

    def __init__(self) -> None:
        self.auto = False
        self.default = Policy()
        self.reports: list[RetraceReport] = []
        self.total = 0
        """How many retraces were reported, the ones no longer kept included."""
        self._groups: dict[Hashable, TraceGroup] = {}
        self._watched: dict[int, tuple[object, str, Policy]] = {}
        self._warned: set[Hashable] = set()
        self._unsubscribe: Callable[[], None] | None = None

    def start(self) -> None:
        """Listen to trace events (once)."""
        if self._unsubscribe is None:
            self._unsubscribe = subscribe(self)

    def stop(self) -> None:
        """Stop listening."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def watch_owner(self, owner: object, name: str, policy: Policy) -> None:
        """Track ``owner``'s traces under ``policy``, debug mode or not."""
        self._watched[id(owner)] = (owner, name, policy)
        self.start()

    def group(self, owner: object) -> TraceGroup | None:
        """The traces of ``owner`` (not split by graph), or None before its first trace."""
        return self._groups.get(id(owner))

    def groups(self) -> list[TraceGroup]:
        """Every owner's traces."""
        return list(self._groups.values())

    def clear(self) -> None:
        """Forget every trace and report (not the watched owners)."""
        self._groups.clear()
        self.reports.clear()
        self.total = 0
        self._warned.clear()

    @property
    def watching(self) -> bool:
        """True when some owner is watched explicitly."""
        return bool(self._watched)

    def reset(self) -> None:
        """Forget everything, watched owners included, and stop listening (for tests)."""
        self.clear()
        self._watched.clear()
        self.auto = False
        self.default = Policy()
        self.stop()

    def _group_key(self, event: TraceEvent) -> tuple[Hashable, str]:
        if event.wraps is not None:
            return ("wraps", wrapped_identity(event.wraps)), f"{type(event.owner).__name__}({event.name})"
        first = event.arguments[0] if event.arguments else None
        if first is not None and first[0] == "graph" and isinstance(first[1].payload, CallableGraph):
            graph = first[1].payload
            labels = ", ".join(repr(label) for _, label, _ in graph.graph.flat()[:4])
            more = ", ..." if len(graph.graph.flat()) > 4 else ""
            return (id(event.owner), _layout(graph)), f"{event.name}(graph of {labels}{more})"
        return id(event.owner), event.name

    def __call__(self, event: TraceEvent) -> None:
        watched = self._watched.get(id(event.owner))
        if watched is None and not self.auto:
            return
        key, name = self._group_key(event)
        if watched is not None:
            name, policy = watched[1], watched[2]
        else:
            policy = self.default
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = TraceGroup(name, event.owner if event.wraps is None else event.wraps)
        arguments = event.arguments
        again = False
        index = len(group.keys)
        for i, seen in enumerate(group.keys):
            if same_key(seen, arguments):
                group.counts[i] += 1
                again = True
                index = i
                break
        else:
            group.keys.append(arguments)
            group.counts.append(1)
            group.tracers.append(Wrappers())
            if len(group.keys) > KEYS_KEPT:
                group.keep_bounded()
                index = len(group.keys) - 1
        rebuilt = False
        if event.wraps is not None:
            # A wrapper that has not traced this key, around a callable another wrapper traced: rebuilt.
            earlier = group.tracers[index] if again else group.wrappers
            rebuilt = bool(earlier) and event.owner not in earlier
            group.wrappers.add(event.owner)
            group.tracers[index].add(event.owner)
        if group.traces <= policy.max_traces:
            return
        changes: list[ArgumentChange] = []
        if rebuilt:
            changes.append(rebuilt_wrapper(event.owner, event.wraps))
        if not again:
            found = closest(group.keys[:-1], arguments)
            changes += found[1] if found is not None else []
        report = RetraceReport(group.name, group.traces, policy.max_traces, tuple(changes or [traced_again()]), user_frame())
        group.reports.append(report)
        group.keep_bounded()
        self.reports.append(report)
        self.total += 1
        if len(self.reports) > REPORTS_KEPT:
            del self.reports[: len(self.reports) - REPORTS_KEPT]
        if policy.on_retrace == "warn" and report.cause in self._warned:
            return  # the same retrace at the same call, repeated every step: warned once, recorded every time
        self._warned.add(report.cause)
        _act(report, policy.on_retrace)


def _act(report: RetraceReport, on_retrace: str) -> None:
    if on_retrace == "raise":
        raise RetraceError(report)
    if on_retrace != "warn":
        return
    found = report.violation
    text = f"{found.code} {found.message}\n  help: {found.help}"
    where = report.location
    if where is None:
        warnings.warn(text, RetraceWarning, stacklevel=2)
        return
    module = sys.modules.get(where.module)
    registry = vars(module).setdefault("__warningregistry__", {}) if module is not None else None
    warnings.warn_explicit(text, RetraceWarning, where.file, where.line, module=where.module or None, registry=registry)


TRACKER = RetraceTracker()
"""The one tracker of this process."""


def retrace_reports() -> list[RetraceReport]:
    """Every retrace reported so far in this process (the latest `REPORTS_KEPT`)."""
    return list(TRACKER.reports)


def retrace_mark() -> int:
    """A mark to pass to `retrace_reports_since`."""
    return TRACKER.total


def retrace_reports_since(mark: int) -> list[RetraceReport]:
    """The retraces reported after `retrace_mark` returned ``mark`` (those still kept)."""
    new = TRACKER.total - mark
    return list(TRACKER.reports)[-new:] if new > 0 else []


def collapsed(reports: list[RetraceReport]) -> list[tuple[RetraceReport, int]]:
    """Each distinct retrace once, with how often it was reported: a retrace repeated at every step is listed once.

    The report kept is the latest of its kind (the one with the highest trace count),
    in the order each kind was first reported.
    """
    latest: dict[Hashable, tuple[RetraceReport, int]] = {}
    for report in reports:
        seen = latest.get(report.cause)
        latest[report.cause] = (report, 1 if seen is None else seen[1] + 1)
    return list(latest.values())


def render_collapsed(reports: list[RetraceReport], shown_path: Callable[[str], str] | None = None) -> list[str]:
    """The text of each distinct retrace (`collapsed`), followed by how often it repeated where it did."""
    text = []
    for report, times in collapsed(reports):
        text.append(report.render(shown_path) + (f"\n  (the same retrace was reported {times} times; the last is shown)" if times > 1 else ""))
    return text


__all__ = ["KEYS_KEPT", "REPORTS_KEPT", "retrace_mark", "retrace_reports_since", "TRACKER", "Policy", "collapsed", "render_collapsed", "RetraceError", "RetraceReport", "RetraceTracker", "RetraceWarning", "TraceGroup", "retrace_reports"]
