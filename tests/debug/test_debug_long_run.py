"""Debug mode over a long run: a loop rebuilding its graph every step keeps records, memory and per-step work flat.

Nothing here measures time: the test counts records, tracker entries, traces and
the bytes Python holds (tracemalloc), at step 100 and at step 1,000.
"""

from __future__ import annotations

import gc
import textwrap
import tracemalloc
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import jitcheck.core.traced as traced_module
from jitcheck.core import GraphWithValues, JitGraph, NestingGraph, NodeDefinition, OrderedMap
from jitcheck.debug import graph_records, records, retrace_reports, watch
from jitcheck.debug.report import from_records, render_text
from jitcheck.debug import retrace
from jitcheck.debug.retrace import TRACKER
from tests.debug.conftest import RunPython


def dense(x: jax.Array, w: jax.Array) -> jax.Array:
    return x @ w


def act(h: jax.Array, *, slope: float) -> jax.Array:
    return jnp.where(h > 0, h, slope * h)


def build(slope: float = 0.1) -> JitGraph[str, str]:
    return JitGraph(
        NestingGraph(
            OrderedMap(
                {
                    "dense": NodeDefinition(dense, inputs=("x", "w"), outputs=("h",)),
                    "act": NodeDefinition(act, inputs=("h",), outputs=("y",), settings=OrderedMap({"slope": slope})),
                }
            )
        )
    )


def _state() -> tuple[int, int, int, int, int]:
    groups = TRACKER.groups()
    return (
        len(graph_records()),
        len(retrace_reports()),
        sum(len(g.keys) for g in groups),
        sum(g.traces for g in groups),
        traced_module.trace_count,
    )


@pytest.mark.usefixtures("debug_mode")
def test_a_thousand_rebuilt_steps_keep_records_memory_and_work_flat() -> None:
    values = OrderedMap({"x": jnp.ones((4, 3)), "w": jnp.ones((3, 2))})
    gc.collect()
    tracemalloc.start()
    try:
        seen: dict[int, tuple[tuple[int, int, int, int, int], int]] = {}
        for step in range(1, 1001):
            graph = build()  # rebuilt every step, equal every time
            graph.jit_call(values)
            GraphWithValues(graph, values)  # traced the first time only: equal graph, equal shapes
            if step in (100, 1000):
                gc.collect()
                seen[step] = (_state(), tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    (state_100, memory_100), (state_1000, memory_1000) = seen[100], seen[1000]
    assert state_100 == state_1000  # no record, report, key, jit trace or graph trace added after step 100
    kinds = sorted((r.kind, r.count) for r in graph_records())
    assert kinds == [("checked", 1000), ("traced", 1000)]  # one record per line of code, counted
    # 900 more steps hold no more memory than a few kB of noise (they held ~3 kB per step before)
    assert memory_1000 - memory_100 < 64 * 1024, (memory_100, memory_1000)


@pytest.mark.usefixtures("debug_mode")
def test_the_report_folds_rebuilt_equal_graphs_into_one_line_with_a_count() -> None:
    values = OrderedMap({"x": jnp.ones((4, 3)), "w": jnp.ones((3, 2))})
    for _ in range(25):
        GraphWithValues(build(), values)
    GraphWithValues(build(0.2), values)  # another setting: another graph, its own line
    text = render_text(from_records(["loop"], []))
    assert text.count("traced at test_debug_long_run.py") == 2
    assert "(built 25 times, equal each time)" in text
    assert text.count("built 1 times") == 0


@pytest.mark.usefixtures("debug_mode")
def test_records_and_retraces_stay_bounded_when_every_step_is_new(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(records, "KEPT", 20)  # the bounds, made small so the test compiles little
    monkeypatch.setattr(retrace, "KEYS_KEPT", 5)
    monkeypatch.setattr(retrace, "REPORTS_KEPT", 4)
    for step in range(30):
        build(float(step))  # a new setting every step: a new graph every step
    assert len(graph_records()) == 20 and records.dropped() == 10
    watched = watch(lambda x: x * 2)
    for n in range(1, 13):
        watched(jnp.ones(n))  # a new shape every step: a retrace every step, recorded
    (group,) = [g for g in TRACKER.groups() if g.traces > 1]
    assert len(group.keys) == 5 and group.traces == 12  # the traces of forgotten keys still counted
    assert len(retrace_reports()) == 4 and len(group.reports) == 4 and TRACKER.total == 11
    assert "traced 12 times" in str(retrace_reports()[-1])


def test_a_graph_equal_to_one_traced_is_listed_as_traced(run_python: RunPython, tmp_path: Path) -> None:
    package = tmp_path / "equal_graphs_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text(
        textwrap.dedent(
            """
            import jax
            import jax.numpy as jnp
            from jitcheck.core import GraphWithValues, JitGraph, NestingGraph, NodeDefinition, OrderedMap


            def double(x):
                return x * 2


            def build():
                return JitGraph(NestingGraph(OrderedMap({"double": NodeDefinition(double, inputs=("x",), outputs=("y",))})))


            TRACED = GraphWithValues(build(), OrderedMap({"x": jax.ShapeDtypeStruct((3,), jnp.float32)}))
            SERVING = build()   # equal to the graph traced above
            """
        )
    )
    done = run_python("-m", "jitcheck.debug", "report", "--no-beartype", str(package))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "TRACED: JitGraph of 1 node, traced at model.py:15:" in done.stdout
    assert "SERVING: JitGraph of 1 node, built at model.py:12:12: equal to the graph traced at model.py:15:" in done.stdout
    assert "checked, not traced" not in done.stdout
    assert "2 graphs traced" in done.stdout
