"""The server's project index (jitcheck.server.summaries) summarizes a module as the command line does,
statement by statement, before and after edits, and the same text twice changes nothing."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jitcheck.lint import index as lint_index
from jitcheck.server.statements import edited, statements
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


CALLS = """\
import mylib
from pkg import tools


@mylib.decorate
def run(xs):
    for x in xs:
        if x:
            tools.fit(x)
        else:
            tools.fit(-x)
    match xs:
        case [a]:
            tools.fit(a)
        case _:
            pass


class Solver:
    def solve(self, y):
        return self.step(y)

    def step(self, y):
        return mylib.apply(y)


def run(ys):
    return tools.fit(ys)


solver = Solver()
for y in range(3):
    solver.solve(y)
    solver = Solver()
"""


LATER = """

def uses(s: "Later"):
    s.go(1)
    later_fn(2)
"""
DEFINED_LATER = """

class Later:
    def go(self, n):
        return n


def later_fn(n):
    return n
"""


def test_call_records_kept_by_statement_name_the_files_lines_after_edits_that_move_them() -> None:
    """Each statement's call records are kept by its text and placed at its lines now: after an import is
    inserted above them (every line moves), a body edited (only the edited region is read again, its lines
    counted from the region), a def pasted and a duplicate removed, the records (lines, loops, if and case arms,
    callers of a name defined twice, module-level receivers) are the command line's; and so are a kept function's
    records once the names it calls (and the class its parameter's string annotation names) are defined below it,
    and after they are gone again."""
    summaries = Summaries()
    lines = CALLS.split("\n")
    texts = [CALLS, "import os\n" + CALLS, "import os\n" + CALLS.replace("tools.fit(-x)", "tools.fit(-x, 2)\n            run(x)"),
             "import os\n" + CALLS + "\n\ndef pasted(z):\n    for k in z:\n        Solver().solve(k)\n",
             "\n".join(lines[:26] + lines[30:]), CALLS + LATER, CALLS + LATER + DEFINED_LATER, CALLS + LATER]
    previous = None
    for text in texts:
        edited(previous, text)
        made = summaries.summarize(text)
        assert made["calls"] == lint_index.summarize(text)["calls"]
        assert made == lint_index.summarize(text)
        previous = text
    assert any(row[2] == "?" for row in lint_index.summarize(texts[0])["calls"])  # `run` defined twice: no caller
    assert {"8:0", "8:1"} <= {arm for row in lint_index.summarize(texts[0])["calls"] for arm in row[7]}
    assert {"Later.go", "later_fn"} <= {row[0] for row in lint_index.summarize(texts[6])["calls"]}
    assert not {"Later.go", "later_fn"} & {row[0] for row in lint_index.summarize(texts[5])["calls"]}


def test_the_opened_file_is_summarized_from_its_text_and_from_disk_only_while_that_text_does_not_parse(tmp_path: Path) -> None:
    """The project's first load leaves out the file being opened (its text in the editor is summarized next);
    while that text does not parse, the file on disk stands for it, as when the load had read it."""
    from jitcheck.lint.config import Config

    (tmp_path / "other.py").write_text("def helper():\n    return lambda x: x\n")
    opened = tmp_path / "m.py"
    opened.write_text("def make():\n    return lambda x: x\n")
    for text, returns in (("def make():\n    return 1\n", None), ("def make(:\n", "lambda")):
        summaries = Summaries()
        summaries.load_project(Config(root=tmp_path), opened=opened)
        assert "m" not in summaries.joined().modules and "other" in summaries.joined().modules
        summaries.update(opened, text)
        assert summaries.joined().modules["m"]["functions"]["make"].get("returns") == returns


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_statements_summary_for_the_join_is_the_summary_without_its_call_records(path: Path) -> None:
    # the join leaves a statement's loop calls and call records out (made for the whole module): they are not made
    tree = lint_index.python_tree(path.read_text())
    assert tree is not None
    for node in tree.body:
        module = ast.Module(body=[node], type_ignores=[])
        whole = lint_index.summarize_tree(module)
        assert lint_index.summarize_tree(module, calls=False) == {k: v for k, v in whole.items() if k not in ("loop_calls", "calls")}


REGISTERED = """\
import jax


class Payload:
    pass


class Cell:
    def __init__(self, lo):
        self.lo = lo
        self.payload = Payload()


def _flatten(cell):
    return (), (cell.lo, cell.payload)


jax.tree_util.register_pytree_node(Cell, _flatten, lambda aux, children: Cell(*aux))
"""


def test_a_pytree_registration_is_read_over_the_whole_module_and_leaves_no_trace_once_removed() -> None:
    """The class, its flatten function and its registration are three statements: the aux data the summary records
    for the class (JC208's fact) needs all three, and goes when the registration does."""
    summaries = Summaries()
    whole = lint_index.summarize(REGISTERED)
    assert whole["classes"]["Cell"]["aux"] == ["lo", "payload"]
    assert whole["classes"]["Cell"]["fresh"] == {"payload": "Payload"}
    assert summaries.summarize(REGISTERED) == whole
    unregistered = REGISTERED.replace("jax.tree_util.register_pytree_node(Cell, _flatten, lambda aux, children: Cell(*aux))\n", "")
    assert "aux" not in summaries.summarize(unregistered)["classes"]["Cell"]
    assert summaries.summarize(unregistered) == lint_index.summarize(unregistered)
    assert summaries.summarize(REGISTERED) == whole
