"""A function whose call sites pass different arguments is judged through each site's own chain of callers.

Two calls passing different things may be two programs, but one call whose function is shown to run again, handing
on the same values each time, compiles one program on every run of that function. Two calls of a helper from two
notebook cells spelled alike may still pass two values when the cells rebind the names. jax's compile count decides
every case here.
"""

from __future__ import annotations

from jitcheck.lint.check import check_source
from tests.lint.checks.support import HEADER, check, compiles_of, compiles_running, shown

PREDICT = """\
def predictor(prob, flag):
    return jax.jit(lambda x: x * prob + flag)


def predict_fixed(x, prob):
    return predictor(prob, 0.0)(x)


def predict_mixture(draws, prob, flag):
    f = predictor(prob, flag)
    return [f(d) for d in draws]


def predict_splits(splits, rungs):
    out = []
    for prob in splits:
        for rung in rungs:
            out.append(predict_mixture(rung, prob, 1.0))
    return out
"""

PREDICT_HOISTED = PREDICT + """

def predict_splits_hoisted(splits, rungs):
    out = []
    for prob in splits:
        f = predictor(prob, 1.0)
        for rung in rungs:
            out.append([f(d) for d in rung])
    return out
"""

PREDICT_PER_MODEL = """\
def predictor(prob, flag):
    return jax.jit(lambda x: prob.apply(x) + flag)


def predict_fixed(x, prob):
    return predictor(prob, 0.0)(x)


def predict_mixture(draws, prob, flag):
    f = predictor(prob, flag)
    return [f(d) for d in draws]


class Linear:
    def apply(self, x):
        return x * 2.0


class Square:
    def apply(self, x):
        return x * x


def predict_models(draws):
    return [predict_mixture(draws, model, 1.0) for model in (Linear(), Square())]
"""

RUNGS = "[[jnp.ones(3)], [jnp.ones(3)], [jnp.ones(3)]]"


def line_of(body: str, text: str) -> int:
    """The 1-based line of ``text``'s first appearance in ``body``."""
    return body.splitlines().index(text) + 1


def test_a_call_whose_function_runs_again_with_the_same_values_is_reported() -> None:
    # `predictor` is called at two sites with different arguments, but `predict_mixture` runs once per rung and
    # hands on the same `prob` and flag each time: the same program, compiled once per rung.
    lam = line_of(PREDICT, "    return jax.jit(lambda x: x * prob + flag)")
    assert shown(PREDICT) == [(lam, "JC104")]
    found = check_source(HEADER + PREDICT, "module.py")
    assert len(found) == 1
    message = found[0].message
    assert "called by code that runs again" in message and "2 sites" not in message
    evidence = found[0].evidence
    assert evidence is not None
    kinds = [reason.kind for reason in evidence.again]
    assert kinds == ["called-from", "called-in-loop"]
    assert "predict_mixture" in evidence.again[0].text
    # jax: three rungs of one split compile the same program three times; built once per split, once.
    assert compiles_of(PREDICT, f"predict_splits([2.0], {RUNGS})", "<lambda>") == 3
    assert compiles_of(PREDICT_HOISTED, f"predict_splits_hoisted([2.0], {RUNGS})", "<lambda>") == 1


def test_a_caller_loop_over_different_objects_stays_a_guess() -> None:
    # The one loop hands `predict_mixture` another model on each pass: two programs, however the code is arranged.
    lam = line_of(PREDICT_PER_MODEL, "    return jax.jit(lambda x: prob.apply(x) + flag)")
    assert shown(PREDICT_PER_MODEL) == []
    assert (lam, "JC104") in check(PREDICT_PER_MODEL)
    assert compiles_of(PREDICT_PER_MODEL, "predict_models([jnp.ones(3)])", "<lambda>") == 2


CELLS = """\
def make_agent(scale, steps):
    def run(x):
        return x * scale + steps
    return jax.jit(run)


def make_vectorized(scale, steps):
    return jax.vmap(make_agent(scale, steps))


scale, steps = 2.0, 16
single = make_agent(scale, steps)(jnp.ones(3))
batched = make_vectorized(scale, steps)(jnp.ones((4, 3)))

scale, steps = 3.0, 64
again = make_vectorized(scale, steps)(jnp.ones((4, 3)))
"""


def test_calls_spelled_alike_over_names_rebound_at_module_level_are_not_the_same() -> None:
    # Two notebook-like cells call `make_vectorized(scale, steps)`, but the second rebinds both names first: each
    # cell runs once, on other values, and compiles another program.
    assert shown(CELLS) == []
    # jax: each call compiles its own program (other shapes, other constants), and nothing compiles twice.
    assert compiles_running(CELLS, "run") == 3
