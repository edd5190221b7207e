"""Every help line and every fix of the static pass, proved by jax's own compile log.

Each case is a module whose ``run()`` rebuilds a cache key three times: in a loop,
or by being called three times. The test checks that the static pass reports the
rule at that position, that jax compiles three times (``jax_log_compiles``), then
applies the advice (the pass's own ``--fix`` where the rule has one, else the code the
help line spells out, whose key phrase the help must contain) and checks that the
pass is silent and that jax compiles once.
"""

from __future__ import annotations

import logging
import textwrap
from collections.abc import Iterator

import jax
import pytest

from jitcheck.lint.check import Settings, check_source, check_text
from tests.lint.checks.support import DECAY_FACTORY

HEADER = """\
import functools
import jax
import jax.numpy as jnp
from jax.tree_util import Partial
from jitcheck import CallableGraph, NodeDefinition, StatefulFunction

X = jnp.arange(3.0)

def scale(x, factor):
    return x * factor

def apply(x, fn):
    return fn(x)

def loss(x):
    return jnp.sum(jnp.sin(x))

apply_jit = jax.jit(apply, static_argnums=1)
run_graph = jax.jit(lambda graph, values: graph(values), static_argnums=0)

class Model:
    def predict(self, x):
        return x * 2.0
"""

FIX = "fix"
"""The fixed source is the static pass's own ``--fix`` (unsafe fixes included)."""

_DECAY = DECAY_FACTORY + textwrap.dedent("""\
        def step(self, x):
            rhs = self._make_rhs()
            return apply_jit(x, rhs)
    def run():
        decay = Decay(2.0)
        for _ in range(3):
            decay.step(X)
    """)
"""A method factory (``self._make_rhs``) whose new function is a static argument, rebuilt on every ``step``."""

