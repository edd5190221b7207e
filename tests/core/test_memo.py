"""Checks memoised by value: a graph rebuilt equal is not checked again; the memo is bounded and thread-safe."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import pytest

from jitcheck import (
    JitGraph,
    NestingGraph,
    NodeDefinition,
    Refused,
    ValuePartial,
    Violation,
)
from jitcheck.core import memo
from jitcheck.core.checking import PerLevel
from jitcheck.core.memo import BoundedMemo

from .graph_parts import add, scale

seen: list[Any] = []


def counting_check(graph: Any) -> Iterator[Violation]:
    seen.append(graph)
    return iter(())


class CountedGraph(JitGraph[Any, Any]):
    checks: ClassVar[PerLevel[tuple[Any, ...]]] = (counting_check,)


class UnmemoisedGraph(JitGraph[Any, Any]):
    checks: ClassVar[PerLevel[tuple[Any, ...]]] = (counting_check,)
    memoise_checks: ClassVar[bool] = False


def nodes(factor: Any) -> NestingGraph[str, str]:
    return NestingGraph(
        {
            "s": NodeDefinition(ValuePartial(scale, factor=factor), ("x",), ("y",)),
            "a": NodeDefinition(add, ("x", "y"), ("z",)),
        }
    )


@pytest.fixture(autouse=True)
def fresh_memo() -> Iterator[None]:
    memo.clear()
    seen.clear()
    yield
    memo.clear()


def test_a_graph_rebuilt_equal_is_checked_once() -> None:
    for _ in range(5):
        CountedGraph(nodes(2.0))
    assert len(seen) == 1
    CountedGraph(nodes(3.0))
    assert len(seen) == 2


def test_the_memo_is_type_strict() -> None:
    CountedGraph(nodes(2))
    CountedGraph(nodes(2.0))
    CountedGraph(nodes(True))
    assert len(seen) == 3


def test_a_subclass_can_opt_out() -> None:
    for _ in range(3):
        UnmemoisedGraph(nodes(2.0))
    assert len(seen) == 3


def test_a_refused_graph_is_refused_every_time_it_is_rebuilt() -> None:
    for _ in range(3):
        with pytest.raises(Refused) as caught:
            JitGraph(NestingGraph({"s": NodeDefinition(scale, ("x",), ("y",), {"factor": [1.0]})}))
        assert caught.value.codes == ("JC202",)


def test_rebuilt_equal_graphs_share_one_key_object_and_compare_by_it() -> None:
    first, second = JitGraph(nodes(2.0)), JitGraph(nodes(2.0))
    assert first.jitcheck_key() is second.jitcheck_key()
    assert first == second and hash(first) == hash(second)


def test_forgetting_costs_speed_never_correctness() -> None:
    first = JitGraph(nodes(2.0))
    memo.clear()
    second = JitGraph(nodes(2.0))
    assert first.jitcheck_key() is not second.jitcheck_key()
    assert first == second and hash(first) == hash(second)
    traces = 0

    def run(graph: JitGraph[str, str], values: dict[str, jax.Array]) -> Any:
        nonlocal traces
        traces += 1
        return graph(values)

    jitted = jax.jit(run, static_argnums=0)
    jitted(first, {"x": jnp.ones(2)})
    jitted(second, {"x": jnp.ones(2)})
    assert traces == 1


def test_the_memo_is_bounded() -> None:
    small: BoundedMemo[int, int] = BoundedMemo(8)
    for i in range(100):
        assert small.setdefault(i, -i) == -i
    assert len(small) <= 8
    assert small.get(99) == -99 and small.get(0) is None
    for i in range(3 * memo.graphs.maxsize):
        JitGraph(nodes(float(i)))
    assert len(memo.graphs) <= memo.graphs.maxsize


def test_graphs_built_from_many_threads_check_once_each_and_agree() -> None:
    errors: list[BaseException] = []
    built: list[JitGraph[str, str]] = []
    lock = threading.Lock()

    def work() -> None:
        try:
            for i in range(40):
                graph = CountedGraph(nodes(float(i % 4)))
                with lock:
                    built.append(graph)
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert len({id(g.jitcheck_key()) for g in built}) == 4
    assert 4 <= len(seen) <= 4 * 4  # at most one check per distinct graph per racing thread
    assert len(set(built)) == 4
