"""A factory that returns ``jax.jit(...)`` of a function it makes hands out a new wrapper, and a new cache key, on
every call. Its callers decide whether that costs anything: a product used where it is made, again and again,
compiles the same computation each time; one kept (cached by argument, stored in a table) is built once.
jax's compile count decides every case here.
"""

from __future__ import annotations

import textwrap

from jitcheck.lint.check import check_source
from jitcheck.lint.prefilter import possible
from tests.lint.checks.support import HEADER, check, compiles_of, shown

FACTORY = """\
def make_step(scale):
    def step(x):
        return x * scale
    batched = jax.vmap(step)
    return jax.jit(batched)


def make_named(scale):
    def step(x):
        return x * scale
    wrapped = jax.jit(step)
    return wrapped
"""

USED_AT_ONCE = FACTORY + """

def apply(x):
    fn = make_step(2.0)
    return fn(x)


def apply_named(x):
    return make_named(2.0)(x)


def run(xs):
    return [apply(x) for x in xs]


def run_named(xs):
    return [apply_named(x) for x in xs]
"""

HOISTED = FACTORY + """

def run(xs):
    fn = make_step(2.0)
    return [fn(x) for x in xs]
"""

CACHED = """\
def compile_cache(fn):
    return functools.lru_cache(maxsize=None)(fn)


@compile_cache
def make_step(scale):
    def step(x):
        return x * scale
    return jax.jit(step)


def apply(x):
    return make_step(2.0)(x)


def run(xs):
    return [apply(x) for x in xs]
"""

STORED = """\
_STEPS = {}


def make_step(scale):
    def step(x):
        return x * scale
    return jax.jit(step)


def apply(scale, x):
    fn = _STEPS.get(scale)
    if fn is None:
        fn = _STEPS[scale] = make_step(scale)
    return fn(x)


def run(xs):
    return [apply(2.0, x) for x in xs]
"""

RETURNS = """\
def make_step(scale):
    def step(x):
        return x * scale
    return jax.jit(step)


def pick(scale, doubled):
    if doubled:
        return make_step(2 * scale)
    return make_step(scale)


def main(x):
    return pick(2.0, False)(x)
"""

XS = "[jnp.ones((2, 3)), jnp.ones((2, 3)), jnp.ones((2, 3))]"


def line_of(body: str, text: str) -> int:
    """The 1-based line of ``text``'s first appearance in ``body``."""
    return body.splitlines().index(text) + 1


def test_a_returned_jit_used_where_it_is_made_in_a_loop_is_reported() -> None:
    found = shown(USED_AT_ONCE)
    assert (line_of(USED_AT_ONCE, "    batched = jax.vmap(step)"), "JC105") in found
    assert (line_of(USED_AT_ONCE, "    wrapped = jax.jit(step)"), "JC105") in found
    assert compiles_of(USED_AT_ONCE, f"run({XS})", "step") == 3
    assert compiles_of(USED_AT_ONCE, f"run_named({XS})", "step") == 3
    assert compiles_of(HOISTED, f"run({XS})", "step") == 1


def test_the_prefilter_lets_a_returned_jit_through() -> None:
    # The prefilter (Python's ast) must not drop what the analysis reports: `return jax.jit(...)` and
    # `wrapped = jax.jit(...); return wrapped` both reach it, with nothing else in the file to let them through.
    for factory, maker in ((FACTORY.split("\n\n\ndef make_named")[0], "make_step"),
                           ("def make_named" + FACTORY.split("def make_named")[1], "make_named")):
        source = f"{factory}\n\ndef run(xs):\n    return [{maker}(2.0)(x) for x in xs]\n"
        assert shown(source), source
        assert possible(HEADER + textwrap.dedent(source)), source


def test_a_returned_jit_built_once_by_its_driver_is_not_reported() -> None:
    assert shown(HOISTED) == []


def test_a_factory_under_a_decorator_named_for_caching_is_not_reported() -> None:
    assert check(CACHED) == []
    assert compiles_of(CACHED, f"run({XS})", "step") == 1


def test_a_product_stored_in_a_table_is_not_reported() -> None:
    # `fn = _STEPS[scale] = make_step(scale)` keeps the product, though `apply` also calls it: one compile for the
    # whole loop.
    assert check(STORED) == []
    assert compiles_of(STORED, f"run({XS})", "step") == 1


def test_two_returns_of_one_function_are_one_run_of_the_factory() -> None:
    # A run of `pick` returns once: its two `return make_step(...)` are one build per call of `pick`, and `main`
    # calls it once.
    assert check(RETURNS) == []
    assert compiles_of(RETURNS, "main(jnp.ones(3))", "step") == 1


WITH_ITS_INDICES = """\
def make_gather(mask):
    keep = [i for i, m in enumerate(mask) if m]

    def gather(v):
        return v[jnp.array(keep)]

    gather_jit = jax.jit(gather)
    return gather_jit, tuple(keep)


def kept(x):
    fn, indices = make_gather((1, 0, 1))
    return fn(x), indices


def run(xs):
    return [kept(x) for x in xs]
"""


def test_a_jit_returned_with_what_goes_with_it_and_unpacked_where_made_is_reported() -> None:
    # `return gather_jit, tuple(keep)` unpacked into `fn, indices` and called at once: a new wrapper per call of
    # `kept`, three compiles of one program for three calls; the prefilter lets it through as well.
    line = line_of(WITH_ITS_INDICES, "    gather_jit = jax.jit(gather)")
    assert shown(WITH_ITS_INDICES) == [(line, "JC105")]
    assert possible(HEADER + textwrap.dedent(WITH_ITS_INDICES))
    assert compiles_of(WITH_ITS_INDICES, f"run({XS})", "gather") == 3
    hoisted = WITH_ITS_INDICES.replace("    return [kept(x) for x in xs]",
                                       "    fn, _ = make_gather((1, 0, 1))\n    return [fn(x) for x in xs]")
    assert shown(hoisted) == [] and compiles_of(hoisted, f"run({XS})", "gather") == 1


BESIDE_A_DRIVER = """\
def make_step(dt):
    @jax.jit
    def step(x):
        return x - dt * x
    return step


def advance(x, dt):
    return make_step(dt)(x)


def evolve(x, dt, n):
    step = make_step(dt)
    for _ in range(n):
        x = step(x)
    return x
"""


def test_a_product_used_at_once_beside_a_driver_that_builds_it_once_is_a_guess_on_its_own_caller() -> None:
    # `evolve` builds the step once for its loop (amortised); `advance` builds it on every call and calls it at once.
    # Only `advance` builds it again, and only if it is called again: a public function, so a guess (--preview),
    # where the driver's one build does not count as a second call site that can run.
    line = line_of(BESIDE_A_DRIVER, "    @jax.jit")
    assert (line, "JC105") in check(BESIDE_A_DRIVER)
    assert shown(BESIDE_A_DRIVER) == []
    assert compiles_of(BESIDE_A_DRIVER, "[advance(x, 0.1) for x in " + XS + "]", "step") == 3
    assert compiles_of(BESIDE_A_DRIVER, "evolve(jnp.ones((2, 3)), 0.1, 3)", "step") == 1
    (finding,) = check_source(HEADER + textwrap.dedent(BESIDE_A_DRIVER), "module.py")
    assert finding.evidence.again[0].text.endswith("from `advance`")
    assert finding.evidence.unproven == ("that `advance` is called more than once: its callers are not in this file",)
