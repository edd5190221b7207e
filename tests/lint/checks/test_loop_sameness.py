"""Whether each pass of a loop compiles the same program, judged where the loop is: a function carried from
pass to pass and changed on each (``f = jax.jacfwd(f)``) is another program each time, and a helper called in a
loop that hands it nothing new for what its callable reads compiles one program on every pass, whatever its other
call sites pass. jax's compile count decides every case here.
"""

from __future__ import annotations

import textwrap

from jitcheck.lint.check import check_source
from tests.lint.checks.support import HEADER, check, compiles_of, compiles_running, shown

CARRIED = """\
def jets(points, order):
    function, out = jnp.sin, []
    for _ in range(order + 1):
        out.append(jax.jit(jax.vmap(function))(points))
        function = jax.grad(function)
    return out
"""

CARRIED_KEPT = """\
def jets(points, order):
    function, wrappers = jnp.sin, []
    for _ in range(order + 1):
        wrappers.append(jax.jit(jax.vmap(function)))
        function = jax.grad(function)
    return [w(points) for w in wrappers] + [w(points) for w in wrappers]
"""

HELPER = """\
def accurate(scale, points, power=1):
    return jax.jit(lambda p: (p * scale) ** power)(points)


def test_distances():
    for distance in (0.1, 0.01, 0.001):
        accurate(2.0, jnp.ones(3) * distance)


def test_other_scale():
    accurate(3.0, jnp.ones(3), power=2)
"""

HELPER_HOISTED = """\
def accurate(scale, points, power=1):
    return ((points * scale) ** power)


def test_distances():
    jitted = jax.jit(accurate)
    for distance in (0.1, 0.01, 0.001):
        jitted(2.0, jnp.ones(3) * distance)
"""


def line_of(body: str, text: str) -> int:
    """The 1-based line of ``text``'s first appearance in ``body``."""
    return body.splitlines().index(text) + 1


def test_a_function_carried_and_transformed_on_each_pass_is_a_different_program() -> None:
    # Each pass differentiates once more: sin, cos, -sin: three programs (jax names each `jit(sin)`), which no
    # hoisting makes one: each wrapper kept and called twice still compiles three.
    assert check(CARRIED) == []
    assert compiles_of(CARRIED, "jets(jnp.ones(3), 2)", "sin") == 3
    assert compiles_of(CARRIED_KEPT, "jets(jnp.ones(3), 2)", "sin") == 3


def test_a_helper_called_in_a_loop_that_changes_nothing_it_reads_is_shown() -> None:
    # The loop in `test_distances` passes the same scale and power on each pass (only the points, data, change);
    # `test_other_scale` passes others, which does not make the loop's three compiles different programs.
    assert (line_of(HELPER, "    return jax.jit(lambda p: (p * scale) ** power)(points)"), "JC104") in shown(HELPER)
    assert compiles_of(HELPER, "test_distances()", "<lambda>") == 3
    assert compiles_of(HELPER_HOISTED, "test_distances()", "accurate") == 1


STATIC_DEF_ABOVE_THE_LOOP = """\
@functools.partial(jax.jit, static_argnames=("energy",))
def optimize(x, energy):
    return energy(x)


def run(sizes, seeds):
    out = []
    for n in sizes:
        couplings = jnp.ones((n, n))

        def energy(x, couplings=couplings):
            return x @ couplings @ x
        for seed in seeds:
            out.append(optimize(jnp.ones(n) * seed, energy))
    return out
"""

STATIC_DEF_IN_THE_LOOP = """\
@functools.partial(jax.jit, static_argnames=("energy",))
def optimize(x, energy):
    return energy(x)


def run(seeds):
    out = []
    for seed in seeds:
        def energy(x):
            return jnp.sum(x) * 2.0
        out.append(optimize(jnp.ones(3) * seed, energy))
    return out
"""


