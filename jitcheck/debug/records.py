"""What debug mode saw built: every graph traced as it was constructed, with every place's shape.

Debug mode adds :func:`on_construction` to ``jitcheck.core.checking.construction_hooks``.
It traces each `GraphWithValues` (a graph with example values or input specs such
as ``jax.ShapeDtypeStruct``) with `Traced` as soon as it is built, so a body that
fails at those shapes raises `TraceFailed` at that line, at import for a
module-level graph; and it records, for the import report, where each graph was
built and the shape and dtype of every place.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

import jax
import jax.tree_util

from jitcheck.core.graphs import CallableGraph
from jitcheck.core.traced import GraphWithValues, Traced
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
    for a graph built with no values to trace it at (checked only).
    """

    kind: str
    type_name: str
    location: Location | None
    nodes: int
    places: tuple[PlaceShape, ...]
    subject: Any = dataclasses.field(compare=False, repr=False)
    graph: Any = dataclasses.field(compare=False, repr=False)

    @property
    def module(self) -> str:
        """The module whose code built the graph ("" when no user code is on the stack)."""
        return self.location.module if self.location is not None else ""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of this record (without the objects)."""
        return {
            "kind": self.kind,
            "type": self.type_name,
            "location": None if self.location is None else self.location.to_json(),
            "nodes": self.nodes,
            "places": [p.to_json() for p in self.places],
        }


_RECORDS: list[GraphRecord] = []
_TRACED: dict[int, GraphRecord] = {}


def graph_records() -> list[GraphRecord]:
    """Every graph recorded so far in this process, in the order they were built."""
    return list(_RECORDS)


def clear_records() -> None:
    """Forget the recorded graphs."""
    _RECORDS.clear()
    _TRACED.clear()


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


def _record_traced(traced: Traced[Any, Any]) -> None:
    valued = traced.valued
    if id(valued) in _TRACED:
        return
    record = GraphRecord(
        kind="traced",
        type_name=type(valued.graph).__name__,
        location=user_frame(sys._getframe()),
        nodes=len(valued.graph.graph.flat()),
        places=place_shapes(traced),
        subject=valued,
        graph=valued.graph,
    )
    _TRACED[id(valued)] = record
    _RECORDS.append(record)


def _record_failed(valued: GraphWithValues[Any, Any]) -> None:
    record = GraphRecord(
        kind="failed",
        type_name=type(valued.graph).__name__,
        location=user_frame(sys._getframe()),
        nodes=len(valued.graph.graph.flat()),
        places=(),
        subject=valued,
        graph=valued.graph,
    )
    _TRACED[id(valued)] = record
    _RECORDS.append(record)


def _record_checked(graph: CallableGraph[Any, Any]) -> None:
    _RECORDS.append(
        GraphRecord(
            kind="checked",
            type_name=type(graph).__name__,
            location=user_frame(sys._getframe()),
            nodes=len(graph.graph.flat()),
            places=(),
            subject=graph,
            graph=graph,
        )
    )


def on_construction(obj: object) -> None:
    """The construction hook: trace every `GraphWithValues` at once, record every graph.

    A body failing at the given shapes raises `TraceFailed` (a `Refused`) from the
    constructor, with a note saying debug mode traced it.
    """
    if isinstance(obj, Traced):
        _record_traced(obj)
    elif isinstance(obj, GraphWithValues):
        if id(obj) in _TRACED:
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
    """The checked-only records among ``found`` whose graph no traced (or failed) record covers."""
    covered = {id(r.graph) for r in found if r.kind != "checked"}
    return [r for r in found if r.kind == "checked" and id(r.graph) not in covered]


__all__ = ["GraphRecord", "PlaceShape", "clear_records", "on_construction", "place_shapes", "graph_records", "untraced"]
