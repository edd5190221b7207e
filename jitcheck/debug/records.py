"""What debug mode saw built: every graph traced as it was constructed, with every place's shape.

Debug mode adds :func:`on_construction` to ``jitcheck.core.checking.construction_hooks``.
It traces each `GraphWithValues` (a graph with example values or input specs such
as ``jax.ShapeDtypeStruct``) with `Traced` as soon as it is built, so a body that
fails at those shapes raises `TraceFailed` at that line, at import for a
module-level graph; and it records, for the import report, where each graph was
built and the shape and dtype of every place.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import sys
import threading
from collections.abc import Callable, Hashable
from typing import Any

import jax
import jax.tree_util

from jitcheck.core.context import trace_context
from jitcheck.core.graphs import CallableGraph
from jitcheck.core.traced import GraphWithValues, Traced, shape_of
from jitcheck.core.violations import Refused
from jitcheck.debug.location import Location, user_frame

_NOTE = (
    "jitcheck debug mode traced this graph as it was built, at the example values or input specs it was given "
    "(debug mode is on: JITCHECK_DEBUG, jitcheck.debug.enable or --jitcheck-packages)"
)


@dataclasses.dataclass(frozen=True)
class PlaceShape:
    """One place (or one leaf of a place holding a pytree): its role, shape and dtype.

    ``shape`` is None and ``dtype`` the Python type name for a value that is not an
    array (handed to the bodies as it is).
    """

    place: str
    leaf: str
    role: str
    shape: tuple[int, ...] | None
    dtype: str
    weak_type: bool = False

    @property
    def name(self) -> str:
        """The place and, for a pytree, the path of the leaf inside it."""
        return self.place + self.leaf

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of this place."""
        return {
            "place": self.place,
            "leaf": self.leaf,
            "role": self.role,
            "shape": None if self.shape is None else list(self.shape),
            "dtype": self.dtype,
            "weak_type": self.weak_type,
        }


