"""`State`: a mutable holder of a pytree of arrays whose reads and writes a trace records.

Outside any trace a State is a plain box: ``state.value`` reads it, ``state.value = x``
writes a value of the same structure, shapes and dtypes (anything else is refused,
JC602), and :meth:`State.reset` changes its shape or dtype on purpose. Inside a
StatefulFunction trace, reads and writes go to that trace's record instead (see
:mod:`jitcheck.stateful.recording`), so the State itself never holds a tracer. Under a
staging transformation that no StatefulFunction owns (a plain ``jax.jit``, ``scan``,
``cond``), a read or write would be baked into a cached program: it is refused
(JC605), and so is creating a State inside any trace (JC603).
"""

from __future__ import annotations

from typing import Any

from jitcheck import rules
from jitcheck.core.keys import holds_state
from jitcheck.stateful import jaxinternals
from jitcheck.stateful.current import CURRENT
from jitcheck.stateful.errors import StateFromTrace, StateUnderStaging, found
from jitcheck.stateful.values import admit, conform, describe, has_tracer, refuse_tracer

_UNSET: Any = object()
_TRACE_CONTEXT = jaxinternals.TRACE_CONTEXT
_EvalTrace = jaxinternals.EvalTrace

_BAKED_IN = (
    "the staged program would keep the value the State has now as a constant, and jax reuses that program "
    "after the State changes"
)
_WRITTEN_ONCE = "the write is made once, while jax traces the function, and never when the compiled program runs again"
_FIX = (
    "read the State outside the transformed function and pass its value in as an argument (`f(x, w.value)`), "
    "returning a new value to write after the call; or wrap the function in jitcheck.StatefulFunction instead "
    "of the plain transformation (it compiles it too, and passes every State in and out at each call)"
)


class State:
    """A mutable holder of a pytree of jax or numpy arrays (and numbers).

    ``State(value, name=None)``. Read and write it through ``.value``; a write must
    keep the structure, shapes and dtypes (a Python number is cast to the State's
    dtype when jax would promote it so). Inside a function wrapped in
    `StatefulFunction` the reads and writes are recorded: the states read become
    inputs of the traced jaxpr and the states written become outputs. States compare
    and hash by identity, so a State may be a static argument of a StatefulFunction
    (never a node setting: there nothing records its reads). Create States outside
    any traced function.
    """

    __slots__ = ("_value", "name", "__weakref__")

    _value: Any
    name: str | None

    def __init__(self, value: Any, name: str | None = None) -> None:
        self.name = name
        frame = CURRENT.get()
        if frame is not None:
            raise self._created_in_trace(f"`{frame.owner}`")
        if type(_TRACE_CONTEXT.trace) is not _EvalTrace:
            staging = jaxinternals.staging_trace()
            if staging is not None:
                raise self._created_in_trace(jaxinternals.staged_for(staging))
        refuse_tracer(self.label, value, "it was created with a tracer value outside any StatefulFunction trace")
        self._value = admit(value, self.label)

    @property
    def label(self) -> str:
        """How messages name this State: its name, or its id."""
        return repr(self.name) if self.name is not None else f"at 0x{id(self):x}"

    @property
    def value(self) -> Any:
        """The current value (inside a StatefulFunction trace: the trace's value)."""
        frame = CURRENT.get()
        if frame is not None:
            return frame.read(self)
        if type(_TRACE_CONTEXT.trace) is not _EvalTrace:
            self._refuse_under_staging("read", _BAKED_IN)
        return self._value

    @value.setter
    def value(self, new: Any) -> None:
        frame = CURRENT.get()
        if frame is not None:
            frame.write(self, new)
            return
        if type(_TRACE_CONTEXT.trace) is not _EvalTrace:
            self._refuse_under_staging("written", _WRITTEN_ONCE)
        refuse_tracer(self.label, new, "it was written outside any StatefulFunction trace")
        self._value = conform(self.label, self._value, new)

    def reset(self, value: Any) -> None:
        """Replace the value with one of any structure, shape or dtype, on purpose.

        Only outside a trace. A StatefulFunction that traced with the old shape sees
        the change before it reuses that trace, and traces again.
        """
        frame = CURRENT.get()
        if frame is not None:
            raise RuntimeError(
                f"State {self.label}.reset() was called while `{frame.owner}` is being traced; reset changes "
                "a State's shape or dtype, which a trace cannot do. Call reset outside the traced function "
                "(or write a value of the same shape and dtype with `state.value = ...`)"
            )
        if type(_TRACE_CONTEXT.trace) is not _EvalTrace:
            self._refuse_under_staging("reset", _WRITTEN_ONCE)
        refuse_tracer(self.label, value, "it was reset outside any StatefulFunction trace")
        self._value = admit(value, self.label)

    def _concrete(self) -> Any:
        """The value outside any trace, as it is (the StatefulFunction's own reads)."""
        return self._value

    def _refuse_under_staging(self, use: str, effect: str) -> None:
        """Raise `StateUnderStaging` (JC605) when a staging transformation no StatefulFunction owns is tracing."""
        staging = jaxinternals.staging_trace()
        if staging is None:
            return  # eager grad, vmap, jvp: the State is read afresh at every call
        raise StateUnderStaging(
            f"State {self.label}",
            [
                found(
                    rules.STATE_UNDER_STAGING,
                    f"State {self.label}",
                    state=self.label,
                    use=use,
                    transformation=jaxinternals.staged_for(staging),
                    effect=effect,
                    fix=_FIX,
                )
            ],
        )

    def _created_in_trace(self, function: str) -> StateFromTrace:
        return StateFromTrace(
            f"State {self.label}",
            [found(rules.STATE_FROM_TRACE, f"State {self.label}", state=self.label, function=function)],
        )

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        value = getattr(self, "_value", _UNSET)
        shown = "<refused>" if value is _UNSET else "<tracer>" if has_tracer(value) else describe(value)
        name = f"{self.name!r}, " if self.name is not None else ""
        return f"State({name}{shown})"


holds_state(State)  # refused in a cache key that cannot see its value (JC606)
