"""Debug mode in this process: checks forced, graphs traced as built, JitGraph calls watched.

beartype's import hook is exercised in fresh interpreters (test_debug_import); here
debug mode is switched on without packages, and off again after each test.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import jitcheck.core.traced as traced_module
from jitcheck import rules
from jitcheck.core import GraphWithValues, JitGraph, NestingGraph, NodeDefinition, OrderedMap, Refused, TraceFailed, Traced, unchecked
from jitcheck.core.traced import shape_dtype
from jitcheck.debug import graph_records, hook, is_enabled, mode, retrace_reports

def scale(x: jax.Array, *, factor: float) -> jax.Array:
    return x * factor


def matmul(x: jax.Array, w: jax.Array) -> jax.Array:
    return x @ w


def scaled(factor: float) -> JitGraph[str, str]:
    return JitGraph(
        NestingGraph(OrderedMap({"scale": NodeDefinition(scale, inputs=("x",), outputs=("y",), settings=OrderedMap({"factor": factor}))}))
    )


def product() -> JitGraph[str, str]:
    return JitGraph(NestingGraph(OrderedMap({"matmul": NodeDefinition(matmul, inputs=("x", "w"), outputs=("y",))})))


def lambda_graph() -> NestingGraph[str, str]:
    return NestingGraph(OrderedMap({"ident": NodeDefinition(lambda x: x, inputs=("x",), outputs=("y",))}))


@pytest.mark.usefixtures("debug_mode")
def test_unchecked_still_checks_in_debug_mode() -> None:
    assert is_enabled()
    with pytest.raises(Refused) as info:
        unchecked(JitGraph, lambda_graph())
    assert info.value.codes == ("JC104",)


def test_unchecked_skips_checks_when_debug_mode_is_off() -> None:
    assert not is_enabled()
    graph = unchecked(JitGraph, lambda_graph())
    assert isinstance(graph, JitGraph)


@pytest.mark.usefixtures("debug_mode")
def test_graph_with_values_is_traced_as_it_is_built() -> None:
    before = traced_module.trace_count
    with pytest.raises(TraceFailed) as info:
        GraphWithValues(product(), OrderedMap({"x": shape_dtype((2, 3), jnp.float32), "w": shape_dtype((2, 3), jnp.float32)}))
    assert info.value.node == "matmul"
    assert any("debug mode traced this graph" in note for note in info.value.__notes__)
    valued = GraphWithValues(product(), OrderedMap({"x": shape_dtype((2, 3), jnp.float32), "w": shape_dtype((3, 5), jnp.bfloat16)}))
    assert traced_module.trace_count == before + 2
    record = next(r for r in graph_records() if r.subject is valued)
    assert record.kind == "traced"
    assert record.location is not None and record.location.file == __file__
    assert record.location.function == "test_graph_with_values_is_traced_as_it_is_built"
    assert [(p.name, p.role, p.shape, p.dtype) for p in record.places] == [
        ("'x'", "input", (2, 3), "float32"),
        ("'w'", "input", (3, 5), "bfloat16"),
        ("'y'", "computed", (2, 5), "float32"),
    ]
    failed = [r for r in graph_records() if r.kind == "failed"]
    assert len(failed) == 1 and failed[0].graph == product()


@pytest.mark.usefixtures("debug_mode")
def test_a_traced_graph_built_by_the_user_is_recorded_once() -> None:
    valued = GraphWithValues(product(), OrderedMap({"x": jnp.ones((4, 2)), "w": jnp.ones((2, 1))}))
    traced = Traced(valued)
    assert traced.shapes["y"].shape == (4, 1)
    assert len([r for r in graph_records() if r.subject is valued]) == 1


@pytest.mark.usefixtures("debug_mode")
def test_graph_without_values_is_recorded_as_checked_only() -> None:
    graph = scaled(2.0)
    record = next(r for r in graph_records() if r.graph is graph)
    assert (record.kind, record.nodes, record.places) == ("checked", 1, ())


def test_nothing_is_traced_or_recorded_when_debug_mode_is_off() -> None:
    before = traced_module.trace_count
    recorded = len(graph_records())
    GraphWithValues(product(), OrderedMap({"x": shape_dtype((2, 3), jnp.float32), "w": shape_dtype((2, 3), jnp.float32)}))
    assert traced_module.trace_count == before
    assert len(graph_records()) == recorded


@pytest.mark.usefixtures("debug_mode")
def test_equal_rebuilt_jit_graphs_do_not_retrace() -> None:
    jax.clear_caches()  # whatever ran before in this process, the first call traces
    factor = 1.25
    events = []
    from jitcheck.core.events import subscribe

    stop = subscribe(events.append)
    try:
        for _ in range(3):
            scaled(factor).jit_call({"x": jnp.ones(3)})
    finally:
        stop()
    assert len(events) == 1  # jax traced once: the three graphs are one cache key
    assert retrace_reports() == []


@pytest.mark.usefixtures("debug_mode")
def test_jit_graph_retrace_names_the_changed_setting_and_shape() -> None:
    jax.clear_caches()  # whatever ran before in this process, the first call traces
    first = 1.5
    second = first + 100
    scaled(first).jit_call({"x": jnp.ones(3)})
    scaled(second).jit_call({"x": jnp.ones(3)})
    scaled(second).jit_call({"x": jnp.ones(7)})
    setting, shape = retrace_reports()
    (change,) = setting.changes
    assert change.path == "graph node 'scale' settings['factor']"
    assert (change.before, change.after) == (repr(first), repr(second))
    assert "make it an input place" in change.fix
    assert setting.location is not None and setting.location.file == __file__
    (change,) = shape.changes
    assert (change.path, change.aspect, change.before, change.after) == ("values['x']", "shape", "(3,)", "(7,)")
    assert shape.violation.rule is rules.RETRACE


def test_jit_graph_calls_are_not_watched_when_debug_mode_is_off() -> None:
    jax.clear_caches()  # both calls trace, so a watch would have something to report
    reports = len(retrace_reports())
    from jitcheck.core.events import subscribe

    events: list[object] = []
    stop = subscribe(events.append)
    try:
        scaled(1.75).jit_call({"x": jnp.ones(2)})
        scaled(1.75).jit_call({"x": jnp.ones(9)})
    finally:
        stop()
    assert len(events) == 2
    assert len(retrace_reports()) == reports


def test_hook_refused_for_an_imported_package_names_its_modules() -> None:
    with pytest.raises(hook.HookTooLate) as info:
        hook.install_import_hook("json")
    assert info.value.modules[0] == "json"
    assert "json.decoder" in info.value.modules
    assert "already imported: json" in str(info.value)
    assert "python -m jitcheck.debug run --packages json" in str(info.value)
    assert "json" not in hook.hooked_packages()


def test_enable_refuses_bad_package_names() -> None:
    from jitcheck.debug.settings import DebugSettingError

    with pytest.raises(DebugSettingError, match="not a package name"):
        mode.enable(packages=["not a package"])
    assert not is_enabled()


class _StatefulOwner:
    """Stands for any owner that reports its traces through jitcheck.core.events (as StatefulFunction does)."""


@pytest.mark.usefixtures("debug_mode")
def test_any_owner_reporting_traces_is_watched_in_debug_mode() -> None:
    from jitcheck.core.events import ArgumentKey, notify_trace

    owner = _StatefulOwner()
    tree = jax.tree_util.tree_structure({"w": 0})
    first = (("args[0]", ArgumentKey("static", 2)), ("args[1]", ArgumentKey("tree", tree)))
    notify_trace(owner, "StatefulFunction(step)", lambda: first)
    notify_trace(owner, "StatefulFunction(step)", lambda: (("args[0]", ArgumentKey("static", 3)), first[1]))
    (report,) = retrace_reports()
    assert report.subject == "StatefulFunction(step)"
    assert [(c.path, c.aspect, c.before, c.after) for c in report.changes] == [("args[0]", "static value", "2", "3")]
