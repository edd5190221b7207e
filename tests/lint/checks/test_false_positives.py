"""The false-positive patterns of issue 23, each in small made-up code: the default selection stays quiet
where the code shows no repeated compile of the same computation, and still reports the bug beside it."""

from __future__ import annotations

import textwrap

import jax
import pytest

from jitcheck.lint import sameness
from jitcheck.lint.check import check_source, check_text
from jitcheck.lint.settings import Settings

from .support import HEADER, check, compiles_of, shown


def test_mutually_exclusive_branches_are_not_a_repetition() -> None:
    # One arm of an if/elif chain runs per call of the test: `_check` runs once, whichever arm.
    body = """\
        def _check(x):
            return jax.jit(lambda v: v + 1)(x)

        def test_modes(mode):
            if mode == "a":
                _check(1.0)
            elif mode == "b":
                _check(2.0)
            else:
                _check(3.0)
        """
    assert check(body) == []
    # Two calls that both run are two runs, and the message says so by their lines, not as a loop.
    both = body.replace('            elif mode == "b":\n', "")
    assert shown(both) == [(2, "JC104")]


def test_a_jit_only_ever_traced_under_an_outer_transformation_compiles_nothing_of_its_own() -> None:
    body = """\
        def _body(carry, x):
            return jax.jit(lambda c: c + x)(carry), None

        def scanned(xs):
            return jax.lax.scan(_body, 0.0, xs)

        def _inner(x):
            @jax.jit
            def g(v):
                return v * 2
            return g(x)

        @jax.jit
        def outer(x):
            return _inner(x) + _inner(x + 1)

        def _loss(p):
            return jax.jit(lambda q: q ** 2)(p)

        def _twice(p):
            return _loss(p) + _loss(p)

        def fit(p):
            return jax.grad(_twice)(p) + jax.vmap(_loss)(p)

        def _objective(y, args):
            return jax.jit(lambda v: v - args)(y)

        def solve(y0):
            import optimistix
            return optimistix.root_find(_objective, optimistix.Newton(1e-5, 1e-5), y0)
        """
    assert check(body) == []
    # Called eagerly as well, the same helper compiles on its own each time: still reported.
    eager = body + """\

        def eager(ps):
            for p in ps:
                _loss(p)
        """
    assert shown(eager) == [(18, "JC104")]


def test_each_repetition_building_a_different_computation_is_not_reported() -> None:
    body = """\
        class Affine:
            def __init__(self, loc, scale=None, log_scale=None):
                self.loc, self.scale, self.log_scale = loc, scale, log_scale
            def forward(self, x):
                return x + self.loc

        def test_layers(x, s, l):
            for layer in (Affine(1.0), Affine(1.0, scale=s), Affine(1.0, log_scale=l)):
                jax.jit(layer.forward)(x)

        def test_activations(x):
            for act in [jnp.tanh, jax.nn.relu, lambda v: v]:
                jax.jit(lambda v: act(v) * 2)(x)
        """
    assert check(body) == []


def test_a_closure_baking_a_number_into_the_same_program_is_reported() -> None:
    # Each temperature gives an otherwise identical program: pass it as an argument and it compiles once.
    body = """\
        def sample(logits):
            for temperature in (0.5, 1.0, 2.0):
                jax.jit(lambda v: v / temperature)(logits)

        def anneal(x, steps):
            for t in range(steps):
                jax.jit(lambda v: v * t)(x)
        """
    assert shown(body) == [(3, "JC104"), (7, "JC104")]
    (finding, _) = check_source(HEADER + textwrap.dedent(body), "m.py")
    assert [r.kind for r in finding.evidence.same] == ["data"]
    assert "`temperature`" in finding.evidence.same[0].text


def test_a_loop_over_objects_the_pass_cannot_judge_rests_on_a_guess() -> None:
    body = """\
        def run_all(models, x):
            for model in models:
                jax.jit(lambda v: model(v))(x)
        """
    assert check(body) == [(3, "JC104")]
    assert shown(body) == []


def test_a_caller_loop_that_sets_a_configuration_each_time_is_not_shown_the_same() -> None:
    # Each call trains another architecture (set on `config` by the loop): a guess at most, not shown the same.
    body = """\
        class Config:
            width = 8

        config = Config()

        def _train(x):
            @jax.jit
            def update(v):
                return v * config.width
            for _ in range(3):
                x = update(x)
            return x

        def sweep(x):
            for width in (8, 16, 32):
                config.width = width
                _train(x)
        """
    assert check(body) == [(7, "JC105")]
    assert shown(body) == []
    # Without the configuration set in the loop, the same program is built on each call: reported.
    assert shown(body.replace("                config.width = width\n", "")) == [(7, "JC105")]


def test_one_call_passing_what_its_own_function_was_handed_is_judged_by_that_functions_callers() -> None:
    # `train` is called once, from `_run`, always with `model`; but `_run` makes `model` from what each test hands it:
    # two tests, two models, two programs. The same text at the one call is not the same value on each run.
    body = """\
        def train(model, xs):
            @jax.jit
            def step(x):
                return model(x)

            return [step(x) for x in xs]

        def _run(power):
            model = lambda x: x ** power
            return train(model, [jnp.ones(3)])

        def test_square():
            return _run(2)

        def test_cube():
            return _run(3)
        """
    assert check(body) == [(2, "JC105")]
    assert shown(body) == []
    assert compiles_of(body, "(test_square(), test_cube())", "step") == 2
    # `_run` makes the same model whatever it is handed: each test compiles the same program, once each.
    same = body.replace("lambda x: x ** power", "lambda x: x ** 2")
    assert shown(same) == [(2, "JC105")]
    # Both tests leave `power` at its default: one value, the same program twice.
    default = body.replace("def _run(power):", "def _run(power=2):").replace("_run(2)", "_run()").replace("_run(3)", "_run()")
    assert shown(default) == [(2, "JC105")]
    assert compiles_of(default, "(test_square(), test_cube())", "step") == 2
    assert compiles_of(same, "(test_square(), test_cube())", "step") == 2
    hoisted = same.replace("            @jax.jit\n            def step(x):\n                return model(x)\n\n",
                           "            step = _STEP\n").replace("        def _run(power):", """\
        _STEP = jax.jit(lambda x: x ** 2)

        def _run(power):""")
    assert compiles_of(hoisted, "(test_square(), test_cube())", "<lambda>") == 1


def test_a_helper_called_once_from_each_cell_or_test_on_other_inputs_is_not_a_loop() -> None:
    # A notebook's cells (module level) and tests each run once: two calls on two systems are two programs.
    body = """\
        pendulum, spring = Pendulum(), Spring()

        def _simulate(system, x):
            return jax.jit(lambda state: state.step())(system.initial(x))

        _simulate(pendulum, 1.0)
        _simulate(spring, 1.0)

        def test_pendulum():
            _simulate(pendulum, 2.0)
        """
    assert check(body) == [(4, "JC104")] and shown(body) == []
    # The same inputs up to numbers: the same program compiled at each call.
    same = body.replace("_simulate(spring, 1.0)", "_simulate(pendulum, 3.0)").replace(
        "_simulate(pendulum, 2.0)", "_simulate(pendulum, 4.0)")
    assert shown(same) == [(4, "JC104")]


