"""`Entry`: one traced cache key of a StatefulFunction, and its compiled program.

An entry keeps the closed jaxpr, the output shapes and tree, the states read and
written (a tracer-free `Record`) and a program: ``jax.jit`` of the jaxpr's
evaluation, compiled once per entry. The program takes the dynamic leaves, then
every state leaf, and returns the output leaves, then the leaves of the states
written. jax's own dispatch keys that program on its inputs' shapes and dtypes;
when a state's shape or dtype changed since the trace (`State.reset`, or replaced
out of band), jax re-traces the program, and the program's first act is to compare
its inputs with the trace's and raise `Stale`: the entry is traced again, never run
with the wrong shapes. A weak-type-only difference is cast away, not re-traced.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.extend.core as jex

from jitcheck.stateful.jaxinternals import Tracer
from jitcheck.stateful.recording import Record
from jitcheck.stateful.state import State
from jitcheck.stateful.values import short, structure

STATE_RETURNS = ("read", "write")


class Stale(Exception):
    """An entry's program was handed inputs of other shapes or dtypes than it was traced at."""

    def __init__(self, index: int, expected: Any, got: str) -> None:
        traced = short(expected) if expected is not None else "nothing"
        super().__init__(f"input {index}: traced at {traced}, called with {got}")
        self.index = index
        self.expected = expected
        self.got = got


@dataclasses.dataclass(frozen=True, eq=False)
class WrittenState:
    """Where a written State's leaves sit among the program's outputs."""

    state: State
    start: int
    stop: int
    tree: Any


@dataclasses.dataclass(frozen=True, eq=False, slots=True)
class Entry:
    """One cache key's trace: the jaxpr, what it reads and writes, and its compiled program."""

    jaxpr: Any
    """The ClosedJaxpr as `StatefulFunction.get_jaxpr` returns it: inputs are the dynamic
    leaves then every state leaf; outputs the function's leaves then the leaves of the
    states ``state_returns`` selects."""
    out_shapes: Any
    """``(output shapes, [shapes of the states returned])``, as ShapeDtypeStructs."""
    out_treedef: Any
    """The tree of ``out_shapes``: unflattens the jaxpr's outputs."""
    result_tree: Any
    record: Record
    states: tuple[State, ...]
    """Every State read or written, in the order the function first used them."""
    returned: tuple[bool, ...]
    """Per state: whether `jaxpr_call` returns its value (``state_returns``)."""
    n_args: int
    n_out: int
    single_out: bool
    """True when the output is one array (returned as the program's first result)."""
    state_tree: Any
    plain_states: bool
    """True when every state holds a single array (the common case, read without flattening)."""
    written: tuple[WrittenState, ...]
    write_pairs: tuple[tuple[State, int], ...]
    """``(State, result index)`` of each written State when each holds one array, else empty."""
    cacheable: bool
    """False when the jaxpr closed over a tracer of an enclosing transformation."""
    program: Callable[..., Any]

    @property
    def read_states(self) -> tuple[State, ...]:
        return tuple(s for s, w in zip(self.record.states, self.record.written) if not w)

    @property
    def write_states(self) -> tuple[State, ...]:
        return tuple(s for s, w in zip(self.record.states, self.record.written) if w)

    def output(self, results: Sequence[Any]) -> Any:
        """The function's output from the program's results."""
        if self.single_out:
            return results[0]
        return self.result_tree.unflatten(results[: self.n_out])


def _program(closed: Any, name: str, n_out: int, write_leaves: tuple[int, ...]) -> Callable[..., tuple[Any, ...]]:
    """The evaluation of ``closed`` that checks its inputs' shapes and dtypes first."""
    evaluate = jex.jaxpr_as_fun(closed)
    expected = tuple(closed.in_avals)
    count = len(expected)

    def run(*flat: Any) -> tuple[Any, ...]:
        if len(flat) != count:
            raise Stale(-1, None, f"{len(flat)} inputs where it takes {count}")
        fitted = []
        for index, (leaf, want) in enumerate(zip(flat, expected)):
            try:
                aval = jax.typeof(leaf)
            except TypeError:
                raise Stale(index, want, type(leaf).__name__) from None
            if aval.shape != want.shape or aval.dtype != want.dtype:
                raise Stale(index, want, short(aval))
            if aval.weak_type and not want.weak_type:
                leaf = jax.lax.convert_element_type(leaf, want.dtype)
            fitted.append(leaf)
        results = evaluate(*fitted)
        return (*results[:n_out], *(results[n_out + i] for i in write_leaves))

    run.__name__ = run.__qualname__ = f"stateful({name})"
    return run


def build(
    name: str,
    closed: Any,
    out_shapes: Any,
    state_shapes: list[Any],
    record: Record,
    n_args: int,
    state_returns: tuple[str, ...],
) -> Entry:
    """An entry from a finished trace whose outputs are ``(output, [every state's value])``."""
    result_tree = structure(out_shapes)
    n_out = result_tree.num_leaves
    state_leaf_counts = [structure(avals).num_leaves for avals in record.avals]
    returned = tuple(("write" if written else "read") in state_returns for written in record.written)

    written: list[WrittenState] = []
    write_leaves: list[int] = []
    offset = 0
    out_offset = n_out
    for state, was_written, avals, count in zip(record.states, record.written, record.avals, state_leaf_counts):
        if was_written:
            written.append(WrittenState(state, out_offset, out_offset + count, structure(avals)))
            write_leaves.extend(range(offset, offset + count))
            out_offset += count
        offset += count

    jaxpr = closed
    if not all(returned):
        outvars = closed.jaxpr.outvars
        keep = list(outvars[:n_out])
        position = n_out
        for is_returned, count in zip(returned, state_leaf_counts):
            if is_returned:
                keep.extend(outvars[position : position + count])
            position += count
        jaxpr = jex.ClosedJaxpr(closed.jaxpr.replace(outvars=keep), closed.consts)
    public_shapes = (out_shapes, [shape for shape, r in zip(state_shapes, returned) if r])

    cacheable = not any(isinstance(const, Tracer) for const in closed.consts)
    program = _program(closed, name, n_out, tuple(write_leaves))
    state_tree = structure(list(record.avals))
    plain_writes = all(w.stop - w.start == 1 and w.tree.num_nodes == 1 for w in written)
    return Entry(
        jaxpr=jaxpr,
        out_shapes=public_shapes,
        out_treedef=structure(public_shapes),
        result_tree=result_tree,
        record=record,
        states=record.states,
        returned=returned,
        n_args=n_args,
        n_out=n_out,
        single_out=n_out == 1 and result_tree.num_nodes == 1,
        state_tree=state_tree,
        plain_states=all(count == 1 and structure(a).num_nodes == 1 for a, count in zip(record.avals, state_leaf_counts)),
        written=tuple(written),
        write_pairs=tuple((w.state, w.start) for w in written) if plain_writes else (),
        cacheable=cacheable,
        program=jax.jit(program) if cacheable else program,
    )
