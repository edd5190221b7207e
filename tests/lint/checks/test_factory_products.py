"""A jitted ``def`` a function returns, alone or kept in the object it returns, is that function's product.

It is built once per call of the factory, so it is rebuilt for the same computation only where a caller uses the
product where it makes it, again and again: in a loop, or at two sites whose drivers do not each amortise their
one build over a loop of their own. jax's compile count decides every case here.
"""

from __future__ import annotations

from tests.lint.checks.support import DECAY_FACTORY, check, compiles_of, shown

FACTORIES = """\
import collections

Model = collections.namedtuple("Model", ["init", "apply"])


def create_model(scale_by):
    @jax.jit
    def init(x):
        return x * scale_by

    @jax.jit
    def apply(params, x):
        return params + x

    return Model(init, apply)


def create_init(scale_by):
    @jax.jit
    def init(x):
        return x * scale_by
    return init
"""

KEPT = FACTORIES + """

def create_small():
    return create_model(2.0)


def create_large():
    return create_model(3.0)


def test_both():
    small = create_small()
    large = create_large()
    return small, large
"""

USED_IN_A_LOOP = FACTORIES + """

def run(xs):
    return [create_init(2.0)(x) for x in xs]


def run_hoisted(xs):
    init = create_init(2.0)
    return [init(x) for x in xs]
"""

FIELD_USED_IN_A_LOOP = FACTORIES + """

def run(xs):
    out = []
    for x in xs:
        out.append(create_model(2.0).init(x))
    return out
"""

DRIVERS = FACTORIES + """

def fit(xs):
    init = create_init(2.0)
    total = 0.0
    for x in xs:
        total = total + init(x)
    return total


def sample(xs):
    init = create_init(2.0)
    total = 0.0
    for x in xs:
        total = total - init(x)
    return total
"""

XS = "[jnp.ones(3), jnp.ones(3), jnp.ones(3)]"


def line_of(body: str, text: str) -> int:
    """The 1-based line of ``text``'s first appearance in ``body``."""
    return body.splitlines().index(text) + 1


def test_a_product_kept_in_the_object_a_factory_returns_is_not_reported() -> None:
    # Two factories return the model they make, and the one caller that builds both uses neither's jit: nothing
    # is compiled, let alone twice.
    assert shown(KEPT) == []
    assert compiles_of(KEPT, "test_both()", "init") == 0


def test_a_returned_jit_called_at_once_in_a_loop_is_reported_at_its_decorator() -> None:
    decorator = line_of(USED_IN_A_LOOP, "def create_init(scale_by):") + 1
    assert shown(USED_IN_A_LOOP) == [(decorator, "JC105")]
    assert compiles_of(USED_IN_A_LOOP, f"run({XS})", "init") == 3
    assert compiles_of(USED_IN_A_LOOP, f"run_hoisted({XS})", "init") == 1


def test_a_jit_kept_in_a_returned_object_used_at_once_in_a_loop_is_reported() -> None:
    found = shown(FIELD_USED_IN_A_LOOP)
    init = line_of(FIELD_USED_IN_A_LOOP, "def create_model(scale_by):") + 1
    assert (init, "JC105") in found
    assert compiles_of(FIELD_USED_IN_A_LOOP, f"run({XS})", "init") == 3


def test_two_drivers_that_each_build_once_and_loop_are_not_reported() -> None:
    # `fit` and `sample` each compile the product once and use it over their own loop: nothing here runs a
    # driver again, so there is no second compile to save.
    assert shown(DRIVERS) == []
    assert compiles_of(DRIVERS, f"fit({XS})", "init") == 1
    assert compiles_of(DRIVERS, f"sample({XS})", "init") == 1


SAMPLER = FACTORIES + """

class Sampler:
    def __init__(self, scale_by):
        self.scale_by = scale_by

    def fit(self, xs):
        init = create_init(self.scale_by)
        total = 0.0
        for x in xs:
            total = total + init(x)
        return total

    def sample(self, xs):
        init = create_init(self.scale_by)
        total = 0.0
        for x in xs:
            total = total - init(x)
        return total


def sequence(scales, xs):
    return [Sampler(s).fit(xs) + Sampler(s).sample(xs) for s in scales]
"""

DRIVER_AGAIN = DRIVERS + """

def refit(xs):
    return [fit(xs) for _ in range(3)]
"""

DRIVER_HOISTED = FACTORIES + """

def refit(xs):
    init = create_init(2.0)
    return [sum(init(x) for x in xs) for _ in range(3)]
"""


def test_drivers_that_build_from_their_own_inputs_and_run_again_are_a_guess() -> None:
    # Each run of `fit` or `sample` builds the product from its object's setting and loops over it. `sequence` runs
    # them again, on new objects: whether a second run compiles the same computation depends on that setting
    # (`self.scale_by`), which the code does not show. So the finding is a guess, for --preview only.
    decorator = line_of(SAMPLER, "def create_init(scale_by):") + 1
    assert shown(SAMPLER) == []
    assert (decorator, "JC105") in check(SAMPLER)
    # jax: two settings compile two different programs however the code is arranged.
    assert compiles_of(SAMPLER, f"Sampler(2.0).fit({XS})", "init") == 1
    assert compiles_of(SAMPLER, f"sequence([2.0, 3.0], {XS})", "init") == 4


def test_a_driver_that_builds_from_constants_and_runs_again_is_reported() -> None:
    # `refit` runs `fit` three times, and `fit` builds its product from constants only: three compiles of the
    # same program, where building the product once outside `fit` compiles it once.
    decorator = line_of(DRIVER_AGAIN, "def create_init(scale_by):") + 1
    assert (decorator, "JC105") in shown(DRIVER_AGAIN)
    assert compiles_of(DRIVER_AGAIN, f"refit({XS})", "init") == 3
    assert compiles_of(DRIVER_HOISTED, f"refit({XS})", "init") == 1


METHOD_FACTORY = DECAY_FACTORY + """\
    def evolve(self, x):
        return jax.jit(self._make_rhs())(x)


def run(x):
    decay = Decay(2.0)
    for _ in range(3):
        x = decay.evolve(x)
    return x
"""


def test_a_method_factory_jitted_where_it_is_called_is_reported_past_the_prefilter() -> None:
    # `jax.jit(self._make_rhs())` in a method called in a loop: a new function per call (jax: 3 compiles, 1 with
    # the function made once in `__init__`). The ast prefilter must let the module through, as the analysis reads
    # the method's facts from the index; `check` runs it.
    line = METHOD_FACTORY.splitlines().index("        return jax.jit(self._make_rhs())(x)") + 1
    assert check(METHOD_FACTORY) == [(line, "JC703")]
    assert compiles_of(METHOD_FACTORY, "run(jnp.ones(3))", "rhs") == 3
    hoisted = METHOD_FACTORY.replace("        self.rate = rate\n", "        self.rate = rate\n        self.rhs = self._make_rhs()\n") \
        .replace("jax.jit(self._make_rhs())(x)", "jax.jit(self.rhs)(x)")
    assert compiles_of(hoisted, "run(jnp.ones(3))", "rhs") == 1