# (rule, position) -> (bad body, fixed body or FIX, a phrase of the help line the fixed body follows)
CASES: dict[tuple[str, str], tuple[str, str, str]] = {
    ("JC101", "jit argument"): (
        """\
        class Runner:
            def step(self, x):
                return x + 1.0
            def run(self):
                for _ in range(3):
                    jax.jit(self.step)(X)
        def run():
            Runner().run()
        """,
        """\
        class Runner:
            def __init__(self):
                self.step_fn = jax.jit(self.step)
            def step(self, x):
                return x + 1.0
            def run(self):
                for _ in range(3):
                    self.step_fn(X)
        def run():
            Runner().run()
        """,
        "build the jitted wrapper once, in `__init__`",
    ),
    ("JC102", "jit argument"): (
        """\
        def run():
            for _ in range(3):
                jax.jit(functools.partial(scale, factor=2.0))(X)
        """,
        """\
        scale_jit = jax.jit(scale, static_argnames="factor")
        def run():
            for _ in range(3):
                scale_jit(X, factor=2.0)
        """,
        "pass the bound values (`factor=2.0`) as arguments on each call, listed in `static_argnames`",
    ),
    ("JC103", "jit argument"): (
        """\
        def run():
            for _ in range(3):
                jax.jit(Partial(scale, factor=2.0))(X)
        """,
        """\
        scale_jit = jax.jit(scale)
        def run():
            for _ in range(3):
                scale_jit(X, factor=2.0)
        """,
        "build the jitted wrapper of the function once (`jax.jit(scale)`",
    ),
    ("JC104", "jit argument"): (
        """\
        def run():
            for _ in range(3):
                jax.jit(lambda x: x * 3.0)(X)
        """,
        FIX,
        "define it once with `def` at module level",
    ),
    ("JC104", "a closure in a loop"): (
        """\
        def run():
            scale = 3.0
            for _ in range(3):
                jax.jit(lambda x: x * scale)(X)
        """,
        """\
        def run():
            scale = 3.0
            triple = lambda x: x * scale
            for _ in range(3):
                jax.jit(triple)(X)
        """,
        "or once where what it reads is fixed (before the loop)",
    ),
    ("JC105", "jit argument"): (
        """\
        def step(x):
            def inner(v):
                return v * 3.0
            return jax.jit(inner)(x)
        def run():
            for _ in range(3):
                step(X)
        """,
        """\
        def inner(v):
            return v * 3.0
        def step(x):
            return jax.jit(inner)(x)
        def run():
            for _ in range(3):
                step(X)
        """,
        "move `inner` to module level",
    ),
    ("JC105", "decorator"): (
        """\
        def step(x):
            @jax.jit
            def inner(v):
                return v * 3.0
            return inner(x)
        def run():
            for _ in range(3):
                step(X)
        """,
        """\
        @jax.jit
        def inner(v):
            return v * 3.0
        def step(x):
            return inner(x)
        def run():
            for _ in range(3):
                step(X)
        """,
        "move `inner` to module level",
    ),
    ("JC107", "jit argument"): (
        """\
        def evaluate(m, batches):
            for batch in batches:
                jax.jit(m.predict)(batch)
        def load():
            return MODELS.setdefault("m", Model())
        MODELS = {}
        def run():
            evaluate(load(), [X, X, X])
        """,
        """\
        def evaluate(m, batches):
            predict = jax.jit(m.predict)
            for batch in batches:
                predict(batch)
        def load():
            return MODELS.setdefault("m", Model())
        MODELS = {}
        def run():
            evaluate(load(), [X, X, X])
        """,
        "build the jitted wrapper once, before the loop (`predict = jax.jit(m.predict)`)",
    ),
    ("JC107", "a step run again"): (
        """\
        class Stepper:
            def __init__(self, model):
                self.model = model
            def step(self, x):
                return jax.jit(self.model.predict)(x)
        def load():
            return MODELS.setdefault("m", Model())
        MODELS = {}
        def run():
            stepper = Stepper(load())
            for _ in range(3):
                stepper.step(X)
        """,
        """\
        class Stepper:
            def __init__(self, model):
                self.model = model
                self._predict = jax.jit(self.model.predict)
            def step(self, x):
                return self._predict(x)
        def load():
            return MODELS.setdefault("m", Model())
        MODELS = {}
        def run():
            stepper = Stepper(load())
            for _ in range(3):
                stepper.step(X)
        """,
        "build the jitted wrapper once, in `__init__` (`self._predict = jax.jit(self.model.predict)`)",
    ),
    ("JC105", "jitted by a function nested in its definer"): (
        """\
        class Fitter:
            def _validation_loss(self, params, batches):
                def loss_fn(b):
                    return jnp.mean(b * params)
                def body_fn(b):
                    return jax.jit(loss_fn)(b)
                for b in batches:
                    body_fn(b)
        def run():
            fitter = Fitter()
            for _ in range(3):
                fitter._validation_loss(X, [X, X])
        """,
        """\
        def loss_fn(b, params):
            return jnp.mean(b * params)
        loss_jit = jax.jit(loss_fn)
        class Fitter:
            def _validation_loss(self, params, batches):
                def body_fn(b):
                    return loss_jit(b, params)
                for b in batches:
                    body_fn(b)
        def run():
            fitter = Fitter()
            for _ in range(3):
                fitter._validation_loss(X, [X, X])
        """,
        "move `loss_fn` to module level and pass what it captures as arguments",
    ),
    ("JC701", "jit argument"): (
        """\
        def run():
            for _ in range(3):
                jax.jit(jax.grad(loss))(X)
        """,
        """\
        grad_loss = jax.jit(jax.grad(loss))
        def run():
            for _ in range(3):
                grad_loss(X)
        """,
        "build `jax.grad(loss)` once, at module level",
    ),
    ("JC702", "jit argument"): (
        """\
        def step(x):
            return StatefulFunction(loss)(x)
        def run():
            for _ in range(3):
                step(X)
        """,
        """\
        loss_fn = StatefulFunction(loss)
        def step(x):
            return loss_fn(x)
        def run():
            for _ in range(3):
                step(X)
        """,
        "build the StatefulFunction once (at module level",
    ),
    ("JC703", "jit argument"): (
        """\
        def make_step(factor):
            def step(x):
                return x * factor
            return step
        def run():
            for _ in range(3):
                jax.jit(make_step(2.0))(X)
        """,
        """\
        def make_step(factor):
            def step(x):
                return x * factor
            return step
        step = jax.jit(make_step(2.0))
        def run():
            for _ in range(3):
                step(X)
        """,
        "call `make_step` once, before the loop, at module level or in `__init__`",
    ),
    ("JC703", "static argument"): (
        _DECAY,
        _DECAY.replace("        self.rate = rate\n", "        self.rate = rate\n        self.rhs = self._make_rhs()\n").replace(
            "        rhs = self._make_rhs()\n        return apply_jit(x, rhs)", "        return apply_jit(x, self.rhs)"),
        "call `self._make_rhs` once, before the loop, at module level or in `__init__`",
    ),
    ("JC102", "static argument"): (
        """\
        def run():
            for _ in range(3):
                apply_jit(X, functools.partial(scale, factor=2.0))
        """,
        FIX,
        "use `jitcheck.ValuePartial(scale, factor=2.0)`",
    ),
    ("JC103", "static argument"): (
        """\
        def run():
            for _ in range(3):
                apply_jit(X, Partial(scale, factor=2.0))
        """,
        FIX,
        "use `jitcheck.ValuePartial(scale, factor=2.0)`",
    ),
    ("JC104", "static argument"): (
        """\
        def run():
            for _ in range(3):
                apply_jit(X, lambda v: v * 3.0)
        """,
        FIX,
        "define it once with `def` at module level",
    ),
    ("JC206", "static argument"): (
        """\
        class Scale:
            def __init__(self, factor):
                self.factor = factor
            def __call__(self, v):
                return v * self.factor
        def run():
            for _ in range(3):
                apply_jit(X, Scale(3.0))
        """,
        """\
        import dataclasses
        @dataclasses.dataclass(frozen=True)
        class Scale:
            factor: float
            def __call__(self, v):
                return v * self.factor
        def run():
            for _ in range(3):
                apply_jit(X, Scale(3.0))
        """,
        "make `Scale` a frozen dataclass",
    ),
    ("JC105", "static argument"): (
        """\
        def step(x):
            def triple(v):
                return v * 3.0
            return apply_jit(x, triple)
        def run():
            for _ in range(3):
                step(X)
        """,
        """\
        def triple(v):
            return v * 3.0
        def step(x):
            return apply_jit(x, triple)
        def run():
            for _ in range(3):
                step(X)
        """,
        "move `triple` to module level",
    ),
    ("JC101", "node body"): (
        """\
        class Scaler:
            def triple(self, x):
                return x * 3.0
        def run():
            for _ in range(3):  # a bound method equals another of the same receiver only: here a new one each time
                run_graph(CallableGraph({"n": NodeDefinition(Scaler().triple, ("x",), ("y",))}), {"x": X})
        """,
        """\
        def triple(x):
            return x * 3.0
        def run():
            for _ in range(3):
                run_graph(CallableGraph({"n": NodeDefinition(triple, ("x",), ("y",))}), {"x": X})
        """,
        "pass a module-level function",
    ),
    ("JC102", "node body"): (
        """\
        def run():
            for _ in range(3):
                run_graph(CallableGraph({"n": NodeDefinition(functools.partial(scale, factor=2.0), ("x",), ("y",))}), {"x": X})
        """,
        FIX,
        "use `jitcheck.ValuePartial(scale, factor=2.0)`",
    ),
    ("JC104", "node body"): (
        """\
        def run():
            for _ in range(3):
                run_graph(CallableGraph({"n": NodeDefinition(lambda x: x * 3.0, ("x",), ("y",))}), {"x": X})
        """,
        FIX,
        "define it once with `def` at module level",
    ),
    ("JC105", "node body"): (
        """\
        def step(x):
            def triple(v):
                return v * 3.0
            return run_graph(CallableGraph({"n": NodeDefinition(triple, ("x",), ("y",))}), {"x": x})
        def run():
            for _ in range(3):
                step(X)
        """,
        """\
        def triple(v):
            return v * 3.0
        def step(x):
            return run_graph(CallableGraph({"n": NodeDefinition(triple, ("x",), ("y",))}), {"x": x})
        def run():
            for _ in range(3):
                step(X)
        """,
        "move `triple` to module level",
    ),
    ("JC102", "setting"): (
        """\
        def run():
            for _ in range(3):
                node = NodeDefinition(apply, ("x",), ("y",), {"fn": functools.partial(scale, factor=2.0)})
                run_graph(CallableGraph({"n": node}), {"x": X})
        """,
        FIX,
        "use `jitcheck.ValuePartial(scale, factor=2.0)`",
    ),
    ("JC207", "static argument"): (
        """\
        @functools.partial(jax.jit, static_argnums=1)
        def decay(x, step):
            return x * 0.5 ** step
        def run():
            for i in range(3):
                decay(X, i)
        """,
        """\
        @jax.jit
        def decay(x, step):
            return x * 0.5 ** step
        def run():
            for i in range(3):
                decay(X, i)
        """,
        "make `step` a traced argument of `decay`",
    ),
    ("JC104", "setting"): (
        """\
        def run():
            for _ in range(3):
                node = NodeDefinition(apply, ("x",), ("y",), {"fn": lambda v: v * 3.0})
                run_graph(CallableGraph({"n": node}), {"x": X})
        """,
        FIX,
        "define it once with `def` at module level",
    ),
}


