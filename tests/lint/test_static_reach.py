"""The prefilter's sites for calls of the run's jitted functions with static arguments (:attr:`Hints.static_jitted`,
:meth:`ProjectIndex.static_reach`): a call is a site only when its callee can be one of them as the analysis resolves
it (its imports, re-exports, star imports, the module's own), not whenever its last name is one's somewhere in the
project; and the findings are the same either way."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from jitcheck.lint import check as check_module
from jitcheck.lint import config as config_module
from jitcheck.lint.check import check_text
from jitcheck.lint.index import ProjectIndex, summarize
from jitcheck.lint.prefilter import may_have_sites, positive_sites
from jitcheck.lint.runner import Options, run
from jitcheck.lint.settings import Settings

SOLVERS = """\
import functools
import jax

@functools.partial(jax.jit, static_argnums=(1,))
def solve(x, opts):
    return x * len(opts)
"""

PLAIN = """\
import numpy as np

def solve(x, opts):
    return x

def run():
    x = np.ones(3)
    for i in range(3):
        solve(x, [1, 2])
"""

# Each module calls `solve(x, [1, 2])` (an unhashable static argument) in a loop, the name reached its own way.
NOT_SITES = {
    "plain": PLAIN,
    "parameter": """\
        def run(solve, x):
            for i in range(3):
                solve(x, [1, 2])
        """,
    "local": """\
        def run(x):
            solve = lambda y, opts: y
            for i in range(3):
                solve(x, [1, 2])
        """,
    "other_import": """\
        import numpy as np
        from numpy.linalg import solve
        def run(x):
            for i in range(3):
                solve(x, [1, 2])
                np.linalg.solve(x, [1, 2])
        """,
    "attribute": """\
        from pkg import plain
        def run(x):
            for i in range(3):
                plain.solve(x, [1, 2])
        """,
    "unbound": """\
        def run(x):
            for i in range(3):
                solve(x, [1, 2])
        """,
}

SITES = {
    "named": """\
        from pkg.solvers import solve
        def run(x):
            for i in range(3):
                solve(x, [1, 2])
        """,
    "relative": """\
        from . import solvers
        from .solvers import solve
        def run(x):
            for i in range(3):
                solve(x, [1, 2])
                solvers.solve(x, [1, 2])
        """,
    "module": """\
        from pkg import solvers
        def run(x):
            for i in range(3):
                solvers.solve(x, [1, 2])
        """,
    "module_as": """\
        import pkg.solvers as s
        def run(x):
            for i in range(3):
                s.solve(x, [1, 2])
        """,
    "reexport": """\
        from pkg.api import solve
        def run(x):
            for i in range(3):
                solve(x, [1, 2])
        """,
    "in_function": """\
        def run(x):
            from pkg.solvers import solve
            for i in range(3):
                solve(x, [1, 2])
        """,
    "star": """\
        from pkg.api import *
        def run(x):
            for i in range(3):
                solve(x, [1, 2])
        """,
    "own": SOLVERS + """\
def run(x):
    for i in range(3):
        solve(x, [1, 2])
