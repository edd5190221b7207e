"""The record of one StatefulFunction trace in progress: which states it reads and writes.

While a StatefulFunction traces its function, a `Frame` is the current recording
(a context variable, so threads and nested traces each see their own). A State
read for the first time becomes a new input of the jaxpr being built; writes
replace the frame's value of the State. The State objects themselves are never
touched by a trace: another thread reading a State meanwhile sees its concrete
value, and a trace that fails leaves nothing behind. A Frame nested in another
(an inner StatefulFunction traced inside an outer one) looks its states' current
values up through its parent; the inner function's *call* then reads and writes
them in the outer frame, so the inner function's states surface in the outer one.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import jax

from jitcheck import rules
from jitcheck.stateful import jaxinternals, values
from jitcheck.stateful.current import CURRENT, current
from jitcheck.stateful.errors import TracerInState, found
from jitcheck.stateful.values import strong_aval

if TYPE_CHECKING:
    from jitcheck.stateful.state import State

_MISSING: Any = object()


@dataclasses.dataclass(frozen=True)
class Record:
    """What a finished trace found, with no tracer in it: safe to keep in a cache.

    ``states`` in the order the function first used them; ``written[i]`` says
    whether ``states[i]`` was written; ``avals[i]`` is the pytree of strongly typed
    abstract values ``states[i]`` was traced at.
    """

    states: tuple[State, ...]
    written: tuple[bool, ...]
    avals: tuple[Any, ...]


class Frame:
    """One trace in progress: the values of the states it has used so far, by State."""

    __slots__ = ("owner", "trace", "parent", "values", "order", "written", "avals")

    def __init__(self, owner: str, trace: Any, parent: Frame | None) -> None:
        self.owner = owner
        self.trace = trace
        self.parent = parent
        self.values: dict[State, Any] = {}
        self.order: list[State] = []
        self.written: set[State] = set()
        self.avals: dict[State, Any] = {}

    def peek(self, state: State) -> Any:
        """``state``'s value as this trace sees it, without making it an input."""
        value = self.values.get(state, _MISSING)
        if value is not _MISSING:
            return value
        if self.parent is not None:
            return self.parent.peek(state)
        return state._concrete()

    def read(self, state: State) -> Any:
        """``state``'s value in this trace; the first read makes it an input of the jaxpr."""
        value = self.values.get(state, _MISSING)
        if value is _MISSING:
            value = self._admit(state)
        return value

    def write(self, state: State, value: Any) -> None:
        """Set ``state``'s value in this trace (same structure, shapes and dtypes).

        Refused (JC604) inside a body jax stages out on its own, nested in this trace.
        """
        self._refuse_nested_body(state)
        old = self.values.get(state, _MISSING)
        if old is _MISSING:
            old = self._admit(state)
        self._refuse_escaping(state, value)
        self.values[state] = values.conform(state.label, old, value)
        if state in self.avals:
            self.written.add(state)

    def _refuse_nested_body(self, state: State) -> None:
        """Refuse a write inside a ``cond`` branch, a ``scan``/``while_loop`` body or a nested ``jax.jit``."""
        body = jaxinternals.staged_inside(self.trace)
        if body is None:
            return
        transformation = jaxinternals.staged_for(body)
        raise TracerInState(
            f"State {state.label}",
            [
                found(
                    rules.TRACER_IN_STATE,
                    f"State {state.label}",
                    state=state.label,
                    transformation=transformation,
                    where=f"it was written inside a body nested in the trace of `{self.owner}`, which jax may run "
                    "zero times or many (a branch not taken, a scan of length 0, a while loop that never runs) "
                    "while the write would be made once, as jax traces the body, whatever the value written",
                    fix="carry the value out of the body (return it from the branch, or in the loop's carry) and "
                    "write the State after the cond, scan or while_loop",
                )
            ],
        )

    def _refuse_escaping(self, state: State, value: Any) -> None:
        """Refuse a tracer of a transformation nested in this trace (it dies before the trace ends)."""
        for leaf in jax.tree_util.tree_leaves(value):
            if isinstance(leaf, jaxinternals.Tracer):
                trace = jaxinternals.trace_of(leaf)
                if not jaxinternals.is_ancestor_or_self(trace, self.trace):
                    values.refuse_tracer(
                        state.label,
                        value,
                        f"it was written inside a jax transformation nested in the trace of `{self.owner}` "
                        "(a jax.jit, vmap, grad, scan or cond body), whose tracers cannot leave it",
                        jaxinternals.transformation_of(leaf),
                    )

    def _admit(self, state: State) -> Any:
        current = self.parent.peek(state) if self.parent is not None else state._concrete()
        if type(current) is jaxinternals.ArrayImpl or isinstance(current, jaxinternals.Tracer):
            avals = strong_aval(current)  # one array: no tree to walk
            inputs = jaxinternals.new_input(self.trace, avals)
        else:
            avals = jax.tree_util.tree_map(strong_aval, current)
            inputs = jax.tree_util.tree_map(lambda aval: jaxinternals.new_input(self.trace, aval), avals)
        self.values[state] = inputs
        self.avals[state] = avals
        self.order.append(state)
        return inputs

    def written_values(self) -> list[Any]:
        """The value of every written state, in order (the trace's state outputs)."""
        return [self.values[state] for state in self.order if state in self.written]

    def record(self) -> Record:
        """What this trace found, with no tracer in it."""
        return Record(
            states=tuple(self.order),
            written=tuple(state in self.written for state in self.order),
            avals=tuple(self.avals[state] for state in self.order),
        )

    def close(self) -> None:
        """End the trace: drop every tracer this frame holds."""
        self.values.clear()
        self.avals.clear()
        self.trace = None


__all__ = ["CURRENT", "Frame", "Record", "current"]
