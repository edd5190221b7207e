"""The rules about rebuilt wrappers agree with jax: a finding where jax really retraces, none where it does not.

Each case is a small module with a ``run(x)`` that a program calls again and again.
The test runs it under ``jax.monitoring`` (after one warm-up call, three more calls)
and checks the static pass on the same source: the codes it reports must be the
expected ones, and there must be a finding exactly when jax traced again.
"""

from __future__ import annotations

from collections.abc import Iterator

import jax
import jax.monitoring
import jax.numpy as jnp
import pytest

from jitcheck.lint.check import check_source

TRACE = "/jax/core/compile/jaxpr_trace_duration"

HEADER = """\
import functools
import jax
import jax.numpy as jnp
from jitcheck import StatefulFunction

def loss(x, s=1.0):
    return jnp.sum(jnp.sin(x) * s)
"""

CASES: dict[str, tuple[str, list[str]]] = {
    "jit of a module-level function": ("def run(x):\n    return jax.jit(loss)(x)\n", []),
    "jit of jax.grad, built per call": ("def run(x):\n    return jax.jit(jax.grad(loss))(x)\n", ["JC701"]),
    "jit of jax.vmap of jax.grad": ("def run(x):\n    return jax.jit(jax.vmap(jax.grad(loss)))(x[None])\n", ["JC701"]),
    "jit of jax.checkpoint": ("def run(x):\n    return jax.jit(jax.checkpoint(loss))(x)\n", ["JC701"]),
    "jit of jax.jacrev": ("def run(x):\n    return jax.jit(jax.jacrev(loss))(x)\n", ["JC701"]),
    "jit of jax.named_call": ("def run(x):\n    return jax.jit(jax.named_call(loss, name='n'))(x)\n", ["JC701"]),
    "a module-level gradient jitted per call": ("G = jax.grad(loss)\ndef run(x):\n    return jax.jit(G)(x)\n", []),
    "a jitted gradient built once": ("step = jax.jit(jax.grad(loss))\ndef run(x):\n    return step(x)\n", []),
    "grad of a jitted function": ("def run(x):\n    return jax.grad(jax.jit(loss))(x)\n", []),
    "a partial inside jax.value_and_grad": (
        "def run(x):\n    return jax.jit(jax.value_and_grad(functools.partial(loss, s=2.0)))(x)\n", ["JC102"]),
    "a lambda inside jax.vmap": ("def run(x):\n    return jax.jit(jax.vmap(lambda v: jnp.sin(v)))(x)\n", ["JC104"]),
    "a StatefulFunction built per call": ("def run(x):\n    return StatefulFunction(loss)(x)\n", ["JC702"]),
    "a StatefulFunction built once": ("sf = StatefulFunction(loss)\ndef run(x):\n    return sf(x)\n", []),
    "a factory returning a lambda or a nested def, jitted per call": (
        "def make(n):\n    if n <= 0:\n        return lambda c: c\n"
        "    def scaled(c):\n        return jnp.sin(c) * n\n    return scaled\n"
        "def run(x):\n    return jax.jit(make(2))(x)\n",
        ["JC703"],
    ),
    "a factory's closures calling a lambda it jits, the factory called per call": (
        "def make():\n    f = jax.jit(lambda v: jnp.sin(v))\n    return lambda x: f(x)\n"
        "def run(x):\n    return make()(x)\n",
        ["JC104"],
    ),
    "a helper jitting its parameter, handed a new lambda by each call": (
        "def apply(fn, x):\n    return jax.jit(fn)(x)\n"
        "def run(x):\n    return apply(lambda v: jnp.sin(v), x)\n",
        ["JC104"],
    ),
    "a helper jitting its parameter, handed a nested def by each call": (
        "def apply(fn, x, jitting=True):\n    fn = jax.jit(fn) if jitting else fn\n    return fn(x)\n"
        "def run(x):\n    def f(v):\n        return jnp.sin(v)\n    return apply(f, x)\n",
        ["JC105"],
    ),
    "a helper jitting its parameter, handed a module-level function": (
        "def apply(fn, x):\n    return jax.jit(fn)(x)\n"
        "def run(x):\n    return apply(loss, x)\n",
        [],
    ),
    "a factory's closures calling a lambda it jits, the factory called once": (
        "def make():\n    f = jax.jit(lambda v: jnp.sin(v))\n    return lambda x: f(x)\n"
        "step = make()\ndef run(x):\n    return step(x)\n",
        [],
    ),
    "a StatefulFunction of a bound method, per call": (
        "class T:\n"
        "    def step(self, x):\n        return jnp.sin(x)\n"
        "    def run(self, x):\n        return StatefulFunction(self.step)(x)\n"
        "t = T()\n"
        "def run(x):\n    return t.run(x)\n",
        ["JC101"],
    ),
    "a StatefulFunction of a bound method, built in __init__": (
        "class T:\n"
        "    def __init__(self):\n        self.fn = StatefulFunction(self.step)\n"
        "    def step(self, x):\n        return jnp.sin(x)\n"
        "    def run(self, x):\n        return self.fn(x)\n"
        "t = T()\n"
        "def run(x):\n    return t.run(x)\n",
        [],
    ),
}

