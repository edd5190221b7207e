"""Errors that name the place: rule code, node or label or leaf, and the fix, never a bare Python error."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitcheck import (
    JitGraph,
    NestingGraph,
    NodeDefinition,
    OrderedMap,
    Refused,
    TraceFailed,
    check_hashable,
    check_reassembles,
    check_traced_callable,
    check_traces,
)
from jitcheck.core.violations import LabelRefused, ValuesUnlike

from .graph_parts import add, matmul, scale


class Holder:
    """A plain object: compares and hashes by identity."""

    w: Any = None


HOLDER = Holder()
HOLDER.w = jnp.ones(3)

BATCHED_DOT = jax.vmap(jnp.dot)


def read_holder(x: jax.Array, *, holder: Holder) -> jax.Array:
    return x * holder.w


def test_a_module_level_identity_hashed_setting_is_refused_naming_leaf_and_fix() -> None:
    with pytest.raises(Refused) as caught:
        JitGraph(NestingGraph({"r": NodeDefinition(read_holder, ("x",), ("y",), {"holder": HOLDER})}))
    (v,) = caught.value.violations
    assert (v.code, v.node, v.leaf) == ("JC206", "r", "settings['holder']")
    assert "Holder" in v.message and "compares by identity" in v.message
    assert "frozen dataclass" in v.help and "graph input" in v.help
    found = list(check_reassembles("r", NodeDefinition(read_holder, ("x",), ("y",), {"holder": HOLDER})))
    assert [f.code for f in found] == ["JC206"]


def test_the_refused_holder_would_have_returned_stale_values() -> None:
    """What the refusal prevents: jax keys the cache by the object, so a change to it is never seen."""

    def run(holder: Holder, x: jax.Array) -> jax.Array:
        return x * holder.w

    jitted = jax.jit(run, static_argnums=0)
    holder = Holder()
    holder.w = jnp.ones(3)
    first = jitted(holder, jnp.ones(3))
    holder.w = 5 * jnp.ones(3)
    assert float(jitted(holder, jnp.ones(3))[0]) == float(first[0]) == 1.0  # stale: jax never saw the change


def test_a_module_level_identity_hashed_static_argument_is_refused() -> None:
    from jitcheck import StatefulFunction
    from jitcheck.stateful.errors import StaticArgumentRefused

    def run(x: jax.Array, holder: Holder) -> jax.Array:
        return x * holder.w

    with pytest.raises(StaticArgumentRefused) as caught:
        StatefulFunction(run, static_argnums=1)(jnp.ones(3), HOLDER)
    assert "JC206" in str(caught.value) and "args[1]" in str(caught.value)


def test_jc301_and_jc302_name_the_graph_kind_not_a_placeholder() -> None:
    label, place = Holder(), Holder()
    with pytest.raises(Refused) as caught:
        JitGraph(NestingGraph({label: NodeDefinition(scale, ("x",), (place,), {"factor": 1.0})}))
    text = str(caught.value)
    assert "{graph}" not in text
    assert "`Holder` is not a valid Label of `JitGraph`" in text and "`Holder` is not a valid Place of `JitGraph`" in text
    assert caught.value.codes == ("JC301", "JC302")


def test_an_unhashable_label_inside_ordered_map_gets_rule_label_and_fix() -> None:
    with pytest.raises(LabelRefused) as caught:
        NestingGraph(OrderedMap([("ok", NodeDefinition(add, ("x", "y"), ("z",))), (["bad"], NodeDefinition(scale, ("z",), ("w",)))]))
    assert isinstance(caught.value, TypeError)
    (v,) = caught.value.violations
    assert v.code == "JC301" and v.leaf == "key ['bad'] (item 1)"
    assert "unhashable type: 'list'" in v.message
    assert "name nodes with str" in v.help


def test_a_missing_value_is_a_plain_error_with_the_rule_code() -> None:
    graph = JitGraph(NestingGraph({"s": NodeDefinition(scale, ("x",), ("y",), {"factor": 2.0})}))
    for call in (graph, graph.jit_call):
        with pytest.raises(ValuesUnlike) as caught:
            call({"z": jnp.ones(2)})
        text = str(caught.value)
        assert text.startswith("JitGraph call refused: 1 violation\nJC404")
        assert "no value for the free input place(s) ['x']" in text and "\\n" not in text
        assert isinstance(caught.value, KeyError)


def test_jit_call_failing_at_these_shapes_is_trace_failed_naming_node_and_shapes() -> None:
    graph = JitGraph(NestingGraph({"inner": NestingGraph({"mm": NodeDefinition(matmul, ("x", "w"), ("y",))})}))
    with pytest.raises(TraceFailed) as caught:
        graph.jit_call({"x": jnp.ones((3, 4)), "w": jnp.ones((3, 4))})
    (v,) = caught.value.violations
    assert (v.code, v.graph, v.node, v.leaf) == ("JC502", ("inner",), "mm", "body")
    assert "{'x': float32[3, 4], 'w': float32[3, 4]}" in v.message
    assert isinstance(caught.value.__cause__, TypeError)
    ok = graph.jit_call({"x": jnp.ones((3, 4)), "w": jnp.ones((4, 2))})
    assert ok["y"].shape == (3, 2)


def test_an_eager_call_keeps_the_bodys_own_error_with_a_note() -> None:
    graph = JitGraph(NestingGraph({"mm": NodeDefinition(matmul, ("x", "w"), ("y",))}))
    with pytest.raises(ValueError) as caught:
        graph({"x": np.ones((3, 4)), "w": np.ones((3, 4))})
    assert any("node 'mm'" in note for note in caught.value.__notes__)


def test_a_transformed_body_is_described_as_what_it_is() -> None:
    with pytest.raises(Refused) as caught:
        JitGraph(NestingGraph({"d": NodeDefinition(jax.vmap(jnp.dot), ("x", "y"), ("z",))}))
    (v,) = caught.value.violations
    assert v.code == "JC701"
    assert "`jax.vmap(dot)` used as a node body" in v.message
    assert "nested function" not in v.message and "def inside" not in v.message
    assert "build `jax.vmap(dot)` once" in v.help


def test_a_transformed_body_built_once_at_module_level_is_accepted_and_traced_once() -> None:
    node = NodeDefinition(BATCHED_DOT, ("x", "y"), ("z",))
    assert list(check_hashable("d", node)) == [] and list(check_reassembles("d", node)) == []
    traces = 0

    def run(graph: JitGraph[str, str], values: dict[str, jax.Array]) -> Any:
        nonlocal traces
        traces += 1
        return graph(values)

    jitted = jax.jit(run, static_argnums=0)
    values = {"x": jnp.ones((2, 3)), "y": jnp.ones((2, 3))}
    for _ in range(3):
        out = jitted(JitGraph(NestingGraph({"d": NodeDefinition(BATCHED_DOT, ("x", "y"), ("z",))})), values)
    assert traces == 1 and out["z"].tolist() == [3.0, 3.0]


def test_check_traced_callable_and_check_traces_are_exported_and_run() -> None:
    from jitcheck import GraphWithValues, Traced, unchecked

    graph = JitGraph(NestingGraph({"mm": NodeDefinition(matmul, ("x", "w"), ("y",))}))
    bad = unchecked(Traced, unchecked(GraphWithValues, graph, {"x": jnp.ones((3, 4)), "w": jnp.ones((3, 4))}))
    assert [v.code for v in check_traced_callable(bad)] == []
    assert [v.code for v in check_traces(bad)] == ["JC502"]
    missing = unchecked(Traced, unchecked(GraphWithValues, graph, {"x": jnp.ones((3, 4))}))
    assert [v.code for v in check_traced_callable(missing)] == ["JC404"]
