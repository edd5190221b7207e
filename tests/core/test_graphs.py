"""Graph construction, calling, nesting and the graph-level checks, with real jax."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitcheck import CallableGraph, JitGraph, NestingGraph, NodeDefinition, Refused, ReturnedUnlike, unchecked
from jitcheck.core import checking

from .graph_parts import Name, Stage, add, scale, split, two_level


def test_two_level_graph_calls_in_dependency_order() -> None:
    graph = two_level()
    x = jnp.arange(3.0)
    result = graph({"x": x})
    assert list(result) == ["xs", "p", "q", "out"]
    np.testing.assert_allclose(result["out"], (x * 2 + 1) + (x * 2 * 2))
    assert graph.inputs == ("x",)


def test_nodes_run_after_their_inputs_whatever_the_declaration_order() -> None:
    graph = CallableGraph(
        NestingGraph(
            {
                "last": NodeDefinition(add, ("b", "c"), ("d",)),
                "first": NodeDefinition(scale, ("a",), ("b",), {"factor": 3.0}),
                "middle": NodeDefinition(scale, ("b",), ("c",), {"factor": 2.0}),
            }
        )
    )
    assert [label for _, label, _ in graph.order] == ["first", "middle", "last"]
    assert float(graph({"a": jnp.float32(1.0)})["d"]) == 9.0


def test_declared_outputs_select_what_a_run_returns() -> None:
    graph = CallableGraph(
        NestingGraph(
            {"s": NodeDefinition(scale, ("x",), ("y",), {"factor": 2.0}), "a": NodeDefinition(add, ("y", "x"), ("z",))},
            outputs=("z",),
        )
    )
    assert list(graph({"x": jnp.ones(2)})) == ["z"]


def test_same_graph_built_twice_is_equal_and_hashes_equal() -> None:
    first, second = two_level(), two_level()
    assert first is not second
    assert first == second
    assert hash(first) == hash(second)


def test_different_settings_make_a_different_graph() -> None:
    one = JitGraph(NestingGraph({"s": NodeDefinition(scale, ("x",), ("y",), {"factor": 2.0})}))
    other = JitGraph(NestingGraph({"s": NodeDefinition(scale, ("x",), ("y",), {"factor": 3.0})}))
    assert one != other


def test_jit_over_rebuilt_equal_graphs_traces_once() -> None:
    traces = 0

    def run(graph: JitGraph[Any, str], values: dict[str, jax.Array]) -> Any:
        nonlocal traces
        traces += 1
        return graph(values)

    jitted = jax.jit(run, static_argnums=0)
    x = jnp.arange(4.0)
    outputs = [jitted(two_level(), {"x": x})["out"] for _ in range(5)]
    assert traces == 1
    for out in outputs:
        np.testing.assert_allclose(out, outputs[0])
    jitted(JitGraph(NestingGraph({"s": NodeDefinition(scale, ("x",), ("y",), {"factor": 5.0})})), {"x": x})
    assert traces == 2


def test_jit_call_shares_one_cache_entry_between_equal_graphs() -> None:
    from jitcheck.core import events

    jax.clear_caches()  # whatever ran before in this process, the first call traces
    seen: list[events.TraceEvent] = []
    unsubscribe = events.subscribe(seen.append)
    try:
        x = jnp.arange(7.0)
        for _ in range(3):
            two_level().jit_call({"x": x})
    finally:
        unsubscribe()
    assert len(seen) == 1
    assert seen[0].arguments[1] == ("values['x']", events.ArgumentKey("array", ((7,), jnp.dtype("float32"), False)))


def test_labels_and_places_may_be_enums_tuples_and_frozen_dataclasses() -> None:
    graph = JitGraph(
        NestingGraph(
            {
                Stage.ENCODE: NodeDefinition(scale, (Name("x"),), (("hidden", 0),), {"factor": 2.0}),
                (Stage.DECODE, 1): NodeDefinition(add, (("hidden", 0), Name("x")), (Name("y"),)),
            }
        )
    )
    assert float(graph({Name("x"): jnp.float32(1.0)})[Name("y")]) == 3.0


def test_place_produced_twice_cycle_and_missing_output_are_all_reported_at_once() -> None:
    with pytest.raises(Refused) as caught:
        CallableGraph(
            NestingGraph(
                {
                    "a": NodeDefinition(add, ("x", "z"), ("y",)),
                    "b": NodeDefinition(add, ("y", "x"), ("z",)),
                    "c": NodeDefinition(add, ("y", "x"), ("z",)),
                },
                outputs=("nope",),
            )
        )
    assert sorted(caught.value.codes) == ["JC401", "JC402", "JC403"]
    text = str(caught.value)
    assert "place 'z' is produced by 'b' and 'c'" in text
    assert "'a' -> 'b' -> 'a'" in text or "'b' -> 'a' -> 'b'" in text
    assert "output 'nope' is declared but no node produces it" in text


def test_nested_graph_paths_name_the_node() -> None:
    inner = NestingGraph({"dup": NodeDefinition(scale, ("x",), ("y",), {"factor": 1.0})})
    with pytest.raises(Refused) as caught:
        CallableGraph(NestingGraph({"outer": inner, "other": NodeDefinition(split, ("x",), ("y", "w"))}))
    assert "'outer/dup' and 'other'" in str(caught.value)


def test_identity_compared_label_is_refused_with_the_label_rule() -> None:
    import dataclasses

    @dataclasses.dataclass(eq=False)
    class ById:
        name: str

    with pytest.raises(Refused) as caught:
        JitGraph(NestingGraph({ById("a"): NodeDefinition(scale, ("x",), ("y",), {"factor": 1.0})}))
    assert caught.value.codes == ("JC301",)
    (violation,) = caught.value.violations
    assert violation.leaf == "label"
    assert violation.message.endswith("ById` is not a valid Label of `JitGraph`: a value compared by identity in a cache key")
    assert violation.help == "name nodes with str, int, enums, tuples of them or frozen dataclasses"


def test_mutable_dataclass_place_is_refused_with_the_place_rule() -> None:
    import dataclasses

    @dataclasses.dataclass
    class Mutable:
        name: str

    with pytest.raises(Refused) as caught:
        CallableGraph(NestingGraph({"a": NodeDefinition(scale, (Mutable("x"),), ("y",), {"factor": 1.0})}))
    assert caught.value.codes == ("JC302",)


def test_calling_with_missing_or_extra_values_names_the_places() -> None:
    graph = two_level()
    with pytest.raises(KeyError, match=r"no value for the free input place\(s\) \['x'\]"):
        graph({})
    with pytest.raises(KeyError, match=r"values given for \['xs'\], which the graph computes itself"):
        graph({"x": jnp.ones(2), "xs": jnp.ones(2)})


def test_body_returning_too_few_values_is_returned_unlike() -> None:
    graph = CallableGraph(NestingGraph({"one": NodeDefinition(scale, ("x",), ("a", "b"), {"factor": 1.0})}))
    with pytest.raises(ReturnedUnlike) as caught:
        graph({"x": jnp.ones(2)})
    assert caught.value.node == "one"
    assert "node 'one' returned one ArrayImpl" in str(caught.value)


def test_body_errors_at_call_time_carry_the_node_name() -> None:
    graph = CallableGraph(NestingGraph({"bad": NodeDefinition(add, ("x", "y"), ("z",))}))
    with pytest.raises(TypeError) as caught:
        graph({"x": jnp.ones(2), "y": "text"})
    assert "in node 'bad' of CallableGraph" in caught.value.__notes__


def test_unchecked_skips_checks_and_debug_mode_forces_them() -> None:
    bad = NestingGraph({"d": NodeDefinition(lambda x: x, ("w",), ("v",))})
    graph = unchecked(JitGraph, bad)
    assert isinstance(graph, JitGraph)
    checking.force_checks = True
    try:
        with pytest.raises(Refused):
            unchecked(JitGraph, bad)
    finally:
        checking.force_checks = False


def test_construction_hooks_see_every_checked_object_and_cost_nothing_once_removed() -> None:
    seen: list[object] = []
    good = NestingGraph({"s": NodeDefinition(scale, ("x",), ("y",), {"factor": 2.0})})
    bad = NestingGraph({"d": NodeDefinition(lambda x: x, ("w",), ("v",))})
    assert checking.construction_hooks == () and checking.run_checks is checking._checks
    checking.add_construction_hook(seen.append)
    checking.add_construction_hook(seen.append)  # added once, however often
    try:
        graph = JitGraph(good)
        assert seen == [graph]
        nested = NestingGraph({"s": NodeDefinition(scale, ("x",), ("y",), {"factor": 3.0})})
        assert seen[-1] is nested and seen[-2] is nested.nodes["s"]  # every record, after its own checks
        seen.clear()
        with pytest.raises(Refused):
            JitGraph(bad)
        assert not [o for o in seen if isinstance(o, JitGraph)]  # refused: never handed to a hook
    finally:
        checking.remove_construction_hook(seen.append)
    seen.clear()
    JitGraph(good)
    assert seen == []
    # With no hook left, construction runs the checks alone: no loop over an empty hook list.
    assert checking.construction_hooks == () and checking.run_checks is checking._checks


def test_checks_are_joined_per_level_of_the_hierarchy() -> None:
    assert checking.per_level(CallableGraph, "checks_node") == ()
    jit_node_checks = checking.per_level(JitGraph, "checks_node")
    assert [c.__name__ for c in jit_node_checks] == ["check_hashable", "check_reassembles"]
    assert checking.per_level(JitGraph, "checks") == checking.per_level(CallableGraph, "checks")

    class Stricter(JitGraph[Any, Any]):
        checks_node = (lambda name, node: iter(()),)

    assert len(checking.per_level(Stricter, "checks_node")) == 3


def test_callable_graph_accepts_bodies_jitgraph_refuses() -> None:
    graph = NestingGraph({"d": NodeDefinition(lambda x: x + 1, ("x",), ("y",))})
    assert float(CallableGraph(graph)({"x": jnp.float32(1)})["y"]) == 2.0
    with pytest.raises(Refused):
        JitGraph(graph)


def test_malformed_nodes_are_type_errors_naming_the_mistake() -> None:
    with pytest.raises(TypeError, match=r"write \('x',\) for a single place"):
        NodeDefinition(scale, "x", ("y",))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="body must be callable"):
        NodeDefinition(3, ("x",), ("y",))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not names"):
        NodeDefinition(scale, ("x",), ("y",), {"not a name": 1})
