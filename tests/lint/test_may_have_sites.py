"""The text's test of a site (:func:`jitcheck.lint.prefilter.may_have_sites`): wherever the prefilter's walk of
Python's tree finds a site (:func:`~jitcheck.lint.prefilter.positive_sites`), the text's test says there may be
one, however the site's name is spelled around (comments, continuations, brackets, decorators, aliases); and it
spares texts that spell a start only where no site can use it."""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import pytest

from jitcheck.lint import prefilter
from jitcheck.lint.collect import _ALIAS
from jitcheck.lint.index import Hints
from jitcheck.lint.prefilter import _TRIVIA, _aliases, _as_word, may_have_sites, positive_sites

ROOT = Path(__file__).resolve().parents[2]
HINTS = Hints(static_jitted=frozenset({"step", "update", "apply", "solve"}))

_MADE = """\
import jax
import functools
from functools import partial
from jax import jit as fast

def make(x, n):
    g = {call}(lambda y: y * n)
    return g([x])
"""
_CALLS = ["jax.jit", "jax.jit ", "jax .jit", "(jax.jit)", "((jax. jit) )", "(jax.jit  # why\n        )",
          "jax.\\\n    jit", "jax.jit\\\n    ", "fast", "(fast)", "jax.pmap", "functools.partial(jax.jit, static_argnums=0)",
          "partial(\n        jax.jit,  # first\n        static_argnums=(0,),\n    )"]
_DECORATED = """\
import jax
from functools import partial

def outer(xs):
    {decorator}
    def inner(x):
        return x
    return inner(xs)
"""
_DECORATORS = ["@jax.jit", "@jax.jit  # a comment", "@ jax.jit", "@(jax.jit)", "@jax.\\\n    jit", "@jax.jit \\\n",
               "@partial(jax.jit, static_argnums=0)", "@partial(\n        jax.jit\n    )", "@jax.jit()"]
_STATIC = """\
from pkg.model import step

def run(xs):
    for x in xs:
        {call}(x, [x])
"""


def _both(text: str, hints: Hints | None) -> tuple[bool, bool]:
    return bool(positive_sites(text, ast.parse(text), hints=hints)), may_have_sites(text, hints=hints)


@pytest.mark.parametrize("text", [*(_MADE.format(call=c) for c in _CALLS), *(_DECORATED.format(decorator=d) for d in _DECORATORS),
                                  *(_STATIC.format(call=c) for c in ("step", "m.step", "(step)", "(step  # c\n        )", "m.\\\nstep"))])
def test_every_spelling_of_a_site_may_have_one(text: str) -> None:
    assert _both(text, HINTS) == (True, True)


def test_on_real_code_a_site_is_never_missed_and_some_texts_are_spared() -> None:
    spared = 0
    for path, hints in itertools.product(sorted(p for folder in ("jitcheck", "tests", "fixtures", "benchmarks")
                                                for p in (ROOT / folder).rglob("*.py")), (None, HINTS)):
        text = path.read_text(encoding="utf-8")
        try:
            found, may = _both(text, hints)
        except SyntaxError:
            continue
        assert may or not found, path
        spared += not may and "jit" in text
    assert spared > 20


@pytest.mark.parametrize("text", [
    "import jax\nfrom jax import jit\nx = jit\n",
    "import jax\n# jitted once with jax.jit\nf = lambda: 'jit'\n",
    "import jax\njitted = jax.vmap(f)\ns = 'jit' + f\n",
])
def test_a_start_no_site_can_use_is_spared(text: str) -> None:
    assert _both(text, HINTS) == (False, False)


