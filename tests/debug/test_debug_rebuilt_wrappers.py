"""A StatefulFunction rebuilt for every call around the same callable is a retrace: real StatefulFunction, real jax.

Each new wrapper starts with an empty cache and traces once, so counting traces per
wrapper object never saw it; the watch counts them per wrapped callable.
"""

from __future__ import annotations

import functools
import gc
import inspect
import warnings
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp
import pytest

from jitcheck.debug import RetraceError, RetraceWarning, mode, retrace_reports, watch
from jitcheck.debug.retrace import TRACKER, render_collapsed
from jitcheck.stateful import State, StatefulFunction


class Trainer:
    """Holds a weight State; `rebuilt_step` has the bug, `built_once_step` the fix."""

    def __init__(self) -> None:
        self.weight = State(jnp.ones(3), name="weight")
        self.step_fn = StatefulFunction(self.step)

    def step(self, x: jax.Array) -> jax.Array:
        self.weight.value = self.weight.value * 0.5
        total: jax.Array = (x * self.weight.value).sum()
        return total

    def rebuilt_step(self, x: jax.Array) -> jax.Array:
        loss: jax.Array = StatefulFunction(self.step)(x)  # the bug: a new wrapper, a new cache, per call
        return loss

    def built_once_step(self, x: jax.Array) -> jax.Array:
        loss: jax.Array = self.step_fn(x)
        return loss


def _bug_line() -> int:
    lines, first = inspect.getsourcelines(Trainer.rebuilt_step)
    return first + next(i for i, line in enumerate(lines) if "StatefulFunction(self.step)(x)" in line)


def doubled(x: jax.Array) -> jax.Array:
    return x * 2.0


def halved(x: jax.Array) -> jax.Array:
    return x / 2.0


def scaled_by(x: jax.Array, factor: float) -> jax.Array:
    return x * factor


def fresh_callable(kind: str) -> Callable[[jax.Array], jax.Array]:
    """The callable a buggy training loop builds anew for every call."""
    if kind == "partial":
        return functools.partial(scaled_by, factor=2.0)
    if kind == "lambda":
        return lambda x: x * 2.0
    if kind == "nested":

        def inner(x: jax.Array) -> jax.Array:
            return x * 2.0

        return inner
    return doubled


@pytest.fixture
def debug_on() -> Iterator[Callable[..., None]]:
    """``debug_on(**settings)`` switches debug mode on (no packages, the default warn unless told); off afterwards."""
    from jitcheck.debug import records

    records.clear_records()
    TRACKER.reset()
    yield lambda **settings: mode.enable(**settings)
    mode.disable()
    TRACKER.reset()
    records.clear_records()


def test_a_stateful_function_rebuilt_per_call_of_a_bound_method_warns_with_jc503_and_jc101(debug_on: Callable[..., None]) -> None:
    debug_on()
    trainer = Trainer()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            trainer.rebuilt_step(jnp.ones(3))
    assert trainer.weight.value.tolist() == [0.125] * 3  # each call ran (and traced: a new wrapper has no cache)
    reports = retrace_reports()
    assert [r.count for r in reports] == [2, 3]
    assert {r.codes for r in reports} == {("JC503", "JC101")}
    (warning,) = caught  # the same retrace at the same line: warned once, recorded every time
    assert warning.category is RetraceWarning
    assert (warning.filename, warning.lineno) == (__file__, _bug_line())
    text = str(warning.message)
    assert text.startswith("JC503 `StatefulFunction(Trainer.step)` traced 2 times (limit 1): a new StatefulFunction was built around ")
    assert "the same bound method `Trainer.step` (the same function on the same receiver)" in text
    assert "the wrapper was rebuilt, so its cache is new" in text and "[JC101]" in text
    assert "help: build the StatefulFunction once, in `__init__` (`self.step_fn = StatefulFunction(self.step)`)" in text
    assert "JC101: pass a module-level function" in text
    (shown,) = render_collapsed(reports)
    assert shown.splitlines()[-1] == "  (the same retrace was reported 2 times; the last is shown)"
    assert "traced 3 times" in shown


def test_raise_fails_the_call_through_the_rebuilt_wrapper(debug_on: Callable[..., None]) -> None:
    debug_on(on_retrace="raise")
    trainer = Trainer()
    trainer.rebuilt_step(jnp.ones(3))
    with pytest.raises(RetraceError) as info:
        trainer.rebuilt_step(jnp.ones(3))
    report = info.value.report
    assert report.codes == ("JC503", "JC101")
    assert [(c.path, c.aspect) for c in report.changes] == [("wrapper", "wrapper")]
    assert report.location is not None and report.location.line == _bug_line()


