"""Static arguments of a jitted method called on an object the pass can type (jitcheck.lint.checks.jit_sites):
annotated, or narrowed by ``isinstance`` as a type checker narrows it. jax refuses a list there, whatever runs
before; a tuple, the help, runs. An object of unknown type is left alone."""

from __future__ import annotations

import jax
import pytest

from tests.lint.checks.support import shown

MODEL = """
class Model:
    @partial(jax.jit, static_argnums=(0, 2))
    def model(self, x, k=None):
        return x * len(k)
"""

CALLS = {
    "annotated, by keyword": ("def use(img: Model):\n    return img.model(1.0, k=[0, 1])\n", 7),
    "annotated, by position": ("def use(img: Model):\n    return img.model(1.0, [0, 1])\n", 7),
    "narrowed by a guard that raises": (
        "def use(img):\n    if not isinstance(img, Model):\n        raise TypeError('a Model')\n"
        "    return img.model(1.0, k=[0, 1])\n", 9),
    "narrowed by an assert": ("def use(img):\n    assert isinstance(img, Model)\n    return img.model(1.0, k=[0, 1])\n", 8),
    "built here": ("def use(img):\n    mine = Model()\n    return mine.model(1.0, k=[0, 1])\n", 8),
}


def _run(source: str) -> object:
    namespace: dict[str, object] = {}
    from tests.lint.checks.support import HEADER

    exec(compile(HEADER + source, "typed_receiver.py", "exec"), namespace)
    return namespace["use"](namespace["Model"]())  # type: ignore[operator]


@pytest.mark.parametrize("name", list(CALLS))
def test_a_list_as_a_static_argument_of_a_typed_receivers_jitted_method_is_refused_by_jax_and_found(name: str) -> None:
    call, line = CALLS[name]
    assert shown(MODEL + call) == [(line, "JC202")]
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        _run(MODEL + call)


@pytest.mark.parametrize("name", list(CALLS))
def test_the_help_a_tuple_runs_and_is_not_reported(name: str) -> None:
    call = CALLS[name][0].replace("[0, 1]", "(0, 1)")
    assert shown(MODEL + call) == []
    assert float(jax.numpy.asarray(_run(MODEL + call))) == 2.0


def test_a_receiver_of_unknown_type_or_a_guard_that_does_not_raise_is_left_alone() -> None:
    unknown = "def use(img):\n    return img.model(1.0, k=[0, 1])\n"
    warned = "def use(img):\n    if not isinstance(img, Model):\n        print('not a Model')\n    return img.model(1.0, k=[0, 1])\n"
    assert shown(MODEL + unknown) == []
    assert shown(MODEL + warned) == []
