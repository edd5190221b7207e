"""`State`: a mutable holder of a pytree of arrays whose reads and writes a trace records.

Outside any trace a State is a plain box: ``state.value`` reads it, ``state.value = x``
writes a value of the same structure, shapes and dtypes (anything else is refused,
JC602), and :meth:`State.reset` changes its shape or dtype on purpose. Inside a
StatefulFunction trace, reads and writes go to that trace's record instead (see
:mod:`jitcheck.stateful.recording`), so the State itself never holds a tracer.
"""

from __future__ import annotations

from typing import Any

from jitcheck import rules
from jitcheck.stateful import recording
from jitcheck.stateful.errors import StateFromTrace, found
from jitcheck.stateful.values import admit, conform, describe, has_tracer, refuse_tracer


class _CreatedUnder:
    """The value of a State created inside a trace that ended with a tracer in it."""

    __slots__ = ("owner", "done")

    def __init__(self, owner: str, done: bool) -> None:
        self.owner = owner
        self.done = done


class State:
    """A mutable holder of a pytree of jax or numpy arrays (and numbers).

    ``State(value, name=None)``. Read and write it through ``.value``; a write must
    keep the structure, shapes and dtypes (a Python number is cast to the State's
    dtype when jax would promote it so). Inside a function wrapped in
    `StatefulFunction` the reads and writes are recorded: the states read become
    inputs of the traced jaxpr and the states written become outputs. States compare
    and hash by identity, so a State may be a static argument.
    """

    __slots__ = ("_value", "name", "__weakref__")

    _value: Any
    name: str | None

    def __init__(self, value: Any, name: str | None = None) -> None:
        self.name = name
        frame = recording.current()
        if frame is None:
            refuse_tracer(self.label, value, "it was created with a tracer value outside any StatefulFunction trace")
            self._value = admit(value, self.label)
        else:
            self._value = _CreatedUnder(frame.owner, done=False)
            frame.adopt(self, admit(value, self.label))

    @property
    def label(self) -> str:
        """How messages name this State: its name, or its id."""
        return repr(self.name) if self.name is not None else f"at 0x{id(self):x}"

    @property
    def value(self) -> Any:
        """The current value (inside a StatefulFunction trace: the trace's value)."""
        frame = recording.CURRENT.get()
        if frame is not None:
            return frame.read(self)
        value = self._value
        if type(value) is _CreatedUnder:
            raise self._created_error(value)
        return value

    @value.setter
    def value(self, new: Any) -> None:
        frame = recording.CURRENT.get()
        if frame is not None:
            frame.write(self, new)
            return
        refuse_tracer(self.label, new, "it was written outside any StatefulFunction trace")
        self._value = conform(self.label, self._concrete(), new)

    def reset(self, value: Any) -> None:
        """Replace the value with one of any structure, shape or dtype, on purpose.

        Only outside a trace. A StatefulFunction that traced with the old shape sees
        the change before it reuses that trace, and traces again.
        """
        frame = recording.CURRENT.get()
        if frame is not None:
            raise RuntimeError(
                f"State {self.label}.reset() was called while `{frame.owner}` is being traced; reset changes "
                "a State's shape or dtype, which a trace cannot do. Call reset outside the traced function "
                "(or write a value of the same shape and dtype with `state.value = ...`)"
            )
        refuse_tracer(self.label, value, "it was reset outside any StatefulFunction trace")
        self._value = admit(value, self.label)

    def _concrete(self) -> Any:
        """The value outside any trace; raises `StateFromTrace` (JC603) for a State a trace created."""
        value = self._value
        if type(value) is _CreatedUnder:
            raise self._created_error(value)
        return value

    def _created_under(self, owner: str, *, done: bool) -> None:
        self._value = _CreatedUnder(owner, done)

    def _settle(self, value: Any) -> None:
        self._value = value

    def _created_error(self, marker: _CreatedUnder) -> StateFromTrace:
        function = f"`{marker.owner}`" + ("" if marker.done else " (still in progress)")
        return StateFromTrace(
            f"State {self.label}",
            [found(rules.STATE_FROM_TRACE, f"State {self.label}", state=self.label, function=function)],
        )

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        value = self._value
        if type(value) is _CreatedUnder:
            shown = f"<created under the trace of {value.owner}>"
        elif has_tracer(value):
            shown = "<tracer>"
        else:
            shown = describe(value)
        name = f"{self.name!r}, " if self.name is not None else ""
        return f"State({name}{shown})"
