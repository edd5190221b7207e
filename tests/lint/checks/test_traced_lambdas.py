"""A call made inside a lambda handed, as it is made, to a jit or a transformation (``jax.jit(jax.grad(lambda r:
helper(r)))``) runs only while that traces the lambda: a jit the helper builds is inlined into the outer trace and
compiles nothing of its own, so that call is not a second run of the helper's jit. jax's compile count decides.
"""

from __future__ import annotations

from tests.lint.checks.support import check, compiles_of

SHARDED = """\
def sharded(fn):
    @jax.jit
    def wrapped(x):
        return fn(x) * 2.0
    return wrapped


"""

ONE_EAGER_CALL_ONE_TRACED = SHARDED + """\
def test_value_and_gradient():
    x = jnp.ones(3)
    value = sharded(jnp.sin)(x)
    gradient = jax.jit(jax.grad(lambda r: sharded(jnp.sin)(r).sum()))(x)
    return value, gradient
"""

TWO_EAGER_CALLS = SHARDED + """\
def test_value_twice():
    x = jnp.ones(3)
    first = sharded(jnp.sin)(x)
    second = sharded(jnp.sin)(x)
    return first, second
"""


def test_a_call_in_a_lambda_a_jit_traces_is_not_a_second_run() -> None:
    # The helper's jit compiles once (the eager call); under the outer jit it is inlined.
    assert compiles_of(ONE_EAGER_CALL_ONE_TRACED, "test_value_and_gradient()", "wrapped") == 1
    assert check(ONE_EAGER_CALL_ONE_TRACED) == []


def test_two_eager_calls_are_two_runs() -> None:
    line = TWO_EAGER_CALLS.splitlines().index("    @jax.jit") + 1
    assert compiles_of(TWO_EAGER_CALLS, "test_value_twice()", "wrapped") == 2
    assert (line, "JC105") in check(TWO_EAGER_CALLS)
