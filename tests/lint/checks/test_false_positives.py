"""The false-positive patterns of issue 23, each in small made-up code: the default selection stays quiet
where the code shows no repeated compile of the same computation, and still reports the bug beside it."""

from __future__ import annotations

from .support import check, shown


def test_mutually_exclusive_branches_are_not_a_repetition() -> None:
    # One arm of an if/elif chain runs per call of the test: `_check` runs once, whichever arm.
    body = """\
        def _check(f, x):
            return jax.jit(lambda v: f(v) + 1)(x)

        def test_modes(mode):
            if mode == "a":
                _check(jnp.sin, 1.0)
            elif mode == "b":
                _check(jnp.cos, 1.0)
            else:
                _check(jnp.tan, 1.0)
        """
    assert check(body) == []
    # Two calls that both run are two runs, and the message says so by their lines, not as a loop.
    both = body.replace('            elif mode == "b":\n', "")
    assert shown(both) == [(2, "JC104")]


def test_a_jit_only_ever_traced_under_an_outer_transformation_compiles_nothing_of_its_own() -> None:
    body = """\
        def _body(carry, x):
            return jax.jit(lambda c: c + x)(carry), None

        def scanned(xs):
            return jax.lax.scan(_body, 0.0, xs)

        def _inner(x):
            @jax.jit
            def g(v):
                return v * 2
            return g(x)

        @jax.jit
        def outer(x):
            return _inner(x) + _inner(x + 1)

        def _loss(p):
            return jax.jit(lambda q: q ** 2)(p)

        def _twice(p):
            return _loss(p) + _loss(p)

        def fit(p):
            return jax.grad(_twice)(p) + jax.vmap(_loss)(p)

        def _objective(y, args):
            return jax.jit(lambda v: v - args)(y)

        def solve(y0):
            import optimistix
            return optimistix.root_find(_objective, optimistix.Newton(1e-5, 1e-5), y0)
        """
    assert check(body) == []
    # Called eagerly as well, the same helper compiles on its own each time: still reported.
    eager = body + """\

        def eager(ps):
            for p in ps:
                _loss(p)
        """
    assert shown(eager) == [(18, "JC104")]
