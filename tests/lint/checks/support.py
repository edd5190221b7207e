"""What the rule families' tests share: the module header, checking a body, and the true-positive/negative tests."""

from __future__ import annotations

import contextlib
import logging
import textwrap
from collections.abc import Callable, Iterator

import jax
import pytest

from jitcheck.lint.check import check_source
from jitcheck.lint.prefilter import possible


def codes(source: str, **options: object) -> list[tuple[int, str]]:
    """(line, code) of every finding in ``source``."""
    found = check_source(textwrap.dedent(source), "module.py", **options)  # type: ignore[arg-type]
    return [(f.line, f.code) for f in found]


HEADER = """\
import dataclasses
import functools
from functools import partial
import jax
import jax.numpy as jnp
import numpy as np
from jax.tree_util import Partial
from jitcheck import NodeDefinition

def scale(x, factor):
    return x * factor
"""


def shown(body: str) -> list[tuple[int, str]]:
    """The findings of ``body`` (appended to HEADER) the default selection reports: those whose evidence is shown
    (confidence "high"), not the ``--preview`` ones; lines counted from the body's first line."""
    offset = HEADER.count("\n")
    found = check_source(HEADER + textwrap.dedent(body), "module.py")
    return [(f.line - offset, f.code) for f in found if f.confidence == "high"]


def check(body: str) -> list[tuple[int, str]]:
    """Findings in ``body`` (appended to HEADER), with lines counted from the body's first line."""
    offset = HEADER.count("\n")
    return [(line - offset, code) for line, code in codes(HEADER + textwrap.dedent(body))]


class _Compiles(logging.Handler):
    """Counts jax's "Compiling jit(NAME)" log records (``jax_log_compiles``) for one function name."""

    def __init__(self, name: str) -> None:
        super().__init__(logging.DEBUG)
        self.name = name
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith(f"Compiling jit({self.name})"):
            self.count += 1


def compiles_of(body: str, call: str, name: str) -> int:
    """How many times jax compiles the jitted function ``name`` while ``call`` (an expression) runs on ``body``
    (appended to HEADER, executed as a module): jax's own count, not the pass's."""
    namespace: dict[str, object] = {"__name__": "planted_case"}
    exec(compile(HEADER + textwrap.dedent(body), "planted_case.py", "exec"), namespace)
    with _counting(name) as counter:
        eval(call, namespace)
    return counter.count


def compiles_running(body: str, name: str) -> int:
    """How many times jax compiles the jitted function ``name`` while ``body`` (appended to HEADER) runs as a
    module: for module-level code, such as a notebook's cells, that compiles as it runs."""
    with _counting(name) as counter:
        exec(compile(HEADER + textwrap.dedent(body), "planted_case.py", "exec"), {"__name__": "planted_case"})
    return counter.count


@contextlib.contextmanager
def _counting(name: str) -> Iterator[_Compiles]:
    """jax's compile log for ``name``, counted while the block runs."""
    counter = _Compiles(name)
    logger = logging.getLogger("jax")
    previous = jax.config.jax_log_compiles
    jax.config.update("jax_log_compiles", True)
    logger.addHandler(counter)
    try:
        yield counter
    finally:
        logger.removeHandler(counter)
        jax.config.update("jax_log_compiles", previous)


def positive_tests(cases: dict[str, tuple[str, list[tuple[int, str]]]]) -> tuple[Callable[[str], None], Callable[[str], None]]:
    """The two tests of a family's true positives: exactly the expected findings, and the prefilter lets each through."""

    @pytest.mark.parametrize("name", list(cases))
    def test_true_positive(name: str) -> None:
        body, expected = cases[name]
        assert check(body) == expected

    @pytest.mark.parametrize("name", list(cases))
    def test_prefilter_lets_every_true_positive_through(name: str) -> None:
        assert possible(HEADER + textwrap.dedent(cases[name][0]))

    return test_true_positive, test_prefilter_lets_every_true_positive_through


def negative_test(cases: dict[str, str]) -> Callable[[str], None]:
    """The test of a family's true negatives: no finding."""

    @pytest.mark.parametrize("name", list(cases))
    def test_true_negative(name: str) -> None:
        assert check(cases[name]) == []

    return test_true_negative


PAYLOAD = """\
class Payload:
    def __init__(self):
        self.values = None

"""
"""A plain class: its objects compare by identity (JC208's cases)."""

PAYLOAD_TREE = """\
jax.tree_util.register_pytree_node(Payload, lambda p: ((p.values,), None), lambda _, c: _payload(*c))

def _payload(values):
    payload = Payload()
    payload.values = values
    return payload

"""
"""The payload registered as a pytree: its values are leaves (JC208's help applied)."""

CELL = """\
class Cell:
    def __init__(self, lo: float, hi: float):
        self.lo = lo
        self.hi = hi
        self.payload = Payload()

"""
"""A class holding two bounds and a payload of each instance's own."""

CELL_AUX = """\
def _flatten(cell):
    aux = (cell.lo, cell.hi, cell.payload)
    return (), aux

def _unflatten(aux, children):
    cell = object.__new__(Cell)
    cell.lo, cell.hi, cell.payload = aux
    return cell

jax.tree_util.register_pytree_node(Cell, _flatten, _unflatten)

"""
"""The cell registered with its bounds and its payload in its aux data: every cell is a new jit cache key."""

CELL_CHILDREN = """\
def _flatten(cell):
    return (cell.lo, cell.hi, cell.payload), None

def _unflatten(aux, children):
    cell = object.__new__(Cell)
    cell.lo, cell.hi, cell.payload = children
    return cell

jax.tree_util.register_pytree_node(Cell, _flatten, _unflatten)

"""
"""The cell registered as JC208's help says: the payload and the bounds among the children."""

DECAY_FACTORY = """\
class Decay:
    def __init__(self, rate):
        self.rate = rate

    def _make_rhs(self):
        rate = self.rate

        def rhs(v):
            return -rate * v

        return rhs

"""
"""A class whose method ``_make_rhs`` returns a new function on every call (JC703's method factory); a method
using it follows."""
