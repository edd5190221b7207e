"""Properties of the static pass on generated modules: it never crashes, and a fix always parses.

Two sources of modules: hypothesmith (arbitrary valid Python, from the grammar) with a
few jit snippets appended, and our own strategy that composes the patterns the rules
and fixes are about (wrappers, positions, contexts) in random combinations.
"""

from __future__ import annotations

import hypothesmith
import libcst as cst
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jitcheck.lint.check import Settings, check_text
from jitcheck.lint.fixes import comments

SNIPPET = """
import jax
from functools import partial
from jitcheck import NodeDefinition

def _f(x, n):
    return x

for _i in range(2):
    jax.jit(lambda x: x + 1)(_i)  # a comment
node = NodeDefinition(partial(_f, n=1), inputs=("x",), outputs=("y",), settings={"n": [1]})
"""


def assert_sound(source: str) -> None:
    checked = check_text(source, "generated.py", Settings(fix="unsafe", select=frozenset({"JC102", "JC103", "JC104", "JC202", "JC203"})))
    assert not checked.internal_error, checked.findings
    if checked.fixed_source is not None:
        cst.parse_module(checked.fixed_source)  # a fix always parses
        compile(checked.fixed_source, "fixed.py", "exec")
        assert not comments(source) - comments(checked.fixed_source)
        again = check_text(checked.fixed_source, "generated.py", Settings(fix="unsafe", select=frozenset({"JC102", "JC103", "JC104", "JC202", "JC203"})))
        assert again.fixed_source is None  # idempotent: nothing left to fix


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_arbitrary_modules_never_crash(source: str) -> None:
    try:
        compile(source, "generated.py", "exec")
    except (SyntaxError, ValueError):
        return  # the grammar allows a few things the compiler refuses
    checked = check_text(source, "generated.py", Settings())
    assert not checked.internal_error, checked.findings
    assert_sound(source.rstrip("\\\n") + "\n" + SNIPPET)


WRAPPERS = ["jax.jit", "jax.pmap", "jit_alias", "eqx.filter_jit", "StatefulFunction"]
CALLABLES = [
    "lambda x: x * 2",
    "lambda x, k=1: x + k",
    "lambda x: x + captured",
    "partial(scale, factor=2)",
    "functools.partial(scale, 3)",
    "Partial(scale, 2.0)",
    "Partial(scale, jnp.ones(3))",
    "self.method",
    "inner",
    "scale",
    "jax.nn.relu",
    "jax.grad(scale)",
    "jax.vmap(jax.value_and_grad(partial(scale, factor=2)))",
    "eqx.filter_grad(self.method)",
    "functools.wraps(scale)(lambda x: x)",
]
VALUES = ["[1, 2]", "{1, 2}", "{'a': 1}", "(1, [2])", "jnp.zeros(3)", "Config(1)", "Frozen(1)", "Shape()", "(1, 2)", "'s'", "[]", "[3]"]
CONTEXTS = ["module", "loop", "function", "method", "init"]

PRELUDE = """\
import dataclasses
import functools
from functools import partial
import equinox as eqx
import jax
import jax.numpy as jnp
from jax import jit as jit_alias
from jax.tree_util import Partial
from jitcheck import NodeDefinition, StatefulFunction

def scale(x, factor):
    return x * factor

@dataclasses.dataclass
class Config:
    n: int

@dataclasses.dataclass(frozen=True)
class Frozen:
    n: int

class Shape:
    def __eq__(self, other):
        return True

step = jax.jit(scale, static_argnums=1)
"""


def _indent(lines: list[str], depth: int) -> list[str]:
    return ["    " * depth + line for line in lines]


@st.composite
def programs(draw: st.DrawFn) -> str:
    chunks = [PRELUDE]
    for number in range(draw(st.integers(1, 4))):
        context = draw(st.sampled_from(CONTEXTS))
        wrapper = draw(st.sampled_from(WRAPPERS))
        fun = draw(st.sampled_from(CALLABLES))
        value = draw(st.sampled_from(VALUES))
        body = [
            "captured = 1",
            "def inner(x):",
            "    return x",
            f"y = {wrapper}({fun})(x)  # call {number}",
            f"z = step(x, {value})",
            f"node = NodeDefinition({fun}, inputs=('x',), outputs=('y',), settings={{'v': {value}}})",
        ]
        if context == "module":
            chunks.append("\n".join(["x = 1.0", *body]))
        elif context == "loop":
            chunks.append("\n".join(["for x in range(2):", *_indent(body, 1)]))
        elif context == "function":
            chunks.append("\n".join([f"def run{number}(x):", *_indent(body, 1), "    return y"]))
        else:
            name = "__init__" if context == "init" else f"run{number}"
            chunks.append("\n".join([
                f"class C{number}:",
                "    def method(self, x):",
                "        return x",
                f"    def {name}(self, x=1.0):",
                *_indent(body, 2),
            ]))
    return "\n\n\n".join(chunks) + "\n"


def assert_prefilter_conservative(source: str) -> None:
    """The ast prefilter never hides a finding that the full libcst analysis makes."""
    from jitcheck.lint.analysis import analyze

    module = cst.parse_module(source)
    full = [(f.line, f.column, f.rule.code) for f in analyze(module, source, prefilter=False).findings]
    filtered = [(f.line, f.column, f.rule.code) for f in analyze(module, source).findings]
    assert filtered == full


def assert_pruning_keeps_findings(source: str) -> None:
    """A check that parses only the regions findings can depend on finds what the whole module's check finds."""
    from jitcheck.lint.check import check_text
    from jitcheck.lint.settings import Settings

    assert check_text(source, "m.py", Settings()).findings == check_text(source, "m.py", Settings(), prune=False).findings


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs())
def test_composed_jax_modules_fix_soundly(source: str) -> None:
    compile(source, "generated.py", "exec")
    assert_prefilter_conservative(source)
    assert_pruning_keeps_findings(source)
    assert_sound(source)