BRAINSTATE_CASES: dict[str, tuple[str, list[str]]] = {
    "brainstate's StatefulFunction built per call": (
        "import brainstate\ndef run(x):\n    return brainstate.transform.StatefulFunction(loss)(x)\n", ["JC702"]),
    "brainstate's StatefulFunction built once": (
        "import brainstate\nsf = brainstate.transform.StatefulFunction(loss)\ndef run(x):\n    return sf(x)\n", []),
    "a def under @brainstate.transform.jit redefined per call": (
        "import brainstate\ndef run(x):\n    @brainstate.transform.jit\n    def f(v):\n        return jnp.sin(v)\n"
        "    return f(x)\n", ["JC105"]),
    "a def under @brainstate.transform.jit defined once": (
        "import brainstate\n@brainstate.transform.jit\ndef f(v):\n    return jnp.sin(v)\ndef run(x):\n    return f(x)\n", []),
}


class Traces:
    """Counts jax's trace events while registered."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, event: str, duration_secs: float, **_: object) -> None:
        if event == TRACE:
            self.count += 1


@pytest.fixture
def traces() -> Iterator[Traces]:
    counter = Traces()
    jax.monitoring.register_event_duration_secs_listener(counter)
    try:
        yield counter
    finally:
        jax.monitoring.unregister_event_duration_listener(counter)


def retraces(source: str, traces: Traces) -> int:
    """How many traces three more calls of the module's ``run`` cost after a first one."""
    namespace: dict[str, object] = {"__name__": "retrace_case"}
    exec(compile(source, "retrace_case.py", "exec"), namespace)
    run = namespace["run"]
    assert callable(run)
    x = jnp.arange(3.0)
    jax.block_until_ready(run(x))
    traces.count = 0
    for _ in range(3):
        jax.block_until_ready(run(x))
    return traces.count


def agree(body: str, expected: list[str], traces: Traces) -> None:
    source = HEADER + body
    codes = [f.code for f in check_source(source, "retrace_case.py")]
    assert codes == expected
    count = retraces(source, traces)
    assert (count > 0) == bool(codes), f"jax traced {count} times in 3 calls; the static pass reported {codes}"


@pytest.mark.parametrize("name", list(CASES))
def test_findings_match_jax_retraces(name: str, traces: Traces) -> None:
    agree(*CASES[name], traces)


@pytest.mark.parametrize("name", list(BRAINSTATE_CASES))
def test_brainstate_findings_match_its_retraces(name: str, traces: Traces) -> None:
    agree(*BRAINSTATE_CASES[name], traces)