def test_the_aliases_are_those_of_a_scan_of_every_word() -> None:
    """The aliases of a start (``jit as fast``) are read only where a start stands before an ``as``: the same names as
    :data:`~jitcheck.lint.collect._ALIAS`'s scan of every word, on this project's code and on made-up imports."""
    named = frozenset({"jit", "pmap", "Sequential"})
    texts = [p.read_text(encoding="utf-8") for folder in ("jitcheck", "tests") for p in sorted((ROOT / folder).rglob("*.py"))]
    texts += ["from jax import jit as fast\n", "from jax import (jit\n    as  j, pmap as p)\n", "import jax.jit\tas x\n",
              "jit as\n", "xjit as y\n", "with jit as j, pmap as q: pass\n", "pjit as a as b\n", "Sequential as S"]
    with_aliases = 0
    for text in texts:
        scanned = frozenset(m.group(2) for m in _ALIAS.finditer(text) if m.group(1) in named)
        assert _aliases(text, named) == scanned, text
        with_aliases += bool(scanned)
    assert with_aliases >= 5


def _one_alternation(names: frozenset[str], after: str, text: str) -> bool:
    """The word test as it was: every name in one alternation, a rejected match's text skipped."""
    for match in re.finditer(r"(?:%s)\b%s" % ("|".join(map(re.escape, sorted(names))), after), text):
        start = match.start()
        if start == 0 or not (text[start - 1].isalnum() or text[start - 1] == "_"):
            return True
    return False


def test_the_word_test_is_that_of_one_alternation_of_every_name() -> None:
    """:func:`_as_word` puts in its pattern only the names that are words of the text: on this project's code, with
    a few hundred names (most of them no word of any file, some common ones) it answers as the one alternation of
    every name did, and each name is found wherever it stands as a word before a bracket."""
    texts = [p.read_text(encoding="utf-8") for folder in ("jitcheck", "tests") for p in sorted((ROOT / folder).rglob("*.py"))]
    common = ["step", "update", "apply", "solve", "run", "f", "x", "self", "jit", "pmap", "text", "path", "_", "i"]
    names = frozenset([*common, *(f"never_spelled_{n}" for n in range(300))])
    after = r"(?=" + _TRIVIA + r"[(),])"
    found = 0
    for text in texts:
        for chosen in (names, frozenset(common[:4]), frozenset({"jit"})):
            for tail in (after, ""):
                expected = _one_alternation(chosen, tail, text)
                assert _as_word(chosen, tail, text) == expected, text[:80]
                found += expected
    assert found > 100
    spelled = "def g(x):\n    return xstep (x) + step(x)  # a step\n"
    assert _as_word({"step"}, after, spelled) and not _as_word({"step"}, after, "xstep(1)\n")


