"""A jitted function with static arguments called through ``jax.vmap`` of it (``batched = jax.vmap(solve, in_axes=...)``,
at module level): vmap hands the function its arguments in the same positions, so a static position gets the value
the caller passes, and a lambda made on each call is a new cache key on each call. jax's compile count decides.
"""

from __future__ import annotations

import textwrap

from jitcheck.lint.prefilter import possible
from tests.lint.checks.support import HEADER, check, compiles_of, shown

THROUGH_VMAP = """\
@functools.partial(jax.jit, static_argnums=(2,))
def recurse(x, z, on_nan):
    return on_nan(x) + z


batched = jax.vmap(recurse, in_axes=(0, None, None))


def filt(x, z):
    return batched(x, z, lambda v: v * 2.0)


def run(xs, z):
    return [filt(xs, z) for _ in range(3)]
"""

THROUGH_VMAP_HOISTED = """\
@functools.partial(jax.jit, static_argnums=(2,))
def recurse(x, z, on_nan):
    return on_nan(x) + z


batched = jax.vmap(recurse, in_axes=(0, None, None))


def double(v):
    return v * 2.0


def filt(x, z):
    return batched(x, z, double)


def run(xs, z):
    return [filt(xs, z) for _ in range(3)]
"""


def test_a_lambda_made_per_call_in_a_static_position_reached_through_vmap_is_found() -> None:
    line = THROUGH_VMAP.splitlines().index("    return batched(x, z, lambda v: v * 2.0)") + 1
    assert shown(THROUGH_VMAP) == [(line, "JC104")]
    assert compiles_of(THROUGH_VMAP, "run(jnp.ones((2, 3)), 1.0)", "recurse") == 3
    assert compiles_of(THROUGH_VMAP_HOISTED, "run(jnp.ones((2, 3)), 1.0)", "recurse") == 1
    assert check(THROUGH_VMAP_HOISTED) == []


def test_the_prefilter_lets_a_call_through_vmap_of_a_static_jit_through() -> None:
    assert possible(HEADER + textwrap.dedent(THROUGH_VMAP))