def test_tests_that_count_traces_or_time_compiles_do_it_on_purpose() -> None:
    body = """\
        import time

        def test_retrace_is_counted(x):
            for _ in range(3):
                jax.jit(chex.assert_max_traces(lambda v: v + 1, 3))(x)

        def benchmark(x):
            for _ in range(3):
                start = time.perf_counter()
                jax.jit(lambda v: v * 2)(x)
                print(time.perf_counter() - start)

        def compile_on_purpose(fns, x):
            for _ in range(3):
                jax.jit(lambda v: v - 1).lower(x).compile()
        """
    assert check(body) == []
    assert shown(body.replace("time.perf_counter()", "x.sum()")) == [(10, "JC104")]


def test_a_benchmark_harness_times_what_it_runs_on_purpose() -> None:
    # A google_benchmark body rebuilds its wrapper in the harness's timed `while state:` loop: compiling again is
    # what it measures (jax: one compile per pass, by design). A helper that warms a wrapper up before it times it
    # measures the run, not the compile: the same computation rebuilt on each pass around it is still found.
    body = """\
        class google_benchmark:
            register = staticmethod(lambda f: f)

        @google_benchmark.register
        def compile_chain(state):
            x = jnp.ones(2)
            while state.next():
                jax.jit(lambda v: v * 2)(x).block_until_ready()

        def bench(fn, x):
            fn(x).block_until_ready()
            return fn(x).block_until_ready()

        def run_costs(x):
            for _ in range(3):
                bench(jax.jit(lambda v: v + 1), x)

        class State:
            def __init__(self, n):
                self.n = n

            def next(self):
                self.n -= 1
                return self.n >= 0
        """
    assert shown(body) == [(16, "JC104")]
    assert compiles_of(body, "compile_chain(State(3))", "<lambda>") == 3
    assert compiles_of(body, "run_costs(jnp.ones(2))", "<lambda>") == 3
    # Not registered with the harness, the same loop is found.
    plain = body.replace("        @google_benchmark.register\n", "")
    assert shown(plain) == [(7, "JC104"), (15, "JC104")]  # a line up: the decorator is gone


def test_a_clock_read_only_to_wait_for_a_timeout_does_not_time_the_site() -> None:
    # An evaluation loop that polls for checkpoints reads the clock to give up after a timeout, and times other
    # work before the jit site; nothing times the lambda's compiles, so its rebuild on every pass is found. Read as
    # "a clock in a loop: a benchmark", the whole loop was taken for one that compiles again on purpose.
    body = """\
        import time

        def evaluate(x, timeout):
            started = time.time()
            for _ in range(3):
                if time.time() - started > timeout:
                    raise RuntimeError("no checkpoint")
                started = time.time()
                x = jax.jit(lambda v: v * 2)(x)
            return x
        """
    assert shown(body) == [(9, "JC104")]
    assert compiles_of(body, "evaluate(jnp.ones(2), 60.0)", "<lambda>") == 3  # one program, three compiles
    # Timed around the site in a benchmark, each pass measures the compile: on purpose. The deadline check
    # alone in a benchmark is still no timing of the site.
    timed = body.replace("(x)\n            return x", "(x)\n                print(time.time() - started)\n            return x")
    assert shown(timed.replace("def evaluate(", "def benchmark(")) == []
    assert shown(body.replace("def evaluate(", "def benchmark(")) == [(9, "JC104")]


def test_a_caller_looping_over_what_it_hands_on_builds_other_programs() -> None:
    # `run(**kwargs)` in a sweep, after `kwargs["width"] = width`: `run` passes its parameter on to the factory of the
    # jitted closure, the same text at that one call, but another value on each pass of the sweep. Read as "every
    # call site passes the same arguments", the sweep was reported as one program rebuilt.
    body = """\
        def make_step(width):
            @jax.jit
            def step(x):
                return jnp.tile(x, width)
            return step

        def run(x, width):
            step = make_step(width)
            return step(x)

        def sweep(x):
            kwargs = {"x": x}
            for width in (1, 2, 3):
                kwargs["width"] = width
                run(**kwargs)
        """
    assert shown(body) == []
    assert compiles_of(body, "sweep(jnp.ones(2))", "step") == 3  # three widths, three programs
    # The same width on every pass: one program, compiled on each pass, and found.
    same = body.replace('kwargs["width"] = width', 'kwargs["width"] = 2')
    assert shown(same) == [(2, "JC105")]
    assert compiles_of(same, "sweep(jnp.ones(2))", "step") == 3


@pytest.mark.parametrize("name", sorted({*sameness._OBSERVING, *sameness._CLOCKS, "time", "default_timer"}))
def test_each_name_that_observes_compiles_is_read_where_the_module_spells_no_other(name: str) -> None:
    # The observer's walk is skipped for a module that spells none of its words: each name it reacts to is one.
    receiver = "time" if name in ("time", "default_timer") else "probe"
    body = f"""\
        def test_counted(x, probe):
            for _ in range(3):
                jax.jit(lambda v: v + 1)(x)
                {receiver}.{name}()
        """
    assert check(body) == []
    assert check(body.replace(f"{receiver}.{name}()", "probe.other()")) == [(3, "JC104")]


def test_a_library_function_that_times_its_own_run_is_not_a_benchmark() -> None:
    # `fit` reads a clock once around its work to report it: its user calls it for the result, and every call
    # compiles the same program again. A benchmark times each pass of its loop, or is named for what it measures.
    body = """\
        import time

        def fit(y, theta):
            def loss(t):
                return jnp.sum((t - y) ** 2)

            @jax.jit
            def run(t):
                return t - 0.1 * jax.grad(loss)(t)

            start = time.perf_counter()
            out = run(theta)
            return out, time.perf_counter() - start

        def _hoisted_loss(t, y):
            return jnp.sum((t - y) ** 2)

        @jax.jit
        def _hoisted_run(t, y):
            return t - 0.1 * jax.grad(_hoisted_loss)(t, y)

        def fit_hoisted(y, theta):
            start = time.perf_counter()
            out = _hoisted_run(theta, y)
            return out, time.perf_counter() - start
        """
    assert check(body) == [(7, "JC105")]
    calls = "[fit(jnp.ones(3) * k, jnp.zeros(3)) for k in range(3)]"
    assert compiles_of(body, calls, "run") == 3
    assert compiles_of(body, calls.replace("fit(", "fit_hoisted("), "_hoisted_run") == 1
    # Named for measuring: compiling again is what it observes.
    assert check(body.replace("def fit(", "def time_fit(")) == []
    # Timing each pass of its own loop for its user (a solver logging each step's wall time) is still the
    # library's work, called for its result: every call of `fit` compiles the same program again (jax: 3, hoisted
    # 1). Named for measuring, the same loop is timing on purpose.
    looped = body.replace("            start = time.perf_counter()\n            out = run(theta)\n",
                          "            for _ in range(2):\n                start = time.perf_counter()\n"
                          "                out = run(theta)\n")
    assert check(looped) == [(7, "JC105")]
    assert compiles_of(looped, calls, "run") == 3
    assert check(looped.replace("def fit(", "def bench_fit(")) == []


