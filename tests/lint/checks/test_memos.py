"""A wrapper kept on the instance by a hand-written cache is built once per object (jitcheck.lint.memos).

Each case is made-up code whose findings are asserted, then run: jax's own count of the compiles
of ``step`` decides. A method that builds a nested jit on every call, called in a loop, compiles
each time and is found; the same method guarded by what the object keeps (an early ``return
self._step``, or ``if self._step is None:`` around the build) compiles once and is not.
"""

from __future__ import annotations

import pytest

from tests.lint.checks.support import compiles_of, shown

REBUILT = """
class Model:
    def __init__(self, scale):
        self.scale = scale
        self._step = None

    def make_step(self):
        @jax.jit
        def step(x):
            return x * self.scale
        return step

    def run(self, x):
        return self.make_step()(x)

def main():
    model = Model(2.0)
    for _ in range(3):
        model.run(jnp.ones(3))
"""

EARLY_RETURN = REBUILT.replace("""    def make_step(self):
        @jax.jit""", """    def make_step(self):
        \"\"\"The step, built on the first call.\"\"\"
        if self._step is not None:
            return self._step
        @jax.jit""").replace("""            return x * self.scale
        return step""", """            return x * self.scale
        self._step = step
        return step""")

BLOCK = REBUILT.replace("""    def make_step(self):
        @jax.jit
        def step(x):
            return x * self.scale
        return step""", """    def make_step(self):
        if self._step is None:
            @jax.jit
            def step(x):
                return x * self.scale
            self._step = step
        return self._step""")

HASATTR = REBUILT.replace("""    def make_step(self):
        @jax.jit""", """    def make_step(self):
        if hasattr(self, "_kept"):
            return self._kept
        @jax.jit""").replace("""            return x * self.scale
        return step""", """            return x * self.scale
        self._kept = step
        return step""")


def test_a_method_rebuilding_its_jit_on_every_call_compiles_each_time_and_is_found() -> None:
    assert shown(REBUILT) == [(8, "JC105")]
    assert compiles_of(REBUILT, "main()", "step") == 3


@pytest.mark.parametrize("source", [EARLY_RETURN, BLOCK, HASATTR], ids=["early return", "if None block", "hasattr"])
def test_a_jit_the_object_keeps_after_its_first_build_compiles_once_and_is_not_reported(source: str) -> None:
    assert shown(source) == []
    assert compiles_of(source, "main()", "step") == 1


def test_a_guard_on_another_attribute_than_the_one_set_keeps_nothing() -> None:
    # The early return hands back `_other`, which nothing sets: every call goes on to build the step again.
    wrong = EARLY_RETURN.replace("if self._step is not None:\n            return self._step",
                                 "if self._other is not None:\n            return self._other").replace(
        "self._step = None", "self._step = None\n        self._other = None")
    assert shown(wrong) == [(12, "JC105")]
    assert compiles_of(wrong, "main()", "step") == 3



KEYED = REBUILT.replace("""        self._step = None""", """        self._steps = {}""").replace("""    def make_step(self):
        @jax.jit
        def step(x):
            return x * self.scale
        return step""", """    def make_step(self, key="float32"):
        step = self._steps.get(key)
        if step is None:
            @jax.jit
            def step(x):
                return x * self.scale
            self._steps.setdefault(key, step)
        return step""")


def test_a_jit_kept_in_a_cache_looked_up_by_hand_is_built_once_per_key() -> None:
    # `step = cache.get(key)`, then built and stored only when missing: one build per key (jax: 1 compile for three
    # calls with one key). The same block that builds it without storing it builds it on every call (3 compiles).
    assert shown(KEYED) == []
    assert compiles_of(KEYED, "main()", "step") == 1
    forgets = KEYED.replace("            self._steps.setdefault(key, step)\n", "")
    assert shown(forgets) == [(10, "JC105")]
    assert compiles_of(forgets, "main()", "step") == 3
    by_subscript = KEYED.replace("self._steps.setdefault(key, step)", "self._steps[key] = step")
    assert shown(by_subscript) == []
    assert compiles_of(by_subscript, "main()", "step") == 1
