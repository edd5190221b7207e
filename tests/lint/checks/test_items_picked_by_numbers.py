"""A loop over numbers bakes data into one program when the numbers reach the jitted callable as they are, through
arithmetic, or through functions (a sample loaded by its index). When the loop's counter picks an item of a
collection not known to hold numbers (a list of shapes) and a function makes the callable from it, each pass may
build another program: the repetition is not shown to be one computation, so the finding is a guess
(``--preview``). jax's compile count decides each case.
"""

from __future__ import annotations

from tests.lint.checks.support import check, compiles_of, shown

PICKED_BY_THE_LEVEL = """\
def make_restrict(shape):
    def restrict(grid):
        return grid.reshape(shape).sum(axis=-1)
    return restrict


def levels(grids, shapes):
    out = []
    for level in range(len(grids)):
        restrict = make_restrict(shapes[level])
        out.append(jax.jit(restrict)(grids[level]))
    return out
"""

MAKE_STEP = """\
def make_step(temperature):
    def step(x):
        return x * jnp.exp(-1.0 / temperature)
    return step


"""

BAKED_AS_IS = MAKE_STEP + """\
def anneal(x):
    out = []
    for temperature in [0.5, 1.0, 2.0]:
        out.append(jax.jit(make_step(temperature))(x))
    return out
"""

BAKED_AS_IS_HOISTED = """\
@jax.jit
def step(x, temperature):
    return x * jnp.exp(-1.0 / temperature)


def anneal(x):
    return [step(x, temperature) for temperature in [0.5, 1.0, 2.0]]
"""

PICKED_FROM_NUMBERS = MAKE_STEP + """\
def anneal(x):
    temperatures = jnp.linspace(0.5, 2.0, 3)
    out = []
    for i in range(3):
        out.append(jax.jit(make_step(temperatures[i]))(x))
    return out
"""


def line_of(body: str, text: str) -> int:
    return body.splitlines().index(text) + 1


def test_an_item_picked_by_the_loop_counter_is_not_shown() -> None:
    grids = "[jnp.ones((2, 4)), jnp.ones((2, 2))], [(2, 2, 2), (2, 1, 2)]"
    # Two levels, two shapes, two programs: no rewrite shares them.
    assert compiles_of(PICKED_BY_THE_LEVEL, f"levels({grids})", "restrict") == 2
    assert shown(PICKED_BY_THE_LEVEL) == []
    # Still a finding under --preview, with what it could not prove.
    line = line_of(PICKED_BY_THE_LEVEL, "        out.append(jax.jit(restrict)(grids[level]))")
    assert (line, "JC703") in check(PICKED_BY_THE_LEVEL)


def test_a_number_baked_as_it_is_stays_shown() -> None:
    # The bug the rule is for: three temperatures, one program with a different constant, one compile when passed.
    line = line_of(BAKED_AS_IS, "        out.append(jax.jit(make_step(temperature))(x))")
    assert (line, "JC703") in shown(BAKED_AS_IS)
    assert compiles_of(BAKED_AS_IS, "anneal(jnp.ones(3))", "step") == 3
    assert compiles_of(BAKED_AS_IS_HOISTED, "anneal(jnp.ones(3))", "step") == 1


def test_an_item_picked_from_numbers_stays_shown() -> None:
    line = line_of(PICKED_FROM_NUMBERS, "        out.append(jax.jit(make_step(temperatures[i]))(x))")
    assert (line, "JC703") in shown(PICKED_FROM_NUMBERS)
    assert compiles_of(PICKED_FROM_NUMBERS, "anneal(jnp.ones(3))", "step") == 3
