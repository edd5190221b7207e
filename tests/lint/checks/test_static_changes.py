"""A static argument that takes a new value on every call (jitcheck.lint.checks.static_changes): JC207.

Each case is judged by jax's own compile count: a counter or a loop index passed
as a static argument that the function uses only in arithmetic compiles once per
value, and once in all when it is traced; one that sets a shape or a Python
branch is another program per value, which no restructuring compiles once.
"""

from __future__ import annotations

import textwrap

from jitcheck.lint.check import check_source
from tests.lint.checks.support import HEADER, check, compiles_of, negative_test, positive_tests

AGENT = """\
class Agent:
    def __init__(self):
        self.n_updates = 0
        self.delay = 3

    def train(self, x):
        out = self._train(x, self.delay, (self.n_updates + 1) % self.delay)
        self.n_updates += 1
        return out

    @classmethod
    @partial(jax.jit, static_argnames=["cls", "delay", "offset"])
    def _train(cls, x, delay, offset):
        return jax.lax.cond((offset + 1) % delay == 0, lambda v: v + 1.0, lambda v: v, x)

def run():
    agent = Agent()
    for _ in range(6):
        agent.train(jnp.ones(2))
"""

LOOP = """\
@partial(jax.jit, static_argnums=1)
def decay(x, step):
    return x * 0.99 ** step

def run():
    x = jnp.ones(2)
    for i in range(3):
        x = decay(x, i)
    return x
"""

TRUE_POSITIVES = {
    "a counter of the class, as a static argument of its jitted classmethod": (AGENT, [(12, "JC207")]),
    "a range loop's index, as a static argument used in arithmetic": (LOOP, [(1, "JC207")]),
    "a counter changed by `self.n = self.n + 1`, through a name the function computes from it": (
        """\
        class Stepper:
            def __init__(self):
                self.step = 0
            def __call__(self, x):
                y = self._update(x, step=self.step)
                self.step = self.step + 1
                return y
            @partial(jax.jit, static_argnames=("self", "step"))
            def _update(self, x, step):
                rate = 0.1 / (1 + step)
                return jnp.multiply(x, rate)
        """,
        [(8, "JC207")],
    ),
    "a wrapper built by `jax.jit(f, static_argnums=...)`, called with a range index": (
        """\
        def shift(x, k):
            return x + k
        shifted = jax.jit(shift, static_argnums=1)
        def run(x):
            for k in range(3):
                x = shifted(x, k)
            return x
        """,
        [(3, "JC207")],
    ),
    "a `while` loop's count, through `partial(jax.jit, ...)` applied to a def": (
        """\
        def shift(x, k):
            return jnp.add(x, k)
        shifted = partial(jax.jit, static_argnames="k")(shift)
        def run(x):
            step = 0
            while step < 3:
                x = shifted(x, k=step)
                step += 1
            return x
        """,
        [(3, "JC207")],
    ),
    "enumerate's index": (
        """\
        @partial(jax.jit, static_argnums=1)
        def weigh(x, i):
            return x * (i + 1)
        def run(batches):
            out = []
            for i, b in enumerate(batches):
                out.append(weigh(b, i))
            return out
        """,
        [(1, "JC207")],
    ),
    "a counter read through a name the method binds from it": (
        """\
        class Agent:
            def __init__(self):
                self.updates = 0
            def train(self, x):
                offset = (self.updates + 1) % 3
                self.updates += 1
                return self._train(x, offset)
            @partial(jax.jit, static_argnums=(0, 2))
            def _train(self, x, offset):
                return jnp.where(offset == 0, x + 1.0, x)
        """,
        [(8, "JC207")],
    ),
    "a range index in a comprehension": (
        """\
        @partial(jax.jit, static_argnums=1)
        def weigh(x, i):
            return x * (i + 1)
        def run(x):
            return [weigh(x, i) for i in range(3)]
        """,
        [(1, "JC207")],
    ),
}