@dataclasses.dataclass(frozen=True)
class GraphRecord:
    """A graph debug mode saw built: where, how many nodes, and (when traced) every place's shape.

    ``kind`` is ``"traced"`` for a graph with example values (traced at once),
    ``"failed"`` for one whose trace failed (the error says why), or ``"checked"``
    for a graph built with no values to trace it at (checked only). A graph built
    again, equal (and, when traced, at the same shapes), at the same line is folded
    into one record: ``count`` says how many times it was built. ``same_as`` is
    the location of an equal graph that was traced, for a checked-only graph the
    report lists as traced because of it.
    """

    kind: str
    type_name: str
    location: Location | None
    nodes: int
    places: tuple[PlaceShape, ...]
    subject: Any = dataclasses.field(compare=False, repr=False)
    graph: Any = dataclasses.field(compare=False, repr=False)
    count: int = dataclasses.field(default=1, compare=False)
    serial: int = dataclasses.field(default=0, compare=False, repr=False)
    same_as: Location | None = dataclasses.field(default=None, compare=False)
    others: tuple[Any, ...] = dataclasses.field(default=(), compare=False, repr=False)
    """Up to `OTHERS_KEPT` later objects folded into this record (so a report can still name them)."""

    def subjects(self) -> tuple[Any, ...]:
        """The first object recorded and the later ones kept in `others`."""
        return (self.subject, *self.others)

    @property
    def module(self) -> str:
        """The module whose code built the graph ("" when no user code is on the stack)."""
        return self.location.module if self.location is not None else ""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of this record (without the objects)."""
        found: dict[str, Any] = {
            "kind": self.kind,
            "type": self.type_name,
            "location": None if self.location is None else self.location.to_json(),
            "nodes": self.nodes,
            "places": [p.to_json() for p in self.places],
            "count": self.count,
        }
        if self.same_as is not None:
            found["same_as"] = self.same_as.to_json()
        return found


KEPT = 1024
"""The most distinct graph records kept (the oldest first out); equal rebuilt graphs fold into one."""

_TRACED_KEPT = 256
"""The most (graph, shapes) pairs remembered as traced, so an equal graph built again is not traced again."""

_lock = threading.Lock()
_RECORDS: collections.OrderedDict[Hashable, GraphRecord] = collections.OrderedDict()
_TRACED: collections.OrderedDict[Hashable, GraphRecord] = collections.OrderedDict()
"""(graph, shapes of its values) -> the record of its trace: equal graphs at equal shapes trace alike."""
_JUST_TRACED: collections.OrderedDict[int, GraphWithValues[Any, Any]] = collections.OrderedDict()
"""The last few GraphWithValues traced here, by id (held, so an id is not reused meanwhile)."""
_serial = itertools.count(1)
_stats = {"dropped": 0}


def graph_records() -> list[GraphRecord]:
    """Every distinct graph recorded so far in this process (at most `KEPT`), in the order they were first built."""
    with _lock:
        return list(_RECORDS.values())


def mark() -> int:
    """A mark to pass to `records_since`: records first made after this call have a higher serial."""
    with _lock:
        return next(_serial)


def records_since(mark_: int) -> list[GraphRecord]:
    """The records first made after `mark` returned ``mark_`` (folded ones included when first made then)."""
    return [r for r in graph_records() if r.serial > mark_]


def dropped() -> int:
    """How many distinct records were dropped to keep at most `KEPT`."""
    return _stats["dropped"]


def clear_records() -> None:
    """Forget the recorded graphs."""
    with _lock:
        _RECORDS.clear()
        _TRACED.clear()
        _JUST_TRACED.clear()
        _stats["dropped"] = 0


def _identity(graph: Any) -> Hashable:
    """The graph by value when it hashes (a graph is a cache key), else by identity."""
    try:
        hash(graph)
    except TypeError:
        return ("id", id(graph))
    found: Hashable = graph
    return found


OTHERS_KEPT = 8


def _fold(key: Hashable, make: Callable[[], GraphRecord], subject: Any) -> GraphRecord:
    """Count one more build of the record under ``key``, or keep a new one (dropping the oldest past `KEPT`)."""
    with _lock:
        found = _RECORDS.get(key)
        if found is not None:
            others = found.others
            if len(others) < OTHERS_KEPT and all(subject is not kept for kept in found.subjects()):
                others = (*others, subject)
            found = dataclasses.replace(found, count=found.count + 1, others=others)
            _RECORDS[key] = found
            return found
        record = dataclasses.replace(make(), serial=next(_serial))
        _RECORDS[key] = record
        while len(_RECORDS) > KEPT:
            _RECORDS.popitem(last=False)
            _stats["dropped"] += 1
        return record


def _remember(store: collections.OrderedDict[Any, Any], key: Any, value: Any, limit: int) -> None:
    with _lock:
        store[key] = value
        store.move_to_end(key)
        while len(store) > limit:
            store.popitem(last=False)


def values_key(valued: GraphWithValues[Any, Any]) -> Hashable | None:
    """The graph, the shapes its values give it and jax's configuration: equal keys trace alike
    (None when a value does not hash)."""
    try:
        parts = []
        for place, value in valued.values.items():
            leaves, tree = jax.tree_util.tree_flatten(shape_of(value))
            parts.append((place, tree, tuple((type(leaf), leaf) for leaf in leaves)))
        key = (_identity(valued.graph), tuple(parts), trace_context())  # a trace is jax's under this configuration
        hash(key)
    except TypeError:
        return None
    return key


def place_shapes(traced: Traced[Any, Any]) -> tuple[PlaceShape, ...]:
    """Every place of a traced graph, input places first, each leaf with its shape and dtype."""
    inputs = set(traced.valued.graph.inputs)
    rows: list[PlaceShape] = []
    for place, shape in traced.shapes.items():
        role = "input" if place in inputs else "computed"
        for path, leaf in jax.tree_util.tree_flatten_with_path(shape)[0]:
            suffix = jax.tree_util.keystr(path)
            if isinstance(leaf, jax.ShapeDtypeStruct):
                rows.append(
                    PlaceShape(repr(place), suffix, role, tuple(int(d) for d in leaf.shape), str(leaf.dtype), bool(getattr(leaf, "weak_type", False)))
                )
            else:
                rows.append(PlaceShape(repr(place), suffix, role, None, type(leaf).__name__))
    return tuple(rows)


def _where() -> Location | None:
    return user_frame(sys._getframe(2))


def _record_traced(traced: Traced[Any, Any]) -> None:
    valued = traced.valued
    with _lock:
        if id(valued) in _JUST_TRACED and _JUST_TRACED[id(valued)] is valued:
            return
    location = _where()
    places = place_shapes(traced)
    graph = valued.graph
    record = _fold(
        ("traced", type(graph).__name__, location, _identity(graph), places),
        lambda: GraphRecord("traced", type(graph).__name__, location, len(graph.graph.flat()), places, valued, graph),
        valued,
    )
    _remember(_JUST_TRACED, id(valued), valued, 16)
    key = values_key(valued)
    if key is not None:
        _remember(_TRACED, key, record, _TRACED_KEPT)


def _record_failed(valued: GraphWithValues[Any, Any]) -> None:
    location = _where()
    graph = valued.graph
    _fold(
        ("failed", type(graph).__name__, location, _identity(graph), values_key(valued) or ("id", id(valued))),
        lambda: GraphRecord("failed", type(graph).__name__, location, len(graph.graph.flat()), (), valued, graph),
        valued,
    )
    _remember(_JUST_TRACED, id(valued), valued, 16)


def _record_checked(graph: CallableGraph[Any, Any]) -> None:
    location = _where()
    _fold(
        ("checked", type(graph).__name__, location, _identity(graph)),
        lambda: GraphRecord("checked", type(graph).__name__, location, len(graph.graph.flat()), (), graph, graph),
        graph,
    )


def _record_equal(valued: GraphWithValues[Any, Any], traced: GraphRecord) -> None:
    """A graph equal to one traced at the same shapes: counted under its own line, not traced again."""
    location = _where()
    graph = valued.graph
    _fold(
        ("traced", type(graph).__name__, location, _identity(graph), traced.places),
        lambda: GraphRecord("traced", type(graph).__name__, location, traced.nodes, traced.places, valued, graph),
        valued,
    )


def on_construction(obj: object) -> None:
    """The construction hook: trace every `GraphWithValues` at once, record every graph.

    A body failing at the given shapes raises `TraceFailed` (a `Refused`) from the
    constructor, with a note saying debug mode traced it. A graph equal to one
    already traced at the same shapes is not traced again (the trace would be the
    same): it is counted, so a loop that rebuilds its graph every step costs a
    hash and a lookup per step, and its records stay one per line of code.
    """
    if isinstance(obj, Traced):
        _record_traced(obj)
    elif isinstance(obj, GraphWithValues):
        with _lock:
            if _JUST_TRACED.get(id(obj)) is obj:
                return
        key = values_key(obj)
        if key is not None:
            with _lock:
                earlier = _TRACED.get(key)
                if earlier is not None:
                    _TRACED.move_to_end(key)
            if earlier is not None:
                _record_equal(obj, earlier)
                return
        try:
            Traced(obj)
        except Refused as error:
            _record_failed(obj)
            error.add_note(_NOTE)
            raise
    elif isinstance(obj, CallableGraph):
        _record_checked(obj)


def untraced(found: list[GraphRecord]) -> list[GraphRecord]:
    """The checked-only records among ``found`` whose graph no traced (or failed) record covers, by value."""
    covered = {_identity(r.graph) for r in found if r.kind != "checked"}
    return [r for r in found if r.kind == "checked" and _identity(r.graph) not in covered]


def traced_equal(record: GraphRecord, found: list[GraphRecord]) -> GraphRecord | None:
    """A traced (or failed) record among ``found`` whose graph equals ``record``'s (a checked-only one), or None."""
    if record.kind != "checked":
        return None
    identity = _identity(record.graph)
    return next((r for r in found if r.kind != "checked" and _identity(r.graph) == identity), None)


__all__ = [
    "KEPT",
    "GraphRecord",
    "PlaceShape",
    "clear_records",
    "dropped",
    "graph_records",
    "mark",
    "on_construction",
    "place_shapes",
    "records_since",
    "traced_equal",
    "untraced",
    "values_key",
]
