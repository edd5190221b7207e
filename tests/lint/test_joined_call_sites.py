"""A module judged with the run's index plus itself (a notebook, a file outside the run's index) takes the run's
call sites and adds its own: the same sites, in the same order, as a walk of every module's calls."""

from __future__ import annotations

import textwrap

from jitcheck.lint.callers import Site, call_sites
from jitcheck.lint.index import UNNAMED_MODULE, ProjectIndex, summarize, with_module

LIB = textwrap.dedent('''\
    import jax

    def step(params, x):
        return jax.jit(lambda p: p + x)(params)

    class Trainer:
        def fit(self, params, batches):
            for x in batches:
                params = step(params, x)
            return params
    ''')
USER = textwrap.dedent('''\
    from pkg.lib import Trainer, step

    def run(params, batches):
        for x in batches:
            step(params, x)
        Trainer().fit(params, batches)
    ''')
NOTEBOOK = textwrap.dedent('''\
    from pkg.lib import Trainer, step
    from pkg import user

    for i in range(3):
        step(i, i)
        Trainer().fit(i, [i])
        user.run(i, [i])
    ''')


def _index(*extra: tuple[str, str]) -> ProjectIndex:
    modules = {"pkg": summarize(""), "pkg.lib": summarize(LIB), "pkg.user": summarize(USER)}
    modules.update({name: summarize(text) for name, text in extra})
    return ProjectIndex(modules)


def _rows(sites: dict[str, list[Site]]) -> list[tuple[str, list[Site]]]:
    return [(target, list(found)) for target, found in sites.items()]


def test_a_notebooks_index_adds_its_calls_to_the_runs() -> None:
    index = _index()
    before = _rows(index.call_sites())
    joined = with_module(index, "__module__", NOTEBOOK)
    assert joined.extends == (index, "__module__") and not index._may_name("__module__")
    reused = _rows(joined.call_sites())
    walked = _rows(call_sites(joined))
    assert reused == walked
    assert [site.module for site in dict(reused)["pkg.lib.step"]] == ["pkg.lib", "pkg.user", "__module__"]
    assert dict(reused)["pkg.user.run"][0].loop_kind is not None
    assert _rows(index.call_sites()) == before  # the run's own sites are not changed by the notebook's


def test_a_module_another_one_names_is_walked_again() -> None:
    """When a module of the run imports the added one, its calls may reach the added module's functions."""
    index = _index(("pkg.uses", "from pkg.extra import helper\n\ndef go():\n    for i in range(2):\n        helper(i)\n"))
    extra = "def helper(x):\n    return x\n"
    joined = with_module(index, "pkg.extra", extra)
    assert index._may_name("pkg.extra")
    assert joined.call_sites() == call_sites(joined)
    assert [site.module for site in joined.call_sites()["pkg.extra.helper"]] == ["pkg.uses"]
    assert "pkg.extra.helper" not in index.call_sites()


def _full_hints(joined: ProjectIndex) -> object:
    """The hints of a fresh index of the same modules (no other index to take them from)."""
    return ProjectIndex(joined.modules).hints()


def test_a_notebooks_index_adds_its_hints_to_the_runs() -> None:
    """The run's hints (factories, jitted functions with static arguments, jit aliases) plus the notebook's own:
    the hints of a reading of every module."""
    index = _index(("pkg.backend", "import jax\njit = jax.jit\n\ndef make(s):\n    return lambda x: x * s\n"))
    notebook = NOTEBOOK + textwrap.dedent('''\
        import jax
        from functools import partial
        fast = jax.jit
        def maker(k):
            return lambda x: x + k
        @partial(jax.jit, static_argnums=1)
        def scaled(x, n):
            return x * n
        ''')
    before = index.hints()
    joined = with_module(index, "__module__", notebook)
    assert not index._may_name("__module__")
    assert joined.hints() == _full_hints(joined)
    assert {"make", "maker"} <= joined.hints().factories and "scaled" in joined.hints().static_jitted
    assert ("__module__.fast", "jax.jit") in joined.hints().jit_aliases
    assert ("pkg.backend.jit", "jax.jit") in joined.hints().jit_aliases
    assert index.hints() == before


def test_a_module_another_one_names_has_its_hints_read_again() -> None:
    """When a module of the run names the added one, an alias of the run's may resolve through it."""
    index = _index(("pkg.uses", "from pkg import extra\njit = extra.wrap\n"))
    joined = with_module(index, "pkg.extra", "import jax\nwrap = jax.jit\n")
    assert index._may_name("pkg.extra")
    assert joined.hints() == _full_hints(joined)
    assert ("pkg.uses.jit", "jax.jit") in joined.hints().jit_aliases
    assert ("pkg.uses.jit", "jax.jit") not in index.hints().jit_aliases


def test_a_run_whose_code_spells_dunder_module_still_lends_a_notebook_its_sites() -> None:
    """A module of the run that calls ``x.__module__.startswith(...)`` spells the old placeholder name; the name the index
    gives a notebook (``UNNAMED_MODULE``, with a NUL no source can hold) is spelled by none, so the notebook
    still takes the run's sites and hints instead of walking every module again, with the same result."""
    index = _index(("pkg.names", "def owner(x):\n    return x.__module__.startswith('pkg')\n"))
    assert index._may_name("__module__") and not index._may_name(UNNAMED_MODULE)
    joined = with_module(index, UNNAMED_MODULE, NOTEBOOK)
    assert joined.extends == (index, UNNAMED_MODULE)
    assert _rows(joined.call_sites()) == _rows(call_sites(joined))
    assert [site.module for site in joined.call_sites()["pkg.lib.step"]] == ["pkg.lib", "pkg.user", UNNAMED_MODULE]
    assert joined.hints() == _full_hints(joined)


def test_whether_the_run_names_an_unnamed_module_is_answered_as_by_reading_every_summary() -> None:
    """The answer for ``UNNAMED_MODULE`` needs no summary's ``repr`` (which writes a NUL as an escape), and is the
    one a scan of every summary's ``repr`` and every module's name gives: also for code that spells the NUL's
    escape in a call's argument, and for an index holding a module of that name."""
    spelled = ("pkg.odd", "from pkg.lib import step\nstep('\\x00module', 1)\nstep('\\0module', 2)\n")
    for index in (_index(spelled), _index(spelled, (UNNAMED_MODULE, NOTEBOOK))):
        scanned = any(UNNAMED_MODULE in name or UNNAMED_MODULE in repr(summary) for name, summary in index.modules.items())
        assert index._may_name(UNNAMED_MODULE) == scanned
        assert index._may_name(f"{UNNAMED_MODULE}.cell") == scanned
    assert not _index(spelled)._may_name(UNNAMED_MODULE)
    assert _index(spelled, (UNNAMED_MODULE, NOTEBOOK))._may_name(UNNAMED_MODULE)
    assert "calls" in summarize(spelled[1])  # the texts of the calls' arguments are in the summary the scan reads