def test_a_stateful_function_built_once_and_called_repeatedly_is_not_reported(debug_on: Callable[..., None]) -> None:
    debug_on(on_retrace="raise")
    trainers = [Trainer(), Trainer()]  # two receivers, each with its own wrapper built once: two counts
    for _ in range(3):
        for trainer in trainers:
            trainer.built_once_step(jnp.ones(3))
    for trainer in (Trainer(), Trainer()):  # a rebuilt wrapper on two receivers, once each: not a retrace either
        trainer.rebuilt_step(jnp.ones(3))
    assert retrace_reports() == []
    assert [t.step_fn.cache_info()["traces"] for t in trainers] == [1, 1]


def test_two_different_functions_never_share_a_count(debug_on: Callable[..., None]) -> None:
    debug_on(on_retrace="raise")
    wrappers = [
        StatefulFunction(doubled),
        StatefulFunction(halved),
        StatefulFunction(lambda x: x + 1.0),
        StatefulFunction(lambda x: x - 1.0),
        StatefulFunction(functools.partial(scaled_by, factor=3.0)),
    ]
    for _ in range(2):
        for wrapper in wrappers:
            wrapper(jnp.ones(3))
    assert retrace_reports() == []
    assert sorted(group.traces for group in TRACKER.groups()) == [1] * len(wrappers)


@pytest.mark.parametrize(
    ("kind", "codes"),
    [("partial", ("JC503", "JC102")), ("lambda", ("JC503", "JC104")), ("nested", ("JC503", "JC105")), ("function", ("JC503",))],
)
def test_the_rule_of_the_wrapped_callable_is_named(debug_on: Callable[..., None], kind: str, codes: tuple[str, ...]) -> None:
    debug_on(on_retrace="record")
    for _ in range(2):
        StatefulFunction(fresh_callable(kind))(jnp.ones(3))
    (report,) = retrace_reports()
    assert report.codes == codes
    (change,) = report.changes
    assert change.aspect == "wrapper" and "the wrapper was rebuilt, so its cache is new" in change.detail
    assert change.fix.startswith("build the StatefulFunction once (at module level, or in `__init__`)")


def test_a_rebuilt_wrapper_called_at_a_new_shape_names_both_causes(debug_on: Callable[..., None]) -> None:
    debug_on(on_retrace="record")
    StatefulFunction(doubled)(jnp.ones(3))
    StatefulFunction(doubled)(jnp.ones(4))
    (report,) = retrace_reports()
    assert [(c.path, c.aspect) for c in report.changes] == [("wrapper", "wrapper"), ("args[0]", "shape")]


def test_the_same_wrapper_traced_again_is_not_called_rebuilt(debug_on: Callable[..., None]) -> None:
    debug_on(on_retrace="record")
    wrapper = StatefulFunction(doubled)
    wrapper(jnp.ones(3))
    wrapper.clear_cache()
    wrapper(jnp.ones(3))
    (report,) = retrace_reports()
    assert report.codes == ("JC503",)
    assert [c.aspect for c in report.changes] == ["cache"]


def test_the_watch_does_not_keep_rebuilt_wrappers_alive(debug_on: Callable[..., None]) -> None:
    debug_on(on_retrace="record")
    trainer = Trainer()
    refs: list[weakref.ref[Any]] = []
    for _ in range(3):
        wrapper = StatefulFunction(trainer.step)
        wrapper(jnp.ones(3))
        refs.append(weakref.ref(wrapper))
        del wrapper
    gc.collect()
    assert [ref() for ref in refs] == [None, None, None]
    assert [r.count for r in retrace_reports()] == [2, 3]  # and a dead wrapper's address reused is still a new wrapper


def test_rebuilt_wrappers_are_not_watched_when_debug_mode_is_off(fresh_tracker: None) -> None:
    trainer = Trainer()
    for _ in range(2):
        trainer.rebuilt_step(jnp.ones(3))
    assert retrace_reports() == []


class _Scaler:
    def __init__(self, factor: float) -> None:
        self.factor = factor

    def apply(self, x: jax.Array) -> jax.Array:
        return x * self.factor


def test_watch_rebuilt_per_call_around_one_bound_method_reuses_the_cache(fresh_tracker: None) -> None:
    scaler = _Scaler(2.0)
    for _ in range(3):  # watch keeps one traced wrapper per (equal) function: jax's cache is reused, nothing to report
        step = watch(scaler.apply, on_retrace="raise")
        step(jnp.ones(3))
    assert step.traces == 1
    for factor in (3.0, 4.0):  # a new receiver each time really retraces, and is reported as the bound method it is
        step = watch(_Scaler(factor).apply, on_retrace="record")
        step(jnp.ones(3))
    assert [r.codes for r in step.reports] == [("JC503", "JC101"), ("JC503", "JC101")]
