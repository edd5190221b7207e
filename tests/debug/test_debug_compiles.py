"""Debug mode attributes every compile of a plain jax.jit, jax.pmap or eqx.filter_jit in the user's code.

Each test counts compiles the way jax does them (a Python side effect in the
traced function runs once per trace), and checks that the advice printed, once
applied, takes the count from N to 1.
"""

from __future__ import annotations

import functools
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import pytest

from jitcheck import ValuePartial
from jitcheck.debug import compiles, retrace_reports

TRACES: list[str] = []
X = jnp.ones(3)


def scale(x: jax.Array, n: Any) -> jax.Array:
    TRACES.append("scale")
    return x * n


def add_one(x: jax.Array) -> jax.Array:
    TRACES.append("add_one")
    return x + 1


@pytest.fixture(autouse=True)
def _clean() -> None:
    TRACES.clear()
    compiles.clear_compile_records()


def _this_line_offset(text: str) -> int:
    import inspect

    lines, first = inspect.getsourcelines(inspect.currentframe().f_back.f_code)  # type: ignore[union-attr]
    return first + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.usefixtures("debug_mode")
def test_a_rebuilt_lambda_under_plain_jit_is_named_with_its_rule_and_line() -> None:
    for _ in range(3):
        jax.jit(lambda x: add_one(x) * 2)(X)  # the bug: a new lambda, a new compile, every step
    line = _this_line_offset("jax.jit(lambda x: add_one(x) * 2)(X)")
    assert TRACES == ["add_one"] * 3
    (record,) = [r for r in compiles.compile_records() if r.function.endswith("<lambda>")]
    assert record.count == 3 and record.transformation == "jax.jit"
    assert record.location is not None and record.location.file == __file__ and record.location.line == line
    report = retrace_reports()[-1]
    assert report.location is not None and report.location.line == line
    assert "JC104" in report.codes and "new lambda" in str(report)
    # the advice: define it once with def, jit it once
    TRACES.clear()
    fixed = jax.jit(add_one)
    for _ in range(3):
        fixed(X)
    assert TRACES == ["add_one"]


@pytest.mark.usefixtures("debug_mode")
def test_a_changed_static_argument_is_named() -> None:
    jitted = jax.jit(scale, static_argnums=1)
    for n in (1, 2, 3):
        jitted(X, n)
    assert TRACES == ["scale"] * 3
    text = str(retrace_reports()[-1])
    assert "`n` changed value from 2 to 3" in text and "pass `n` as a traced (array) argument" in text
    TRACES.clear()
    fixed = jax.jit(scale)  # the advice applied: n traced
    for n in (1, 2, 3):
        fixed(X, jnp.asarray(float(n)))
    assert TRACES == ["scale"]


@pytest.mark.usefixtures("debug_mode")
def test_a_rebuilt_partial_gets_the_value_partial_fix_which_compiles_once() -> None:
    for _ in range(3):
        jax.jit(functools.partial(scale, n=2.0))(X)
    assert TRACES == ["scale"] * 3
    text = str(retrace_reports()[-1])
    assert "JC102" in text and "jitcheck.ValuePartial(scale, n=2.0)" in text
    TRACES.clear()
    for _ in range(3):
        jax.jit(ValuePartial(scale, n=2.0))(X)  # equal each time: jax's cache hits
    assert TRACES == ["scale"]


@pytest.mark.usefixtures("debug_mode")
def test_pmap_and_filter_jit_are_attributed_too() -> None:
    for _ in range(2):
        jax.pmap(lambda x: add_one(x))(X[None])
    for _ in range(2):
        eqx.filter_jit(lambda x, n: scale(x, n))(X, 2)
    kinds = {(r.transformation, r.count) for r in compiles.compile_records()}
    assert ("jax.pmap", 2) in kinds and ("eqx.filter_jit", 2) in kinds
    assert sum("new lambda" in str(r) for r in retrace_reports()) >= 2


@pytest.mark.usefixtures("debug_mode")
def test_the_jitted_object_is_jaxs_own() -> None:
    jitted = jax.jit(scale, static_argnames="n")
    assert jitted(X, n=3).tolist() == [3.0, 3.0, 3.0]
    assert jitted.lower(X, n=3).compile() is not None  # jax's API is all there
    assert jitted._cache_size() >= 1

    class Model:
        @jax.jit
        def __call__(self, x: jax.Array) -> jax.Array:
            return x * 2

    with pytest.raises(TypeError):  # exactly what plain jax does with an unregistered self
        Model()(X)


def test_with_debug_mode_off_nothing_is_replaced() -> None:
    assert not compiles.installed()
    assert not hasattr(jax.jit, "_jitcheck_original") and not hasattr(jax.pmap, "_jitcheck_original")
    assert not hasattr(eqx.filter_jit, "_jitcheck_original")
    jax.jit(add_one)(X)
    assert compiles.compile_records() == []
