"""Each static rule and each exemption, on small modules checked in-process."""

from __future__ import annotations

import textwrap

import pytest

from jitcheck.lint.check import check_source


def codes(source: str, **options: object) -> list[tuple[int, str]]:
    """(line, code) of every finding in ``source``."""
    found = check_source(textwrap.dedent(source), "module.py", **options)  # type: ignore[arg-type]
    return [(f.line, f.code) for f in found]


HEADER = """\
import dataclasses
import functools
from functools import partial
import jax
import jax.numpy as jnp
import numpy as np
from jax.tree_util import Partial
from jitcheck import NodeDefinition

def scale(x, factor):
    return x * factor
"""


def check(body: str) -> list[tuple[int, str]]:
    """Findings in ``body`` (appended to HEADER), with lines counted from the body's first line."""
    offset = HEADER.count("\n")
    return [(line - offset, code) for line, code in codes(HEADER + textwrap.dedent(body))]


TRUE_POSITIVES = {
    "bound method jitted in a method": (
        """\
        class Trainer:
            def step(self, x):
                return x
            def run(self, x):
                return jax.jit(self.step)(x)
        """,
        [(5, "JC101")],
    ),
    "bound method of a local instance, in a loop": (
        """\
        class Model:
            def apply(self, x):
                return x
        model = Model()
        for batch in range(3):
            jax.jit(model.apply)(batch)
        """,
        [(6, "JC101")],
    ),
    "bound method as a node body": (
        """\
        class Stage:
            def run(self, x):
                return x
            def node(self):
                return NodeDefinition(self.run, inputs=("x",), outputs=("y",))
        """,
        [(5, "JC101")],
    ),
    "bound method inherited from a class in the file": (
        """\
        class Base:
            def step(self, x):
                return x
        class Child(Base):
            def run(self, x):
                return jax.jit(self.step)(x)
        """,
        [(6, "JC101")],
    ),
    "functools.partial jitted per call": (
        """\
        def run(x):
            return jax.jit(functools.partial(scale, factor=2.0))(x)
        """,
        [(2, "JC102")],
    ),
    "partial as a node body, module level": (
        """\
        node = NodeDefinition(partial(scale, factor=2.0), inputs=("x",), outputs=("y",))
        """,
        [(1, "JC102")],
    ),
    "partial bound to a local name, jitted": (
        """\
        def run(x):
            f = partial(scale, factor=2.0)
            return jax.jit(f)(x)
        """,
        [(3, "JC102")],
    ),
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
    "jax.tree_util.Partial spelled in full, as a node body": (
        """\
        node = NodeDefinition(jax.tree_util.Partial(scale, 2.0), inputs=("x",), outputs=("y",))
        """,
        [(1, "JC103")],
    ),
    "lambda jitted in a loop": (
        """\
        for b in range(3):
            jax.jit(lambda x: x * 2)(b)
        """,
        [(2, "JC104")],
    ),
    "lambda as a node body": (
        """\
        node = NodeDefinition(lambda x: x, inputs=("x",), outputs=("y",))
        """,
        [(1, "JC104")],
    ),
    "nested def jitted per call": (
        """\
        def train_step(x, lr):
            def update(p):
                return p - lr
            return jax.jit(update)(x)
        """,
        [(4, "JC105")],
    ),
    "nested def under @jax.jit, called where built": (
        """\
        def evaluate(x, w):
            @jax.jit
            def score(v):
                return v * w
            return score(x)
        """,
        [(2, "JC105")],
    ),
    "nested def under @partial(jax.jit, ...)": (
        """\
        def evaluate(x, n):
            @partial(jax.jit, static_argnums=1)
            def score(v, k):
                return v * k
            return score(x, n)
        """,
        [(2, "JC105")],
    ),
    "aliased jit: from jax import jit as j": (
        """\
        from jax import jit as j
        def run(x):
            return j(lambda v: v)(x)
        """,
        [(3, "JC104")],
    ),
    "pmap, equinox and flax wrappers": (
        """\
        import equinox as eqx
        from flax import nnx
        def run(x):
            a = jax.pmap(lambda v: v)(x)
            b = eqx.filter_jit(lambda v: v)(x)
            return nnx.jit(lambda v: v)(x)
        """,
        [(4, "JC104"), (5, "JC104"), (6, "JC104")],
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
    "node settings": (
        """\
        @dataclasses.dataclass
        class Options:
            depth: int
        NodeDefinition(scale, inputs=("x",), outputs=("y",), settings={
            "sizes": [1, 2],
            "mean": jnp.zeros(3),
            "options": Options(2),
            "fn": partial(scale, factor=1),
        })
        NodeDefinition(scale, ("x",), ("y",), dict(mask={1, 2}))
        """,
        [(5, "JC202"), (6, "JC201"), (7, "JC203"), (8, "JC102"), (10, "JC202")],
    ),
}


@pytest.mark.parametrize("name", list(TRUE_POSITIVES))
def test_true_positive(name: str) -> None:
    body, expected = TRUE_POSITIVES[name]
    assert check(body) == expected


@pytest.mark.parametrize("name", list(TRUE_POSITIVES))
def test_prefilter_lets_every_true_positive_through(name: str) -> None:
    from jitcheck.lint.prefilter import possible

    assert possible(HEADER + textwrap.dedent(TRUE_POSITIVES[name][0]))


def test_prefilter_skips_modules_without_candidates() -> None:
    from jitcheck.lint.prefilter import possible

    assert not possible("import numpy as np\nx = np.ones(3)\n")
    assert not possible("import jax\n@jax.jit\ndef f(x):\n    return x\ng = jax.jit(f)\n")
    assert not possible("import jax\ndef f(x):\n    return x\ndef run(x):\n    return jax.jit(f)(x)\n")
    assert not possible("import jax\ndef make(lr):\n    def u(p):\n        return p - lr\n    return jax.jit(u)\n")
    assert possible("import jax\ndef run(x):\n    return jax.jit(lambda v: v)(x)\n")
    assert possible("from jax import jit\ndef broken(:\n")  # unparsable by ast: left to libcst


TRUE_NEGATIVES = {
    "constructor-time jit of a bound method": """\
        class Model:
            def __init__(self):
                self.f = jax.jit(self.apply)
                self.g = jax.jit(lambda x: x)
            def __post_init__(self):
                self.h = jax.jit(self.apply)
            def setup(self):
                self.k = jax.jit(partial(scale, factor=2))
            def apply(self, x):
                return x
        """,
    "cached builders run once per argument": """\
        class Model:
            def apply(self, x):
                return x
            @functools.cached_property
            def compiled(self):
                return jax.jit(self.apply).lower(1.0)
        @functools.lru_cache
        def build(n):
            return jax.jit(lambda x: x * n)(1.0)
        """,
    "module attribute and stored function attribute": """\
        class Model:
            def __init__(self):
                self.activation = jax.nn.relu
            def run(self, x):
                a = jax.jit(jax.nn.relu)(x)
                b = jax.jit(jnp.linalg.norm)(x)
                return jax.jit(self.activation)(a + b)
        """,
    "staticmethod and classmethod": """\
        class Ops:
            @staticmethod
            def double(x):
                return 2 * x
            @classmethod
            def make(cls, x):
                return x
            def run(self, x):
                return jax.jit(self.double)(x) + jax.jit(self.make)(x)
        """,
    "module-level function jitted in a loop": """\
        for b in range(3):
            jax.jit(scale)(b, 2)
        """,
    "module-level partial decorator": """\
        @partial(jax.jit, static_argnums=(1,))
        def g(x, n):
            return x * n
        @functools.partial(jax.jit, static_argnames="n")
        def h(x, n):
            return x * n
        """,
    "module-level jit of a lambda or partial (built once)": """\
        square = jax.jit(lambda x: x * x)
        double = jax.jit(partial(scale, factor=2.0))
        """,
    "factory: the jitted closure is returned": """\
        def make_step(lr):
            def update(p):
                return p - lr
            return jax.jit(update)
        def make_other(lr):
            @jax.jit
            def update(p):
                return p - lr
            return update
        """,
    "build amortised over a loop": """\
        def fit(params, batches, lr):
            step = jax.jit(lambda p, b: p - lr * b)
            for b in batches:
                params = step(params, b)
            return params
        """,
    "closure of an outer function, jitted in an inner one": """\
        def outer(f):
            def do(x):
                return f(x)
            def wrapper(x):
                return jax.jit(do)(x)
            return wrapper
        """,
    "inside a jitted function (runs once per trace)": """\
        @jax.jit
        def outer(x):
            return jax.jit(lambda v: v + 1)(x)
        """,
    "entry points and tests run once": """\
        def main():
            return jax.jit(lambda v: v)(1.0)
        def test_scale():
            @jax.jit
            def f(v):
                return v
            assert f(1.0) == 1.0
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
    "a local function named jit is not jax.jit": """\
        def jit(f):
            return f
        def run(x):
            return jit(lambda v: v)(x)
        """,
    "a shadowed partial": """\
        def run(x):
            partial = lambda f, **kw: f
            return jax.jit(partial(scale, factor=2))(x)
        """,
    "ValuePartial and good node settings": """\
        from jitcheck import ValuePartial
        NodeDefinition(ValuePartial(scale, factor=2.0), inputs=("x",), outputs=("y",), settings={"sizes": (1, 2), "name": "a"})
        """,
    "lists that are traced arguments, not static": """\
        step = jax.jit(scale, static_argnums=1)
        def run(x):
            return step([1, 2], 3) + jax.jit(scale)(x, [1, 2])
        """,
}


@pytest.mark.parametrize("name", list(TRUE_NEGATIVES))
def test_true_negative(name: str) -> None:
    assert check(TRUE_NEGATIVES[name]) == []


def test_noqa_bare_and_coded() -> None:
    body = """\
    def run(x):
        a = jax.jit(lambda v: v)(x)  # noqa
        b = jax.jit(lambda v: v)(x)  # noqa: JC104
        c = jax.jit(lambda v: v)(x)  # noqa: JC101
        d = jax.jit(lambda v: v)(x)  # NOQA:lambda
        return a + b + c + d
    """
    assert check(body) == [(4, "JC104")]


def test_configured_graph_constructor_and_jit_wrapper() -> None:
    source = """\
    from functools import partial
    from mylib import Node, compile

    def f(x, n):
        return x

    node = Node(partial(f, n=1), ("x",), ("y",), {"n": [1]})
    step = compile(f, static_argnums=1)

    def run(x):
        return step(x, [1])
    """
    assert codes(source) == []
    assert codes(source, graph_constructors=["mylib.Node"], jit_wrappers=["mylib.compile"]) == [
        (7, "JC102"),
        (7, "JC202"),
        (11, "JC202"),
    ]


def test_messages_come_from_the_catalogue() -> None:
    from jitcheck import rules

    found = check_source("import jax\nclass A:\n    def f(self, x):\n        return x\n    def g(self, x):\n        return jax.jit(self.f)(x)\n", "m.py")
    assert len(found) == 1
    finding = found[0]
    expected = rules.BOUND_METHOD.format(subject="self.f", position="the function jitted by `jax.jit` on every call of `A.g`")
    assert finding.message == expected
    assert finding.help == rules.BOUND_METHOD.format_help()
    assert (finding.line, finding.column) == (6, 24)
    assert finding.render() == rules.format_diagnostic("m.py", 6, 24, "JC101", expected, finding.help)
    assert finding.render().startswith("m.py:6:24: JC101 bound method `self.f` used as the function jitted by")
