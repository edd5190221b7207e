"""The collector's handling around a run (jitcheck/lint/heap.py): the state it finds is the state it leaves,
and the findings do not depend on it."""

from __future__ import annotations

import gc
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from jitcheck.lint.config import Config
from jitcheck.lint.heap import paused, set_aside
from jitcheck.lint.runner import Options, run


@pytest.fixture
def collector() -> Iterator[None]:
    """Whatever a test does to the collector is undone."""
    was_on = gc.isenabled()
    yield
    gc.unfreeze()
    if was_on:
        gc.enable()
    else:
        gc.disable()


def test_paused_turns_the_collector_off_inside_and_back_on_after(collector: None) -> None:
    gc.enable()
    with paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(KeyError), paused():
        raise KeyError("x")
    assert gc.isenabled()


def test_paused_leaves_a_collector_that_was_off_off(collector: None) -> None:
    gc.disable()
    with paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_set_aside_freezes_what_exists_and_puts_it_back(collector: None) -> None:
    gc.unfreeze()
    with set_aside():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def _tracked(marker: object) -> bool:
    """Whether ``marker`` is in one of the collector's generations (a frozen object is in none of them)."""
    return any(o is marker for o in gc.get_objects())


def test_set_aside_leaves_a_callers_own_freeze_alone(collector: None) -> None:
    # Judged by an object the caller froze, not by the frozen count, which other threads' frees change.
    marker: list[int] = [1]
    gc.freeze()
    assert not _tracked(marker)
    with set_aside():
        assert not _tracked(marker)
    assert not _tracked(marker)  # still frozen: set_aside did not unfreeze the caller's objects
    gc.unfreeze()
    assert _tracked(marker)


_FILES = {
    "pkg/__init__.py": "",
    "pkg/steps.py": """\
        import jax

        def make_step(scale):
            return jax.jit(lambda x: x * scale)
        """,
    "pkg/use.py": """\
        import jax
        from pkg.steps import make_step

        def run(xs):
            for x in xs:
                jax.jit(lambda v: v + 1)(x)
                make_step(2.0)(x)
        """,
}


def _rows(tree: Path, isolate: bool) -> list[tuple[object, ...]]:
    report = run([tree], Config(root=tree), Options(jobs=1, use_cache=False, isolate=isolate), tree)
    return [(f.path, f.line, f.column, f.code, f.message, f.evidence.to_row()) for f in report.findings]


@pytest.mark.parametrize("isolate", [False, True])
def test_a_run_finds_the_same_with_the_collector_on_or_off_and_leaves_it_as_it_was(
        tmp_path: Path, collector: None, isolate: bool) -> None:
    for name, text in _FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    gc.unfreeze()
    gc.enable()
    with_collector = _rows(tmp_path, isolate)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    without = _rows(tmp_path, isolate)
    assert not gc.isenabled() and gc.get_freeze_count() == 0
    assert with_collector and with_collector == without
