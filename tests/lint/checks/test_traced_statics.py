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
