"""How a change of cache key is explained, and how the switches are read: pure functions, no tracing."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import pytest

from jitcheck import rules
from jitcheck.core import JitGraph, NestingGraph, NodeDefinition, OrderedMap
from jitcheck.core.events import ArgumentKey
from jitcheck.debug.explain import compare, graph_changes, rebuilt, same_key, static_changes
from jitcheck.debug.settings import DebugSettingError, DebugSettings, from_environment, package_names


def scale(x: jax.Array, factor: float) -> jax.Array:
    return x * factor


def shift(x: jax.Array, *, by: float) -> jax.Array:
    return x + by


class Model:
    def step(self, x: jax.Array) -> jax.Array:
        return x


def test_rebuilt_callables_name_their_rule() -> None:
    cases = [
        (functools.partial(scale, factor=2.0), functools.partial(scale, factor=2.0), rules.FUNCTOOLS_PARTIAL, "functools.partial"),
        (jax.tree_util.Partial(scale, 2.0), jax.tree_util.Partial(scale, 2.0), rules.TREE_UTIL_PARTIAL, "jax.tree_util.Partial"),
        (Model().step, Model().step, rules.BOUND_METHOD, "bound method"),
    ]
    for before, after, rule, noun in cases:
        assert rebuilt(before, after)
        (change,) = static_changes("fn", before, after)
        assert change.rule is rule
        assert f"is a new {noun}" in change.detail
        assert change.fix.startswith(f"{rule.code}: ")


def test_a_new_lambda_is_not_called_rebuilt_when_its_code_differs() -> None:
    first, second = (lambda x: x), (lambda x: x + 1)
    (change,) = static_changes("fn", first, second)
    assert not rebuilt(first, second)
    assert change.rule is rules.LAMBDA
    assert "a lambda that compares by identity" in change.detail


def test_a_changed_plain_value_has_no_rule() -> None:
    (change,) = static_changes("mode", "train", "eval")
    assert change.rule is None
    assert change.detail == "`mode` changed value from 'train' to 'eval'"
    assert "pass `mode` as a traced (array) argument" in change.fix


def test_graph_changes_name_the_node_and_the_setting() -> None:
    def graph(by: float, body: object = shift) -> JitGraph[str, str]:
        return JitGraph(
            NestingGraph(OrderedMap({"shift": NodeDefinition(body, inputs=("x",), outputs=("y",), settings=OrderedMap({"by": by}))}))  # type: ignore[arg-type]
        )

    (change,) = graph_changes("graph", graph(1.0), graph(2.0))
    assert change.path == "graph node 'shift' settings['by']"
    assert (change.before, change.after) == ("1.0", "2.0")
    assert graph_changes("graph", graph(1.0), graph(1.0)) == []


def test_compare_reports_added_removed_and_kind_changes() -> None:
    array = ArgumentKey("array", ((3,), jnp.dtype("float32"), False))
    before = (("x", array), ("y", ArgumentKey("static", 1)))
    after = (("x", ArgumentKey("static", 3)), ("z", array))
    found = {(c.path, c.aspect) for c in compare(before, after)}
    assert found == {("x", "kind"), ("z", "added"), ("y", "removed")}
    assert same_key(before, before)
    assert not same_key(before, after)


def test_environment_switches() -> None:
    assert from_environment({}) == DebugSettings()
    assert from_environment({"JITCHECK_DEBUG": "0"}).enabled is False
    assert from_environment({"JITCHECK_DEBUG": "1"}) == DebugSettings(enabled=True)
    assert from_environment({"JITCHECK_DEBUG": "1", "JITCHECK_PACKAGES": "a, b.c"}).packages == ("a", "b.c")
    on = from_environment({"JITCHECK_DEBUG": "mypkg,other", "JITCHECK_MAX_TRACES": "3", "JITCHECK_ON_RETRACE": "RAISE"})
    assert on == DebugSettings(enabled=True, packages=("mypkg", "other"), max_traces=3, on_retrace="raise")
    with pytest.raises(DebugSettingError, match="JITCHECK_MAX_TRACES: expected a whole number"):
        from_environment({"JITCHECK_DEBUG": "1", "JITCHECK_MAX_TRACES": "many"})
    with pytest.raises(DebugSettingError, match="JITCHECK_ON_RETRACE: expected one of warn, raise, record"):
        from_environment({"JITCHECK_DEBUG": "1", "JITCHECK_ON_RETRACE": "panic"})
    with pytest.raises(DebugSettingError, match="JITCHECK_DEBUG: 'my-pkg' is not a package name"):
        from_environment({"JITCHECK_DEBUG": "my-pkg"})
    assert package_names(["a", "a", "b"], "test") == ("a", "b")
