"""Every retrace sentence docs/debug.md promises is the sentence a real retrace prints.

The page's list of retrace causes quotes what the report says; each quote here is
produced by real jax retraces, and the report's text must contain it word for word.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from jitcheck.core import JitGraph, NestingGraph, NodeDefinition, OrderedMap
from jitcheck.debug import retrace_reports, watch
from jitcheck.debug.retrace import TRACKER
from jitcheck.stateful import State, StatefulFunction

DEBUG_PAGE = Path(__file__).resolve().parents[2] / "docs" / "debug.md"


def promised_sentences() -> set[str]:
    """The quoted report sentences of the retrace watch's section of docs/debug.md."""
    section = DEBUG_PAGE.read_text().split("## The retrace watch", 1)[1].split("\n## ", 1)[0]
    flowing = re.sub(r"\s*\n\s*", " ", section)  # a quote may wrap across lines of the page
    opening = r'(?:(?<=\s)|(?<=\())"'  # a quote opens after a space or a parenthesis, never after a word
    return set(re.findall(opening + r'(`[^"]{1,100}?)"', flowing)) | set(re.findall(opening + r'(the wrapper [^"]{1,100}?)"', flowing))


def add_one(x: jax.Array) -> jax.Array:
    return x + 1


def power(x: jax.Array, exponent: int) -> jax.Array:
    return x**exponent


def scale(x: jax.Array, *, factor: float) -> jax.Array:
    return x * factor


def shape_change() -> list[str]:
    f = watch(add_one, on_retrace="record")
    f(jnp.ones(3))
    f(jnp.ones(4))
    return [str(report) for report in f.reports]


def weak_type_change() -> list[str]:
    f = watch(add_one, on_retrace="record")
    f(jnp.float32(1.0))
    f(1.0)
    return [str(report) for report in f.reports]


def static_value_change() -> list[str]:
    f = watch(power, static_argnums=1, on_retrace="record")
    f(jnp.ones(2), 3)
    f(jnp.ones(2), 4)
    return [str(report) for report in f.reports]


def graph_setting_change() -> list[str]:
    for factor in (2.5, 3.5):
        graph = JitGraph(NestingGraph(OrderedMap({"scale": NodeDefinition(scale, ("x",), ("y",), OrderedMap({"factor": factor}))})))
        graph.jit_call({"x": jnp.ones(3)})
    return [str(report) for report in retrace_reports()]


class Trainer:
    def __init__(self) -> None:
        self.weight = State(jnp.ones(3), name="weight")

    def step(self, x: jax.Array) -> jax.Array:
        total: jax.Array = (x * self.weight.value).sum()
        return total


def rebuilt_wrapper() -> list[str]:
    trainer = Trainer()
    for _ in range(2):
        StatefulFunction(trainer.step)(jnp.ones(3))
    return [str(report) for report in retrace_reports()]


SCENARIOS: dict[str, Callable[[], list[str]]] = {
    "`x` changed shape from (3,) to (4,)": shape_change,
    "`x` was an array and is now a Python scalar (weakly typed)": weak_type_change,
    "`exponent` changed value from 3 to 4": static_value_change,
    "`graph node 'scale' settings['factor']` changed value from 2.5 to 3.5": graph_setting_change,
    "the wrapper was rebuilt, so its cache is new": rebuilt_wrapper,
}


def test_every_sentence_the_page_promises_has_a_scenario_here() -> None:
    assert promised_sentences() == set(SCENARIOS)


@pytest.mark.usefixtures("fresh_tracker", "debug_mode")
@pytest.mark.parametrize("sentence", list(SCENARIOS))
def test_a_real_retrace_prints_the_promised_sentence(sentence: str) -> None:
    texts = SCENARIOS[sentence]()
    assert len(texts) == 1, texts  # one retrace, explained once
    assert sentence in texts[0], texts[0]
    assert "JC503" in texts[0]


@pytest.mark.usefixtures("fresh_tracker", "debug_mode")
def test_the_function_itself_names_its_rule() -> None:
    """The page: a closure built anew is JC105, a lambda JC104, a bound method JC101, a tree_util.Partial JC103."""

    def make() -> Callable[[jax.Array], jax.Array]:
        def inner(x: jax.Array) -> jax.Array:
            return x * 3

        return inner

    class Model:
        def step(self, x: jax.Array) -> jax.Array:
            return x

    def apply(fn: Callable[[jax.Array], jax.Array], x: jax.Array) -> jax.Array:
        return fn(x)

    rebuilds: dict[str, Callable[[], object]] = {
        "JC105": make,
        "JC104": lambda: (lambda x: x * 2),
        "JC101": lambda: Model().step,
        "JC103": lambda: jax.tree_util.Partial(scale, factor=2.0),
    }
    for code, build in rebuilds.items():
        TRACKER.reset()
        if code in ("JC105", "JC104"):
            functions = [watch(build(), on_retrace="record") for _ in range(2)]  # type: ignore[call-overload]
            for f in functions:
                f(jnp.ones(2))
            reports = functions[-1].reports
        else:
            f = watch(apply, static_argnums=0, on_retrace="record")
            for _ in range(2):
                f(build(), jnp.ones(2))
            reports = f.reports
        assert len(reports) == 1, (code, reports)
        assert f"[{code}]" in str(reports[0]), (code, str(reports[0]))