class Compiles(logging.Handler):
    """Counts jax's "Compiling ..." log records (``jax_log_compiles``)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("Compiling "):
            self.count += 1


@pytest.fixture
def compiles() -> Iterator[Compiles]:
    handler = Compiles()
    logger = logging.getLogger("jax")
    previous = jax.config.jax_log_compiles
    jax.config.update("jax_log_compiles", True)
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        jax.config.update("jax_log_compiles", previous)


def compiles_of(source: str, counter: Compiles) -> int:
    """How many times jax compiles during one call of the module's ``run()`` (the module's own set-up excluded)."""
    namespace: dict[str, object] = {"__name__": "help_case"}
    exec(compile(source, "help_case.py", "exec", dont_inherit=True), namespace)  # its own module: no future of ours
    run = namespace["run"]
    assert callable(run)
    counter.count = 0
    run()
    return counter.count


def fixed_by_the_pass(source: str, code: str) -> str:
    checked = check_text(source, "help_case.py", Settings(fix="unsafe", select=frozenset({code})))
    assert checked.fixed_source is not None, f"the pass offers no fix for {code}"
    return checked.fixed_source


@pytest.mark.parametrize("case", list(CASES), ids=[f"{code}-{position}" for code, position in CASES])
def test_help_and_fix_bring_compiles_from_three_to_one(case: tuple[str, str], compiles: Compiles) -> None:
    code, _ = case
    bad_body, fixed_body, phrase = CASES[case]
    bad = HEADER + textwrap.dedent(bad_body)
    findings = [f for f in check_source(bad, "help_case.py") if f.code == code]
    assert len(findings) == 1, check_source(bad, "help_case.py")
    assert phrase in findings[0].help, findings[0].help
    assert compiles_of(bad, compiles) == 3
    fixed = fixed_by_the_pass(bad, code) if fixed_body == FIX else HEADER + textwrap.dedent(fixed_body)
    assert [f.code for f in check_source(fixed, "help_case.py")] == []
    assert compiles_of(fixed, compiles) == 1


def test_value_partial_does_not_fix_a_rebuilt_jit(compiles: Compiles) -> None:
    """Why the jitted help changed: a ValuePartial handed to a rebuilt ``jax.jit`` still compiles every time."""
    source = HEADER + textwrap.dedent("""\
        from jitcheck import ValuePartial
        def run():
            for _ in range(3):
                jax.jit(ValuePartial(scale, factor=2.0))(X)
        """)
    assert compiles_of(source, compiles) == 3
    (finding,) = check_source(HEADER + "def run():\n    return jax.jit(functools.partial(scale, factor=2.0))(X)\n", "m.py")
    assert "ValuePartial(" not in finding.help.split(";")[0] and finding.fix is None


def test_the_same_lambda_written_again_in_code_that_runs_once_is_hoisted_to_one_def(compiles: Compiles) -> None:
    """A test that runs once passes the same lambda three times as a static argument: three compiles of one
    computation. The fix hoists the three to one module-level def (three defs would still compile three times)."""
    bad = HEADER + textwrap.dedent("""\
        def test_three():
            apply_jit(X, lambda v: v * 3.0)
            apply_jit(X, lambda v: v * 3.0)
            apply_jit(X, lambda v: v * 3.0)
        run = test_three
        """)
    findings = check_source(bad, "help_case.py")
    assert [(f.line, f.code) for f in findings] == [(line, "JC104") for line in (25, 26, 27)]
    assert "define it once with `def` at module level" in findings[0].help
    assert compiles_of(bad, compiles) == 3
    fixed = fixed_by_the_pass(bad, "JC104")
    assert fixed.count("def _test_three_lambda") == 1
    assert [f.code for f in check_source(fixed, "help_case.py")] == []
    assert compiles_of(fixed, compiles) == 1