def test_a_wrapper_called_on_a_differently_built_object_each_pass_is_another_program() -> None:
    # `fn = jax.jit(lambda m, r: ...)`, then `fn(model_for(kind), r)` for each kind: what the wrapper is called on
    # (another object, of another structure) makes another program on each pass, as it does where the wrapper is
    # called at once. Read as "it reads nothing that changes", the loop was reported as one program rebuilt.
    body = """\
        def model_for(kind):
            return {"gather": (jnp.ones(2),), "matmul": (jnp.ones(2), jnp.ones(2))}[kind]

        def calibrate(r):
            out = {}
            for kind in ("gather", "matmul"):
                m = model_for(kind)
                fn = jax.jit(lambda mm, rr: sum(jnp.sum(p * rr) for p in mm))
                out[kind] = fn(m, r)
            return out
        """
    assert shown(body) == []
    assert compiles_of(body, "calibrate(jnp.ones(2))", "<lambda>") == 2  # two structures, two programs
    # The same object on every pass: one program, compiled on each pass, and found.
    same = body.replace("m = model_for(kind)", 'm = model_for("gather")')
    assert shown(same) == [(8, "JC104")]
    assert compiles_of(same, "calibrate(jnp.ones(2))", "<lambda>") == 2


def test_calls_that_choose_other_arms_of_an_if_around_the_jit_do_not_both_build_it() -> None:
    # `_train("adam")` and `_train("sgd")`: only the first reaches the `if` arm that jits `step`, so one compile.
    body = """\
        def _train(solver, x):
            if solver == "adam":
                @jax.jit
                def step(v):
                    return v * 0.9
                return step(x)
            return x * 0.5

        def fit(x):
            return _train("adam", x) + _train("sgd", x)

        def fit_twice(x):
            return _train("adam", x) + _train("adam", x)
        """
    assert compiles_of(body, "fit(jnp.ones(3))", "step") == 1
    assert compiles_of(body, "fit_twice(jnp.ones(3))", "step") == 2
    assert shown(body.replace("def fit_twice", "def _unused_fit_twice").replace(
        '_train("adam", x) + _train("adam", x)', "x")) == []
    assert shown(body.replace('return _train("adam", x) + _train("sgd", x)', "return x")) == [(3, "JC105")]
    # A parameter bound again before the test is not what the call passed: both calls may reach the arm (a guess
    # that they build one program, since they pass different values for what the test reads).
    rebound = body.replace('            if solver == "adam":', '            solver = "adam" if solver in ("adam", "sgd") else solver\n'
                                                                '            if solver == "adam":')
    assert compiles_of(rebound, "fit(jnp.ones(3))", "step") == 2
    assert check(rebound.replace("def fit_twice", "def _unused_fit_twice")) == [(4, "JC105")]


def test_a_jit_used_eagerly_only_in_one_arm_compiles_only_in_the_calls_that_choose_it() -> None:
    # `step` is built on every call of `_train`, but the "adam" arm calls it only inside another jit's trace, where
    # it is inlined: `_train("adam")` and `_train("sgd")` compile it once between them, two "sgd" calls twice.
    body = """\
        def _train(solver, x):
            @jax.jit
            def step(v):
                return v * 0.9

            if solver == "adam":
                @jax.jit
                def run(v):
                    return step(v) + 1.0
                return run(x)
            else:
                return step(x)

        def fit(x):
            return _train("adam", x) + _train("sgd", x)
        """
    assert compiles_of(body, "fit(jnp.ones(3))", "step") == 1
    assert compiles_of(body.replace('_train("adam", x)', '_train("sgd", x)'), "fit(jnp.ones(3))", "step") == 2
    assert shown(body) == []
    assert shown(body.replace('_train("adam", x)', '_train("sgd", x)')) == [(2, "JC105")]


def test_a_loop_calling_the_wrapper_on_differently_built_arguments_compiles_each_anyway() -> None:
    # Other shapes on each pass: a hoisted wrapper would compile three times too.
    body = """\
        def test_shapes():
            for arg in (jnp.array(1.0), jnp.ones((2,)), jnp.ones((2, 2))):
                def double(v):
                    return v * 2
                jax.jit(double)(arg)
            for cov in ("dense", "diagonal"):
                jax.jit(lambda t, c=cov: t * len(c))(1.0)
        """
    assert check(body) == []
    assert shown(body.replace("(jnp.array(1.0), jnp.ones((2,)), jnp.ones((2, 2)))", "range(3)")) == [(5, "JC105")]


def test_a_jit_handed_to_make_jaxpr_is_only_traced() -> None:
    body = """\
        def inspect(x):
            for _ in range(3):
                jax.make_jaxpr(jax.jit(lambda v: v + 1.0))(x)
        """
    assert check(body) == []
    assert shown(body.replace("jax.make_jaxpr(", "jax.vmap(")) == [(3, "JC104")]


def test_a_literal_list_of_integers_may_be_sizes_and_rests_on_a_guess() -> None:
    # `for n in [200, 500]` is as often a problem size (another shape, another program) as a value.
    body = """\
        def _bench(n):
            data = jnp.ones(n)
            return jax.jit(lambda m: m * data.sum())(1.0)

        def sweep():
            for n in [200, 500, 1000]:
                _bench(n)
        """
    assert check(body) == [(3, "JC104")] and shown(body) == []
    assert shown(body.replace("[200, 500, 1000]", "[0.5, 1.0, 2.0]")) == [(3, "JC104")]


def test_a_value_derived_from_a_parameter_through_other_locals_changes_with_it() -> None:
    # `data` comes from `n` through `simulate` and a tuple: each problem size is another shape, another program.
    # Two calls per iteration of the caller's loop pass the same `n`, but `n` changes on every iteration.
    body = """\
        def simulate(n):
            return jnp.ones(n), jnp.zeros(n)

        def make_loss(n, exact):
            xs, ys = simulate(n)
            data = (xs, ys)
            if exact:
                loss = lambda m: m * data[0].sum()
            else:
                loss = lambda m: m + data[1].sum()
            forward = jax.jit(loss)
            return lambda: forward(1.0)

        for n in [200, 500, 1000]:
            make_loss(n, exact=True)()
            make_loss(n, exact=False)()
        """
    assert check(body) == [(11, "JC104")] and shown(body) == []
    # Nothing the lambda reads comes from `n`: the same program on every call, reported.
    assert shown(body.replace("xs, ys = simulate(n)", "xs, ys = simulate(3)")) == [(11, "JC104")]


def test_a_lambdas_own_parameters_are_not_read_from_the_loop_around_it() -> None:
    # `ids` in the lambda is its parameter, not the loop's `ids`: the same program on every call of `_rank`.
    body = """\
        class Analyzer:
            def _rank(self, segments):
                select = jax.jit(jax.vmap(lambda vals, ids: vals[ids]))
                for ids in jnp.split(jnp.arange(segments), 2):
                    select(jnp.ones((3, 3)), ids)

            def run(self):
                self._rank(1)
                self._rank(2)
        """
    assert shown(body) == [(3, "JC104")]


def test_a_test_helper_run_once_per_object_class_jits_a_different_computation_each_time() -> None:
    # `_reg_fun` closes over `obj`, so the transformations of `_fun` built from it differ per object class too.
    body = """\
        def _run_checks(obj, kind):
            if kind == "grad":
                def _reg_fun(x):
                    return obj.value(x)
                _fun = jax.jit(_reg_fun)
                _gradfun = jax.jit(jax.grad(_fun))
                return _gradfun(0.3)

        def test_api(classes):
            for cls in classes:
                obj = cls(1.5)
                _run_checks(obj, "grad")
        """
    # `_fun` is only traced inside the jit of its gradient: it compiles nothing of its own, and only that outer
    # wrapper is a finding (see the test of wrappers a factory's product keeps, for jax's count).
    assert check(body) == [(6, "JC701")] and shown(body) == []
    # A closure that reads nothing of the object: the same program for every class, reported.
    same = body.replace("return obj.value(x)", "return x * 2.0")
    assert shown(same) == [(6, "JC701")]


