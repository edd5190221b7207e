"""JC201 for a traced parameter handed on as a static argument: under the outer jit it is a tracer, which jax
cannot hash ("Non-hashable static arguments are not supported"); the fix, taking it out of the static arguments,
compiles once. jax judges both."""

from __future__ import annotations

import pytest

from tests.lint.checks.support import compiles_of, shown

BROKEN = """\
@partial(jax.jit, static_argnums=(1,))
def mask(x, f):
    return x * f


@jax.jit
def outer(x, f):
    return mask(x, f)


@partial(jax.jit, static_argnums=(1,))
def outer_static(x, f):
    return mask(x, f)


@jax.jit
def outer_constant(x):
    f = 2.0
    return mask(x, f)
"""

FIXED = """\
@jax.jit
def mask(x, f):
    return x * f


@jax.jit
def outer(x, f):
    return mask(x, f)
"""


def test_a_traced_parameter_as_a_static_argument_is_reported_at_the_decorator_that_makes_it_static() -> None:
    # Only `outer` hands a tracer on: `outer_static` declares `f` static itself, and `outer_constant` passes a float.
    assert shown(BROKEN) == [(1, "JC201")]


def test_jax_refuses_the_tracer_and_the_fix_compiles_once() -> None:
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        compiles_of(BROKEN, "outer(jnp.ones(3), 2.0)", "outer")
    calls = "[outer(jnp.ones(3), 2.0), outer(jnp.ones(3), 3.0), outer(jnp.ones(3), 4.0)]"
    assert compiles_of(FIXED, calls, "outer") == 1


LEFT_AT_ITS_DEFAULT = """\
@partial(jax.jit, static_argnames=("remat",))
def inner(x, remat=False):
    return x * 2.0 if remat else x + 2.0


@jax.jit
def outer(x, remat=False):
    return inner(x, remat)


def run():
    return outer(jnp.ones(3))
"""

PASSED_BY_A_CALLER = LEFT_AT_ITS_DEFAULT.replace("return outer(jnp.ones(3))", "return outer(jnp.ones(3), remat=True)")


def test_a_parameter_no_caller_passes_is_its_default_not_a_tracer() -> None:
    # jax traces only the arguments a call passes: left at its default, `remat` is False in the trace, and hashes.
    assert compiles_of(LEFT_AT_ITS_DEFAULT, "run()", "outer") == 1
    assert shown(LEFT_AT_ITS_DEFAULT) == []
    # A caller that passes it hands `inner` a tracer: jax refuses it, and the finding is shown.
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        compiles_of(PASSED_BY_A_CALLER, "run()", "outer")
    assert shown(PASSED_BY_A_CALLER) == [(1, "JC201")]
