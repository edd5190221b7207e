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
jax's dispatch also keys the program on jax's configuration (its trace context:
x64, dtype promotion, matmul precision, ...); under another configuration than the
entry's trace the program raises `Stale` the same way, so the hit path pays nothing
to keep the configuration in the key.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.extend.core as jex

from jitcheck.core.context import describe_change, trace_context
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


@dataclasses.dataclass(eq=False, slots=True)
class Entry:
    """One cache key's trace: the jaxpr, what it reads and writes, and its compiled program.

    Treat it as immutable. Only ``program`` changes, once: the first call builds the
    ``jax.jit`` wrapper (so a trace never called, like `StatefulFunction.make_jaxpr`'s,
    pays for no jit). The public views (`public_jaxpr`, `out_shapes`, `out_treedef`)
    are built when first asked for, off the tracing path.
    """

    closed: Any
    """The traced ClosedJaxpr: inputs are the dynamic leaves then every state leaf;
    outputs the function's leaves then the leaves of the states written."""
    result_tree: Any
    record: Record
    states: tuple[State, ...]
    """Every State read or written, in the order the function first used them."""
    state_trees: tuple[Any, ...]
    state_counts: tuple[int, ...]
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
    context: tuple[Any, ...]
    """jax's trace context (its configuration) when the entry was traced."""
    program: Callable[..., Any]
    """The compiled program (after the first call; before it, the function that compiles it)."""
    _public: Any = None

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

    def public_jaxpr(self) -> Any:
        """The ClosedJaxpr `StatefulFunction.get_jaxpr` shows: its outputs are the function's
        leaves, then the leaves of the states ``state_returns`` selects, in order (a State
        only read is returned as its input)."""
        if self._public is None:
            jaxpr = self.closed.jaxpr
            keep = list(jaxpr.outvars[: self.n_out])
            written_at = self.n_out
            read_at = self.n_args
            for was_written, is_returned, count in zip(self.record.written, self.returned, self.state_counts):
                source = jaxpr.outvars[written_at : written_at + count] if was_written else jaxpr.invars[read_at : read_at + count]
                if is_returned:
                    keep.extend(source)
                written_at += count if was_written else 0
                read_at += count
            self._public = jex.ClosedJaxpr(jaxpr.replace(outvars=keep), self.closed.consts)
        return self._public

    def out_shapes(self) -> tuple[Any, list[Any]]:
        """``(output shapes, [shapes of the States returned])`` as ShapeDtypeStructs."""
        out = self.result_tree.unflatten([_shape(aval) for aval in self.closed.out_avals[: self.n_out]])
        states = [jax.tree_util.tree_map(_shape, avals) for avals, r in zip(self.record.avals, self.returned) if r]
        return out, states

    def out_treedef(self) -> Any:
        """The tree that unflattens the public jaxpr's outputs into ``(output, [State values])``."""
        return structure(self.out_shapes())


def _program(closed: Any, name: str, context: tuple[Any, ...]) -> Callable[..., tuple[Any, ...]]:
    """The evaluation of ``closed`` that checks jax's configuration and its inputs' shapes and dtypes first."""
    evaluate = jex.jaxpr_as_fun(closed)
    expected = tuple(closed.in_avals)
    count = len(expected)

    def run(*flat: Any) -> tuple[Any, ...]:
        now = trace_context()
        if now != context:
            raise Stale(-1, None, f"another configuration ({describe_change(context, now)})")
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
        return tuple(evaluate(*fitted))

    run.__name__ = run.__qualname__ = f"stateful({name})"
    return run


_LEAF = structure(0)


class _ListTrees(dict[int, Any]):
    """The tree of a list of ``n`` single leaves, built once per ``n``."""

    def __missing__(self, n: int) -> Any:
        tree = self[n] = structure([0] * n)
        return tree


_LEAVES = _ListTrees()


def _shape(aval: Any) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(aval.shape, aval.dtype, weak_type=aval.weak_type)  # type: ignore[no-untyped-call]


def _tree_and_count(avals: Any) -> tuple[Any, int]:
    if isinstance(avals, jax.core.ShapedArray):
        return _LEAF, 1
    tree = structure(avals)
    return tree, tree.num_leaves


def build(
    name: str,
    closed: Any,
    result_tree: Any,
    record: Record,
    n_args: int,
    state_returns: tuple[str, ...],
    context: tuple[Any, ...],
) -> Entry:
    """An entry from a finished trace whose outputs are ``(output, [each written state's value])``."""
    n_out = result_tree.num_leaves
    trees_and_counts = [_tree_and_count(avals) for avals in record.avals]
    returned = tuple(("write" if written else "read") in state_returns for written in record.written)

    written: list[WrittenState] = []
    out_offset = n_out
    for state, was_written, (tree, count) in zip(record.states, record.written, trees_and_counts):
        if was_written:
            written.append(WrittenState(state, out_offset, out_offset + count, tree))
            out_offset += count

    cacheable = not any(isinstance(const, Tracer) for const in closed.consts)
    run = _program(closed, name, context)
    plain_states = all(tree is _LEAF for tree, _ in trees_and_counts)
    plain_writes = all(w.tree is _LEAF for w in written)
    entry = Entry(
        closed=closed,
        result_tree=result_tree,
        record=record,
        states=record.states,
        state_trees=tuple(tree for tree, _ in trees_and_counts),
        state_counts=tuple(count for _, count in trees_and_counts),
        returned=returned,
        n_args=n_args,
        n_out=n_out,
        single_out=n_out == 1 and result_tree.num_nodes == 1,
        state_tree=_LEAVES[len(record.avals)] if plain_states else structure(list(record.avals)),
        plain_states=plain_states,
        written=tuple(written),
        write_pairs=tuple((w.state, w.start) for w in written) if plain_writes else (),
        cacheable=cacheable,
        context=context,
        program=run,
    )
    if cacheable:
        entry.program = _compile_on_first_call(entry, run)
    return entry


def _compile_on_first_call(entry: Entry, run: Callable[..., Any]) -> Callable[..., Any]:
    def first_call(*flat: Any) -> Any:
        compiled = jax.jit(run)
        entry.program = compiled
        return compiled(*flat)

    return first_call