def test_a_def_in_a_loop_closing_over_the_loop_variable_is_a_different_closure_each_iteration() -> None:
    # One gradient per parameter name: `_run` reads `param`, so `jax.grad(_run)` is another program each time.
    body = """\
        def test_derivatives(params, make):
            for param in params:
                def _run(v):
                    return make(**{param: v}).sum()
                jax.jit(jax.grad(_run))(2.0)
        """
    assert check(body) == [(5, "JC105")] and shown(body) == []
    assert shown(body.replace("{param: v}", "{'scale': v}")) == [(5, "JC105")]


def test_a_call_made_only_under_an_outer_trace_is_not_a_run_that_compiles() -> None:
    # A notebook: `run_min` runs eagerly once (cell 2); its call in `at_strain` is traced by `vmap`, where the
    # nested jit is inlined. One eager run: nothing compiles twice.
    body = """\
        def run_min(energy_fn, r):
            @jax.jit
            def body_fn(val):
                return energy_fn(val)
            return body_fn(r)

        R = run_min(jnp.sin, 1.0)

        def at_strain(gamma, r):
            return run_min(lambda x: x * gamma, r)

        Us = jax.vmap(at_strain, in_axes=(0, None))(jnp.ones(3), R)
        """
    assert shown(body) == []
    # Called eagerly at module level as well, it runs twice on the same inputs: reported.
    assert shown(body + "R2 = run_min(jnp.sin, 1.0)\n") == [(2, "JC105")]


def test_a_jitted_body_rebuilt_for_an_eager_while_loop_is_still_reported() -> None:
    # jax 0.10.2, CPU: an eager `lax.while_loop` whose jitted body is a new function on each call compiles the
    # loop on every call (5 calls, 5 compiles; the body hoisted, 1). Handed to the loop, it is still a repetition.
    body = """\
        def minimize(apply, state):
            @jax.jit
            def body_fn(val):
                return apply(val)

            def cond_fn(s):
                return s < 3.0

            return jax.lax.while_loop(cond_fn, body_fn, state)

        for strain in jnp.linspace(0.0, 1.0, 5):
            minimize(jnp.tanh, strain)
        """
    assert shown(body) == [(2, "JC105")]


def test_module_level_code_reaches_the_last_definition_above_it() -> None:
    # Two notebook cells each define `at_strain`; the eager loop in the second cell calls the second one, so
    # the first, only traced by `vmap`, never runs `relax` eagerly: `relax` runs eagerly once (first cell).
    body = """\
        def relax(energy_fn, r):
            @jax.jit
            def get_maxgrad(s):
                return jnp.abs(s).max()
            return get_maxgrad(energy_fn(r))

        R = relax(jnp.sin, 1.0)

        def at_strain(gamma, r):
            return relax(lambda x: x * gamma, r)

        Us = jax.vmap(at_strain, in_axes=(0, None))(jnp.ones(3), R)

        def at_strain(gamma, r):
            return gamma * r

        Vs = [at_strain(g, R) for g in jnp.ones(3)]
        """
    assert shown(body) == []
    # Without the second definition, the eager loop calls the first `at_strain`, and `relax` runs on each item.
    single = textwrap.dedent(body).replace("def at_strain(gamma, r):\n    return gamma * r\n", "")
    assert single != textwrap.dedent(body) and shown(single) == [(2, "JC105")]


def test_an_object_filled_under_a_parameter_changes_with_it() -> None:
    # `space` comes from a builder filled once per ball: each count is another shape, another program, and jax
    # compiles `advance` once per count, as an `advance` hoisted to module level (taking `space`) would too.
    body = """\
        class Builder:
            def __init__(self):
                self.sizes = []
            def add(self, size):
                self.sizes.append(size)
            def build(self):
                return jnp.asarray(self.sizes)

        def simulate(n_balls, steps):
            builder = Builder()
            for _ in range(n_balls):
                builder.add(1.0)
            space = builder.build()
            @jax.jit
            def advance(x):
                return x + space
            x = jnp.zeros(n_balls)
            for _ in range(steps):
                x = advance(x)
            return x

        def main(counts):
            for count in counts:
                simulate(count, 3)
        """
    assert shown(body) == []
    assert compiles_of(body, "main([2, 3, 4])", "advance") == 3
    hoisted = textwrap.dedent(body).replace("    @jax.jit\n    def advance(x):\n        return x + space\n", "").replace(
        "advance(x)", "advance(x, space)") + "\n@jax.jit\ndef advance(x, space):\n    return x + space\n"
    assert "def advance(x)" not in hoisted
    assert compiles_of(hoisted, "main([2, 3, 4])", "advance") == 3
    # Filled the same way whatever the count: the same program built on every call of `simulate`, reported.
    same = body.replace("range(n_balls)", "range(4)").replace("jnp.zeros(n_balls)", "jnp.zeros(4)")
    assert shown(same) == [(14, "JC105")]
    assert compiles_of(same, "main([2, 3, 4])", "advance") == 3
    assert compiles_of(hoisted.replace("range(n_balls)", "range(4)").replace("jnp.zeros(n_balls)", "jnp.zeros(4)"),
                       "main([2, 3, 4])", "advance") == 1


def test_a_wrapper_called_on_what_a_callers_loop_over_a_dict_of_kinds_hands_in_is_another_program_each_time() -> None:
    # The caller loops over a dict literal's keys (pairs of kind names) and hands in a differently-sized shape per
    # pair; `outer` reads nothing from around it, but the arguments it is called with (a shape, a static count)
    # differ per pair: three programs, compiled three times, hoisted or not.
    body = """\
        KINDS = {("disc", "disc"): 1, ("disc", "wall"): 2, ("wall", "box"): 3}

        def _pairs(a, b):
            @functools.partial(jax.jit, static_argnums=(1,))
            def outer(x, reps):
                return jnp.repeat(x, reps, total_repeat_length=x.shape[0] * reps)
            return outer(jnp.arange(a.size), reps=b.size)

        class Space:
            def __init__(self, shapes):
                self.pairs = {}
                for k1, k2 in KINDS.keys():
                    s1, s2 = shapes[k1], shapes[k2]
                    self.pairs[k1, k2] = _pairs(s1, s2)

        def build():
            return Space({"disc": jnp.ones(2), "wall": jnp.ones(3), "box": jnp.ones(4)})
        """
    assert shown(body) == []
    assert compiles_of(body, "build()", "outer") == 3
    # The same pair on every pass of a loop over numbers: the same program compiled each time, reported.
    same = body.replace("for k1, k2 in KINDS.keys():", "for _ in range(3):").replace(
        "shapes[k1], shapes[k2]", 'shapes["disc"], shapes["wall"]').replace("self.pairs[k1, k2]", "self.pairs[_]")
    assert shown(same) == [(4, "JC105")]
    assert compiles_of(same, "build()", "outer") == 3


