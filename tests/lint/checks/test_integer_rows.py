"""A loop over rows of integers (`for n, k in [(16, 2), (32, 4)]`) is judged as a loop over a list of integers is:
they are as often sizes as values, so a wrapper closing over them rests on a guess (``--preview``). Rows with a
float in them are values: baked in, the same program compiled again, which arguments would share. jax judges."""

from __future__ import annotations

from tests.lint.checks.support import compiles_of, shown

SIZES = """\
def run():
    out = []
    for n, k in [(16, 2), (32, 4)]:
        f = jax.jit(lambda x: jnp.zeros(n).sum() + x * k)
        out.append(f(1.0))
    return out
"""

VALUES = """\
def run():
    out = []
    for scale, shift in [(0.5, 1.0), (0.7, 2.0)]:
        f = jax.jit(lambda x: x * scale + shift)
        out.append(f(1.0))
    return out


def run_fixed():
    f = jax.jit(lambda x, scale, shift: x * scale + shift)
    return [f(1.0, scale, shift) for scale, shift in [(0.5, 1.0), (0.7, 2.0)]]
"""


def test_rows_of_integers_that_set_sizes_are_not_reported_by_default() -> None:
    # Each row builds an array of another size: two programs, and no rewrite compiles them once.
    assert shown(SIZES) == []
    assert compiles_of(SIZES, "run()", "<lambda>") == 2


def test_rows_with_floats_are_baked_in_values_and_reported() -> None:
    assert shown(VALUES) == [(4, "JC104")]
    assert compiles_of(VALUES, "run()", "<lambda>") == 2
    assert compiles_of(VALUES, "run_fixed()", "<lambda>") == 1
