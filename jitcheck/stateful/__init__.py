"""The stateful layer: `State` and `StatefulFunction`, brainstate's API made correct and fast.

Modules, each with one job: `state` (State), `values` (what a State holds and how
a write must fit), `recording` (the record of a trace in progress), `keys` (static
arguments and cache keys), `cache` (the bounded thread-safe LRU), `manager` (StateDictManager), `entry` (one
traced key and its compiled program), `function` (StatefulFunction), `errors`,
and `jaxinternals` (the private jax names used, in one place).
"""

from jitcheck.stateful.errors import (
    StateArgumentRefused,
    StatefulError,
    StateFromTrace,
    StateShapeError,
    StateUnderStaging,
    StaticArgumentRefused,
    TracerInState,
    UnknownCacheKey,
)
from jitcheck.stateful.function import StatefulFunction
from jitcheck.stateful.keys import CacheKey
from jitcheck.stateful.manager import StateDictManager
from jitcheck.stateful.state import State

__all__ = [
    "CacheKey",
    "State",
    "StateDictManager",
    "StateArgumentRefused",
    "StateFromTrace",
    "StateShapeError",
    "StatefulError",
    "StatefulFunction",
    "StateUnderStaging",
    "StaticArgumentRefused",
    "TracerInState",
    "UnknownCacheKey",
]