def test_call_sites_in_two_library_functions_nothing_runs_are_alternatives_not_a_repetition() -> None:
    # `to_grid` and `random_grid` each call `_settle` once, and nothing in the run calls either: a user may build
    # a grid one way or the other, so that `_settle` runs twice is a guess (preview). jax: one way, one compile.
    body = """\
        def _settle(grid):
            @jax.jit
            def move(g):
                return g * 2
            return move(grid)

        def to_grid(x):
            return _settle(x)

        def random_grid(n):
            return _settle(jnp.zeros(n))
        """
    assert shown(body) == [] and check(body) == [(2, "JC105")]
    (finding,) = check_source(HEADER + textwrap.dedent(body), "module.py")
    assert "assumed to run" in finding.message and "can both run" not in finding.message
    assert compiles_of(body, "to_grid(jnp.ones(3))", "move") == 1
    # A function that runs both: the two calls run together, and the same program compiles twice.
    both = textwrap.dedent(body) + "\ndef grids(x):\n    return to_grid(x), random_grid(3)\n"
    assert shown(both) == [(2, "JC105")]
    assert compiles_of(both, "grids(jnp.ones(3))", "move") == 2


def test_an_arm_chosen_by_the_loop_variable_runs_in_one_iteration() -> None:
    # `for mode in (...)` over distinct constants and `if mode == "a":`: each arm runs in one iteration, so a jit
    # there runs once per test (here on another argument type in each arm: a different computation).
    body = """\
        class Dist:
            def __init__(self, loc):
                self.loc = loc
            def kl(self, other):
                return jnp.sum((self.loc - jnp.asarray(other)) ** 2)

        def test_kl():
            d = Dist(jnp.ones(3))
            for mode in ("arrays", "lists", "scalars", "zeros"):
                if mode == "arrays":
                    jax.jit(d.kl)(jnp.zeros(3))
                elif mode == "lists":
                    jax.jit(d.kl)([0.0, 0.0, 0.0])
                else:
                    jax.jit(lambda v: v + 1)(2.0)
        """
    assert check(body) == [(15, "JC104")]  # the else arm runs in two iterations: the same lambda compiled twice
    assert compiles_of(body, "test_kl()", "kl") == 2  # one compile per arm that runs it, two programs
    assert compiles_of(body, "test_kl()", "<lambda>") == 2
    # The variable bound again in the loop, or a value listed twice: the arm may run more than once.
    again = body.replace('("arrays", "lists", "scalars", "zeros")', '("arrays", "lists", "arrays", "zeros")')
    assert (11, "JC101") in check(again)
    assert compiles_of(again, "test_kl()", "kl") == 3


def test_a_lambda_default_reading_the_loop_variable_is_another_program_each_iteration() -> None:
    # `lambda v, fn=fn: ...` reads the loop's `fn` where it is made, though its parameter has the same name: each
    # iteration jits another function, and no restructuring compiles them once.
    body = """\
        CASES = {"double": lambda v: v * 2.0, "square": lambda v: v ** 2}

        def run(x):
            for name, fn in CASES.items():
                f = jax.jit(lambda v, fn=fn: fn(v).sum())
                f(x)
        """
    assert shown(body) == []
    assert compiles_of(body, "run(jnp.ones(3))", "<lambda>") == 2  # two programs, each compiled once
    # A default that does not change: the same lambda compiled again on each iteration, found.
    same = body.replace("lambda v, fn=fn: fn(v).sum()", "lambda v, k=2.0: (v * k).sum()")
    assert shown(same) == [(5, "JC104")]
    assert compiles_of(same, "run(jnp.ones(3))", "<lambda>") == 2  # one program, compiled twice
    hoisted = same.replace("            for name, fn in CASES.items():\n                f = jax.jit(lambda v, k=2.0: (v * k).sum())\n",
                           "            f = jax.jit(lambda v, k=2.0: (v * k).sum())\n            for name, fn in CASES.items():\n")
    assert shown(hoisted) == [] and compiles_of(hoisted, "run(jnp.ones(3))", "<lambda>") == 1


def test_an_if_on_a_flag_the_loop_runs_over_is_one_iteration() -> None:
    # `for sharded in [False, True]:` and `if sharded:` (or its `else`): each arm runs in one iteration, so what
    # repeats it is the loop around, whose `scale` the jitted code reads: another program on each pass.
    body = """\
        def run(x):
            for scale in [1, 2]:
                for sharded in [False, True]:
                    if sharded:
                        @jax.jit
                        def g(v):
                            return v * scale
                        g(x)
                    else:
                        jax.jit(lambda v: v + scale)(x)
        """
    assert shown(body) == []
    assert compiles_of(body, "run(jnp.ones(3))", "g") == 2  # scale 1 and 2: two programs
    assert compiles_of(body, "run(jnp.ones(3))", "<lambda>") == 2
    # Reading nothing the outer loop changes: the same program compiled on each pass of it, found in both arms.
    same = body.replace("v * scale", "v * 2").replace("v + scale", "v + 2")
    assert shown(same) == [(5, "JC105"), (10, "JC104")]
    assert compiles_of(same, "run(jnp.ones(3))", "g") == 2  # one program, compiled twice
    # Three flags, two of them truthy: the `if` arm runs twice in the inner loop itself.
    three = same.replace("[False, True]", "[0, 1, 2]")
    assert (5, "JC105") in shown(three)
    assert compiles_of(three, "run(jnp.ones(3))", "g") == 4


def test_a_static_argument_that_changes_on_each_iteration_is_a_new_key_whatever_is_hoisted() -> None:
    # The wrapper is called at once with a static argument built anew on each pass: each pass is a new cache key,
    # so hoisting the `jax.jit` would compile as often. Not an avoidable recompile.
    body = """\
        class Model:
            def __init__(self, k):
                self.k = k

        def loss(model, x):
            return jnp.sum(x * model.k)

        SCALES = (1.0, 2.0)

        def run(x):
            for k in SCALES:
                model = Model(k)
                jax.jit(jax.grad(loss, argnums=1), static_argnums=0)(model, x)

        GRAD = jax.jit(jax.grad(loss, argnums=1), static_argnums=0)

        def hoisted(x):
            for k in SCALES:
                GRAD(Model(k), x)
        """
    assert shown(body) == []
    assert compiles_of(body, "run(jnp.ones(3))", "loss") == 2
    assert compiles_of(body, "hoisted(jnp.ones(3))", "loss") == 2  # hoisted: as many compiles
    # One model for every pass: the rebuilt wrapper is the only new key, found, and hoisting it compiles once.
    same = body.replace("            for k in SCALES:\n                model = Model(k)\n",
                        "            model = Model(1.0)\n            for k in SCALES:\n")
    assert shown(same) == [(13, "JC701")]
    assert compiles_of(same, "run(jnp.ones(3))", "loss") == 2
    one = same.replace("            for k in SCALES:\n                GRAD(Model(k), x)\n",
                       "            model = Model(1.0)\n            for k in SCALES:\n                GRAD(model, x)\n")
    assert compiles_of(one, "hoisted(jnp.ones(3))", "loss") == 1  # the help applied: built once, compiled once


