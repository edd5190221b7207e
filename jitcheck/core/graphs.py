"""Graphs of named nodes: `NodeDefinition`, `NestingGraph`, `CallableGraph`, `JitGraph`.

A node computes its output places from its input places by calling its body. A
`NestingGraph` maps labels to nodes or to other graphs, so graphs nest. A
`CallableGraph` runs the nodes in dependency order; a `JitGraph` is a callable
graph whose every node is a good jit cache key, so the whole graph can be a static
argument of ``jax.jit`` and an equal graph built again hits the cache.

Places share one namespace across nesting levels: a nested graph groups nodes under
a label (and names them in messages), it does not hide its places.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from types import FunctionType
from typing import Any, ClassVar, Generic, TypeAlias, Union

import jax

from jitcheck import rules
from jitcheck.core import memo
from jitcheck.core.checking import PerLevel, per_level
from jitcheck.core.context import configuration_argument
from jitcheck.core.events import ArgumentKey, notify_trace, traced_argument_keys
from jitcheck.core.frozen import Frozen, OrderedMap, frozen_map
from jitcheck.core.keys import KeyProblem, key_problems, strict_key
from jitcheck.core.names import N, V
from jitcheck.core.partial import ValuePartial
from jitcheck.core.shapes import short_shape
from jitcheck.core.violations import (
    Refused,
    ReturnedUnlike,
    Violation,
    node_name,
    refusal,
    violation,
    violation_from,
)

Body: TypeAlias = Callable[..., Any]

def places_key(places: tuple[Any, ...]) -> Any:
    """The type-strict key of a tuple of places: the tuple itself when every place is a str."""
    for place in places:
        if type(place) is not str:
            return strict_key(places)
    return places
NodeCheck: TypeAlias = Callable[[Any, "NodeDefinition[Any]"], Iterator[Violation]]


class NodeDefinition(Frozen, Generic[V]):
    """One node: ``body(*inputs, **settings)`` computes ``outputs``.

    ``inputs`` and ``outputs`` are tuples of places; ``settings`` are hashable
    values handed to the body as keyword arguments, as they are (never traced).
    A body with one output returns the value itself; with several, a tuple (or
    list) of that many values.
    """

    body: Body
    inputs: tuple[V, ...] = ()
    outputs: tuple[V, ...] = ()
    settings: Mapping[str, Hashable] = OrderedMap()

    def __post_init__(self) -> None:
        if not callable(self.body):
            raise TypeError(f"NodeDefinition body must be callable, got {type(self.body).__name__}: {self.body!r}")
        for field in ("inputs", "outputs"):
            places = getattr(self, field)
            if isinstance(places, str) or not isinstance(places, Iterable):
                raise TypeError(
                    f"NodeDefinition {field} must be a tuple of places, got {places!r}; "
                    f"write ({places!r},) for a single place"
                )
            object.__setattr__(self, field, tuple(places))
        object.__setattr__(self, "settings", frozen_map(self.settings))
        bad_keys = [k for k in self.settings if not isinstance(k, str) or not k.isidentifier()]
        if bad_keys:
            raise TypeError(f"NodeDefinition settings are keyword arguments of the body; these keys are not names: {bad_keys!r}")
        super().__post_init__()

    def strict_key(self) -> Any:
        """The node's type-strict key: class, body, places and settings (see `Frozen`).

        Built flat, without a Python call per place or setting name, since every
        node of a graph rebuilt each step is keyed anew.
        """
        body: Any = self.body
        kind = type(body)
        if kind is FunctionType:
            body_key: Any = body
        elif kind is ValuePartial:
            body_key = body._strict or body._key()
        else:
            body_key = strict_key(body)
        settings = self.settings
        settings_key: Any = ()
        if settings:
            parts: list[Any] = []
            for name, value in settings._items:  # type: ignore[attr-defined]
                parts.append(name)
                kind_ = type(value)
                parts.append(value if kind_ is str else (kind_, value) if kind_ is float or kind_ is int else strict_key(value))
            settings_key = tuple(parts)
        inputs: Any = self.inputs
        for place in inputs:
            if type(place) is not str:
                inputs = strict_key(inputs)
                break
        outputs: Any = self.outputs
        for place in outputs:
            if type(place) is not str:
                outputs = strict_key(outputs)
                break
        return (type(self), body_key, inputs, outputs, settings_key)

    def run(self, *args: Any) -> tuple[Any, ...]:
        """Call the body on input values and return one value per output place.

        Raises `ReturnedUnlike` when the body returns another number of values.
        """
        result = self.body(*args, **self.settings)
        return split_outputs(self, result)


def split_outputs(node: NodeDefinition[Any], result: Any, label: Hashable | None = None, graph: tuple[Hashable, ...] = ()) -> tuple[Any, ...]:
    """``result`` as one value per declared output, or `ReturnedUnlike` naming the node."""
    count = len(node.outputs)
    if count == 1:
        return (result,)
    if isinstance(result, (tuple, list)) and len(result) == count:
        return tuple(result)
    if isinstance(result, (tuple, list)):
        got = f"{len(result)} values"
    else:
        got = f"one {type(result).__name__}"
    name = node_name(graph, label) if label is not None else repr(getattr(node.body, "__qualname__", node.body))
    found = violation(
        rules.RETURNED_UNLIKE,
        graph=graph,
        node=label,
        leaf="body",
        name=name,
        got=got,
        expected=f"{count} output{'s' if count != 1 else ''} {node.outputs!r} (a tuple of {count})" if count != 1 else repr(node.outputs),
    )
    raise ReturnedUnlike(f"node {name}", [found])


Node: TypeAlias = Union[NodeDefinition[V], "NestingGraph[N, V]"]


class NestingGraph(Frozen, Generic[N, V]):
    """Labels mapped to nodes, or to other nesting graphs.

    ``outputs`` names the places the graph hands back when it runs (by default,
    every place it computes). A nested graph's own ``outputs`` must be produced
    inside it.
    """

    nodes: Mapping[N, NodeDefinition[V] | NestingGraph[N, V]]
    outputs: tuple[V, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "nodes", frozen_map(self.nodes))
        if self.outputs is not None:
            if isinstance(self.outputs, str) or not isinstance(self.outputs, Iterable):
                raise TypeError(f"NestingGraph outputs must be a tuple of places, got {self.outputs!r}")
            object.__setattr__(self, "outputs", tuple(self.outputs))
        for label, node in self.nodes.items():
            if not isinstance(node, (NodeDefinition, NestingGraph)):
                raise TypeError(
                    f"node {label!r} is a {type(node).__name__}; a graph maps labels to "
                    "NodeDefinition or NestingGraph values"
                )
        super().__post_init__()

    def strict_key(self) -> Any:
        """The graph's type-strict key: class, outputs, then each label's key and its node's key.

        One nested tuple of the keys of every node, which hashes and compares in C.
        """
        parts: list[Any] = [type(self), None if self.outputs is None else places_key(self.outputs)]
        for label, node in self.nodes._items:  # type: ignore[attr-defined]
            parts.append(label if type(label) is str else strict_key(label))
            kept = node.__dict__
            key = kept.get("_jitcheck_key")
            if key is None:
                key = kept["_jitcheck_key"] = node.strict_key()
            parts.append(key)
        return tuple(parts)

    def flat(self) -> tuple[tuple[tuple[N, ...], N, NodeDefinition[V]], ...]:
        """Every node with its graph path (the labels of the graphs holding it), depth first."""
        cached: tuple[tuple[tuple[N, ...], N, NodeDefinition[V]], ...] | None = self.__dict__.get("_flat")
        if cached is None:
            cached = tuple(self._walk(()))
            self.__dict__["_flat"] = cached
        return cached

    def _walk(self, path: tuple[N, ...]) -> Iterator[tuple[tuple[N, ...], N, NodeDefinition[V]]]:
        for label, node in self.nodes.items():
            if isinstance(node, NestingGraph):
                yield from node._walk((*path, label))
            else:
                yield (path, label, node)

    def computed(self) -> tuple[V, ...]:
        """The places the nodes produce, in node order."""
        return tuple(p for _, _, node in self.flat() for p in node.outputs)

    def free_inputs(self) -> tuple[V, ...]:
        """The places nodes read that no node produces, in the order first read."""
        produced = set(self.computed())
        seen: dict[V, None] = {}
        for _, _, node in self.flat():
            for place in node.inputs:
                if place not in produced:
                    seen.setdefault(place, None)
        return tuple(seen)

    def graphs(self) -> Iterator[tuple[tuple[N, ...], NestingGraph[N, V]]]:
        """This graph and every graph nested in it, with their label paths."""
        yield (), self
        for label, node in self.nodes.items():
            if isinstance(node, NestingGraph):
                for path, inner in node.graphs():
                    yield (label, *path), inner


AnyGraph: TypeAlias = Union["NestingGraph[Any, Any]", "CallableGraph[Any, Any]"]


def as_nesting(graph: AnyGraph) -> NestingGraph[Any, Any]:
    """The nesting graph behind ``graph`` (itself, or the one a callable graph wraps)."""
    return graph.graph if isinstance(graph, CallableGraph) else graph


def names_hash(graph: AnyGraph) -> bool:
    """True when every place hashes (else `check_names` reports them, and the checks
    that index places by hash stand aside)."""
    try:
        for _, _, node in as_nesting(graph).flat():
            hash((node.inputs, node.outputs))
    except TypeError:
        return False
    return True


def check_outputs_exist(graph: AnyGraph) -> Iterator[Violation]:
    """Every declared output of a graph (and of each nested graph) is produced inside it."""
    if not names_hash(graph):
        return
    for path, inner in as_nesting(graph).graphs():
        if inner.outputs is None:
            continue
        produced = set(inner.computed())
        for place in inner.outputs:
            if place not in produced:
                yield violation(rules.MISSING_OUTPUT, graph=path, place=place)


def check_produced_once(graph: AnyGraph) -> Iterator[Violation]:
    """Every place has at most one producer."""
    if not names_hash(graph):
        return
    producers: dict[Hashable, list[str]] = {}
    for path, label, node in as_nesting(graph).flat():
        for place in node.outputs:
            producers.setdefault(place, []).append(node_name(path, label))
    for place, names in producers.items():
        if len(names) > 1:
            yield violation(rules.PRODUCED_TWICE, place=place, producers=" and ".join(names))


def check_names(graph: AnyGraph) -> Iterator[Violation]:
    """Labels and places hash and compare by value (they are part of the cache key)."""
    seen: set[int] = set()
    kind = type(graph).__name__
    nesting = as_nesting(graph)
    for path, inner in nesting.graphs():
        for label in inner.nodes:
            for problem in key_problems(label, "label"):
                fields = {"type": type(label).__qualname__, "graph": kind, "reason": problem.rule.title.lower()}
                yield violation_from(rules.LABEL_BOUND, fields, graph=path, node=label, leaf="label")
    for path, label, node in nesting.flat():
        for place in (*node.inputs, *node.outputs):
            if id(place) in seen:
                continue
            seen.add(id(place))
            for problem in key_problems(place, "place"):
                fields = {"type": type(place).__qualname__, "graph": kind, "reason": problem.rule.title.lower()}
                yield violation_from(rules.PLACE_BOUND, fields, graph=path, node=label, leaf=f"place {place!r}")


def trace_failure(path: tuple[Hashable, ...], label: Hashable, node: NodeDefinition[Any], args: list[Any], error: BaseException) -> Violation:
    """The JC502 violation of a body that failed while jax traced it: the node, its input shapes, the error."""
    shapes = ", ".join(f"{p!r}: {short_shape(a)}" for p, a in zip(node.inputs, args))
    text = str(error)
    return violation(
        rules.TRACE_FAILED,
        graph=path,
        node=label,
        leaf="body",
        cause=error,
        name=node_name(path, label),
        shapes="{" + shapes + "}",
        error=f"{type(error).__name__}: {text.splitlines()[0] if text else ''}",
    )


def values_problem(graph: CallableGraph[Any, Any], values: Mapping[Any, Any]) -> Violation | None:
    """A violation when ``values`` do not name exactly the graph's free inputs, else None."""
    expected = graph.inputs
    missing = [p for p in expected if p not in values]
    extra = [p for p in values if p not in expected]
    if not missing and not extra:
        return None
    parts = []
    if missing:
        parts.append(f"no value for the free input place(s) {missing!r}")
    if extra:
        computed = set(graph.graph.computed())
        inner = [p for p in extra if p in computed]
        unused = [p for p in extra if p not in computed]
        if inner:
            parts.append(f"values given for {inner!r}, which the graph computes itself")
        if unused:
            parts.append(f"values given for {unused!r}, which no node reads")
    return violation(rules.VALUES_UNLIKE_INPUTS, problem="; ".join(parts), inputs=list(expected))


