"""Issue 24, item 1: debug mode's memo of graphs already traced is keyed on jax's configuration too."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from jitcheck import GraphWithValues, JitGraph, NestingGraph, NodeDefinition
from jitcheck.core.violations import Refused


def add(x: jax.Array, y: jax.Array) -> jax.Array:
    return x + y


def build() -> JitGraph[str, str]:
    return JitGraph(NestingGraph({"n": NodeDefinition(add, ("x", "y"), ("z",))}))


SPECS = {"x": jax.ShapeDtypeStruct((2,), jnp.int32), "y": jax.ShapeDtypeStruct((2,), jnp.float32)}


def test_an_equal_graph_is_traced_again_under_strict_promotion(debug_mode: None) -> None:
    GraphWithValues(build(), SPECS)  # traced as it is built: standard promotion, fine
    with jax.numpy_dtype_promotion("strict"):
        with pytest.raises(jax.dtypes.TypePromotionError):
            jax.make_jaxpr(add)(*SPECS.values())  # the oracle refuses
        with pytest.raises(Refused) as refused:
            GraphWithValues(build(), SPECS)
    assert "JC502" in {found.rule.code for found in refused.value.violations}
    GraphWithValues(build(), SPECS)  # and fine again after


def test_an_equal_graph_under_x64_records_its_own_shapes(debug_mode: None) -> None:
    from jitcheck.debug import records


    graph = JitGraph(NestingGraph({"n": NodeDefinition(_widen, ("x",), ("y",))}))
    spec = {"x": jax.ShapeDtypeStruct((2,), jnp.int32)}
    mark = records.mark()
    GraphWithValues(graph, spec)
    with jax.enable_x64(True):
        GraphWithValues(JitGraph(NestingGraph({"n": NodeDefinition(_widen, ("x",), ("y",))})), spec)
    dtypes = {row.dtype for record in records.records_since(mark) for row in record.places if row.place == "'y'"}
    assert dtypes == {"float32", "float64"}


def _widen(x: jax.Array) -> jax.Array:
    return x.astype(float)


def test_a_retrace_after_a_configuration_switch_is_explained_by_the_configuration(debug_mode: None) -> None:
    from jitcheck.debug.retrace import TRACKER
    from jitcheck.stateful import StatefulFunction

    sf = StatefulFunction(_widen)
    x = jnp.ones(2, jnp.int32)
    sf(x)
    with jax.enable_x64(True):
        assert sf(x).dtype == jnp.float64
    reports = [report for group in TRACKER.groups() for report in group.reports]
    (change,) = [c for report in reports for c in report.changes]
    assert change.aspect == "configuration"
    assert "jax_enable_x64: False -> True" in change.detail
