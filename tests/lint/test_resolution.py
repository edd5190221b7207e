"""The resolver and the project index: receivers typed from code, across files, and exemptions by reason."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from jitcheck.lint.check import check_source
from jitcheck.lint.index import ProjectIndex, module_name, summarize


def codes(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in check_source(textwrap.dedent(source), "m.py")]


ENV = """\
import jax

class Env:
    def step(self, x):
        return x
    @staticmethod
    def pure(x):
        return x
    @property
    def size(self):
        return 3
"""

CASES = {  # (body, [(line in the body, code)])
    "parameter annotation": ("def f(env: Env, x):\n    return jax.jit(env.step)(x)\n", [(2, "JC101")]),
    "optional annotation": ("from typing import Optional\ndef f(env: Optional[Env], x):\n    return jax.jit(env.step)(x)\n",
                            [(3, "JC101")]),
    "string annotation": ("def f(env: 'Env', x):\n    return jax.jit(env.step)(x)\n", [(2, "JC101")]),
    "variable annotation": ("def f(x, make):\n    env: Env = make()\n    return jax.jit(env.step)(x)\n", [(3, "JC101")]),
    "constructor call": ("def f(x):\n    env = Env()\n    return jax.jit(env.step)(x)\n", [(3, "JC101")]),
    "loop over constructors": ("def f(x):\n    for env in (Env(), Env()):\n        jax.jit(env.step)(x)\n", [(3, "JC101")]),
    "attribute chain through self": (
        "class Agent:\n    def __init__(self):\n        self.env = Env()\n"
        "    def run(self, x):\n        return jax.jit(self.env.step)(x)\n", [(5, "JC101")]),
    "attribute chain through an annotated field": (
        "class Agent:\n    env: Env\n    def run(self, x):\n        return jax.jit(self.env.step)(x)\n", [(4, "JC101")]),
    "super()": ("class Sub(Env):\n    def step(self, x):\n        return jax.jit(super().step)(x)\n", [(3, "JC101")]),
    "a staticmethod is a plain function": ("def f(env: Env, x):\n    for _ in range(3):\n        jax.jit(env.pure)(x)\n", []),
    "a class attribute read is a plain function": ("def f(x):\n    for _ in range(3):\n        jax.jit(Env.step)(x, x)\n", []),
    "a module attribute is stable": ("def f(x):\n    for _ in range(3):\n        jax.jit(jax.numpy.sin)(x)\n", []),
    "a function's return annotation": ("def make() -> Env:\n    return Env()\ndef f(x):\n    env = make()\n"
                                       "    return jax.jit(env.step)(x)\n", [(5, "JC101")]),
    "a NamedTuple field from a function's return annotation is stable": (
        "from typing import Callable, NamedTuple\nclass T(NamedTuple):\n    update: Callable\n"
        "def make_t() -> T:\n    return T(lambda u: u)\ndef test_t(xs):\n    t = make_t()\n"
        "    for x in xs:\n        jax.jit(t.update)(x)\n", []),
}


@pytest.mark.parametrize("name", list(CASES))
def test_receivers_typed_from_code(name: str) -> None:
    body, expected = CASES[name]
    offset = ENV.count("\n") + 1
    assert [(line - offset, code) for line, code in codes(ENV + "\n" + body)] == expected


def test_unknown_receiver_in_a_loop_is_its_own_rule_and_only_in_a_loop() -> None:
    source = """\
    import jax
    def evaluate(m, xs):
        for x in xs:
            jax.jit(m.predict)(x)
    def once(m, x):
        return jax.jit(m.predict)(x)
    """
    (finding,) = check_source(textwrap.dedent(source), "m.py")
    assert (finding.line, finding.code) == (4, "JC107")
    assert "predict = jax.jit(m.predict)" in finding.help


def test_a_parameterized_test_parameter_holds_what_its_rows_give() -> None:
    source = """\
    import jax
    import pytest
    from absl.testing import parameterized
    from pkg import pipe_a, pipe_b
    class Env:
        def step(self, x):
            return x
    class T(parameterized.TestCase):
        @parameterized.parameters(("a.xml", pipe_a, 0.0), ("b.xml", pipe_b, 1.0))
        def test_rows(self, config, pipeline, density):
            for _ in range(3):
                jax.jit(pipeline.step)(density)
        @parameterized.named_parameters(("one", pipe_a), ("two", pipe_b))
        def test_named(self, pipeline):
            for _ in range(3):
                jax.jit(pipeline.step)(1.0)
        def test_no_rows(self, pipeline):
            for _ in range(3):
                jax.jit(pipeline.step)(1.0)
    @pytest.mark.parametrize("cfg, pipeline", [(1, pipe_a), pytest.param(2, pipe_b)])
    def test_pytest(cfg, pipeline):
        for _ in range(3):
            jax.jit(pipeline.step)(cfg)
    @pytest.mark.parametrize("env", [Env(), Env()])
    def test_envs(env):
        for _ in range(3):
            jax.jit(env.step)(1.0)
    """
    # Rows of imported modules make `pipeline` stable (a module function is the same object each
    # read); rows of constructor calls make `env` an Env, whose `step` is a bound method; without
    # rows the receiver stays unknown (JC107).
    assert codes(source) == [(19, "JC107"), (27, "JC101")]


def test_exemptions_by_reason_not_by_name() -> None:
    source = """\
    import jax
    def test_loop(xs):
        for x in xs:
            jax.jit(lambda v: v)(x)
    def test_once(x):
        return jax.jit(lambda v: v)(x)
    def main(xs):
        for x in xs:
            jax.jit(lambda v: v + 1)(x)
    def test_helper(x):
        return jax.jit(lambda v: v)(x)
    def test_a():
        test_helper(1.0)
        test_helper(2.0)
    @jax.jit
    def traced(xs):
        for i in range(3):
            xs = jax.jit(lambda v: v)(xs)
        return xs
    """
    # Loops in tests and main are flagged, a test body that runs once is not, a test helper called twice is,
    # and code that only runs while an outer function is traced is exempt.
    assert codes(source) == [(4, "JC104"), (9, "JC104"), (11, "JC104")]


def test_factory_results_jitted_in_a_loop() -> None:
    source = """\
    import functools
    import jax
    def make_step(lr):
        def step(p):
            return p * lr
        return step
    def make_scale(a):
        return functools.partial(jax.numpy.multiply, a)
    def make_plain():
        return jax.numpy.sin
    def train(ps):
        for p in ps:
            jax.jit(make_step(0.1))(p)
            jax.jit(make_scale(2.0))(p)
            jax.jit(make_plain())(p)
    step = jax.jit(make_step(0.1))
    """
    found = check_source(textwrap.dedent(source), "m.py")
    assert [(f.line, f.code) for f in found] == [(13, "JC703"), (14, "JC703")]
    assert "returns a new nested function" in found[0].message and "returns a new partial" in found[1].message


def test_a_factory_whose_paths_return_different_fresh_functions() -> None:
    source = """\
    import jax
    def make_schedule(n):
        if n <= 0:
            return lambda c: c
        def schedule(c):
            return c * n
        return schedule
    def make_or_plain(n):
        if n <= 0:
            return jax.numpy.sin
        def schedule(c):
            return c * n
        return schedule
    def test_schedules():
        for n in (-1, 0, 2):
            jax.jit(make_schedule(n))(1.0)
            jax.jit(make_or_plain(n))(1.0)
    """
    # Every path of make_schedule returns a new function; one path of make_or_plain returns a module function.
    found = check_source(textwrap.dedent(source), "m.py")
    assert [(f.line, f.code) for f in found] == [(16, "JC703")]
    assert "returns a new lambda or nested function" in found[0].message
    functions = summarize(textwrap.dedent(source))["functions"]
    assert functions["make_schedule"]["returns"] == "lambda or nested function"
    assert "returns" not in functions["make_or_plain"]


def test_a_factory_product_kept_by_its_caller_is_built_once() -> None:
    source = """\
    import jax
    class Analyzer:
        def __init__(self):
            self._fns = {}
        def _make_solver(self, loss):
            @jax.jit
            def solve(x):
                return loss(x)
            def call(x):
                return solve(x)
            return call if loss is not None else solve
        def _make_metric(self, t):
            f = jax.jit(lambda a: a * t)
            metric = lambda a: f(a)
            return metric
        def run(self, loss, x):
            if "solve" not in self._fns:
                self._fns["solve"] = self._make_solver(loss)
            metrics = {t: self._make_metric(t) for t in (1, 2)}
            return self._fns["solve"](x), metrics
        def score(self, x):
            return self._make_metric(0.5)(x)
    def outer_factory(loss):
        inner = make_inner(loss)
        def fit(x):
            return inner(x)
        return fit
    def make_inner(loss):
        g = jax.jit(jax.grad(loss))
        def step(x):
            for _ in range(3):
                x = g(x)
            return x
        return step
    def fit_twice(loss, x):
        return outer_factory(loss)(x), outer_factory(loss)(x)
    """
    # Kept products (an item, a dict built in a comprehension, a name only a returned closure reads) are
    # built once for all their uses; `score` calls its product at once on every call (public method): a
    # rebuild per call. `make_inner`'s product lives in `outer_factory`'s, which `fit_twice` calls at once.
    assert codes(source) == [(13, "JC104"), (29, "JC701")]


def test_a_factory_called_once_by_public_api_that_uses_its_product_at_once() -> None:
    source = """\
    import jax
    def metric(threshold):
        @jax.jit
        def _metric(a):
            return a * threshold
        summed = lambda a: _metric(a).sum()
        return summed
    def summarize(a):
        return metric(0.5)(a)
    """
    # `metric` returns a closure (through a name bound to a lambda) over the jitted def: a factory; the
    # public `summarize` (library API, called again and again) builds and uses its product on every call.
    assert codes(source) == [(3, "JC105")]


def test_a_driver_that_returns_an_unrelated_closure_is_no_factory() -> None:
    source = """\
    import jax
    def train(xs):
        @jax.jit
        def step(x):
            return x + 1
        for x in xs:
            step(x)
        predict = lambda v: v * 2
        return predict
    def run_all(a, b):
        train(a)
        train(b)
    """
    # The closure it returns does not hold `step`: `train` is a driver called twice, each call compiles again.
    assert codes(source) == [(3, "JC105")]


def test_a_helper_jitting_its_parameter_is_judged_by_what_its_callers_hand_in() -> None:
    source = """\
    import jax
    import jax.numpy as jnp
    def _binary(operator, a, b, jitting):
        operator = jax.jit(operator) if jitting else operator
        return operator(a, b)
    def _plain(operator, a, b):
        return jax.jit(operator)(a, b)
    class T:
        def _check(self, images, fn):
            jitted = jax.jit(fn)
            return [jitted(i) for i in images]
        def test_a(self):
            self._check([1.0], fn=lambda v: v)
        def test_b(self):
            self._check([1.0], jnp.sin)
    def test_add():
        _binary(lambda x, y: x + y, 1.0, 2.0, True)
    def test_sub():
        _binary(lambda x, y: x - y, 1.0, 2.0, True)
    def test_plain():
        _plain(jnp.add, 1.0, 2.0)
        _plain(jnp.subtract, 1.0, 2.0)
    def _twice(fn, x):
        for _ in range(2):
            jax.jit(fn)(x)
    def test_twice():
        _twice(lambda v: v, 1.0)
        _twice(lambda v: v + 1, 1.0)
    """
    # Lambdas handed in (by position, or by keyword to a method) are new keys per call; module functions are
    # not; and a parameter jitted in a loop of the helper is the same object on every iteration (not reported).
    found = check_source(textwrap.dedent(source), "tests/test_m.py")
    assert [(f.line, f.code) for f in found] == [(4, "JC104"), (10, "JC104")]
    assert "through its parameter `operator`" in found[0].message and found[0].fix is None
    assert "the callers of `_binary` hand `operator` a new one on each call" in found[0].help
    assert codes(source.replace("lambda x, y: x + y", "jnp.add").replace("lambda x, y: x - y", "jnp.subtract")
                 .replace("fn=lambda v: v", "fn=jnp.cos")) == []


def test_a_loop_over_one_literal_item_runs_its_body_once() -> None:
    source = """\
    import jax
    def test_a(xs):
        for t in [0.5]:
            jax.jit(lambda v: v * t)(xs)
        a = [jax.jit(lambda v: v * t)(xs) for t in (0.5,)]
        for t in [0.5, 1.0]:
            jax.jit(lambda v: v * t)(xs)
        b = [jax.jit(lambda v: v * t)(xs) for t in (0.5, 1.0)]
        c = [jax.jit(lambda v: v * t)(xs) for t in (0.5,) for u in xs]
        d = [jax.jit(lambda v: v * t)(xs) for t in [*xs]]
    """
    assert codes(source) == [(7, "JC104"), (8, "JC104"), (9, "JC104"), (10, "JC104")]


def test_a_comprehensions_first_iterable_is_evaluated_once_not_per_item() -> None:
    source = """\
    import jax
    def indexed_shape(shape, idx):
        def get_shape(s, i):
            return jax.numpy.empty(s)[i].shape
        f = jax.jit(get_shape, static_argnums=(0, 1))
        return tuple(t.item() for t in f(shape, idx))
    def total(xs):
        def square(v):
            return v * v
        f = jax.jit(square)
        return sum(f(x) for x in xs)
    """
    # `f(shape, idx)` runs once per call of a public function: nothing amortises the build. `f(x)` runs per item:
    # the build is amortised over the items, as a driver's over its loop, so only a guess that users call `total`
    # again reports it (both rest on that guess about a public function: preview).
    found = check_source(textwrap.dedent(source), "m.py")
    assert [(f.line, f.code, f.evidence.confidence) for f in found] == [(5, "JC105", "low"), (10, "JC105", "low")]
    assert "on every call of `total`, public API" in found[1].message


def test_base_class_self_calls_reach_the_override() -> None:
    source = """\
    import jax
    class Base:
        def _check(self, fn):
            return fn(1.0)
        def test_a(self):
            self._check(fn=lambda v: v)
        def test_b(self):
            self._check(fn=lambda v: v + 1)
    class Jitted(Base):
        def _check(self, fn):
            jitted = jax.jit(fn)
            return [jitted(x) for x in (1.0, 2.0)]
    class Alone:
        def _check(self, fn):
            jitted = jax.jit(fn)
            return [jitted(x) for x in (1.0, 2.0)]
    """
    # The tests of Base run on Jitted too, where self._check is the override that jits the lambdas.
    assert codes(source) == [(11, "JC104")]


def test_chex_variant_is_a_jit_wrapper() -> None:
    source = """\
    import chex
    class T(chex.TestCase):
        @chex.variants(with_jit=True, without_jit=True)
        def test_v(self):
            for n in range(3):
                self.variant(lambda x: x + n)(1.0)
            f = self.variant(lambda x: x * 2)
            f(1.0)
    """
    assert codes(source) == [(6, "JC104")]
    assert codes(source.replace("import chex", "import other as chex")) == []


def write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def test_names_resolve_across_the_files_of_a_run(tmp_path: Path) -> None:
    from jitcheck.lint import config as config_module
    from jitcheck.lint.runner import Options, run

    # preview: the methods' findings rest on their being called again (public API): resolution is judged here
    write(tmp_path, "pyproject.toml", "[tool.jitcheck]\npreview = true\n")
    write(tmp_path, "pkg/__init__.py", "from .envs import Env\n")
    write(tmp_path, "pkg/envs.py", """\
        import functools
        import jax
        class Base:
            def get_params(self, x):
                return x
        class Env(Base):
            def step(self, x):
                return x
        def make_step(lr):
            return lambda p: p * lr
        @functools.partial(jax.jit, static_argnums=1)
        def apply(x, fn):
            return fn(x)
        """)
    write(tmp_path, "pkg/train.py", """\
        import jax
        from pkg import Env
        from pkg.envs import make_step, apply
        from .envs import Base
        class Agent(Base):
            def __init__(self):
                self.env = Env()
            def run(self, x):
                return jax.jit(self.env.get_params)(x)
            def params(self, x):
                return jax.jit(super().get_params)(x)
        def loop(env: Env, xs):
            for solver in (Env(), Env()):
                jax.jit(solver.step)(xs)
            for x in xs:
                jax.jit(make_step(0.1))(x)
            return apply(xs, lambda v: v)
        """)
    config = config_module.load(tmp_path)
    report = run([tmp_path], config, Options(jobs=1), tmp_path)
    found = [(Path(f.path).name, f.line, f.code) for f in report.findings]
    assert found == [("train.py", 9, "JC101"), ("train.py", 11, "JC101"), ("train.py", 14, "JC101"),
                     ("train.py", 16, "JC703"), ("train.py", 17, "JC104")]
    warm = run([tmp_path], config, Options(jobs=1), tmp_path)
    assert warm.analysed == 0 and warm.findings == report.findings
    # An edit to a module another file imports is seen: the importer is checked again.
    write(tmp_path, "pkg/envs.py", (tmp_path / "pkg/envs.py").read_text().replace("def step(self, x)", "step = None\n    def other(self, x)"))
    again = run([tmp_path], config, Options(jobs=1), tmp_path)
    assert again.analysed >= 2
    assert ("train.py", 14, "JC101") not in [(Path(f.path).name, f.line, f.code) for f in again.findings]


def test_a_receiver_typed_by_the_return_annotation_of_a_function_in_another_file(tmp_path: Path) -> None:
    from jitcheck.lint import config as config_module
    from jitcheck.lint.runner import Options, run

    write(tmp_path, "pyproject.toml", "[tool.jitcheck]\n")
    write(tmp_path, "pkg/__init__.py", "")
    write(tmp_path, "pkg/_src/base.py", """\
        from typing import Callable, NamedTuple
        class Transform(NamedTuple):
            init: Callable
            update: Callable
        class Model:
            def apply(self, x):
                return x
        """)
    write(tmp_path, "pkg/make.py", """\
        from pkg._src import base
        def noise(scale) -> base.Transform:
            return base.Transform(lambda p: p, lambda u, s: (u * scale, s))
        def model() -> "base.Model":
            return base.Model()
        """)
    write(tmp_path, "pkg/use_test.py", """\
        import jax
        from pkg import make
        def test_noise(xs):
            t = make.noise(0.3)
            m = make.model()
            for x in xs:
                jax.jit(t.update)(x, None)
                jax.jit(m.apply)(x)
        """)
    config = config_module.load(tmp_path)
    report = run([tmp_path], config, Options(jobs=1), tmp_path)
    # A NamedTuple field holds a function (the same object each read); Model.apply is a method.
    assert [(Path(f.path).name, f.line, f.code) for f in report.findings] == [("use_test.py", 8, "JC101")]
    # pkg/_src has no __init__.py: a namespace subpackage of pkg, imported as pkg._src.base.
    assert module_name(tmp_path / "pkg" / "_src" / "base.py") == "pkg._src.base"
    assert module_name(tmp_path / "loose" / "script.py") == "script"


def test_a_method_called_by_subclasses_in_other_files_runs_again(tmp_path: Path) -> None:
    from jitcheck.lint import config as config_module
    from jitcheck.lint.runner import Options, run

    write(tmp_path, "pyproject.toml", "[tool.jitcheck]\n")
    write(tmp_path, "pkg/__init__.py", "")
    write(tmp_path, "pkg/base.py", """\
        import jax
        class Analyzer:
            def _candidates(self, xs):
                select = jax.jit(jax.vmap(lambda v: v * 2))
                return [select(x) for x in xs]
            def _other(self, xs):
                select = jax.jit(jax.vmap(lambda v: v * 3))
                return [select(x) for x in xs]
            def _memoised(self, key, xs):
                if key not in self._results:
                    select = jax.jit(jax.vmap(lambda v: v * 4))
                    self._results[key] = [select(x) for x in xs]
                return self._results[key]
        """)
    write(tmp_path, "pkg/phase.py", """\
        from pkg.base import *
        class PhasePlane(Analyzer):
            def plot(self, xs):
                return self._candidates(xs), self._other(xs), self._memoised(1, xs)
        """)
    write(tmp_path, "pkg/bifurcation.py", """\
        from pkg import base
        class Bifurcation(base.Analyzer):
            def plot(self, xs):
                return self._candidates(xs), self._other(xs), self._memoised(2, xs)
            def _other(self, xs):
                return xs
        """)
    config = config_module.load(tmp_path)
    report = run([tmp_path], config, Options(jobs=1), tmp_path)
    # The build is amortised over the method's loop, so it counts only if the method runs again: two
    # subclasses call `_candidates` (one found through `from pkg.base import *`); `_other` is reached once
    # (Bifurcation's own override takes the other call); `_memoised` builds once per key of its cache.
    assert [(Path(f.path).name, f.line, f.code) for f in report.findings] == [("base.py", 4, "JC104")]
    warm = run([tmp_path], config, Options(jobs=1), tmp_path)
    assert [(f.line, f.code) for f in warm.findings] == [(4, "JC104")]
    (tmp_path / "pkg" / "bifurcation.py").unlink()
    # base.py's findings depend on its subclasses' files: the cached result is not reused.
    assert run([tmp_path], config, Options(jobs=1), tmp_path).findings == []


def test_installed_packages_are_read_without_importing() -> None:
    source = """\
    import jax
    from jitcheck.core.graphs import JitGraph
    def run(graphs: list, g: JitGraph, values):
        return jax.jit(g.jit_call)(values)
    """
    assert codes(source) == [(4, "JC101")]
    index = ProjectIndex({"m": summarize("")}, installed=False)
    assert index.cls("jitcheck.core.graphs.JitGraph") is None


def test_summaries_record_what_the_resolver_needs() -> None:
    summary = summarize(textwrap.dedent("""\
        import jax
        from functools import partial
        class A(B):
            x: int
            def __init__(self):
                self.env = Env()
            def m(self):
                pass
            @staticmethod
            def s():
                pass
        @partial(jax.jit, static_argnames=("n",))
        def f(x, n):
            return x
        def factory():
            def inner():
                pass
            return inner
        """))
    a = summary["classes"]["A"]
    assert a["bases"] == ["B"] and a["methods"] == {"__init__": "method", "m": "method", "s": "static"}
    assert a["types"] == {"x": "int", "env": "Env"} and set(a["stored"]) == {"x", "env"}
    assert summary["functions"]["f"]["jit"] == {"nums": [], "names": ["n"]}
    assert summary["functions"]["factory"]["returns"] == "nested function"


def test_a_modules_dependencies_are_what_its_imports_reach_and_follow_a_new_module() -> None:
    index = ProjectIndex({
        "pkg": {**summarize("from .env import Env\n"), "package": True},
        "pkg.env": summarize("from pkg.util import helper\nimport numpy as np\n"),
        "pkg.util": summarize("import pkg.env\n"),  # a cycle
        "app": summarize("import pkg\n"),
    }, installed=False)
    assert index.dependencies("app") == {"app", "pkg", "pkg.env", "pkg.util"}
    assert index.dependencies("pkg.util") == {"pkg.util", "pkg", "pkg.env"}  # `import pkg.env` binds `pkg`
    keys = index.dependency_keys()
    index.add("pkg.extra", summarize("def make():\n    return lambda x: x\n"))
    index.add("pkg.util", summarize("import pkg.env\nfrom . import extra\n"))
    assert index.dependencies("pkg.util") == {"pkg.util", "pkg", "pkg.env", "pkg.extra"}
    assert index.dependencies("app") == {"app", "pkg", "pkg.env", "pkg.util", "pkg.extra"}
    changed = index.dependency_keys()
    assert changed["app"] != keys["app"] and changed["pkg.env"] != keys["pkg.env"]


def test_a_public_driver_is_a_preview_finding_on_the_guess_that_users_call_it_again() -> None:
    """A public module-level function of a library that builds its wrapper once and loops over it (``romb``,
    ``run_sgd``): each call compiles again if users call it again, which only its callers show. The default
    selection stays quiet; ``--preview`` reports it at low confidence, the guess named."""
    from jitcheck.lint.check import Settings, check_text

    source = textwrap.dedent("""\
        import jax
        def fit(loss, params, batches):
            step = jax.jit(jax.value_and_grad(loss))
            for batch in batches:
                value, grads = step(params, batch)
                params = params - grads
            return params
        def _private_fit(loss, params, batches):
            step = jax.jit(jax.value_and_grad(loss))
            for batch in batches:
                value, grads = step(params, batch)
            return params
        """)
    found = check_text(source, "lib/fit.py", Settings(preview=True)).findings
    assert [(f.line, f.code, f.evidence.confidence) for f in found] == [(3, "JC701", "low")]  # not in the default selection
    preview = found
    assert "public API" in preview[0].message and any("`fit`" in what for what in preview[0].evidence.unproven)
