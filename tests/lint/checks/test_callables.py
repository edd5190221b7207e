"""Callables in cache-key positions (jitcheck.lint.checks.callables, .jit_sites): JC1xx, JC7xx.

Each rule and each exemption of a jitted or wrapped function, on small modules
checked in-process: bound methods, partials, lambdas, nested defs, factory results,
rebuilt transformations and StatefulFunctions, and the code that runs only once.
"""

from __future__ import annotations

import textwrap

from jitcheck.lint.check import check_source
from tests.lint.checks.support import HEADER, negative_test, positive_tests

TRUE_POSITIVES = {
    "a public driver called in a loop builds again on each call": (
        """\
        def fit(params, batches, lr):
            step = jax.jit(lambda p, b: p - lr * b)
            for b in batches:
                params = step(params, b)
            return params
        def sweep(params, batches):
            for lr in (0.1, 0.01):
                fit(params, batches, lr)
        """,
        [(2, "JC104")],
    ),
    "a public method that builds once and loops: each call of the method (a refit) compiles again": (
        """\
        class Model:
            def fit(self, batches):
                step = jax.jit(lambda p, b: p - b)
                for b in batches:
                    self.p = step(self.p, b)
        """,
        [(3, "JC104")],
    ),
    "a private helper called twice builds again": (
        """\
        def _fit(params, batches):
            step = jax.jit(lambda p, b: p - b)
            for b in batches:
                params = step(params, b)
            return params
        _fit(1.0, [1.0])
        _fit(2.0, [1.0])
        """,
        [(2, "JC104")],
    ),
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
    "partial bound to a local name, jitted": (
        """\
        def run(x):
            f = partial(scale, factor=2.0)
            return jax.jit(f)(x)
        """,
        [(3, "JC102")],
    ),
    "lambda jitted in a loop": (
        """\
        for b in range(3):
            jax.jit(lambda x: x * 2)(b)
        """,
        [(2, "JC104")],
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
    "a partial inside jax.value_and_grad, jitted in a loop": (
        """\
        def loss(p, x, l2):
            return p * x * l2
        for b in range(3):
            jax.jit(jax.value_and_grad(functools.partial(loss, l2=0.1)))(1.0, b)
        """,
        [(4, "JC102")],
    ),
    "bound method, lambda and nested def inside transformations": (
        """\
        class Model:
            def loss(self, p):
                return p
            def run(self, p):
                g = jax.jit(jax.grad(self.loss))(p)
                h = jax.jit(jax.vmap(lambda v: v * 2))(p)
                def inner(v):
                    return v
                k = jax.jit(jax.checkpoint(inner))(p)
                m = jax.jit(jax.jacfwd(jax.remat(partial(scale, factor=2.0))))(p)
                return g + h + k + m
        """,
        [(5, "JC101"), (6, "JC104"), (9, "JC105"), (10, "JC102")],
    ),
    "a jax transformation of a module-level function, rebuilt per call": (
        """\
        from jax.experimental import checkify
        def run(x):
            a = jax.jit(jax.grad(scale))(x, 2.0)
            b = jax.jit(jax.vmap(jax.jacrev(scale)))(x, 2.0)
            c = jax.pmap(jax.named_call(scale, name="s"))(x, 2.0)
            d = jax.jit(checkify.checkify(scale)).lower(x, 2.0)
            g = jax.value_and_grad(scale)
            e = jax.jit(g)(x, 1.0)
            return a, b, c, d, e
        for i in range(3):
            jax.jit(jax.hessian(scale))(i, 2.0)
        """,
        [(3, "JC701"), (4, "JC701"), (5, "JC701"), (6, "JC701"), (8, "JC701"), (11, "JC701")],
    ),
    "brainstate's transformations return a new object per call (a GradientTransform compares by identity)": (
        """\
        import brainstate
        def run(x):
            a = brainstate.transform.jit(brainstate.transform.grad(scale))(x, 2.0)
            b = brainstate.transform.jit(brainstate.transform.vmap(scale))(x, 2.0)
            return jax.jit(brainstate.transform.vector_grad(func=scale))(x, 2.0) + a + b
        def kept(x):
            return brainstate.transform.jit(scale)(x, 2.0)
        """,
        [(3, "JC701"), (4, "JC701"), (5, "JC701")],
    ),
    "equinox: a rebuilt callable inside filter_grad, a fresh receiver, a jax transformation": (
        """\
        import equinox as eqx
        class M:
            def apply(self, x):
                return x
        def run(x):
            a = eqx.filter_jit(eqx.filter_grad(partial(scale, factor=2.0)))(x)
            m = M()
            b = eqx.filter_jit(m.apply)(x)
            return eqx.filter_jit(jax.grad(scale))(x, 1.0)
        """,
        [(6, "JC102"), (8, "JC101"), (9, "JC701")],
    ),
    "functools.wraps is looked through to the function it returns": (
        """\
        def run(x):
            return jax.jit(functools.wraps(scale)(lambda v, f: scale(v, f)))(x, 2.0)
        """,
        [(2, "JC104")],
    ),
    "StatefulFunction built per call: jitcheck's and brainstate's": (
        """\
        import brainstate
        from jitcheck import StatefulFunction
        class Trainer:
            def step(self, x):
                return x
            def train_step(self, x):
                return StatefulFunction(self.step)(x)
            def other(self, x):
                return brainstate.transform.StatefulFunction(partial(scale, factor=2.0))(x)
        def run(x):
            return StatefulFunction(scale)(x, 2.0)
        def run_lambda(x):
            return StatefulFunction(lambda v: v).jaxpr_call_auto(x)
        def run_named(x):
            sf = StatefulFunction(scale)
            return sf(x, 1.0)
        for i in range(3):
            StatefulFunction(jax.grad(scale))(i, 2.0)
        """,
        [(7, "JC101"), (9, "JC102"), (11, "JC702"), (13, "JC104"), (15, "JC702"), (18, "JC702")],
    ),
}

test_true_positive, test_prefilter_lets_every_true_positive_through = positive_tests(TRUE_POSITIVES)

TRUE_NEGATIVES = {
    "a nested def made before the loop and jitted in it: the same function each iteration, a cache hit": """\
        def test_accumulation():
            def train_step(x):
                return x * 2
            for i in range(5):
                jax.jit(train_step)(i)
        """,
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
    "build amortised over a loop, in a private helper that runs once": """\
        def _fit(params, batches, lr):
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
    "transformations built once, or not jitted": """\
        grad_fn = jax.jit(jax.grad(scale))
        G = jax.grad(scale)
        class Model:
            def __init__(self):
                self.g = jax.jit(jax.grad(self.loss))
            def loss(self, p):
                return p
        def make(f):
            return jax.jit(jax.vmap(f))
        def _fit(xs):
            step = jax.jit(jax.value_and_grad(scale))
            for x in xs:
                step(x, 1.0)
        def run(x):
            a = jax.jit(G)(x, 1.0)
            b = jax.grad(jax.jit(scale))(x, 1.0)
            return a + b + jax.grad(scale)(x, 1.0)
        def main():
            return jax.jit(jax.grad(scale))(1.0, 2.0)
        """,
    "equinox transformations and filter_jit compare by value": """\
        import equinox as eqx
        class M:
            def apply(self, x):
                return x
            def loss(self, x):
                return x
            def run(self, x):
                a = eqx.filter_jit(self.apply)(x)
                return a + eqx.filter_jit(eqx.filter_value_and_grad(self.loss))(x)
        def run(x):
            return eqx.filter_jit(eqx.filter_grad(scale))(x, 1.0) + eqx.filter_jit(eqx.filter_vmap(scale))(x, 1.0)
        m = M()
        for b in range(3):
            eqx.filter_jit(m.apply)(b)
        """,
    "StatefulFunction built once, or traced on request": """\
        from jitcheck import StatefulFunction
        sf = StatefulFunction(scale)
        class Trainer:
            def __init__(self):
                self.step_fn = StatefulFunction(self.step)
            def step(self, x):
                return x
            def train_step(self, x):
                return self.step_fn(x) + sf(x, 1.0)
        def make(f):
            return StatefulFunction(f)
        def _fit(xs):
            fn = StatefulFunction(scale)
            for x in xs:
                fn(x, 1.0)
        def cond(f, x):
            return StatefulFunction(f).make_jaxpr(x)
        @jax.jit
        def traced(x):
            return StatefulFunction(scale)(x, 1.0)
        def test_step():
            assert StatefulFunction(scale)(1.0, 2.0) == 2.0
        """,
    "a local function named grad is not jax.grad": """\
        def grad(f):
            return f
        def run(x):
            return jax.jit(grad(scale))(x, 1.0)
        """,
}

test_true_negative = negative_test(TRUE_NEGATIVES)


def test_messages_come_from_the_catalogue() -> None:
    from jitcheck import rules

    found = check_source("import jax\nclass A:\n    def f(self, x):\n        return x\n    def g(self, x):\n        return jax.jit(self.f)(x)\n", "m.py")
    assert len(found) == 1
    finding = found[0]
    expected = rules.BOUND_METHOD.format(
        subject="self.f", position="the function jitted by `jax.jit` on every call of `A.g`, public API whose callers are not in this file")
    assert finding.message == expected
    assert finding.help == rules.BOUND_METHOD.format_help()
    assert (finding.line, finding.column) == (6, 24)
    assert finding.render() == rules.format_diagnostic("m.py", 6, 24, "JC101", expected, finding.help)
    assert finding.render().startswith("m.py:6:24: JC101 bound method `self.f` used as the function jitted by")


def test_transformations_say_the_wrapper_is_rebuilt_and_offer_no_partial_fix() -> None:
    from jitcheck import rules
    from jitcheck.lint.check import Settings, check_text

    source = HEADER + textwrap.dedent("""\
        for b in range(3):
            jax.jit(jax.value_and_grad(functools.partial(scale, factor=2.0)))(1.0)
        def run(x):
            return jax.jit(jax.grad(scale))(x, 2.0)
        def hoisted(x):
            return jax.jit(functools.wraps(scale)(lambda v, f: scale(v, f)))(x, 2.0)
        """)
    partial_in_grad, rebuilt_grad, wrapped_lambda = check_source(source, "m.py")
    assert partial_in_grad.code == "JC102" and partial_in_grad.fix is None
    position = ("the function wrapped by `jax.value_and_grad`, built anew each time and used as "
                "the function jitted by `jax.jit` on every iteration of the `for` loop")
    assert partial_in_grad.message == rules.FUNCTOOLS_PARTIAL.format(
        subject="functools.partial(scale, factor=2.0)", position=position)
    # Jitted (through a rebuilt transformation), a ValuePartial would not help: build the wrapper once.
    assert partial_in_grad.help.startswith(
        rules.FUNCTOOLS_PARTIAL.format_jitted_help(function="scale", bound="`factor=2.0`") + "; ")
    assert "ValuePartial(" not in partial_in_grad.help
    assert "build the `jax.value_and_grad` wrapper once" in partial_in_grad.help
    assert rebuilt_grad.message == rules.TRANSFORMATION_REBUILT.format(
        subject="jax.grad(scale)", position="the function jitted by `jax.jit` on every call of `run`, public API whose callers are not in "
        "this file", transformation="jax.grad")
    assert rebuilt_grad.help == rules.TRANSFORMATION_REBUILT.format_help(subject="jax.grad(scale)")
    # functools.wraps returns the lambda itself: hoisting it fixes the finding.
    assert wrapped_lambda.code == "JC104" and wrapped_lambda.fix == "safe"
    fixed = check_text(source, "m.py", Settings(fix="safe", select=frozenset({"JC104"}), preview=True))
    assert fixed.fixed_count == 1 and fixed.fixed_source is not None
    assert "jax.jit(functools.wraps(scale)(_hoisted_lambda))(x, 2.0)" in fixed.fixed_source
    assert [f.code for f in check_source(fixed.fixed_source, "m.py")] == ["JC102", "JC701"]


def test_stateful_function_messages_come_from_the_catalogue() -> None:
    from jitcheck import rules

    source = "from jitcheck import StatefulFunction\ndef f(x):\n    return x\ndef run(x):\n    return StatefulFunction(f)(x)\n"
    (finding,) = check_source(source, "m.py")
    assert (finding.line, finding.column, finding.code) == (5, 12, "JC702")
    assert finding.message == rules.STATEFUL_FUNCTION_REBUILT.format(
        subject="StatefulFunction(f)", where="on every call of `run`, public API whose callers are not in this file", function="f")
    assert finding.help == rules.STATEFUL_FUNCTION_REBUILT.format_help()


def test_jc102_help_names_the_partial_s_own_function_and_arguments() -> None:
    """The help line spells the partial's function and its bound arguments, as written, in each position."""
    from jitcheck import rules

    source = HEADER + textwrap.dedent("""\
        apply_jit = jax.jit(lambda x, fn: fn(x), static_argnums=1)
        node = NodeDefinition(functools.partial(scale, 3.0), inputs=("x",), outputs=("y",))
        def run(x):
            for _ in range(3):
                apply_jit(x, functools.partial(scale, factor=2.0))
                jax.jit(functools.partial(jnp.clip, a_min=0.0, a_max=1.0))(x)
        """)
    found = [f for f in check_source(source, "m.py") if f.code == "JC102"]
    assert [f.help for f in found] == [
        rules.FUNCTOOLS_PARTIAL.format_help(args="scale, 3.0"),
        rules.FUNCTOOLS_PARTIAL.format_help(args="scale, factor=2.0"),
        rules.FUNCTOOLS_PARTIAL.format_jitted_help(function="jnp.clip", bound="`a_min=0.0`, `a_max=1.0`"),
    ]
    assert "ValuePartial(scale, factor=2.0)" in found[1].help