def test_the_word_test_does_not_grow_with_names_the_text_lacks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A project's jitted functions with static arguments may be hundreds of names (474 on the corpus's tree of 134
    libraries as one project): only the text's own words among them go into the pattern the regex engine tries at
    each position, so the test of a text costs about as much with them as with its own few (a property of the
    pattern, not a timing)."""
    text = "\n".join(f"def fn_{n}(x, y):\n    return helper_{n}(x) + y  # step {n}\n" for n in range(200))
    many = frozenset(f"{letter}{n}_jitted" for letter in "abcdefghijklmnopqrstuvwxyz_" for n in range(20))
    after = r"(?=" + _TRIVIA + r"[(),])"
    compiled: list[str] = []
    real_compile = re.compile

    def recording(pattern: str, *args: object) -> re.Pattern[str]:
        compiled.append(pattern)
        return real_compile(pattern, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(prefilter.re, "compile", recording)
    assert not _as_word(many, after, text)
    assert compiled == []  # no name of the 540 is a word of the text: no pattern at all
    assert _as_word(many | {"helper_7", "step"}, after, text)
    assert len(compiled) == 1 and "helper_7" in compiled[0] and "step" in compiled[0]
    assert not any(name in compiled[0] for name in many)


def _substring_spellings(source: str, graph_constructors: object, jit_wrappers: object,
                         hints: Hints | None) -> tuple[frozenset[str], frozenset[str]] | None:
    """The first test of a text, as it was: a jitted function of the run counts where its name is any part of it."""
    from jitcheck.lint import names

    jit_names = names.last_names((*names.JIT_WRAPPERS, *jit_wrappers, *(a for a, _ in (hints.jit_aliases if hints else ()))))  # type: ignore[misc]
    if "chex" in source:
        jit_names |= frozenset(names.METHOD_WRAPPERS)
    graph_names = names.last_names((*names.NODE_CONSTRUCTORS, *names.GRAPH_CONSTRUCTORS, *graph_constructors))  # type: ignore[misc]
    imported_jitted = hints is not None and any(name in source for name in hints.static_jitted)
    if not imported_jitted and not any(name in source for name in (*jit_names, *graph_names)):
        return None
    return jit_names, graph_names


def test_a_jitted_function_of_the_run_is_looked_for_among_the_words_with_the_same_answers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's jitted functions with static arguments are looked for among an ASCII text's words (a name of its
    tree is one), not as any part of it: on this project's code, with names that are words and names that are only
    parts of words (``ste``, ``pdat``), both tests of a site answer as with the search for each name; a text with
    other than ASCII is still searched (``ｓｔｅｐ`` is ``step`` to Python)."""
    texts = [p.read_text(encoding="utf-8") for folder in ("jitcheck", "tests") for p in sorted((ROOT / folder).rglob("*.py"))]
    texts += [_STATIC.format(call="step"), _STATIC.format(call="ste"), "# step\nfrom pkg.model import ｓｔｅｐ\nｓｔｅｐ(1, [1])\n",
              "x = 1\nｓｔｅｐ(1, [1])\n", "def f(x):\n    return xstep(x, [x])\n"]
    hint_sets = [Hints(static_jitted=frozenset({"step", "update", "apply", "solve", "run", "f"})),
                 Hints(static_jitted=frozenset({"ste", "pdat", "ppl", "olv", "zzz_never"})), Hints()]
    answers = []
    for text in texts:
        tree = ast.parse(text)
        for hints in hint_sets:
            answers.append((bool(positive_sites(text, tree, hints=hints)), may_have_sites(text, hints=hints)))
    monkeypatch.setattr(prefilter, "_spellings", _substring_spellings)
    before = []
    for text in texts:
        tree = ast.parse(text)
        for hints in hint_sets:
            before.append((bool(positive_sites(text, tree, hints=hints)), may_have_sites(text, hints=hints)))
    assert answers == before
    assert sum(site for site, _ in answers) > 10
    assert answers[-15] == (True, True)  # `step(x, [x])` in a loop, with `step` a jitted function of the run
    assert answers[-9] == (True, True)  # the NFKC spelling, found through the comment's `step`


_BANNER = """\
from pkg.model import step


def setup(model):
    #{banner}
    # function to apply before each design step
    #{banner}
    def before(model):
        model.k += 1
    model.callbacks.append(before)
"""


def test_a_start_before_a_banner_of_hashes_is_judged_at_once() -> None:
    """A start followed past blanks by comments and no bracket (``step`` in a comment above a line of ``#``) is no
    site, and the test says so at once: with a comment that could end anywhere, the regex engine tried every way to
    cut the banner into comments (2^n for n ``#``), and a real file of the corpus held its check until the worker's
    time limit. The test runs in a child process so that, without the fix, it fails by its time limit."""
    import subprocess
    import sys

    text = _BANNER.format(banner="#" * 80)
    assert positive_sites(text, ast.parse(text), hints=HINTS) == []
    script = ("import sys; from jitcheck.lint.index import Hints; from jitcheck.lint.prefilter import may_have_sites; "
              "print(may_have_sites(sys.stdin.read(), hints=Hints(static_jitted=frozenset({'step'}))))")
    done = subprocess.run([sys.executable, "-c", script], input=text, capture_output=True, text=True, timeout=60,
                          cwd=ROOT, check=True)
    assert done.stdout.strip() == "False"
    # The comment is read to its line's end: a bracket in it is no call, one on the next line after it is.
    assert not may_have_sites("from pkg.model import step\nstep  # see g(x)\n", hints=HINTS)
    assert may_have_sites("from pkg.model import step\nstep  # see g(x)\n(1, [1])\n", hints=HINTS)