def test_a_jit_whose_options_are_made_from_what_changes_builds_another_program_each_run() -> None:
    # The wrapper's options are part of its cache key: shardings made from each group's own keys are another
    # program for each group (another input structure), whatever is hoisted. Read as "the lambda reads none of its
    # function's parameters", it was reported as the same program rebuilt.
    body = """\
        def lowered(params):
            placed = {k: jax.sharding.SingleDeviceSharding(jax.devices()[0]) for k in params}
            shapes = {k: jax.ShapeDtypeStruct(v.shape, v.dtype) for k, v in params.items()}
            gather = jax.jit(lambda x: x, in_shardings=(placed,)).lower(shapes)
            return gather.compile()

        def run(groups):
            params = {"a": jnp.ones(2), "b": jnp.ones(3), "c": jnp.ones(4)}
            made = []
            for keys in groups:
                made.append(lowered({k: params[k] for k in keys}))
            return made
        """
    assert shown(body) == []
    assert compiles_of(body, "run([('a',), ('a', 'b'), ('a', 'b', 'c')])", "<lambda>") == 3  # three programs
    # The same group on every pass: the options read nothing that changes, and the rebuilt lambda is found.
    same = body.replace("for keys in groups:", "for _ in range(3):").replace(
        "lowered({k: params[k] for k in keys})", 'lowered({"a": params["a"]})')
    assert shown(same) == [(4, "JC104")]
    assert compiles_of(same, "run(None)", "<lambda>") == 3  # one program, compiled on each of the three passes


def test_a_settings_table_filled_by_item_assignment_from_a_parameter_changes_with_it() -> None:
    # `hparams[key] = int(part)` fills a local table from the parameter: the closure reading it is another program for
    # each name (another shape here), as it would be reading the parameter itself. Read as "it reads none of its
    # function's parameters", it was reported as the same program rebuilt.
    body = """\
        def compare(name, x):
            hparams = {}
            for part in name.split("-"):
                hparams[part[0]] = int(part[1:])

            def loss(v):
                return jnp.sum(v.reshape(hparams["b"], -1))

            return jax.jit(loss)(x)

        def run(x):
            for name in ("b2", "b3", "b6"):
                compare(name, x)
        """
    assert shown(body) == []
    assert compiles_of(body, "run(jnp.ones(6))", "loss") == 3  # three shapes, three programs
    # The same name on every pass: one program, compiled on each pass, and found.
    same = body.replace('for name in ("b2", "b3", "b6"):', "for _ in range(3):").replace(
        "        compare(name, x)", '        compare("b2", x)')
    assert shown(same) == [(9, "JC105")]
    assert compiles_of(same, "run(jnp.ones(6))", "loss") == 3


def test_a_name_bound_beside_an_item_assignment_reads_only_its_own_value() -> None:
    # `table[name] = scale = 2.0`: the key `name` changes `table`, not `scale`; the lambda reading only `scale` is the
    # same program for every name, compiled again on each call.
    body = """\
        def compare(name, x):
            table = {}
            table[name] = scale = 2.0
            return jax.jit(lambda v: v * scale)(x)

        def run(x):
            for name in ("a", "b", "c"):
                compare(name, x)
        """
    assert shown(body) == [(4, "JC104")]
    assert compiles_of(body, "run(jnp.ones(3))", "<lambda>") == 3  # one program, three compiles


def test_an_argument_named_beside_star_arguments_is_read_at_each_call() -> None:
    # `step(x, *rest, scale=2.0)`: what `*rest` unpacks cannot reach `scale`, named at the call, so both calls pass
    # the same `scale` (the claim "they pass different `scale`" was made because the star stopped the reading).
    body = """\
        def step(x, *args, scale=1.0):
            return jax.jit(lambda v: v * scale)(x)

        def first(x, *rest):
            return step(x, *rest, scale=2.0)

        def second(x, *rest):
            return step(x, *rest, scale=2.0)

        def main(x):
            first(x)
            second(x)
        """
    assert shown(body) == [(2, "JC104")]
    assert compiles_of(body, "main(jnp.ones(3))", "<lambda>") == 2  # one program, compiled at each call
    other = body.replace("return step(x, *rest, scale=2.0)\n\n        def main", "return step(x, *rest, scale=3.0)\n\n        def main")
    assert other != body and shown(other) == []  # two scales: not shown to be one program


def test_a_receiver_bound_again_in_the_loop_is_the_object_built_just_above() -> None:
    # `bij` is bound before the loop and again in its body: the read below the body's binding sees only that one,
    # a new object of a known class on each pass, so its method is a new bound method each time (not a guess).
    body = """\
        class Affine:
            def __init__(self, scale):
                self.scale = scale
            def forward(self, x):
                return x * self.scale

        def run(x):
            scales = jnp.ones(3)
            bij = Affine(2.0)
            bij.forward(x)
            for i in range(3):
                bij = Affine(scales[i])
                jax.jit(bij.forward)(x)

        def hoisted(x):
            scales = jnp.ones(3)
            forward = jax.jit(lambda s, v: Affine(s).forward(v))
            for i in range(3):
                forward(scales[i], x)
        """
    assert shown(body) == [(13, "JC101")]
    assert compiles_of(body, "run(jnp.ones(2))", "forward") == 3  # one program, compiled on every pass
    assert compiles_of(body, "hoisted(jnp.ones(2))", "<lambda>") == 1
    # A binding in another branch may reach the read: when both build an Affine, it is a method whichever it is,
    # and jax compiles on every pass (a new wrapper of a new bound method each time).
    branched = body.replace("                bij = Affine(scales[i])\n",
                            "                if i:\n                    bij = Affine(scales[i])\n")
    assert shown(branched) == [(14, "JC101")]
    assert compiles_of(branched, "run(jnp.ones(2))", "forward") == 3
    # When the other binding is of a kind the pass cannot tell, it cannot name the class (JC107, not JC101); an
    # attribute jitted on every pass is a method far more often than a function held in a field, so it is reported.
    unknown = branched.replace("            bij = Affine(2.0)\n", "            bij = load()\n")
    assert shown(unknown) == [(14, "JC107")]
    # Named as records name their function fields (`update`), it stays a guess (--preview).
    field = unknown.replace("forward", "update")
    assert shown(field) == []


def test_a_loop_over_a_generator_that_yields_once_runs_its_body_once() -> None:
    # A test helper yielding one input on every path (brainevent's `_generate_x`) is looped over, yet the body
    # runs once: the lambda it jits is built once. One that yields twice makes a real loop (2 compiles, 1 program).
    body = """\
        class Case:
            def _inputs(self, n):
                if n > 2:
                    yield jnp.ones(n)
                else:
                    yield jnp.zeros(n)

            def _pairs(self, n):
                yield jnp.ones(n)
                yield jnp.ones(n) * 2

            def run_once(self, n):
                for x in self._inputs(n):
                    jax.jit(lambda v: v * 2)(x)

            def run_twice(self, n):
                for x in self._pairs(n):
                    jax.jit(lambda v: v * 2)(x)
        """
    assert shown(body) == [(18, "JC104")]
    assert compiles_of(body, "Case().run_once(3)", "<lambda>") == 1
    assert compiles_of(body, "Case().run_twice(3)", "<lambda>") == 2
    # The same verdict on the whole module as on the parts a check reads (the generator's body is kept).
    whole = check_text(HEADER + textwrap.dedent(body), "module.py", Settings(), prune=False).findings
    assert [(f.line - HEADER.count("\n"), f.code) for f in whole if f.confidence == "high"] == [(18, "JC104")]


