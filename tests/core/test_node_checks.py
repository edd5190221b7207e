"""JitGraph's node checks: check_hashable and check_reassembles, each refusal naming node and leaf."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitcheck import JitGraph, NestingGraph, NodeDefinition, Refused, ValuePartial, check_hashable, check_reassembles

from .graph_parts import scale


class Model:
    def apply(self, x: jax.Array) -> jax.Array:
        return x

    @staticmethod
    def static_apply(x: jax.Array) -> jax.Array:
        return x

    @classmethod
    def class_apply(cls, x: jax.Array) -> jax.Array:
        return x


class Callable_:
    def __call__(self, x: jax.Array) -> jax.Array:
        return x


@dataclasses.dataclass
class MutableConfig:
    depth: int


class EqOnly:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, EqOnly)


class Plain:
    pass


@dataclasses.dataclass(frozen=True)
class FrozenScale:
    factor: float

    def __call__(self, x: jax.Array) -> jax.Array:
        return x * self.factor


SINGLETON = Callable_()


def refusal(node: NodeDefinition[str]) -> Refused:
    with pytest.raises(Refused) as caught:
        JitGraph(NestingGraph({"node": node}))
    return caught.value


def only(node: NodeDefinition[str]) -> tuple[str, str | None, str]:
    refused = refusal(node)
    assert len(refused.violations) == 1, str(refused)
    v = refused.violations[0]
    assert v.node == "node"
    return v.code, v.leaf, v.message


def test_bound_method_body_is_refused() -> None:
    code, leaf, message = only(NodeDefinition(Model().apply, ("x",), ("y",)))
    assert (code, leaf) == ("JC101", "body")
    assert "bound method `Model.apply` used as a node body" in message


def test_functools_partial_body_is_refused_with_the_value_partial_fix() -> None:
    refused = refusal(NodeDefinition(functools.partial(scale, factor=2.0), ("x",), ("y",)))
    (v,) = refused.violations
    assert (v.code, v.leaf) == ("JC102", "body")
    assert "ValuePartial(scale, factor=2.0)" in v.help


def test_tree_util_partial_body_is_refused_as_its_own_rule() -> None:
    assert only(NodeDefinition(jax.tree_util.Partial(scale, factor=2.0), ("x",), ("y",)))[:2] == ("JC103", "body")


def test_lambda_body_is_refused() -> None:
    assert only(NodeDefinition(lambda x: x, ("x",), ("y",)))[:2] == ("JC104", "body")


def test_closure_body_is_refused() -> None:
    factor = 2.0

    def inner(x: jax.Array) -> jax.Array:
        return x * factor

    code, leaf, message = only(NodeDefinition(inner, ("x",), ("y",)))
    assert (code, leaf) == ("JC105", "body")
    assert "test_closure_body_is_refused.<locals>.inner" in message


@pytest.mark.parametrize("array", [np.ones(3), jnp.ones(3)], ids=["numpy", "jax"])
def test_array_setting_is_refused_naming_the_leaf(array: Any) -> None:
    code, leaf, _ = only(NodeDefinition(scale, ("x",), ("y",), {"factor": array}))
    assert (code, leaf) == ("JC201", "settings['factor']")


def test_array_nested_in_a_tuple_setting_is_found() -> None:
    code, leaf, _ = only(NodeDefinition(scale, ("x",), ("y",), {"factor": (1.0, (2.0, np.ones(2)))}))
    assert (code, leaf) == ("JC201", "settings['factor'][1][1]")


def test_array_inside_a_partial_is_named_too() -> None:
    refused = refusal(NodeDefinition(functools.partial(scale, factor=np.ones(2)), ("x",), ("y",)))
    assert [(v.code, v.leaf) for v in refused.violations] == [
        ("JC201", "body.keywords['factor']"),
        ("JC102", "body"),
    ]


def test_array_inside_a_value_partial_is_refused() -> None:
    code, leaf, _ = only(NodeDefinition(ValuePartial(scale, factor=jnp.ones(2)), ("x",), ("y",)))
    assert (code, leaf) == ("JC201", "body.keywords['factor']")


@pytest.mark.parametrize(
    ("value", "code"),
    [([1, 2], "JC202"), ({"a": 1}, "JC202"), ({1}, "JC202"), (MutableConfig(2), "JC203"), (EqOnly(), "JC204"), (bytearray(b"x"), "JC205"), (Plain(), "JC206")],
    ids=["list", "dict", "set", "mutable-dataclass", "eq-only", "bytearray", "identity"],
)
def test_setting_kinds_are_refused_with_their_rule(value: Any, code: str) -> None:
    assert only(NodeDefinition(scale, ("x",), ("y",), {"factor": value}))[:2] == (code, "settings['factor']")


def test_identity_compared_callable_instance_is_refused() -> None:
    code, leaf, message = only(NodeDefinition(Callable_(), ("x",), ("y",)))
    assert (code, leaf) == ("JC106", "body")
    assert "Callable_" in message


def test_every_violation_of_every_node_is_listed_in_one_error() -> None:
    with pytest.raises(Refused) as caught:
        JitGraph(
            NestingGraph(
                {
                    "a": NodeDefinition(Model().apply, ("x",), ("y",)),
                    "b": NodeDefinition(lambda y: y, ("y",), ("z",)),
                    "c": NodeDefinition(scale, ("z",), ("w",), {"factor": [1.0]}),
                }
            )
        )
    assert [(v.node, v.code) for v in caught.value.violations] == [("a", "JC101"), ("b", "JC104"), ("c", "JC202")]
    assert str(caught.value).startswith("JitGraph refused: 3 violations")


@pytest.mark.parametrize(
    "body",
    [Model.static_apply, Model.class_apply, FrozenScale(2.0), SINGLETON, ValuePartial(scale, factor=2.0), jnp.tanh, jax.nn.relu, np.negative],
    ids=["staticmethod", "classmethod", "frozen-dataclass", "module-singleton", "value-partial", "jnp-function", "custom-jvp", "ufunc"],
)
def test_value_compared_or_module_level_bodies_are_accepted(body: Any) -> None:
    node = NodeDefinition(body, ("x",), ("y",))
    assert list(check_hashable("n", node)) == []
    assert list(check_reassembles("n", node)) == []
    JitGraph(NestingGraph({"n": node}))


@pytest.mark.parametrize(
    "setting",
    [2.0, "mode", (1, 2), frozenset({1}), jnp.float32, np.dtype("int8"), MutableConfig, FrozenScale(1.0), None],
    ids=["float", "str", "tuple", "frozenset", "jnp-dtype", "np-dtype", "a-class", "frozen-dataclass", "none"],
)
def test_hashable_value_compared_settings_are_accepted(setting: Any) -> None:
    JitGraph(NestingGraph({"n": NodeDefinition(scale, ("x",), ("y",), {"factor": setting})}))


def test_value_partial_is_equal_and_hashes_equal_when_rebuilt() -> None:
    first = ValuePartial(scale, factor=2.0)
    second = ValuePartial(scale, factor=2.0)
    assert first == second and hash(first) == hash(second)
    assert first != ValuePartial(scale, factor=3.0)
    assert ValuePartial(ValuePartial(scale), factor=2.0) == first
    assert float(first(jnp.float32(3.0))) == 6.0
    with pytest.raises(AttributeError):
        first.func = scale  # type: ignore[misc]
    with pytest.raises(TypeError):
        first.keywords["factor"] = 3.0  # type: ignore[index]


def test_value_partial_keyword_order_does_not_matter_and_it_pickles() -> None:
    import pickle

    def_ = ValuePartial(scale, 1.0, factor=2.0)
    assert pickle.loads(pickle.dumps(def_)) == def_


def test_value_partial_can_itself_be_jitted() -> None:
    jitted = jax.jit(ValuePartial(scale, factor=2.0))  # jax keeps a weak reference to what it wraps
    assert jitted(jnp.ones(2)).tolist() == [2.0, 2.0]
