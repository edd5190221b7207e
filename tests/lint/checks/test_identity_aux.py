"""A pytree whose aux data is new for every object, passed to a jitted function object after object
(jitcheck.lint.checks.identity_aux): JC208, judged by jax's compile count.

Each case is made-up code: the pass's findings are asserted, then the module is run and jax's
own count of compiles of ``width`` is asserted. The finding stands where jax compiles once per
object; the class written as the help says compiles once; look-alikes (aux data compared by
value, one call, a class with ``__eq__``) have no finding.
"""

from __future__ import annotations

import pytest

from tests.lint.checks.support import CELL, CELL_AUX, CELL_CHILDREN, PAYLOAD, PAYLOAD_TREE, compiles_of, shown

WIDTH = """\
@jax.jit
def width(cell: Cell):
    return jnp.asarray(cell.hi - cell.lo)
"""

CELLS = PAYLOAD + CELL + CELL_AUX + WIDTH
"""A cell keeps its bounds and a payload of its own (compared by identity) in its aux data; its jit is line 22."""

FIXED = PAYLOAD + PAYLOAD_TREE + CELL + CELL_CHILDREN + WIDTH
"""The same cell written as JC208's help says: the payload (a pytree now) and the bounds among the children."""

LOOPED = """
def run():
    cells = [Cell(float(i), float(i) + 1.0) for i in range(3)]
    return [width(cell) for cell in cells]
"""

FOR_LOOP = """
def run():
    total = 0.0
    for cell in [Cell(0.0, 1.0), Cell(0.0, 1.0), Cell(0.0, 1.0)]:
        total += width(cell)
    return total
"""

ONCE = """
def run():
    return width(Cell(0.0, 1.0))
"""

SAME_CELL = """
def run():
    cell = Cell(0.0, 1.0)
    return [width(cell) for _ in range(3)]
"""


def test_cells_passed_one_after_another_compile_once_each_and_are_found() -> None:
    assert shown(CELLS + LOOPED) == [(22, "JC208")]
    assert compiles_of(CELLS + LOOPED, "run()", "width") == 3


def test_equal_cells_in_a_for_loop_compile_once_each_and_are_found() -> None:
    # Built alike, they still differ: each payload is equal only to itself.
    assert shown(CELLS + FOR_LOOP) == [(22, "JC208")]
    assert compiles_of(CELLS + FOR_LOOP, "run()", "width") == 3


def test_the_help_applied_compiles_once_and_is_not_reported() -> None:
    assert shown(FIXED + LOOPED) == []
    assert compiles_of(FIXED + LOOPED, "run()", "width") == 1


@pytest.mark.parametrize("run", [ONCE, SAME_CELL], ids=["one call", "one cell, three calls"])
def test_one_object_is_one_compile_and_not_reported(run: str) -> None:
    assert shown(CELLS + run) == []
    assert compiles_of(CELLS + run, "run()", "width") == 1


def test_a_payload_compared_by_value_is_one_key_for_equal_cells() -> None:
    valued = CELLS.replace("        self.values = None\n", "        self.values = None\n"
                           "    def __eq__(self, other):\n        return isinstance(other, Payload)\n"
                           "    def __hash__(self):\n        return 0\n", 1)
    assert shown(valued + FOR_LOOP) == []
    assert compiles_of(valued + FOR_LOOP, "run()", "width") == 1


def test_aux_data_of_settings_alone_is_not_reported() -> None:
    settings = CELLS.replace("(cell.lo, cell.hi, cell.payload)", "(cell.lo, cell.hi)").replace(
        "cell.lo, cell.hi, cell.payload = aux", "cell.lo, cell.hi = aux")
    assert shown(settings + FOR_LOOP) == []
    assert compiles_of(settings + FOR_LOOP, "run()", "width") == 1


def test_a_class_that_flattens_itself_is_read_through_its_tree_flatten() -> None:
    decorated = """\
class Payload:
    pass

@jax.tree_util.register_pytree_node_class
class Cell:
    def __init__(self, lo: float, hi: float):
        self.lo, self.hi = lo, hi
        self.payload = Payload()

    def tree_flatten(self):
        return (), (self.lo, self.hi, self.payload)

    @classmethod
    def tree_unflatten(cls, aux, children):
        cell = object.__new__(cls)
        cell.lo, cell.hi, cell.payload = aux
        return cell

@jax.jit
def width(cell: "Cell | None" = None, *, other: Cell):
    return jnp.asarray(other.hi - other.lo)
"""
    looped = "\ndef run():\n    return [width(other=cell) for cell in [Cell(0.0, 1.0), Cell(0.0, 1.0)]]\n"
    assert shown(decorated + looped) == [(19, "JC208")]
    assert compiles_of(decorated + looped, "run()", "width") == 2