def test_a_wrapper_called_on_an_array_the_loop_sizes_is_another_program_each_pass() -> None:
    # healjax's tests jit `partial(convert_map, ...)` per `nside` on `np.arange(npix(nside))`: another shape on each
    # pass, so hoisting the wrapper still compiles once per size (3 in 3). Data of one shape (a `linspace` whose
    # endpoint changes, its size fixed) is one program compiled again on each pass, and stays reported.
    body = """\
        def npix(n):
            return 12 * n * n

        def convert(a, m):
            return m * 2

        def sized():
            for nside in [2, 4, 8]:
                m = np.arange(npix(nside))
                jax.jit(partial(convert, "ring"))(m)

        def sized_through_unpacking():
            for nside in [2, 4, 8]:
                q, r = np.divmod(np.arange(npix(nside)), 3)
                jax.jit(partial(convert, "ring"))(q + r)

        hoisted = jax.jit(partial(convert, "ring"))

        def sized_hoisted():
            for nside in [2, 4, 8]:
                hoisted(np.arange(npix(nside)))

        def one_shape():
            for t in [2.0, 4.0, 8.0]:
                m = np.linspace(0, t, 100)
                jax.jit(partial(convert, "ring"))(m)

        def two_loops():
            for nside in [2, 4]:
                q, r = np.divmod(np.arange(npix(nside)), 3)
                m = q + r
                jax.jit(partial(convert, "ring"))(m)
            for nside in [2, 4]:
                q, r = np.divmod(np.arange(npix(nside)), 5)
                m = q * r
                jax.jit(partial(convert, "nest"))(m)
        """
    assert shown(body) == [(26, "JC102")]
    assert compiles_of(body, "two_loops()", "convert") == 4
    assert compiles_of(body, "sized()", "convert") == 3
    assert compiles_of(body, "sized_through_unpacking()", "convert") == 3
    assert compiles_of(body, "sized_hoisted()", "convert") == 3  # the help would not make it one
    assert compiles_of(body, "one_shape()", "convert") == 3


def test_a_def_jitted_by_a_function_nested_in_its_definer_is_new_only_when_the_definer_runs_again() -> None:
    # sbijax's `_validation_loss`: `body_fn` jits its definer's `loss_fn` for each batch. Within one run of the
    # definer that is one object (one compile for all batches); each run of the definer makes a new one. Run once:
    # nothing to report; run in a loop (an epoch loop): reported (the JC105 help case counts 3 compiles in 3 epochs).
    body = """\
        def validate(params, batches):
            def loss_fn(b):
                return jnp.mean(b * params)
            def body_fn(b):
                return jax.jit(loss_fn)(b)
            return [body_fn(b) for b in batches]

        def main():
            validate(jnp.ones(3), [jnp.ones(3), jnp.ones(3)])
        """
    assert shown(body) == []
    assert compiles_of(body, "main()", "loss_fn") == 1
    looped = body + """\

        def train():
            for _ in range(3):
                validate(jnp.ones(3), [jnp.ones(3), jnp.ones(3)])
        """
    assert shown(looped) == [(5, "JC105")]
    assert compiles_of(looped, "train()", "loss_fn") == 3


def test_a_def_bound_on_each_branch_of_its_definer_is_judged_by_the_definer_s_runs() -> None:
    # sbijax's `_validation_loss` defines `loss_fn` in both arms of an `if`; the evidence is the definer's epoch loop
    # (3 compiles in 3 epochs), not the batch loop inside it (which finds the one object again: 1 compile per epoch).
    body = """\
        def validate(params, batches, first):
            if first:
                def loss_fn(b):
                    return jnp.mean(b * params)
            else:
                def loss_fn(b):
                    return jnp.sum(b * params)
            def body_fn(b):
                return jax.jit(loss_fn)(b)
            for b in batches:
                body_fn(b)

        def train():
            for _ in range(3):
                validate(jnp.ones(3), [jnp.ones(3), jnp.ones(3)], True)
        """
    findings = [f for f in check_source(HEADER + textwrap.dedent(body), "module.py") if f.confidence == "high"]
    assert [(f.line - HEADER.count("\n"), f.code) for f in findings] == [(9, "JC105")]
    assert [r.kind for r in findings[0].evidence.again] == ["called-in-loop"]
    assert f"line {15 + HEADER.count(chr(10))}" in findings[0].evidence.again[0].text  # the epoch loop
    assert compiles_of(body, "train()", "loss_fn") == 3


def test_wrappers_a_factory_keeps_in_the_object_it_returns_are_built_once_per_product() -> None:
    # The jitted right-hand side, and the jit of its jacobian that a returned lambda calls, live on in the problem
    # `build` returns: kept and used, each compiles once (jax 0.10.2, CPU: 2 compiles named `rhs` for 3 solves, the
    # jacobian's jit taking the name too; its transformation of the jitted `rhs` is traced there, compiling nothing).
    # With no caller here, a guess that users rebuild it is no evidence: nothing is reported, not even in preview.
    body = """\
        class Problem:
            def __init__(self, f, df, df_diagonal):
                self.f, self.df, self.df_diagonal = f, df, df_diagonal

        def build(c=2.0):
            @jax.jit
            def rhs(_, x):
                return c * x ** 2

            jac = jax.jit(jax.jacfwd(rhs, argnums=1))
            return Problem(f=rhs, df=jac, df_diagonal=lambda t, x: jnp.diag(jac(t, x)))

        def solve(problem, x):
            return problem.f(0.0, x) + problem.df_diagonal(0.0, x)
        """
    assert check(body) == []
    assert compiles_of(body, "[(p := build()), [solve(p, jnp.ones(3)) for _ in range(3)]]", "rhs") == 2
    # A caller that builds the problem on each pass of its loop and uses it there compiles both again each time.
    again = body + """\

        def solve_all(n):
            for _ in range(n):
                solve(build(), jnp.ones(3))
        """
    assert compiles_of(again, "solve_all(3)", "rhs") == 6
    assert shown(again) == [(6, "JC105"), (10, "JC105")]
    # Calling the functions the product keeps (`problem.f(...)`) uses it as much as handing it on: built and used on
    # each pass, reported; built once before the loop of a function that runs once, not (a guess in preview only).
    by_attribute = body + """\

        def sweep(n):
            for _ in range(n):
                problem = build()
                problem.f(0.0, jnp.ones(3))
                problem.df_diagonal(0.0, jnp.ones(3))
        """
    assert compiles_of(by_attribute, "sweep(3)", "rhs") == 6
    assert shown(by_attribute) == [(6, "JC105"), (10, "JC105")]
    built_once = by_attribute.replace("""\
            for _ in range(n):
                problem = build()
""", """\
            problem = build()
            for _ in range(n):
""") + "\n        sweep(3)\n"
    assert compiles_of(built_once, "sweep(3)", "rhs") == 2
    assert shown(built_once) == []
    # Only the outer wrapper compiles: `rhs` hoisted alone, the jit of its jacobian rebuilt on each call still
    # compiles each time (3 calls, 3 compiles), so the advice to hoist `rhs` would not be a fix there.
    hoisted = """\
        @jax.jit
        def rhs(_, x):
            return 2.0 * x ** 2

        def diagonal(x):
            return jnp.diag(jax.jit(jax.jacfwd(rhs, argnums=1))(0.0, x))
        """
    assert compiles_of(hoisted, "[diagonal(jnp.ones(3)) for _ in range(3)]", "rhs") == 3


