"""A check parses only the regions a finding can depend on (jitcheck/lint/regions.py), and finds exactly what
the whole module's analysis finds."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from jitcheck.lint.check import check_text
from jitcheck.lint.prefilter import positive_sites
from jitcheck.lint.regions import pruned
from jitcheck.lint.settings import Settings
from tests.lint.checks import test_callables, test_nodes, test_static_values
from tests.lint.checks.support import HEADER

ROOT = Path(__file__).resolve().parents[2]

MODULE = textwrap.dedent('''\
    import jax
    import numpy as np

    LIMIT = 3
    STEPS = 4


    def independent(x):
        y = np.sum(x)
        z = y * 2
        return jax.numpy.abs(z)


    def names_what_no_kept_part_reads(x):
        y = x + LIMIT
        z = y * 2
        return z


    def hot(xs):
        for x in xs:
            jax.jit(lambda v: v + 1)(x)
        return xs[:STEPS]


    def calls_hot(xs):
        ys = hot(xs)
        zs = hot(ys)
        return zs


    def reads_what_hot_reads(xs):
        first = xs[STEPS]
        second = first * 2
        return second


    def shadows_the_module_name(STEPS):
        y = STEPS * 2
        z = y + 1
        return z


    class Model:
        def stores(self, x):
            self.w = x
            y = x * 2
            return y

        def reads_only_its_own(self, x):
            y = np.mean(x)
            z = y * 2
            return z

        def step(self, x):
            for _ in range(3):
                jax.jit(lambda v: v * 2)(x)
            return x

        def calls_step(self, x):
            a = self.step(x)
            b = self.step(a)
            return b


    class Unused:
        def stores(self, x):
            self.w = x
            y = x * 2
            return y
    ''')


def _reduced(source: str) -> tuple[ast.Module, list[str], list[str]]:
    """``source``'s tree, its lines, and the lines of what a check parses of it (which compiles, line for line)."""
    tree = ast.parse(source)
    reduced = pruned(source, tree, positive_sites(source, tree))
    assert reduced is not None
    compile(reduced, "reduced.py", "exec")
    before, after = source.splitlines(), reduced.splitlines()
    assert len(before) == len(after)
    return tree, before, after


def _kept_and_cut(source: str) -> tuple[set[str], set[str]]:
    tree, before, after = _reduced(source)
    kept, cut = set(), set()
    units = [(node.name, node) for node in tree.body if isinstance(node, ast.FunctionDef)]
    units += [(f"{cls.name}.{node.name}", node) for cls in tree.body if isinstance(cls, ast.ClassDef)
              for node in cls.body if isinstance(node, ast.FunctionDef)]
    for name, node in units:
        body = range(node.body[0].lineno - 1, node.end_lineno or node.lineno)
        (kept if all(before[i] == after[i] for i in body) else cut).add(name)
    return kept, cut


def test_only_bodies_nothing_depends_on_are_left_out_and_every_line_keeps_its_number() -> None:
    kept, cut = _kept_and_cut(MODULE)
    # What holds a site, its callers (by name and by `self.m`), what names a module name a kept body reads, and
    # the attribute stores of a class whose method is kept; the rest (a local that shadows a module name, a class
    # nothing kept reads) is cut.
    assert kept == {"hot", "calls_hot", "reads_what_hot_reads", "Model.stores", "Model.step", "Model.calls_step"}
    assert cut == {"independent", "names_what_no_kept_part_reads", "shadows_the_module_name", "Model.reads_only_its_own",
                   "Unused.stores"}
    settings = Settings()
    assert check_text(MODULE, "m.py", settings).findings == check_text(MODULE, "m.py", settings, prune=False).findings
    assert check_text(MODULE, "m.py", settings).findings  # the sites are judged, not cut