def dependency_order(
    flat: tuple[tuple[tuple[N, ...], N, NodeDefinition[V]], ...],
) -> tuple[tuple[tuple[tuple[N, ...], N, NodeDefinition[V]], ...], str | None]:
    """The nodes sorted so each runs after the producers of its inputs, and a cycle if any.

    Kahn's algorithm, always taking the earliest declared ready node, so the order is
    deterministic and equal graphs run identically.
    """
    producer: dict[Hashable, int] = {}
    for i, (_, _, node) in enumerate(flat):
        for place in node.outputs:
            producer.setdefault(place, i)
    deps = [{producer[p] for p in node.inputs if p in producer} for _, _, node in flat]
    dependents: list[list[int]] = [[] for _ in flat]
    for i, ds in enumerate(deps):
        for d in ds:
            dependents[d].append(i)
    waiting = [len(ds) for ds in deps]
    ready = [i for i, w in enumerate(waiting) if w == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for j in dependents[i]:
            waiting[j] -= 1
            if waiting[j] == 0:
                heapq.heappush(ready, j)
    if len(order) == len(flat):
        return tuple(flat[i] for i in order), None
    stuck = [i for i, w in enumerate(waiting) if w > 0]
    return tuple(flat[i] for i in order), _describe_cycle(flat, deps, stuck)


def _describe_cycle(flat: tuple[Any, ...], deps: list[set[int]], stuck: list[int]) -> str:
    stuck_set = set(stuck)
    start = stuck[0]
    path = [start]
    seen = {start: 0}
    current = start
    while True:
        nxt = min(d for d in deps[current] if d in stuck_set)
        if nxt in seen:
            cycle = path[seen[nxt]:] + [nxt]
            break
        seen[nxt] = len(path)
        path.append(nxt)
        current = nxt
    names = [node_name(flat[i][0], flat[i][1]) for i in reversed(cycle)]
    return " -> ".join(names)


def check_acyclic(graph: AnyGraph) -> Iterator[Violation]:
    """The nodes can be ordered: no node depends, through others, on itself."""
    if not names_hash(graph):
        return
    _, cycle = dependency_order(as_nesting(graph).flat())
    if cycle:
        yield violation(rules.CYCLE, cycle=cycle)


def check_nodes(callable_graph: CallableGraph[Any, Any]) -> Iterator[Violation]:
    """Every node, through every ``checks_node`` of the graph's class hierarchy."""
    node_checks: tuple[NodeCheck, ...] = per_level(type(callable_graph), "checks_node")
    if not node_checks:
        return
    for path, label, node in callable_graph.graph.flat():
        for check in node_checks:
            for found in check(label, node):
                yield Violation(found.rule, found.message, found.help, path, label, found.leaf, found.cause)


class CallableGraph(Frozen, Generic[N, V]):
    """A nesting graph that runs: ``graph(values)`` computes every place.

    ``values`` maps each free input place to its value; the nodes run in dependency
    order (ties broken by declaration order) and the result maps the graph's
    outputs (every computed place, unless the graph declares ``outputs``) to their
    values, in order.
    """

    graph: NestingGraph[N, V]

    checks: ClassVar[PerLevel[tuple[Callable[[Any], Iterable[Violation]], ...]]] = (
        check_names,
        check_produced_once,
        check_acyclic,
        check_outputs_exist,
        check_nodes,
    )
    checks_node: ClassVar[PerLevel[tuple[NodeCheck, ...]]] = ()

    memoise_checks: ClassVar[bool] = True
    """A graph equal (type-strictly) to one already checked takes that one's result
    (:mod:`jitcheck.core.memo`): checks must depend on the graph's value alone. A
    subclass whose checks read anything else sets this to False."""

    def __post_init__(self) -> None:
        if isinstance(self.graph, Mapping):
            object.__setattr__(self, "graph", NestingGraph(frozen_map(self.graph)))
        elif not isinstance(self.graph, NestingGraph):
            raise TypeError(f"{type(self).__name__} wraps a NestingGraph, got {type(self.graph).__name__}")
        super().__post_init__()

    def jitcheck_key(self) -> Any:
        """The graph's type-strict key, one canonical object per distinct graph.

        Kept in :mod:`jitcheck.core.memo` with its hash and the result of the checks: a
        graph rebuilt equal finds the same key object, so ``jax.jit`` compares it with
        the one in its cache by identity, and it is not checked again.
        """
        memo_ = self.__dict__
        key = memo_.get("_jitcheck_key")
        if key is None:
            raw = (type(self), self.graph.jitcheck_key())
            entry = memo.graph_entry(raw)
            if entry is None:
                key = raw
            else:
                key = entry.key
                memo_["_jitcheck_hash"] = entry.hash
                memo_["_jitcheck_entry"] = entry
            memo_["_jitcheck_key"] = key
        return key

    @property
    def order(self) -> tuple[tuple[tuple[N, ...], N, NodeDefinition[V]], ...]:
        """The nodes in the order they run: dependency order, ties by declaration."""
        cached: tuple[tuple[tuple[N, ...], N, NodeDefinition[V]], ...] | None = self.__dict__.get("_order")
        if cached is None:
            cached, cycle = dependency_order(self.graph.flat())
            if cycle:
                raise ValueError(f"graph has a cycle: {cycle}")
            self.__dict__["_order"] = cached
        return cached

    @property
    def inputs(self) -> tuple[V, ...]:
        """The free input places: read by some node, produced by none."""
        return self.graph.free_inputs()

    @property
    def outputs(self) -> tuple[V, ...]:
        """The places a run hands back."""
        return self.graph.outputs if self.graph.outputs is not None else self.graph.computed()

    def __call__(self, values: Mapping[V, Any]) -> OrderedMap[V, Any]:
        """Run every node on ``values`` (one per free input place); return the outputs.

        Raises `ValuesUnlike` (JC404, also a ``KeyError``) when ``values`` do not name
        exactly the free inputs; an error of a body gets a note naming the node.
        """
        return self.run(values, traced=False)

    def run(self, values: Mapping[V, Any], *, traced: bool) -> OrderedMap[V, Any]:
        """Run every node on ``values``. ``traced``: jax is tracing this run, so a body that
        fails is refused with `TraceFailed` naming the node and its input shapes."""
        problem = values_problem(self, values)
        if problem is not None:
            raise refusal(f"{type(self).__name__} call", [problem])
        env: dict[V, Any] = dict(values)
        for path, label, node in self.order:
            args = [env[place] for place in node.inputs]
            try:
                result = node.body(*args, **node.settings)
            except Refused:
                raise
            except Exception as error:
                if traced:
                    raise refusal(
                        f"{type(self).__name__}.jit_call, node {node_name(path, label)}",
                        [trace_failure(path, label, node, args, error)],
                    ) from error
                error.add_note(f"in node {node_name(path, label)} of {type(self).__name__}")
                raise
            for place, value in zip(node.outputs, split_outputs(node, result, label, path)):
                env[place] = value
        return OrderedMap((place, env[place]) for place in self.outputs)


_HASH_RULES = frozenset(
    {rules.ARRAY_STATIC, rules.MUTABLE_CONTAINER_STATIC, rules.MUTABLE_DATACLASS, rules.EQ_WITHOUT_HASH, rules.UNHASHABLE_VALUE}
)


def _node_problems(node: NodeDefinition[Any]) -> tuple[KeyProblem, ...]:
    """Every leaf of the node that is a bad key, found once per distinct node and kept.

    Kept on the node (nodes are immutable) and, when the node hashes, in a bounded
    memo by its type-strict key, so a node rebuilt equal is not walked again.
    """
    found: tuple[KeyProblem, ...] | None = node.__dict__.get("_key_problems")
    if found is not None:
        return found
    key: Any = node.jitcheck_key()
    try:
        hash(key)
    except TypeError:
        key = None
    if key is not None:
        found = memo.node_problems.get(key)
    if found is None:
        found = tuple(key_problems(node.body, "body", callable_position=True))
        for name, value in node.settings.items():
            found += tuple(key_problems(value, f"settings[{name!r}]"))
        if key is not None:
            memo.node_problems.setdefault(key, found)
    node.__dict__["_key_problems"] = found
    return found


def _node_violation(name: Hashable, problem: KeyProblem) -> Violation:
    position = "a node body" if problem.path.startswith("body") else "a node setting"
    return violation_from(problem.rule, {"position": position, **problem.fields}, node=name, leaf=problem.path)


def check_hashable(name: Hashable, node: NodeDefinition[Any]) -> Iterator[Violation]:
    """The node hashes. An array anywhere in it is refused (it is data the graph does
    not name, and it does not hash); every leaf that fails is named."""
    for problem in _node_problems(node):
        if problem.rule in _HASH_RULES:
            yield _node_violation(name, problem)


def check_reassembles(name: Hashable, node: NodeDefinition[Any]) -> Iterator[Violation]:
    """The node compares by value, so the same graph built twice is one cache key.

    A bound method compares its receiver by identity; ``functools.partial`` (and
    ``jax.tree_util.Partial``, one of them) defines no ``__eq__``; a lambda or a
    nested function is a new object each time it is built.
    """
    for problem in _node_problems(node):
        if problem.rule not in _HASH_RULES:
            yield _node_violation(name, problem)


class JitGraph(CallableGraph[N, V], Generic[N, V]):
    """A callable graph whose every node is a jit cache key.

    Built twice from equal parts, two ``JitGraph`` are equal and hash equal, so a
    ``JitGraph`` passed as a static argument of ``jax.jit`` is traced once. Its
    nodes are checked for that at construction (`check_hashable`,
    `check_reassembles`).
    """

    checks_node: ClassVar[PerLevel[tuple[NodeCheck, ...]]] = (check_hashable, check_reassembles)

    def jit_call(self, values: Mapping[V, Any]) -> OrderedMap[V, Any]:
        """Run the graph under ``jax.jit``, the graph as a static argument.

        One jitted function serves every graph: equal graphs share its cache entry.
        """
        result: OrderedMap[V, Any] = _run_jitted(self, values)
        return result


def _call_graph(graph: CallableGraph[Any, Any], values: Mapping[Any, Any]) -> OrderedMap[Any, Any]:
    # Runs only while jax traces, that is once per new cache key.
    notify_trace(_run_jitted, "JitGraph.jit_call", lambda: graph_trace_key(graph, values))
    return graph.run(values, traced=True)


def graph_trace_key(graph: CallableGraph[Any, Any], values: Mapping[Any, Any]) -> tuple[tuple[str, ArgumentKey], ...]:
    """The cache key of a ``jit_call``, argument by argument, for the retrace watch."""
    parts: list[tuple[str, ArgumentKey]] = [("graph", ArgumentKey("static", graph))]
    for place, value in values.items():
        parts += traced_argument_keys(f"values[{place!r}]", value)
    parts.append(configuration_argument())  # jax.jit keys on it too
    return tuple(parts)


_run_jitted = jax.jit(_call_graph, static_argnums=0)

__all__ = [
    "CallableGraph",
    "JitGraph",
    "NestingGraph",
    "NodeDefinition",
    "check_acyclic",
    "check_hashable",
    "check_names",
    "check_nodes",
    "check_outputs_exist",
    "check_produced_once",
    "check_reassembles",
    "dependency_order",
]
