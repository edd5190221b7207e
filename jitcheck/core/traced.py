"""`GraphWithValues` and `Traced`: a graph run traced once by jax, nothing computed.

``Traced(GraphWithValues(graph, values))`` traces the whole run with
``jax.make_jaxpr`` at the shapes of ``values``: one jaxpr for the whole graph, and
the shape and dtype of every place. A body that fails at those shapes is refused
with `TraceFailed` naming the node; one that returns other outputs than it declares,
with `ReturnedUnlike`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from typing import Any, ClassVar, Generic, TypeVar

import jax
import jax.tree_util
import numpy as np

from jitcheck.core.checking import PerLevel
from jitcheck.core.frozen import Frozen, OrderedMap, frozen_map
from jitcheck.core.graphs import (
    CallableGraph,
    split_outputs,
    trace_failure,
    values_problem,
)
from jitcheck.core.keys import is_array
from jitcheck.core.names import N, V
from jitcheck.core.shapes import shape_dtype, shape_of, short_shape
from jitcheck.core.violations import Refused, Violation, node_name, refusal

G = TypeVar("G", bound=CallableGraph[Any, Any])

_NUMBERS = (bool, int, float, complex)

trace_count: int = 0
"""How many graph runs :func:`trace_graph` has traced in this process (the debug layer's proof of "no tracing")."""


def check_values_cover_inputs(valued: GraphWithValues[Any, Any]) -> Iterator[Violation]:
    """The values name exactly the graph's free input places."""
    if not isinstance(valued.graph, CallableGraph):
        return
    problem = values_problem(valued.graph, valued.values)
    if problem is not None:
        yield problem


class GraphWithValues(Frozen, Generic[G, V]):
    """A callable graph and a value for each of its free input places.

    Values may be arrays, ``jax.ShapeDtypeStruct`` (a shape to trace at, with no
    data) or pytrees of them; any other value reaches the bodies as it is. It
    compares by value but hashes only when its values do (arrays do not).
    """

    graph: G
    values: Mapping[V, Any]

    checks: ClassVar[PerLevel[tuple[Callable[[Any], object], ...]]] = (check_values_cover_inputs,)

    def __post_init__(self) -> None:
        if not isinstance(self.graph, CallableGraph):
            raise TypeError(
                f"GraphWithValues needs a CallableGraph (or JitGraph), got {type(self.graph).__name__}; "
                "wrap a NestingGraph as CallableGraph(graph)"
            )
        object.__setattr__(self, "values", frozen_map(self.values))
        super().__post_init__()


def _computed_shape(value: Any) -> Any:
    if isinstance(value, jax.core.Tracer):  # the common case: one traced array
        aval: Any = value.aval
        return shape_dtype(aval.shape, aval.dtype, weak_type=getattr(aval, "weak_type", False))

    def leaf(x: Any) -> Any:
        if isinstance(x, _NUMBERS):
            aval = jax.typeof(x)
            return shape_dtype(aval.shape, aval.dtype, weak_type=True)
        return x

    return jax.tree_util.tree_map(leaf, shape_of(value))


class _BodyFailed(Exception):
    """Raised through ``jax.make_jaxpr`` when a body fails, to be turned into a violation."""

    def __init__(self, found: Violation) -> None:
        super().__init__(found.message)
        self.found = found


def _traceable(leaf: Any) -> bool:
    return isinstance(leaf, jax.ShapeDtypeStruct) or is_array(leaf) or isinstance(leaf, np.generic)


class _Result:
    __slots__ = ("jaxpr", "shapes")

    def __init__(self, jaxpr: Any, shapes: OrderedMap[Any, Any]) -> None:
        self.jaxpr = jaxpr
        self.shapes = shapes


def trace_graph(valued: GraphWithValues[CallableGraph[Any, Any], Any]) -> _Result:
    """Trace ``valued``'s run once: its closed jaxpr and every place's shape.

    Raises `TraceFailed` or `ReturnedUnlike` naming the node.
    """
    global trace_count
    trace_count += 1
    graph = valued.graph
    order = graph.order
    outputs = graph.outputs
    leaves, treedef = jax.tree_util.tree_flatten(valued.values)
    dynamic = [i for i, leaf in enumerate(leaves) if _traceable(leaf)]
    specs = [leaves[i] if isinstance(leaves[i], jax.ShapeDtypeStruct) else shape_of(leaves[i]) for i in dynamic]
    shapes: dict[Hashable, Any] = {}
    input_shapes = {place: shape_of(value) for place, value in valued.values.items()}

    def run(*traced_leaves: Any) -> OrderedMap[Any, Any]:
        full = list(leaves)
        for i, value in zip(dynamic, traced_leaves):
            full[i] = value
        values: OrderedMap[Any, Any] = jax.tree_util.tree_unflatten(treedef, full)
        env: dict[Hashable, Any] = dict(values.items())
        for place, value in values.items():
            shapes[place] = input_shapes[place]
        for path, label, node in order:
            args = [env[place] for place in node.inputs]
            try:
                result = node.body(*args, **node.settings)
            except Refused:
                raise
            except Exception as error:
                raise _BodyFailed(trace_failure(path, label, node, args, error)) from error
            for place, value in zip(node.outputs, split_outputs(node, result, label, path)):
                env[place] = value
                shapes[place] = _computed_shape(value)
        return OrderedMap((place, env[place]) for place in outputs)

    try:
        closed = jax.make_jaxpr(run)(*specs)
    except _BodyFailed as failed:
        raise refusal(f"Traced graph, node {node_name(failed.found.graph, failed.found.node)}", [failed.found]) from None
    except Refused:
        raise
    ordered = (*valued.values, *graph.graph.computed())
    return _Result(closed, OrderedMap((place, shapes[place]) for place in ordered))


def check_traced_callable(traced: Traced[Any, Any]) -> Iterator[Violation]:
    """What is traced is a callable graph with a value for each free input."""
    yield from check_values_cover_inputs(traced.valued)


def check_traces(traced: Traced[Any, Any]) -> Iterator[Violation]:
    """The run traces: the first refusal it raised, or the node whose body failed."""
    try:
        traced.result()
    except Refused as refused:
        for found in refused.violations:
            yield found if found.cause is not None else Violation(
                found.rule, found.message, found.help, found.graph, found.node, found.leaf, refused.__cause__
            )


class Traced(Frozen, Generic[N, V]):
    """The run of a graph traced once by jax, nothing computed.

    ``traced.jaxpr`` is the whole graph as one closed jaxpr whose inputs are the
    array (and ``ShapeDtypeStruct``) leaves handed in; ``traced.shapes`` maps every
    place, the inputs first and then what the graph computes, to its
    ``ShapeDtypeStruct`` (a pytree of them where the value is one).
    """

    valued: GraphWithValues[CallableGraph[N, V], V]

    checks: ClassVar[PerLevel[tuple[Callable[[Any], object], ...]]] = (check_traced_callable, check_traces)

    def __post_init__(self) -> None:
        if not isinstance(self.valued, GraphWithValues):
            raise TypeError(
                f"Traced takes a GraphWithValues, got {type(self.valued).__name__}; "
                "write Traced(GraphWithValues(graph, values))"
            )
        super().__post_init__()

    def result(self) -> _Result:
        """The trace, done once and kept."""
        cached: _Result | None = self.__dict__.get("_result")
        if cached is None:
            cached = trace_graph(self.valued)
            self.__dict__["_result"] = cached
        return cached

    @property
    def jaxpr(self) -> Any:
        """The whole graph as one closed jaxpr, its inputs the shapes handed in."""
        return self.result().jaxpr

    @property
    def shapes(self) -> OrderedMap[V, Any]:
        """Every place's shape and dtype: the inputs, then what the graph computes."""
        return self.result().shapes


def input_specs(values: Mapping[Any, Any]) -> OrderedMap[Any, Any]:
    """``values`` with arrays replaced by their ``ShapeDtypeStruct``: a graph's input specs."""
    return OrderedMap((place, shape_of(value)) for place, value in values.items())


__all__ = [
    "GraphWithValues",
    "Traced",
    "check_traced_callable",
    "check_traces",
    "check_values_cover_inputs",
    "input_specs",
    "shape_dtype",
    "shape_of",
    "short_shape",
    "trace_graph",
]