def _sources() -> list[tuple[str, str]]:
    found = [(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")) for path in sorted((ROOT / "fixtures").rglob("*.py"))]
    for family in (test_callables, test_nodes, test_static_values):
        for name, (body, _) in family.TRUE_POSITIVES.items():
            found.append((f"{family.__name__}:{name}", HEADER + textwrap.dedent(body)))
    return found


@pytest.mark.parametrize(("name", "source"), _sources(), ids=[name for name, _ in _sources()])
def test_pruning_changes_no_finding(name: str, source: str) -> None:
    settings = Settings()
    assert check_text(source, name, settings).findings == check_text(source, name, settings, prune=False).findings


def test_a_file_python_parsed_for_the_index_is_not_parsed_again_when_it_spells_no_rule(tmp_path: Path) -> None:
    from jitcheck.lint.cache import digest
    from jitcheck.lint.config import Config
    from jitcheck.lint.index import build_index
    from jitcheck.lint.runner import Options, run

    files = {
        "plain.py": "def f(x):\n    return x + 1\n",  # parses, spells no jit: nothing to find, known without a parse
        "broken.py": "def f(x):\n    return (x +\n",  # spells no jit, and Python refuses it: JC000 all the same
        "nul.py": "x = 1\0\n",  # Python refuses a NUL byte
        "loop.py": "import jax\n\n\n" + textwrap.dedent('''\
            def run():
                for i in range(3):
                    jax.jit(lambda x: x + 1)(i)
            '''),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    parsed: set[str] = set()
    build_index(((tmp_path / name, digest(text.encode(), package_init=False), text.encode()) for name, text in files.items()),
                None, parsed)
    assert parsed == {digest(files[name].encode(), package_init=False) for name in ("plain.py", "loop.py")}
    found = {}
    for isolate in (False, True):
        report = run([tmp_path], Config(root=tmp_path), Options(jobs=1, use_cache=False, isolate=isolate), tmp_path)
        found[isolate] = sorted((Path(f.path).name, f.line, f.code) for f in report.findings)
    assert found[False] == found[True]
    assert [(name, code) for name, _, code in found[False]] == [("broken.py", "JC000"), ("loop.py", "JC104"), ("nul.py", "JC000")]
    # The same files checked one by one, Python parsing each, give the same findings.
    alone = sorted((name, f.line, f.code) for name, text in files.items() for f in check_text(text, name, Settings()).findings)
    assert alone == found[False]


VALUES = textwrap.dedent('''\
    import jax

    TABLE = [
        1,
        2,
        3,
    ]
    SIZES = (
        4,
        5,
        6,
    )  # a comment after the value stays
    __all__ = [
        "run",
        "other",
    ]


    def run(xs):
        for x in xs:
            jax.jit(lambda v: v + 1)(x)
        return SIZES
    ''')


def test_a_long_module_level_value_no_kept_part_reads_is_cut() -> None:
    _, before, after = _reduced(VALUES)
    changed = {before[i].strip() for i in range(len(before)) if before[i] != after[i]}
    # TABLE is read by nothing kept: its value is one string; SIZES (read by the site's function) and __all__ stay.
    assert changed == {"TABLE = [", "1,", "2,", "3,", "]"}
    assert after[2] == 'TABLE = """' and after[6] == '"""'
    assert after[11] == before[11]
    settings = Settings()
    assert check_text(VALUES, "m.py", settings).findings == check_text(VALUES, "m.py", settings, prune=False).findings


def test_a_module_where_nothing_may_be_cut_is_not_worked_through(monkeypatch: pytest.MonkeyPatch) -> None:
    """``pruned`` answers None at once where every body long enough to be cut, and every long value, holds a site:
    the same as working out what the sites depend on (on the fixtures, this project's code and a module dense with
    sites), and it still cuts where it did."""
    from benchmarks.bench_server import source as dense
    from jitcheck.lint import regions

    texts = [text for _, text in _sources()] + [path.read_text(encoding="utf-8") for path in sorted((ROOT / "jitcheck").rglob("*.py"))]
    texts += [dense(300), MODULE]
    results = []
    for text in texts:
        tree = ast.parse(text)
        sites = positive_sites(text, tree, (), ())
        results.append((regions._may_cut(tree, sorted({getattr(site, "lineno", 0) for site in sites})),
                        pruned(text, tree, sites)))
    monkeypatch.setattr(regions, "_may_cut", lambda tree, hot: True)
    for text, (may_cut, found) in zip(texts, results, strict=True):
        tree = ast.parse(text)
        assert pruned(text, tree, positive_sites(text, tree, (), ())) == found
        assert may_cut or found is None
    assert sum(not may_cut for may_cut, _ in results) > 10 and sum(found is not None for _, found in results) > 3