def test_an_equinox_modules_method_under_filter_jit_is_keyed_by_its_fields_however_often_the_instance_is_rebuilt() -> None:
    # equinox reads a method on a Module instance as a Module holding that instance: `eqx.filter_jit` compares it by
    # its fields (arrays by shape and dtype), so a model rebuilt on each pass is the same cache key (jax 0.10.2,
    # equinox 0.13.8: 1 compile for 3 passes). A plain object's method compares by the object: 3 compiles, reported.
    body = """\
        import equinox as eqx

        class GP(eqx.Module):
            weights: jax.Array

            def setup(self, x):
                return self.weights * x

        class Plain:
            def __init__(self, weights):
                self.weights = weights

            def setup(self, x):
                return self.weights * x

        def fit_gp(data, x):
            model = GP(data)
            return eqx.filter_jit(model.setup)(x)

        def fit_plain(data, x):
            model = Plain(data)
            return eqx.filter_jit(model.setup)(x)

        def sweep(n):
            for i in range(n):
                fit_gp(jnp.ones(3) * i, jnp.ones(3))
                fit_plain(jnp.ones(3) * i, jnp.ones(3))
                eqx.filter_jit(eqx.filter_vmap(GP(jnp.ones(3) * i).setup))(jnp.ones((2, 3)))
        """
    assert compiles_of(body, "[fit_gp(jnp.ones(3) * i, jnp.ones(3)) for i in range(3)]", "setup") == 1
    assert compiles_of(body, "[fit_plain(jnp.ones(3) * i, jnp.ones(3)) for i in range(3)]", "setup") == 3
    assert [code for _, code in check(body)] == ["JC101"]
    assert [line for line, _ in check(body)] == [22]


def test_two_drivers_the_program_runs_in_different_arms_of_one_if_are_alternatives_not_two_runs() -> None:
    # `main` runs the training driver or the evaluation-only one, never both: each builds its steps once, so the
    # factory's two call sites are one build per run (jax 0.10.2, CPU: 1 compile of `train_step` per `main`).
    # Two sites the program can both run are shown repetition; alternatives are not.
    body = """\
        def train_step(state, batch, scale):
            return state + batch * scale

        def compiled_steps(scale):
            train = jax.jit(functools.partial(train_step, scale=scale))
            evaluate = jax.jit(functools.partial(train_step, scale=0.0))
            return train, evaluate

        def train_and_eval(scale, n):
            train, evaluate = compiled_steps(scale)
            state = jnp.zeros(3)
            for _ in range(n):
                state = train(state, jnp.ones(3))
            return evaluate(state, jnp.ones(3))

        def eval_only(scale):
            _, evaluate = compiled_steps(scale)
            return evaluate(jnp.zeros(3), jnp.ones(3))

        def main(training, scale):
            if training:
                return train_and_eval(scale, 3)
            else:
                return eval_only(scale)
        """
    assert compiles_of(body, "main(True, 2.0)", "train_step") == 2  # the train step and the evaluation step, once each
    assert shown(body) == []
    # A program that runs both drivers builds the steps twice: the evaluation step, the same computation, compiles
    # again (3 compiles), and the two sites are shown repetition.
    both = body.replace("""\
            if training:
                return train_and_eval(scale, 3)
            else:
                return eval_only(scale)""", """\
            train_and_eval(scale, 3)
            return eval_only(scale)""")
    assert compiles_of(both, "main(True, 2.0)", "train_step") == 3
    assert sorted(code for _, code in shown(both)) == ["JC102", "JC102"]


def test_a_wrapper_built_under_a_latch_the_loop_sets_once_is_built_once_per_loop() -> None:
    # `if in_review and not built: ...; built = True`: the first iteration that passes the test closes it for the
    # rest of the loop, so the wrapper is built once per run of the loop, not on every iteration (jax 0.10.2, CPU:
    # 1 compile over 5 iterations). Without the latch it is built on each iteration that passes (3 compiles).
    body = """\
        def review(n, factor):
            built = False
            total = 0.0
            for i in range(n):
                if i >= 2 and not built:
                    step = jax.jit(functools.partial(scale, factor=factor))
                    built = True
                if built:
                    total = total + step(jnp.ones(3))
            return total
        """
    assert shown(body) == []
    assert compiles_of(body, "review(5, 2.0)", "scale") == 1
    unlatched = body.replace("                    built = True\n", "").replace(
        "                if built:\n                    total", "                    total")
    assert compiles_of(unlatched, "review(5, 2.0)", "scale") == 3
    assert shown(unlatched) == [(6, "JC102")]
    # A loop that sets the latch back opens it again: no longer once per loop.
    reset = body.replace("                if built:\n", "                if built and i % 2:\n                    built = False\n"
                         "                if built:\n")
    assert [code for _, code in shown(reset)] == ["JC102"]


def test_a_number_the_jitted_code_tests_in_python_is_not_shown_to_be_data_an_argument_could_carry() -> None:
    # A loop over numbers bakes each into a partial: "data baked into the same code; pass it as an argument" holds
    # when the code only computes with it (3 compiles; passed as an argument, 1). When the code tests it in a Python
    # `if`, an argument cannot carry it (jax raises on the test of a tracer), and another value may take another arm:
    # that each pass builds the same program is not shown, so the finding is a guess, in `--preview` only.
    body = """\
        def shift(x, offset):
            if offset > 0:
                return x + offset
            return x

        def sweep():
            total = 0.0
            for offset in (0.5, 1.5, 2.5):
                total = total + jax.jit(functools.partial(shift, offset=offset))(jnp.ones(3))
            return total
        """
    assert shown(body) == []
    assert check(body) == [(9, "JC102")]
    with pytest.raises(jax.errors.TracerBoolConversionError):
        compiles_of(body, "jax.jit(shift)(jnp.ones(3), 2.0)", "shift")
    computed = body.replace("            if offset > 0:\n                return x + offset\n            return x",
                            "            return x + offset")
    assert shown(computed) == [(7, "JC102")]
    assert compiles_of(computed, "sweep()", "shift") == 3
    assert compiles_of(computed, "[jax.jit(shift)(jnp.ones(3), v) for v in (0.5, 1.5, 2.5)]", "shift") == 1




def _traces(body: str, call: str) -> int:
    """How many times the planted module's ``field`` is traced while ``call`` runs (its ``TRACES`` list)."""
    namespace: dict[str, object] = {"__name__": "planted_case"}
    exec(compile(HEADER + textwrap.dedent(body), "planted_case.py", "exec"), namespace)
    eval(call, namespace)
    traces = namespace["TRACES"]
    assert isinstance(traces, list)
    return len(traces)


def test_jax_pmap_finds_a_bound_method_of_the_same_object_again_where_jax_jit_does_not() -> None:
    # jax.pmap keys its function by == and hash: a bound method of the same object is found again (jax 0.10.2, CPU:
    # 1 trace over 3 calls), while jax.jit keys by the function object (3). A receiver built anew is a new key for
    # both (3).
    body = """\
        TRACES = []

        class Sim:
            def field(self, x):
                TRACES.append(1)
                return x * 2.0

            def run_pmap(self, x):
                return jax.pmap(self.field)(x)

            def run_jit(self, x):
                return jax.jit(self.field)(x)

        def rebuilt_pmap(x):
            return jax.pmap(Sim().field)(x)

        def drive(sim, x):
            for _ in range(3):
                sim.run_pmap(x)
                sim.run_jit(x)
                rebuilt_pmap(x)
        """
    assert _traces(body, "[s.run_pmap(jnp.ones((1, 3))) for s in [Sim()] * 3]") == 1
    assert _traces(body, "[s.run_jit(jnp.ones((1, 3))) for s in [Sim()] * 3]") == 3
    assert _traces(body, "[rebuilt_pmap(jnp.ones((1, 3))) for _ in range(3)]") == 3
    assert check(body) == [(12, "JC101"), (15, "JC101")]
