"""The retrace watch on plain functions: `watch(fn)` counts real jax traces and explains a retrace.

Each test watches its own module-level function, so its trace count is its own.
"""

from __future__ import annotations

import functools
import warnings

import jax
import jax.numpy as jnp
import pytest

from jitcheck import rules
from jitcheck.core.partial import ValuePartial
from jitcheck.debug import RetraceError, RetraceWarning, watch

pytestmark = pytest.mark.usefixtures("fresh_tracker")


def scale(x: jax.Array, factor: float) -> jax.Array:
    return x * factor


def apply_partial(fn: functools.partial[jax.Array], x: jax.Array) -> jax.Array:
    return fn(x)


def apply_value_partial(fn: ValuePartial[jax.Array], x: jax.Array) -> jax.Array:
    return fn(x)


def add_one(x: jax.Array) -> jax.Array:
    return x + 1


def power(x: jax.Array, exponent: int) -> jax.Array:
    return x**exponent


def total(tree: dict[str, jax.Array]) -> jax.Array:
    return sum(jnp.sum(v) for v in tree.values())  # type: ignore[return-value]


def times_two(x: jax.Array) -> jax.Array:
    return x * 2


def halve(x: jax.Array) -> jax.Array:
    return x / 2


def test_rebuilt_functools_partial_static_argument_is_reported_with_the_argument_named() -> None:
    step = watch(apply_partial, static_argnums=0, on_retrace="record")
    for _ in range(3):
        step(functools.partial(scale, factor=2.0), jnp.ones(3))
    assert step.traces == 3  # jax really traced three times: a partial is a new key each time
    assert len(step.reports) == 2
    report = step.reports[0]
    assert report.codes == ("JC503", "JC102")
    assert report.causes == (rules.FUNCTOOLS_PARTIAL,)
    (change,) = report.changes
    assert change.path == "fn"
    assert change.aspect == "static value"
    assert "new functools.partial" in change.detail and "same function and arguments" in change.detail
    text = str(report)
    assert text.startswith(f"{__file__}:")
    assert "JC503 `apply_partial` traced 2 times (limit 1): `fn` is a new functools.partial" in text
    assert "help: JC102: use `jitcheck.ValuePartial(scale, factor=2.0)`" in text


def test_value_partial_rebuilt_hits_the_cache() -> None:
    step = watch(apply_value_partial, static_argnums=0, on_retrace="raise")
    for _ in range(3):
        step(ValuePartial(scale, factor=2.0), jnp.ones(3))
    assert step.traces == 1
    assert step.reports == []


def test_shape_dtype_and_weak_type_changes_are_told_apart() -> None:
    f = watch(add_one, on_retrace="record")
    f(jnp.ones(3))
    f(jnp.ones(3))
    f(jnp.ones(4))
    f(jnp.ones(4, jnp.int32))
    f(jnp.float32(1.0))
    f(1.0)
    assert f.traces == 5
    shape, dtype, scalar, weak = f.reports
    assert [(c.aspect, c.before, c.after) for c in shape.changes] == [("shape", "(3,)", "(4,)")]
    assert [(c.aspect, c.before, c.after) for c in dtype.changes] == [("dtype", "float32", "int32")]
    assert [c.aspect for c in scalar.changes] == ["shape"]
    assert [(c.aspect, c.before, c.after) for c in weak.changes] == [("weak type", "False", "True")]
    assert all(r.causes == () for r in f.reports)  # no jitcheck rule behind a new shape
    assert "pad or bucket" in shape.violation.help


def test_static_value_change_and_limit() -> None:
    f = watch(power, static_argnums=1, max_traces=2, on_retrace="record")
    f(jnp.ones(2), 2)
    f(jnp.ones(2), 3)
    assert f.reports == []  # two traces allowed
    f(jnp.ones(2), 4)
    (report,) = f.reports
    assert report.count == 3 and report.limit == 2
    (change,) = report.changes
    assert (change.path, change.aspect, change.before, change.after) == ("exponent", "static value", "3", "4")
    assert "changed value from 3 to 4" in change.detail


def test_pytree_structure_change() -> None:
    f = watch(total, on_retrace="record")
    f({"a": jnp.ones(2)})
    f({"a": jnp.ones(2), "b": jnp.ones(2)})
    (report,) = f.reports
    aspects = {c.path: c.aspect for c in report.changes}
    assert aspects["tree"] == "structure"
    assert aspects["tree['b']"] == "added"


def make_closure() -> object:
    def inner(x: jax.Array) -> jax.Array:
        return x * 3

    return inner


def test_function_identity_of_a_rebuilt_closure() -> None:
    for _ in range(2):
        g = watch(make_closure(), on_retrace="record")  # type: ignore[call-overload]
        g(jnp.ones(2))
    (report,) = g.reports
    (change,) = report.changes
    assert change.path == "function" and change.aspect == "function"
    assert change.rule is rules.NESTED_FUNCTION
    assert "new function `make_closure.<locals>.inner`, built again from the same code" in change.detail


def test_watching_the_same_function_again_reuses_the_cache() -> None:
    for _ in range(3):
        f = watch(times_two, on_retrace="raise")
        f(jnp.ones(2))
    assert f.traces == 1


def test_warn_is_the_default_and_points_at_the_call() -> None:
    f = watch(halve)
    f(jnp.ones(2))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f(jnp.ones(5))  # the retrace
    (warning,) = caught
    assert warning.category is RetraceWarning
    assert warning.filename == __file__
    assert "JC503 `halve` traced 2 times (limit 1): `x` changed shape from (2,) to (5,)" in str(warning.message)


def test_raise_fails_the_call_that_retraces() -> None:
    def cube(x: jax.Array) -> jax.Array:
        return x**3

    f = watch(cube, on_retrace="raise")
    f(jnp.ones(2))
    with pytest.raises(RetraceError) as info:
        f(jnp.ones(3))
    assert info.value.report.codes == ("JC503",)
    assert "`x` changed shape from (2,) to (3,)" in str(info.value)


def test_watch_refuses_a_jitted_function_and_bad_settings() -> None:
    with pytest.raises(TypeError, match="plain function"):
        watch(jax.jit(add_one))
    with pytest.raises(ValueError, match="at least 1"):
        watch(add_one, max_traces=0)
    with pytest.raises(ValueError, match="warn, raise, record"):
        watch(add_one, on_retrace="explode")
