"""The static rules' shared behaviour: the prefilter, noqa and configured wrappers, checked in-process.

Each rule family's true positives and negatives are in tests/lint/checks/.
"""

from __future__ import annotations

from tests.lint.checks.support import check, codes


def test_prefilter_skips_modules_without_candidates() -> None:
    from jitcheck.lint.prefilter import possible

    assert not possible("import numpy as np\nx = np.ones(3)\n")
    assert not possible("import jax\n@jax.jit\ndef f(x):\n    return x\ng = jax.jit(f)\n")
    assert not possible("import jax\ndef f(x):\n    return x\ndef run(x):\n    return jax.jit(f)(x)\n")
    assert not possible("import jax\ndef make(lr):\n    def u(p):\n        return p - lr\n    return jax.jit(u)\n")
    assert not possible("import jax\ndef f(x):\n    return x\ng = jax.jit(jax.grad(f))\ndef run(x):\n    return g(x)\n")
    assert possible("import jax\ndef f(x):\n    return x\ndef run(x):\n    return jax.jit(jax.grad(f))(x)\n")
    assert possible("from jitcheck import StatefulFunction as SF\ndef f(x):\n    return x\ndef run(x):\n    return SF(f)(x)\n")
    assert possible("import jax\ndef run(x):\n    return jax.jit(lambda v: v)(x)\n")
    assert possible("from jax import jit\ndef broken(:\n")  # unparsable by ast: left to libcst


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
