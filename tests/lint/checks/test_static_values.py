"""Static arguments and values (jitcheck.lint.checks.static_arguments, .static_values): JC2xx.

Each rule and each exemption of what a jitted function's static arguments are
handed, on small modules checked in-process.
"""

from __future__ import annotations

from tests.lint.checks.support import negative_test, positive_tests

TRUE_POSITIVES = {
    "tree_util.Partial as a static argument": (
        """\
        def apply(fn, x):
            return fn(x)
        step = jax.jit(apply, static_argnums=0)
        def run(x):
            return step(Partial(scale, 2.0), x)
        """,
        [(5, "JC103")],
    ),
    "StatefulFunction static arguments, by keyword and by position": (
        """\
        from jitcheck.stateful import StatefulFunction
        class Model:
            def __init__(self):
                self.sf = StatefulFunction(self.apply, static_argnums=1)
                self.sg = StatefulFunction(self.apply, static_argnames="mode")
            def apply(self, x, mode):
                return x
            def run(self, x):
                return self.sf(x, [1, 2]) + self.sg(x, mode={"a": 1}) + self.sg(x, {3})
        sf = StatefulFunction(scale, (1,))
        def run(x):
            return sf(x, jnp.zeros(3))
        se = StatefulFunction(scale, (1,), (("batch", 4),))  # the seed's order: axis_env third
        def run_env(x):
            return se(x, [1, 2])
        """,
        [(9, "JC202"), (9, "JC202"), (9, "JC202"), (12, "JC201"), (15, "JC202")],
    ),
    "list, dict, set and comprehension as static arguments": (
        """\
        step = jax.jit(scale, static_argnums=1)
        def run(x):
            step(x, [1, 2])
            step(x, {"a": 1})
            step(x, {1, 2})
            step(x, [i for i in range(3)])
            step(x, list(range(3)))
            step(x, (1, [2]))
        """,
        [(3, "JC202"), (4, "JC202"), (5, "JC202"), (6, "JC202"), (7, "JC202"), (8, "JC202")],
    ),
    "static_argnames, including the name of a static_argnums position": (
        """\
        step = jax.jit(scale, static_argnames=("factor",))
        other = jax.jit(scale, static_argnums=(1,))
        def run(x):
            step(x, factor=[1])
            step(x, [1])
            other(x, factor=[1])
        """,
        [(4, "JC202"), (5, "JC202"), (6, "JC202")],
    ),
    "arrays as static arguments": (
        """\
        step = jax.jit(scale, static_argnums=1)
        WEIGHTS = np.ones(3)
        def run(x):
            step(x, jnp.array([1, 2]))
            step(x, np.zeros(3))
            step(x, jax.random.normal(jax.random.key(0), (3,)))
            step(x, WEIGHTS)
        """,
        [(4, "JC201"), (5, "JC201"), (6, "JC201"), (7, "JC201")],
    ),
    "static arguments of a direct call and of a decorated def": (
        """\
        @partial(jax.jit, static_argnums=(1,))
        def g(x, n):
            return x
        @jax.jit(static_argnames="n")
        def h(x, n):
            return x
        def run(x):
            jax.jit(scale, static_argnums=1)(x, [2])
            g(x, [1])
            h(x, n={1})
        """,
        [(8, "JC202"), (9, "JC202"), (10, "JC202")],
    ),
    "static argument of partial(jax.jit, ...) applied at once": (
        """\
        step = partial(jax.jit, static_argnums=1)(scale)
        def run(x):
            return step(x, [1, 2])
        """,
        [(3, "JC202")],
    ),
    "static argument via self.attribute set in __init__": (
        """\
        class Runner:
            def __init__(self):
                self.step = jax.jit(scale, static_argnums=1)
            def run(self, x):
                return self.step(x, [1, 2])
        """,
        [(5, "JC202")],
    ),
    "non-frozen dataclass and __eq__ without __hash__": (
        """\
        @dataclasses.dataclass
        class Config:
            width: int
        class Shape:
            def __eq__(self, other):
                return True
        step = jax.jit(scale, static_argnums=1)
        def run(x):
            step(x, Config(3))
            step(x, Shape())
        """,
        [(9, "JC203"), (10, "JC204")],
    ),
}

test_true_positive, test_prefilter_lets_every_true_positive_through = positive_tests(TRUE_POSITIVES)

TRUE_NEGATIVES = {
    "module-level partial decorator": """\
        @partial(jax.jit, static_argnums=(1,))
        def g(x, n):
            return x * n
        @functools.partial(jax.jit, static_argnames="n")
        def h(x, n):
            return x * n
        """,
    "hashable static values": """\
        @dataclasses.dataclass(frozen=True)
        class Config:
            width: int
        @dataclasses.dataclass(eq=False)
        class Handle:
            n: int
        class Shape:
            def __eq__(self, other):
                return True
            def __hash__(self):
                return 1
        step = jax.jit(scale, static_argnums=1)
        def run(x, n):
            step(x, (1, 2))
            step(x, Config(3))
            step(x, Handle(3))
            step(x, Shape())
            step(x, frozenset({1}))
            step(x, n)
            step([1, 2], 3)
        """,
    "lists that are traced arguments, not static": """\
        step = jax.jit(scale, static_argnums=1)
        def run(x):
            return step([1, 2], 3) + jax.jit(scale)(x, [1, 2])
        """,
}

test_true_negative = negative_test(TRUE_NEGATIVES)