""",
}

API = "from .solvers import solve\n"


def _index() -> ProjectIndex:
    sources = {"pkg": "", "pkg.solvers": SOLVERS, "pkg.api": API,
               **{f"pkg.{name}": textwrap.dedent(text) for name, text in {**NOT_SITES, **SITES}.items()}}
    index = ProjectIndex({name: summarize(text) for name, text in sources.items()}, installed=False)
    index.modules["pkg"]["package"] = True
    return index


def _calls(sites: list[ast.AST]) -> list[str]:
    return [ast.unparse(site.func) for site in sites if isinstance(site, ast.Call)]


@pytest.mark.parametrize("name", sorted(NOT_SITES))
def test_a_call_that_cannot_reach_another_modules_static_jitted_function_is_no_site(name: str) -> None:
    index = _index()
    text = textwrap.dedent(NOT_SITES[name])
    tree = ast.parse(text)
    hints = index.hints()
    assert "solve" in hints.static_jitted
    assert _calls(positive_sites(text, tree, hints=hints)), "by its last name alone it was one"
    assert positive_sites(text, tree, hints=hints, reach=index.static_reach(f"pkg.{name}")) == []


@pytest.mark.parametrize("name", sorted(SITES))
def test_a_call_an_import_or_the_module_makes_reach_one_is_a_site(name: str) -> None:
    index = _index()
    text = textwrap.dedent(SITES[name])
    found = _calls(positive_sites(text, ast.parse(text), hints=index.hints(), reach=index.static_reach(f"pkg.{name}")))
    assert found and found[-1] in ("solve", "solvers.solve", "s.solve")


def test_a_module_the_index_lacks_keeps_every_call_of_the_names() -> None:
    assert _index().static_reach("elsewhere") is None


def test_a_class_named_as_a_module_keeps_the_site() -> None:
    index = _index()
    text = "class pkg:\n    pass\n" + textwrap.dedent(NOT_SITES["unbound"])
    index.add("pkg.shadow", summarize(text))
    assert _calls(positive_sites(text, ast.parse(text), hints=index.hints(), reach=index.static_reach("pkg.shadow")))


def test_the_plain_module_goes_to_libcst_no_more(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    real = check_module._parse
    monkeypatch.setattr(check_module, "_parse", lambda text, path: parsed.append(path) or real(text, path))
    index = _index()
    for name in ("plain", "named"):
        text = textwrap.dedent({**NOT_SITES, **SITES}[name])
        check_text(text, f"{name}.py", Settings(), index=index, module_name=f"pkg.{name}", python_parses=True)
    assert parsed == ["named.py"]


def _write(root: Path, files: dict[str, str]) -> None:
    (root / "pyproject.toml").write_text("[tool.jitcheck]\n")
    for name, text in {"__init__.py": "", **files}.items():
        (root / "pkg").mkdir(exist_ok=True)
        (root / "pkg" / name).write_text(textwrap.dedent(text))


def test_the_findings_are_those_of_the_callee_an_import_reaches(tmp_path: Path) -> None:
    """A module calling its own plain ``solve`` with a list is not reported; one importing the jitted ``solve``
    (by name, or through a re-export) is: the unhashable static argument."""
    _write(tmp_path, {"solvers.py": SOLVERS, "api.py": API, "plain.py": PLAIN,
                      "named.py": SITES["named"], "reexport.py": SITES["reexport"], "parameter.py": NOT_SITES["parameter"]})
    report = run([tmp_path], config_module.load(tmp_path), Options(jobs=1, use_cache=False), tmp_path)
    found = sorted((Path(f.path).name, f.line) for f in report.findings)
    assert found == [("named.py", 4), ("reexport.py", 4)], [(f.path, f.line, f.code, f.message) for f in report.findings]


# The text's test (``may_have_sites``) with the module's reach: each spelling of an import or a receiver that makes
# the call a site keeps the name a start of the text's test.
SPELLED = {
    "continued": "from pkg.solvers \\\n    import solve\n",
    "bracketed": "from pkg import (  # see g(x)\n    solvers,\n)\nsolve = solvers.solve\n",
    "statement": "x = 1; from pkg.solvers import solve\n",
    "suite": "if True: from pkg.solvers import solve\n",
    "comment_backslash": "# a comment's backslash continues nothing \\\nfrom pkg.solvers import solve\n",
    "as_itself": "from pkg.solvers import solve as solve\n",
    "module_dots": "from pkg . solvers import solve\n",
    "relative_dots": "from .solvers import solve\n",
    "plain_as": "import pkg.solvers as s\nsolve = None\n",
}
_SPELLED_CALLS = {"bracketed": "solvers.solve", "plain_as": "s.solve"}


@pytest.mark.parametrize("name", sorted(NOT_SITES))
def test_the_text_test_spares_a_module_that_cannot_reach_the_name(name: str) -> None:
    index = _index()
    text = textwrap.dedent(NOT_SITES[name])
    hints = index.hints()
    assert may_have_sites(text, hints=hints), "by its last name alone it passed"
    assert not may_have_sites(text, hints=hints, reach=index.static_reach(f"pkg.{name}"))


@pytest.mark.parametrize("name", sorted(SITES))
def test_the_text_test_keeps_a_module_that_reaches_the_name(name: str) -> None:
    index = _index()
    assert may_have_sites(textwrap.dedent(SITES[name]), hints=index.hints(), reach=index.static_reach(f"pkg.{name}"))


@pytest.mark.parametrize("name", sorted(SPELLED))
@pytest.mark.parametrize("receiver", ["", "(", "  # c\n"])
def test_the_text_test_keeps_every_spelling_of_a_reaching_import(name: str, receiver: str) -> None:
    index = _index()
    call = _SPELLED_CALLS.get(name, "solve")
    if receiver and "." not in call:
        return
    if receiver == "(":
        call = "(" + call.replace(".", ").")
    elif receiver:
        call = "(" + call.replace(".", receiver + "    .") + ")"
    text = SPELLED[name] + f"def run(x):\n    for i in range(3):\n        {call}(x, [1, 2])\n"
    index.add(f"pkg.{name}", summarize(text))
    reach = index.static_reach(f"pkg.{name}")
    assert positive_sites(text, ast.parse(text), hints=index.hints(), reach=reach), text
    assert may_have_sites(text, hints=index.hints(), reach=reach), text


@pytest.mark.parametrize("text", ["from pkg.api import *\n", "class pkg:\n    pass\n"])
def test_the_text_test_keeps_every_name_where_unsure(text: str) -> None:
    index = _index()
    text += textwrap.dedent(NOT_SITES["unbound"])
    index.add("pkg.unsure", summarize(text))
    assert may_have_sites(text, hints=index.hints(), reach=index.static_reach("pkg.unsure"))


def test_the_plain_module_is_not_parsed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Known to parse (the run's index read it), a module spelling ``solve(`` that cannot reach the jitted ``solve``
    is done by the text's test: Python does not parse it a second time."""
    parsed: list[str] = []
    real = check_module.python_tree
    monkeypatch.setattr(check_module, "python_tree", lambda text: parsed.append(text) or real(text))
    index = _index()
    for name in ("plain", "named"):
        text = textwrap.dedent({**NOT_SITES, **SITES}[name])
        check_text(text, f"{name}.py", Settings(), index=index, module_name=f"pkg.{name}", python_parses=True)
    assert parsed == [textwrap.dedent(SITES["named"])]
