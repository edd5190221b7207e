"""The server's project index (jitcheck.server.summaries) summarizes a module as the command line does,
statement by statement, before and after edits, and the same text twice changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from jitcheck.lint import index as lint_index
from jitcheck.server.statements import statements
from jitcheck.server.summaries import Summaries

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "fixtures").rglob("*.py"))
GUARDED = """\
import sys

if sys.version_info >= (3, 11):
    from typing import Self
else:
    from typing_extensions import Self

try:
    import jax
except ImportError:
    jax = None

from pkg.envs import *
from .more import *


class Env:
    def step(self):
        return self


def step(x):
    return x


step = jax.jit(step, static_argnums=0)
"""


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_module_is_summarized_statement_by_statement_as_the_command_line_summarizes_it(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert Summaries().summarize(text) == lint_index.summarize(text)


def test_after_each_edit_the_kept_statement_summaries_give_the_whole_modules_summary() -> None:
    """Guarded imports, a name bound twice (the later binding wins), and every statement removed and doubled in turn."""
    summaries = Summaries()
    assert summaries.summarize(GUARDED) == lint_index.summarize(GUARDED)
    assert summaries.summarize(GUARDED)["functions"]["step"]["jit"] == {"nums": [0], "names": []}
    assert summaries.summarize(GUARDED)["stars"] == ["pkg.envs", ".more"]
    found = statements(GUARDED)
    assert found is not None
    lines = GUARDED.split("\n")
    for statement in found:
        removed = "\n".join(lines[: statement.start - 1] + lines[statement.end:])
        doubled = "\n".join(lines[: statement.end] + lines[statement.start - 1:])
        for variant in (removed, doubled):
            assert summaries.summarize(variant) == lint_index.summarize(variant), statement.start


JIT_ASSIGNMENTS = """\
import jax


def loss(a, b):
    return a


step = jax.jit(loss, static_argnums=1)


def loss(c):
    return c


again = jax.jit(loss)
unknown = jax.jit(nowhere)
anonymous = jax.jit(lambda x: x)
if jax:
    def inner(d, e):
        return d
    guarded = jax.jit(inner, static_argnames="e")
"""


def test_a_jit_assignment_takes_the_parameters_of_the_function_bound_above_it_at_the_join() -> None:
    """`step = jax.jit(loss)` in its own statement: the parameters of the `loss` bound before it, as the
    command line's whole-module summary has them, also after the statement defining `loss` is edited."""
    summaries = Summaries()
    whole = lint_index.summarize(JIT_ASSIGNMENTS)
    assert summaries.summarize(JIT_ASSIGNMENTS) == whole
    functions = whole["functions"]
    assert (functions["step"]["params"], functions["again"]["params"]) == (["a", "b"], ["c"])
    assert functions["unknown"]["params"] is None and functions["anonymous"]["params"] is None
    assert functions["guarded"]["params"] == ["d", "e"]
    edited = JIT_ASSIGNMENTS.replace("def loss(a, b):", "def loss(a, b, k):")
    assert summaries.summarize(edited) == lint_index.summarize(edited)
    assert summaries.summarize(edited)["functions"]["step"]["params"] == ["a", "b", "k"]


def test_what_does_not_parse_or_cannot_be_split_is_summarized_whole() -> None:
    summaries = Summaries()
    for text in ("import jax\n\ndef f(x:\n    pass\n", "import jax; step = jax.jit(abs)\n"):
        assert summaries.summarize(text) == lint_index.summarize(text)


def test_the_same_text_again_keeps_the_index_and_a_new_one_updates_it(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("def make():\n    return lambda x: x\n")
    summaries = Summaries()
    summaries.update(path, path.read_text())
    joined = summaries.joined()
    summaries.update(path, path.read_text())
    assert summaries.joined() is joined
    summaries.update(path, "def make():\n    return 1\n")
    assert summaries.joined() is not joined
    assert "returns" not in summaries.joined().modules["m"]["functions"]["make"]
    summaries.remove(path)  # closed: back to the file on disk
    assert summaries.joined().modules["m"]["functions"]["make"]["returns"] == "lambda"