def test_a_static_def_made_above_the_loop_that_passes_it_is_one_key_in_that_loop() -> None:
    # `energy` is made once per size, above the loop over seeds: one object, one key, on every seed. Its own
    # loop (over sizes) makes another per size, from that size's couplings: whether two sizes are one program is
    # not shown (a guess, --preview only), and the loop over seeds is not the one that rebuilds it.
    assert shown(STATIC_DEF_ABOVE_THE_LOOP) == []
    found = [f for f in check_source(HEADER + textwrap.dedent(STATIC_DEF_ABOVE_THE_LOOP), "module.py") if f.code == "JC105"]
    loop = line_of(STATIC_DEF_ABOVE_THE_LOOP, "    for n in sizes:") + HEADER.count("\n")
    assert [reason.line for f in found for reason in f.evidence.again] == [loop]
    assert compiles_of(STATIC_DEF_ABOVE_THE_LOOP, "run([3], [1.0, 2.0, 3.0])", "optimize") == 1
    assert compiles_of(STATIC_DEF_ABOVE_THE_LOOP, "run([3, 4], [1.0, 2.0])", "optimize") == 2


def test_a_static_def_made_in_the_loop_that_passes_it_is_a_new_key_each_pass() -> None:
    assert (line_of(STATIC_DEF_IN_THE_LOOP, "        out.append(optimize(jnp.ones(3) * seed, energy))"), "JC105") \
        in shown(STATIC_DEF_IN_THE_LOOP)
    assert compiles_of(STATIC_DEF_IN_THE_LOOP, "run([1.0, 2.0, 3.0])", "optimize") == 3


DERIVATIVE = """\
def derivative(f, order):
    for _ in range(order):
        f = jax.grad(f)
    return f
"""

ORDERS = DERIVATIVE + """

def check_orders(z):
    for n in range(3):
        jax.jit(lambda zz, n=n: derivative(jnp.sin, n)(zz))(z)
"""

ORDERS_STATIC = DERIVATIVE + """

@functools.partial(jax.jit, static_argnums=1)
def nth(zz, n):
    return derivative(jnp.sin, n)(zz)


def check_orders(z):
    for n in range(3):
        nth(z, n)
"""

SCALES = """\
def check_scales(z):
    for n in range(3):
        jax.jit(lambda zz: zz * n)(z)
"""

SCALES_PASSED = """\
@jax.jit
def scale(zz, k):
    return zz * k


def check_scales(z):
    for n in range(3):
        scale(z, n)
"""


def test_an_integer_loop_variable_handed_to_a_function_is_not_assumed_to_be_data() -> None:
    # `n` is a derivative order: three programs, however the jit is arranged (kept, with `n` static: still three).
    assert shown(ORDERS) == []
    assert (line_of(ORDERS, "        jax.jit(lambda zz, n=n: derivative(jnp.sin, n)(zz))(z)"), "JC104") in check(ORDERS)
    assert compiles_of(ORDERS, "check_orders(jnp.float32(0.5))", "<lambda>") == 3
    assert compiles_of(ORDERS_STATIC, "check_orders(jnp.float32(0.5))", "nth") == 3


def test_an_integer_loop_variable_used_in_arithmetic_is_data() -> None:
    assert (line_of(SCALES, "        jax.jit(lambda zz: zz * n)(z)"), "JC104") in shown(SCALES)
    assert compiles_of(SCALES, "check_scales(jnp.ones(3))", "<lambda>") == 3
    assert compiles_of(SCALES_PASSED, "check_scales(jnp.ones(3))", "scale") == 1


NUMBERS_BOUND_TWICE = """\
def energy(gamma, points):
    return jax.jit(lambda p: p * gamma)(points)


gammas = jnp.linspace(0.1, 0.2, 3)
first = [energy(g, jnp.ones(3)) for g in gammas]

gammas = jnp.linspace(0.3, 0.4, 3)
second = [energy(g, jnp.ones(3)) for g in gammas]
"""

NUMBERS_AS_ARGUMENTS = """\
def scaled(p, gamma):
    return p * gamma


scaled_jit = jax.jit(scaled)
gammas = jnp.linspace(0.1, 0.2, 3)
first = [scaled_jit(jnp.ones(3), g) for g in gammas]

gammas = jnp.linspace(0.3, 0.4, 3)
second = [scaled_jit(jnp.ones(3), g) for g in gammas]
"""


