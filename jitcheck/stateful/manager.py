"""`StateDictManager`: the States a StatefulFunction uses, as a dict, to read and set their values together.

The seed's `StatefulFunction.to_state_manager()` returns one. It is a plain ordered
dict from a key to a `State` (only States may be put in it), with the few helpers
a training loop needs: every value at once (`collect_values`, for a checkpoint or
for ``jaxpr_call``), every value set at once (`assign_values`, each write checked
like ``state.value = ...``), and the States split by type.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any

from jitcheck.stateful.state import State


def _key(state: State, shared: set[str]) -> Hashable:
    if state.name is not None and state.name not in shared:
        return state.name
    return id(state)


class StateDictManager(dict[Hashable, State]):
    """An ordered ``dict`` from a key to a `State`.

    `to_state_manager` keys each State by its name, or by ``id(state)`` when it has
    none or shares it with another State of the same function. Setting an item
    that is not a State raises ``TypeError``.
    """

    @classmethod
    def of(cls, states: Iterable[State]) -> StateDictManager:
        """The States in order, keyed by name (by id where a name is missing or shared)."""
        listed = list(states)
        seen: set[str] = set()
        shared: set[str] = set()
        for state in listed:
            if state.name is not None:
                (shared if state.name in seen else seen).add(state.name)
        return cls((_key(state, shared), state) for state in listed)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        self.update(*args, **kwargs)

    def __setitem__(self, key: Hashable, state: State) -> None:
        if not isinstance(state, State):
            raise TypeError(
                f"StateDictManager holds States only; {key!r} was given a {type(state).__name__}. "
                "To set a State's value use manager[key].value = ... or assign_values({key: value})"
            )
        super().__setitem__(key, state)

    def update(self, *args: Any, **kwargs: Any) -> None:
        """``dict.update``, every value checked to be a State."""
        for key, state in dict(*args, **kwargs).items():
            self[key] = state

    def setdefault(self, key: Hashable, default: State | None = None) -> State:
        """``dict.setdefault``, the default checked to be a State."""
        if key not in self:
            self[key] = default  # type: ignore[assignment]
        return self[key]

    def collect_values(self) -> dict[Hashable, Any]:
        """Every State's current value, by the same keys."""
        return {key: state.value for key, state in self.items()}

    to_dict_values = collect_values

    def assign_values(self, *values: Mapping[Hashable, Any]) -> None:
        """Set the States named by each mapping's keys to its values (each write checked as ``state.value = v``).

        A key that is not in the manager raises ``KeyError`` naming it and the known
        keys before any State is written.
        """
        for mapping in values:
            if not isinstance(mapping, Mapping):
                raise TypeError(f"assign_values takes dicts of key -> value, got {type(mapping).__name__}")
            unknown = [key for key in mapping if key not in self]
            if unknown:
                raise KeyError(f"assign_values: no State under {unknown[0]!r}; the keys are {list(self)}")
        for mapping in values:
            for key, value in mapping.items():
                self[key].value = value

    def subset(self, select: type | tuple[type, ...] | Callable[[State], bool]) -> StateDictManager:
        """The States that are instances of ``select`` (a type or tuple of types), or for which it returns True."""
        if isinstance(select, (type, tuple)):
            return StateDictManager((k, s) for k, s in self.items() if isinstance(s, select))
        return StateDictManager((k, s) for k, s in self.items() if select(s))

    def split_values(self, *types: type) -> tuple[dict[Hashable, Any], ...]:
        """The values split by the first of ``types`` each State is an instance of; the rest last."""
        groups: tuple[dict[Hashable, Any], ...] = tuple({} for _ in range(len(types) + 1))
        for key, state in self.items():
            index = next((i for i, kind in enumerate(types) if isinstance(state, kind)), len(types))
            groups[index][key] = state.value
        return groups

    def __repr__(self) -> str:
        return f"StateDictManager({dict.__repr__(self)})"


__all__ = ["StateDictManager"]