TRUE_NEGATIVES = {
    "the index sets a shape: another program per value": """\
        @partial(jax.jit, static_argnums=1)
        def padded(x, n):
            return x + jnp.zeros(n)
        def run(x):
            for i in range(3):
                padded(x, i)
        """,
    "the index picks a Python branch": """\
        @partial(jax.jit, static_argnums=1)
        def branch(x, n):
            if n > 1:
                return x
            return x * 2
        def run(x):
            for i in range(3):
                branch(x, i)
        """,
    "the index counts a Python loop": """\
        @partial(jax.jit, static_argnums=1)
        def power(x, n):
            for _ in range(n):
                x = x * x
            return x
        def run(x):
            for i in range(3):
                power(x, i)
        """,
    "the index goes to a function the pass cannot see into": """\
        from elsewhere import helper
        @partial(jax.jit, static_argnums=1)
        def call(x, n):
            return helper(x, n)
        def run(x):
            for i in range(3):
                call(x, i)
        """,
    "an attribute nothing counts with": """\
        class Agent:
            def __init__(self, delay):
                self.delay = delay
            def train(self, x):
                return self._train(x, self.delay)
            @partial(jax.jit, static_argnames="delay")
            def _train(self, x, delay):
                return x * delay
        """,
    "a name bound twice: not known to hold the counter": """\
        class Agent:
            def __init__(self):
                self.updates = 0
            def train(self, x, fixed):
                offset = (self.updates + 1) % 3
                if fixed:
                    offset = 0
                self.updates += 1
                return self._train(x, offset)
            @partial(jax.jit, static_argnums=(0, 2))
            def _train(self, x, offset):
                return jnp.where(offset == 0, x + 1.0, x)
        """,
    "a loop over items, not a count": """\
        @partial(jax.jit, static_argnums=1)
        def decay(x, rate):
            return x * rate
        def run(x):
            for rate in (0.5, 0.9):
                decay(x, rate)
        """,
}

test_true_positive, test_prefilter_lets_every_true_positive_through = positive_tests(TRUE_POSITIVES)
test_true_negative = negative_test(TRUE_NEGATIVES)


def test_a_cycling_counter_compiles_once_per_value_and_once_when_traced() -> None:
    # offsets 1, 2, 0, 1, 2, 0: three programs that are one computation
    assert compiles_of(AGENT, "run()", "_train") == 3
    traced = AGENT.replace('static_argnames=["cls", "delay", "offset"]', 'static_argnames=["cls", "delay"]')
    assert compiles_of(traced, "run()", "_train") == 1
    assert check(traced) == []


def test_the_help_makes_the_loop_index_traced_and_jax_compiles_once() -> None:
    found = check_source(HEADER + textwrap.dedent(LOOP), "module.py")
    assert [f.code for f in found] == ["JC207"]
    assert "make `step` a traced argument of `decay`" in found[0].help
    assert compiles_of(LOOP, "run()", "decay") == 3
    fixed = LOOP.replace("@partial(jax.jit, static_argnums=1)", "@jax.jit")
    assert compiles_of(fixed, "run()", "decay") == 1
    assert check(fixed) == []


def test_a_shape_index_is_another_program_each_time_whatever_is_done() -> None:
    body = textwrap.dedent(TRUE_NEGATIVES["the index sets a shape: another program per value"])
    assert compiles_of(body, "run(jnp.ones(1))", "padded") == 3


def test_a_while_loop_s_count_compiles_once_per_value_and_once_when_traced() -> None:
    body = TRUE_POSITIVES["a `while` loop's count, through `partial(jax.jit, ...)` applied to a def"][0]
    assert compiles_of(textwrap.dedent(body), "run(jnp.ones(2))", "shift") == 3
    traced = textwrap.dedent(body).replace('partial(jax.jit, static_argnames="k")(shift)', "jax.jit(shift)")
    assert compiles_of(traced, "run(jnp.ones(2))", "shift") == 1
    assert check(traced) == []


def test_the_evidence_names_the_kind_of_loop_it_saw() -> None:
    for name, kind in (("a range index in a comprehension", "comprehension"), ("enumerate's index", "`for` loop"),
                       ("a `while` loop's count, through `partial(jax.jit, ...)` applied to a def", "`while` loop")):
        found = check_source(HEADER + textwrap.dedent(TRUE_POSITIVES[name][0]), "module.py")
        assert [reason.kind for reason in found[0].evidence.again] == ["passed", "loop"]
        assert f"iterations of the {kind} at line" in found[0].evidence.again[1].text, found[0].evidence.again[1].text
        assert f"every iteration of the {kind} at line" in found[0].message


def test_the_evidence_names_the_counter_and_the_arithmetic() -> None:
    found = check_source(HEADER + textwrap.dedent(AGENT), "module.py")
    evidence = found[0].evidence
    offset = HEADER.count("\n")
    assert found[0].line - offset == 12  # the decorator that makes it static: where the fix is made
    assert [(r.kind, r.line - offset) for r in evidence.again] == [("passed", 7), ("counter", 8)]
    assert [(r.kind, r.line - offset) for r in evidence.same] == [("data-only", 14)]
    assert found[0].confidence == "high"
    assert "`self.n_updates`" in found[0].message and "only as a number" in found[0].message
