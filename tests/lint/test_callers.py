"""Callers in other modules as evidence (jitcheck/lint/callers.py): a public function or method whose own
file shows no repetition, called again and again elsewhere in the run, each case a small made-up package
run by jax.

The static pass checks the package's folder in the default selection (``--preview`` off); then
``use.run()`` is called under ``jax.monitoring``. A finding must be where jax compiled the same computation
again, with evidence naming the caller's file and line, and nowhere else.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from jitcheck.lint import callers as callers_module
from jitcheck.lint import config as config_module
from jitcheck.lint import index as index_module
from jitcheck.lint.callers import call_records
from jitcheck.lint.index import summarize_tree
from jitcheck.lint.runner import Options, run
from tests.lint.test_cross_module import Compiles, compiles, findings, importable, run_case, write_package

__all__ = ["compiles", "importable"]  # fixtures, used by name

MODEL = """\
    import jax

    class Model:
        def __init__(self, scale):
            self.scale = scale

        def fit(self, x, steps):
            @jax.jit
            def step(y):
                return y * 2.0
            for _ in range(steps):
                x = step(x)
            return x

    def solve(f, x):
        return jax.jit(jax.grad(f))(x)
    """

_FIT = """\
    import jax
    import numpy as np
    def fit(w):
        @jax.jit
        def loss(v):
            return (v ** 2).sum()
        return loss(w)
    def train(size):
        return fit(np.ones(size, np.float32))
    """

Case = tuple[dict[str, str], list[tuple[str, int, str]], int, int, str]
"""(files of ``pkg``, expected default findings, jax compiles of ``use.run()``, distinct computations among
them, a piece of the first finding's ``runs_again`` evidence)."""

CASES: dict[str, Case] = {
    "a method with a nested jit, called in a loop of another module on an object it constructs": ({
        "model.py": MODEL,
        "use.py": """\
            import numpy as np
            from pkg.model import Model
            def run():
                model = Model(2.0)
                for _ in range(3):
                    model.fit(np.ones(3, np.float32), 1)
            """,
    }, [("model.py", 8, "JC105")], 3, 1, "is called in a loop at pkg/use.py:6"),
    "a nested jit rebuilt under a caller that a loop calls with the same argument": ({
        "model.py": _FIT,
        "use.py": """\
            from pkg.model import train
            def run():
                for _ in range(3):
                    train(3)
            """,
    }, [("model.py", 4, "JC105")], 3, 1, "is called at pkg/model.py:9, from `train`"),
    "the same, the loop handing the caller a size that changes: data of another shape each pass": ({
        "model.py": _FIT,
        "use.py": """\
            from pkg.model import train
            def run():
                for size in (2, 3, 4):
                    train(size)
            """,
    }, [], 3, 3, ""),
    "a static method of a base class, called through self in a loop of a subclass in another module": ({
        "base.py": """\
            import jax

            class Case:
                @staticmethod
                def jacobian(f, x):
                    return jax.jit(jax.jacfwd(f))(x)
            """,
        "use.py": """\
            import numpy as np
            from pkg.base import Case
            def f(x):
                return x ** 2
            class Test(Case):
                def check(self):
                    x = np.ones(3, np.float32)
                    for sparsity in [0, x.size]:
                        self.jacobian(f, x)
            def run():
                Test().check()
            """,
    }, [("base.py", 6, "JC701")], 2, 1, "is called in a loop at pkg/use.py:9"),
    "the same static method, in a loop that defines the function it passes: another program each pass": ({
        "base.py": """\
            import jax

            class Case:
                @staticmethod
                def jacobian(f, x):
                    return jax.jit(jax.jacfwd(f))(x)
            """,
        "use.py": """\
            import jax.numpy as jnp
            import numpy as np
            from pkg.base import Case
            class Test(Case):
                def check(self):
                    x = np.ones(3, np.float32)
                    for g in [jnp.sin, jnp.cos]:
                        def h(x):
                            return g(x) * x
                        self.jacobian(h, x)
            def run():
                Test().check()
            """,
    }, [], 2, 2, ""),
    "a public function called twice in one test of another module, with the same arguments": ({
        "model.py": MODEL,
        "use.py": """\
            import numpy as np
            from pkg import model
            def loss(x):
                return (x ** 2).sum()
            def run():
                x = np.ones(3, np.float32)
                first = model.solve(loss, x)
                second = model.solve(loss, x)
            """,
    }, [("model.py", 16, "JC701")], 2, 1, "pkg/use.py:7, pkg/use.py:8"),
    "a public function reached through a caller that another module calls in a loop": ({
        "model.py": MODEL,
        "driver.py": """\
            import numpy as np
            from pkg.model import solve
            def loss(x):
                return (x ** 2).sum()
            def refit(x):
                return solve(loss, np.ones(3, np.float32))
            """,
        "use.py": """\
            import numpy as np
            from pkg.driver import refit
            def run():
                for t in range(3):
                    refit(t)
            """,
    }, [("model.py", 16, "JC701")], 3, 1, "from `refit`"),
    "an annotated receiver's inherited method, called in a loop": ({
        "model.py": MODEL,
        "sub.py": """\
            from pkg.model import Model
            class Bigger(Model):
                pass
            """,
        "use.py": """\
            import numpy as np
            from pkg.sub import Bigger
            def go(model: Bigger):
                for _ in range(3):
                    model.fit(np.ones(3, np.float32), 1)
            def run():
                go(Bigger(1.0))
            """,
    }, [("model.py", 8, "JC105")], 3, 1, "pkg/use.py:5"),
    "a method reached through an attribute whose class the constructor sets, in a loop of another module": ({
        "model.py": MODEL,
        "runner.py": """\
            import numpy as np
            from pkg.model import Model
            class Runner:
                def __init__(self):
                    self.model = Model(1.0)
                def sweep(self):
                    for _ in range(3):
                        self.model.fit(np.ones(3, np.float32), 1)
            """,
        "use.py": """\
            from pkg.runner import Runner
            def run():
                Runner().sweep()
            """,
    }, [("model.py", 8, "JC105")], 3, 1, "pkg/runner.py:8"),
    # -- look-alikes: no finding ----------------------------------------------------------------------
    "a loop of another module over different functions: a different program each call": ({
        "model.py": MODEL,
        "use.py": """\
            import numpy as np
            import jax.numpy as jnp
            from pkg.model import solve
            def run():
                for f in (jnp.sum, jnp.prod):
                    solve(f, np.ones(3, np.float32))
            """,
    }, [], 2, 2, ""),
    "two calls in the arms of one if: one run": ({
        "model.py": MODEL,
        "use.py": """\
            import numpy as np
            import jax.numpy as jnp
            from pkg.model import solve
            def run(mode="a"):
                if mode == "a":
                    solve(jnp.sum, np.ones(3, np.float32))
                else:
                    solve(jnp.sum, np.ones(3, np.float32))
            """,
    }, [], 1, 1, ""),
    "a loop calling a jitted function of another module, which calls the method: inlined in one trace": ({
        "model.py": MODEL,
        "use.py": """\
            import jax
            import numpy as np
            from pkg.model import Model
            @jax.jit
            def traced(x):
                return Model(2.0).fit(x, 1)
            def run():
                for _ in range(3):
                    traced(np.ones(3, np.float32))
            """,
    }, [], 1, 1, ""),
    "a factory whose product keeps the wrapper, called in a loop of another module that keeps each product": ({
        "model.py": """\
            import jax
            from typing import NamedTuple
            class Fns(NamedTuple):
                apply: object
            def make_fns(scale):
                @jax.jit
                def step(y):
                    return y * 2.0
                def apply(x):
                    return step(x), scale
                return Fns(apply)
            """,
        "use.py": """\
            import numpy as np
            from pkg.model import make_fns
            def run():
                kept = [make_fns(2.0) for _ in range(3)]
                kept[0].apply(np.ones(3, np.float32))
            """,
    }, [], 1, 1, ""),  # `step` once (no eager op: jax caches an eager op's compile across tests, so its count depends on their order)
    "a call under a lambda handed to a transformation: not a call of this code": ({
        "model.py": MODEL,
        "use.py": """\
            import numpy as np
            from pkg.model import Model
            def run():
                model = Model(2.0)
                once = lambda: model.fit(np.ones(3, np.float32), 1)
                once()
            """,
    }, [], 1, 1, ""),
}


@pytest.mark.parametrize("name", list(CASES))
def test_callers_elsewhere_are_evidence_where_jax_compiles_again(name: str, importable: Path, compiles: Compiles) -> None:
    files, expected, compiled, programs, evidence = CASES[name]
    write_package(importable, files)
    assert findings(importable) == sorted(expected)
    assert run_case(importable, compiles) == compiled
    assert bool(expected) == (compiled > programs)
    if expected:
        report = run([importable], config_module.load(importable), Options(jobs=1), importable)
        finding = report.findings[0]
        assert finding.evidence.confidence == "high"
        assert finding.evidence.again[0].kind == "called-elsewhere"
        assert evidence in finding.evidence.again[0].text
        assert "called again and again by the project's code" in finding.message


GUESSES: dict[str, tuple[str, str, str]] = {
    "a loop over objects the pass cannot judge": ("""\
        import numpy as np
        from pkg.model import solve
        def run(fns):
            for f in fns:
                solve(f, np.ones(3, np.float32))
        """, "JC701", "change(s) in that loop"),
    "two calls on two objects bound in turn to one name": ("""\
        import numpy as np
        from pkg.model import Model
        def run():
            model = Model(1.0)
            model.fit(np.ones(3, np.float32), 1)
            model = Model(2.0)
            model.fit(np.ones(3, np.float32), 1)
        """, "JC105", "the calls pass different arguments"),
    "a receiver built anew on each iteration of the caller's loop": ("""\
        import numpy as np
        from pkg.model import Model
        def run():
            for size in range(1, 4):
                model = Model(float(size))
                model.fit(np.ones(size, np.float32), 1)
        """, "JC105", "the receiver is another object on each iteration"),
    "two calls passing data of other shapes": ("""\
        import numpy as np
        import jax.numpy as jnp
        from pkg.model import solve
        def run():
            solve(jnp.sum, np.ones(3, np.float32))
            solve(jnp.sum, np.ones(5, np.float32))
        """, "JC701", "the calls pass different arguments"),
}


@pytest.mark.parametrize("name", list(GUESSES))
def test_callers_that_may_pass_other_things_leave_a_guess(name: str, importable: Path) -> None:
    """Repetition shown, sameness not: a caller's loop over objects it cannot judge (``for f in fns``), or two
    receivers bound in turn to one name. The finding stays under ``--preview``, its doubt in ``unproven``."""
    source, code, doubt = GUESSES[name]
    write_package(importable, {"model.py": MODEL, "use.py": source})
    assert findings(importable) == []
    config = dataclasses.replace(config_module.load(importable), preview=True)
    report = run([importable], config, Options(jobs=1), importable)
    low = [f for f in report.findings if f.code == code]
    assert [f.evidence.confidence for f in low] == ["low"]
    assert low[0].evidence.again[0].kind == "called-elsewhere"
    assert any(doubt in text for text in low[0].evidence.unproven)


def test_the_records_of_a_module() -> None:
    """Which calls a summary records, with the loop around each, the arguments that change in it, and the arms."""
    source = textwrap.dedent("""\
        import numpy as np
        from pkg import model
        from pkg.model import Model
        def run(cfg):
            m = Model(cfg)
            for t in np.linspace(0, 1, 3):
                m.fit(t, 2)
            if cfg:
                model.solve(np.sum, cfg)
            else:
                model.solve(np.sum, 1)
            np.ones(3)
            f = lambda: model.solve(np.sum, 2)
        """)
    rows = call_records(ast.parse(source), {"np": "numpy", "model": "pkg.model", "Model": "pkg.model.Model"})
    by_line = {row[1]: row for row in rows}
    assert sorted(by_line) == [5, 7, 9, 11]  # not numpy's, not under the lambda
    assert by_line[7][:6] == ["Model.fit", 7, "run", ["numbers", 6], ["0"], ["self"]]  # `m` is built from `cfg`
    assert by_line[9][5] == ["1"] and by_line[9][7] == ["8:0"] and by_line[11][7] == ["8:1"]


def test_the_records_read_from_the_class_facts_walks_are_the_records_of_a_walk_of_their_own() -> None:
    """A summary hands the call records the methods' walks its class facts made (one walk per method): the same
    records, in the same order, as call records that walk every method themselves."""
    source = textwrap.dedent("""\
        from pkg import model
        from pkg.model import Model, Solver
        class Runner:
            def __init__(self, cfg, solver=None):
                if solver is None:
                    solver = Solver()
                self.solver = solver
                self.model = Model(cfg)
            def run(self, xs, scale):
                y = scale * 2
                for x in xs:
                    self.model.fit(x, y)
                    self.solver.solve(x)
                    model.step(x, [v for v in xs])
            def test_runs(self, cfg):
                m = Model(cfg)
                m.fit(1, cfg)
        def free(a):
            b = a + 1
            return model.step(b)
        """)
    tree = ast.parse(source)
    imports = {"model": "pkg.model", "Model": "pkg.model.Model", "Solver": "pkg.model.Solver"}
    walks: dict[int, list[ast.AST]] = {}
    summary = summarize_tree(tree)
    index_module._class(tree.body[2], walks)  # type: ignore[arg-type]
    assert len(walks) == 3
    assert call_records(tree, imports, walks) == call_records(tree, imports) == summary["calls"]
    assert len(summary["calls"]) >= 6


_MASKED = """\
    from functools import partial
    import jax
    import jax.numpy as jnp
    @partial(jax.jit, static_argnums=(1,))
    def masked(x, fn):
        return jnp.where(x > 0, fn(x), 0.0)
    def energy(x):
        return masked(x, lambda v: v * 2.0).sum()
    """

TEST_CALLERS: dict[str, tuple[str, list[tuple[str, int, str]], int]] = {
    "two test functions of a test module call it eagerly: one session runs it twice": ("""\
        import numpy as np
        from pkg.lib import energy
        def test_small():
            assert energy(np.ones(3, np.float32)) > 0
        def test_again():
            assert energy(np.ones(3, np.float32)) > 0
        """, [("lib.py", 8, "JC104")], 2),
    "two tests passing a name each builds the same way: the same computation twice": ("""\
        import numpy as np
        from pkg.lib import energy
        def test_small():
            x = np.ones(3, np.float32)
            assert energy(x) > 0
        def test_again():
            x = np.ones(3, np.float32)
            assert energy(x) > 0
        """, [("lib.py", 8, "JC104")], 2),
    # -- look-alikes: no finding in the default selection ------------------------------------------------
    "two tests passing the same name, built with other shapes: another program each": ("""\
        import numpy as np
        from pkg.lib import energy
        def test_small():
            x = np.ones(3, np.float32)
            assert energy(x) > 0
        def test_large():
            n = 5
            x = np.ones(n, np.float32)
            assert energy(x) > 0
        """, [], 2),
    "one test function calls it: once per session": ("""\
        import numpy as np
        from pkg.lib import energy
        def test_small():
            assert energy(np.ones(3, np.float32)) > 0
        def test_other():
            assert np.ones(3).sum() == 3
        """, [], 1),
    "two tests passing data of other shapes: another program each": ("""\
        import numpy as np
        from pkg.lib import energy
        def test_small():
            assert energy(np.ones(3, np.float32)) > 0
        def test_large():
            assert energy(np.ones(5, np.float32)) > 0
        """, [], 2),
    "the second test calls it only under jax.jit: inlined in that trace": ("""\
        import jax
        import numpy as np
        from pkg.lib import energy
        def test_small():
            assert energy(np.ones(3, np.float32)) > 0
        def test_traced():
            assert jax.jit(lambda x: energy(x))(np.ones(3, np.float32)) > 0
        """, [], 1),
}


@pytest.mark.parametrize("name", list(TEST_CALLERS))
def test_two_tests_calling_a_function_eagerly_are_evidence_it_runs_again(
        name: str, importable: Path, compiles: Compiles) -> None:
    """Two test functions of a test module that call a library function in their own bodies both run in one test
    session (one process, one jit cache): the function runs twice, eagerly, and the same calls make it the same
    computation. One test, a call under a trace in the other, or tests passing other data are not such evidence;
    jax's count of ``masked``'s compiles agrees (two compiles of two programs are not a repeat)."""
    source, expected, compiled = TEST_CALLERS[name]
    write_package(importable, {"lib.py": _MASKED, "test_energy.py": source})
    assert findings(importable) == expected
    importlib.invalidate_caches()
    tests = importlib.import_module("pkg.test_energy")
    lib = importlib.import_module("pkg.lib")
    compiles.count = 0
    before = lib.masked._cache_size()
    for test in [getattr(tests, n) for n in dir(tests) if n.startswith("test")]:
        test()
    assert lib.masked._cache_size() - before == compiled
    if expected:
        report = run([importable], config_module.load(importable), Options(jobs=1), importable)
        assert report.findings[0].evidence.confidence == "high"
        assert report.findings[0].evidence.again[0].kind == "called-elsewhere"
        text = report.findings[0].evidence.again[0].text
        line = next(n for n, text in enumerate(textwrap.dedent(source).splitlines(), 1) if "energy(" in text)
        assert text.startswith("`energy` is called by the tests `test_small` (") and f"pkg/test_energy.py:{line})" in text


_SAMPLER = """\
    import jax
    import jax.numpy as jnp

    class Model:
        def __init__(self, scale):
            self.scale = scale

        def samples(self, n, key):
            @jax.jit
            def draw(key):
                return jax.random.normal(key, (n,)) * self.scale
            return draw(key)

        def samples_cached(self, n, key):
            if not hasattr(self, "_draw"):
                self._draw = jax.jit(lambda key: jax.random.normal(key, (n,)) * self.scale)
            return self._draw(key)
    """


def test_two_tests_calling_a_method_on_objects_of_their_own_are_not_evidence(importable: Path, compiles: Compiles) -> None:
    """Two tests that each build a model alike and call a method whose jit reads ``self``: each test compiles for
    its own object, and a jit built once per object (a plain restructuring) compiles as often, so it is no avoidable
    recompile and the default selection says nothing."""
    tests = """\
        import jax
        from pkg.model import Model
        KEY = jax.random.key(0)
        def test_one():
            model = Model(2.0)
            assert model.samples(3, KEY).shape == (3,)
        def test_two():
            model = Model(2.0)
            assert model.samples(3, KEY).shape == (3,)
        """
    write_package(importable, {"model.py": _SAMPLER, "test_model.py": tests})
    assert findings(importable) == []
    importlib.invalidate_caches()
    module = importlib.import_module("pkg.test_model")
    model = importlib.import_module("pkg.model")
    counts = []
    for method in ("samples", "samples_cached"):
        compiles.count = 0
        for _ in range(2):  # the two tests, each with a model of its own
            getattr(model.Model(2.0), method)(3, module.KEY)
        counts.append(compiles.count)
    assert counts == [2, 2]  # built once per object: as many compiles
    module.test_one()
    # On one object the same program compiles twice, and once when the jit is built once per object: the repeat
    # a plain restructuring avoids is within an object, which two tests with objects of their own do not show.
    counts = []
    for method in ("samples", "samples_cached"):
        compiles.count = 0
        shared = model.Model(2.0)
        for _ in range(2):
            getattr(shared, method)(3, module.KEY)
        counts.append(compiles.count)
    assert counts == [2, 1]


def test_the_names_worked_out_when_first_read_are_those_worked_out_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A function's derived names and a loop's changing ones are worked out when a recorded call first reads them
    (most functions and loops record none): on real code (this project's own modules, tests and fixtures), the
    records are the ones made when every such set is worked out where it is made, and some read them."""
    root = Path(__file__).resolve().parents[2]
    trees = [ast.parse(path.read_bytes()) for folder in ("jitcheck", "tests", "fixtures", "benchmarks")
             for path in sorted((root / folder).rglob("*.py"))]
    imports = [summarize_tree(tree)["imports"] for tree in trees]
    later = [call_records(tree, imported) for tree, imported in zip(trees, imports)]

    class AtOnce(callers_module._Later):
        def __init__(self, make: Callable[[], frozenset[str]]) -> None:
            super().__init__(make)
            self.get()

    monkeypatch.setattr(callers_module, "_Later", AtOnce)
    at_once = [call_records(tree, imported) for tree, imported in zip(trees, imports)]
    assert later == at_once
    rows = [row for records in later for row in records]
    assert sum(bool(row[4]) for row in rows) > 20 and sum(bool(row[5]) for row in rows) > 20  # changing, reading


def test_the_shortcuts_of_the_records_give_what_the_walks_and_the_unparser_give(monkeypatch: pytest.MonkeyPatch) -> None:
    """The call records spell an argument that is a name, a dotted name, an int, a bool or None without
    ``ast.unparse``, and read the names of one name without a walk: every expression of real code (this project's
    modules, tests and fixtures) is spelled as ``ast.unparse`` spells it, and the records are those made with
    the unparser and the walks alone."""
    root = Path(__file__).resolve().parents[2]
    trees = [ast.parse(path.read_bytes()) for folder in ("jitcheck", "tests", "fixtures", "benchmarks")
             for path in sorted((root / folder).rglob("*.py"))]
    extra = ast.parse("f(a, a.b.c, 1, -1, True, None, u'x', 'y', 1.5, (a).b, a().b, 10**3, 0x10, 1_000)")
    shortcut = 0
    for tree in [*trees, extra]:
        for node in ast.walk(tree):
            if isinstance(node, ast.expr):
                assert callers_module.unparsed(node) == ast.unparse(node)
                shortcut += type(node) in (ast.Name, ast.Attribute, ast.Constant)
    assert shortcut > 1000
    imports = [summarize_tree(tree)["imports"] for tree in trees]
    fast = [call_records(tree, imported) for tree, imported in zip(trees, imports)]

    def read(node: ast.AST | None) -> set[str]:
        return set() if node is None else {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

    def stored(nodes: list[ast.AST]) -> set[str]:
        return {n.id if isinstance(n, ast.Name) else n.name for node in nodes for n in ast.walk(node)  # type: ignore[attr-defined]
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                or isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}

    monkeypatch.setattr(callers_module, "unparsed", ast.unparse)
    monkeypatch.setattr(callers_module, "_names_read", read)
    monkeypatch.setattr(callers_module, "_names_stored", stored)
    assert fast == [call_records(tree, imported) for tree, imported in zip(trees, imports)]
    assert sum(len(records) for records in fast) > 500


def test_a_call_whose_product_is_used_where_it_is_made_is_marked() -> None:
    """The index marks (``~used=1``) the calls of a function whose result the caller uses where it makes it: called at
    once, handed to a call, or bound to names it calls (in a loop only when built in one). A product built before a
    loop and used only in it, one stored, one returned, one handed to a constructor, or one a factory of factories
    keeps, is not marked."""
    source = textwrap.dedent("""\
        from pkg.ops import make
        def at_once(x):
            return make(1)(x)
        def handed(x0):
            return minimize(make(2), x0)
        def bound(x):
            fn, kept = make(3)
            return fn(x)
        def in_loop(xs):
            for x in xs:
                fn = make(4)
                fn(x)
        def driver(xs):
            fn = make(5)
            for x in xs:
                fn(x)
        def stored(self):
            self.fn = make(6)
        def returned():
            return make(7)
        def factory_of_factories():
            fn = make(8)
            def apply(x):
                return fn(x)
            return apply
        def kept_by_an_object():
            fn = make(9)
            return Model(fn)
        class Solver(Base):
            def __init__(self):
                solver = make(10)
                super().__init__(solver=solver)
        """)
    marked = {row[6][0].partition("=")[2]: "~used=1" in row[6] for row in call_records(ast.parse(source), {"make": "pkg.ops.make"})
              if row[0] == "make"}
    assert marked == {"1": True, "2": True, "3": True, "4": True, "5": False, "6": False, "7": False, "8": False,
                      "9": False, "10": False}