def test_a_loop_over_a_name_every_binding_of_which_holds_numbers_passes_data() -> None:
    # `gammas` is bound twice (two notebook cells), to numbers both times: each pass bakes another number into
    # the same program, which an argument would share.
    lam = line_of(NUMBERS_BOUND_TWICE, "    return jax.jit(lambda p: p * gamma)(points)")
    assert shown(NUMBERS_BOUND_TWICE) == [(lam, "JC104")]
    assert compiles_running(NUMBERS_BOUND_TWICE, "<lambda>") == 6
    assert compiles_running(NUMBERS_AS_ARGUMENTS, "scaled") == 1


FIT = """\
def fit(scale, flux):
    @jax.jit
    def step(p):
        return p * scale + jnp.sum(flux)
    out = jnp.zeros(())
    for _ in range(2):
        out = step(out)
    return out
"""

SELECTED_PER_PASS = FIT + """

def calibrate(scale, flux_all, niter):
    for it in range(niter):
        msel = (flux_all > it) & (flux_all < 10.0)
        members = flux_all[msel]
        fit(scale, members)
"""

SCALED_PER_PASS = FIT + """

def calibrate(scale, flux_all, niter):
    for it in range(niter):
        fit(scale, flux_all * it)
"""

SCALED_AS_ARGUMENT = """\
@jax.jit
def step(p, scale, flux):
    return p * scale + jnp.sum(flux)


def calibrate(scale, flux_all, niter):
    for it in range(niter):
        out = jnp.zeros(())
        for _ in range(2):
            out = step(out, scale, flux_all * it)
"""


def test_an_array_selected_by_a_mask_made_on_each_pass_may_change_size() -> None:
    # Each pass selects the members its mask keeps: another size, another program, whatever is hoisted. Only the
    # guess is left (--preview).
    decorator = line_of(SELECTED_PER_PASS, "    @jax.jit")
    assert shown(SELECTED_PER_PASS) == []
    assert (decorator, "JC105") in check(SELECTED_PER_PASS)
    assert compiles_of(SELECTED_PER_PASS, "calibrate(2.0, jnp.arange(5.0), 3)", "step") == 3
    # The same loop handing on an array of one size: the same program on each pass, which an argument shares.
    assert shown(SCALED_PER_PASS) == [(decorator, "JC105")]
    assert compiles_of(SCALED_PER_PASS, "calibrate(2.0, jnp.arange(5.0), 3)", "step") == 3
    assert compiles_of(SCALED_AS_ARGUMENT, "calibrate(2.0, jnp.arange(5.0), 3)", "step") == 1


def test_a_callable_built_in_steps_in_a_loop_is_read_as_what_it_is_built_from() -> None:
    # `g = partial(...)`, then `g = jax.vmap(g)`, then `g = jax.jit(g)` on each pass: the name is bound anew on each
    # pass, but only to what it is built from, which the loop does not change: the same computation each pass.
    body = """\
        def sweep(xs):
            out = []
            for flag in (True, False):
                g = partial(scale, factor=2.0)
                g = jax.vmap(g)
                g = jax.jit(g)
                out.append(g(xs))
            return out
        """
    assert shown(body) == [(5, "JC102")]
    assert compiles_of(body, "sweep(jnp.ones((3, 2)))", "scale") == 2  # one program, compiled on each pass
    hoisted = body.replace("            for flag in (True, False):\n                g = partial(scale, factor=2.0)\n"
                           "                g = jax.vmap(g)\n                g = jax.jit(g)\n",
                           "            g = jax.jit(jax.vmap(partial(scale, factor=2.0)))\n"
                           "            for flag in (True, False):\n")
    assert hoisted != body
    assert shown(hoisted) == []
    assert compiles_of(hoisted, "sweep(jnp.ones((3, 2)))", "scale") == 1
    # Built from what the loop changes (another shape each pass): another program each pass, quiet.
    shaped = body.replace("partial(scale, factor=2.0)", "partial(jnp.tile, reps=2 if flag else 3)")
    assert shown(shaped) == []
    assert compiles_of(shaped, "sweep(jnp.ones((3, 2)))", "tile") == 2  # two programs
    # Carried from pass to pass (`g = jax.vmap(g)` of the last pass's `g`): another function each pass, quiet.
    carried = body.replace("                g = partial(scale, factor=2.0)\n", "").replace(
        "            out = []\n", "            out = []\n            g = partial(scale, factor=2.0)\n")
    assert shown(carried) == []
