"""Graph nodes (jitcheck.lint.checks.nodes): a node's body and settings are cache keys.

Each rule and each exemption of ``NodeDefinition`` bodies and settings, on small
modules checked in-process.
"""

from __future__ import annotations

from tests.lint.checks.support import negative_test, positive_tests

TRUE_POSITIVES = {
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
    "partial as a node body, module level": (
        """\
        node = NodeDefinition(partial(scale, factor=2.0), inputs=("x",), outputs=("y",))
        """,
        [(1, "JC102")],
    ),
    "jax.tree_util.Partial spelled in full, as a node body": (
        """\
        node = NodeDefinition(jax.tree_util.Partial(scale, 2.0), inputs=("x",), outputs=("y",))
        """,
        [(1, "JC103")],
    ),
    "lambda as a node body": (
        """\
        node = NodeDefinition(lambda x: x, inputs=("x",), outputs=("y",))
        """,
        [(1, "JC104")],
    ),
    "a transformation as a node body, and static positions through a transformation": (
        """\
        node = NodeDefinition(jax.grad(scale), inputs=("x", "factor"), outputs=("g",))
        step = jax.jit(jax.vmap(scale), static_argnames="factor")
        def run(x):
            return step(x, [1, 2])
        """,
        [(1, "JC701"), (4, "JC202")],
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

test_true_positive, test_prefilter_lets_every_true_positive_through = positive_tests(TRUE_POSITIVES)

TRUE_NEGATIVES = {
    "ValuePartial and good node settings": """\
        from jitcheck import ValuePartial
        NodeDefinition(ValuePartial(scale, factor=2.0), inputs=("x",), outputs=("y",), settings={"sizes": (1, 2), "name": "a"})
        """,
}

test_true_negative = negative_test(TRUE_NEGATIVES)
