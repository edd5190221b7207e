"""The errors of the stateful layer, each carrying its findings as `Violation`s.

Every refusal names the place (the argument path, the output path, the State)
and the rule of :mod:`jitcheck.rules` it breaks, with that rule's fix, like every
other jitcheck layer. Each error class also derives from the builtin error a
JAX user would catch for the same mistake (``TypeError`` for a bad argument,
``ValueError`` for a bad shape), so existing ``except`` clauses keep working.
"""

from __future__ import annotations

from typing import Any

from jitcheck.core.violations import Refused, Violation, violation
from jitcheck.rules import Rule


class StatefulError(Refused):
    """A StatefulFunction or State refused something; ``violations`` says what and where."""


class StaticArgumentRefused(StatefulError, TypeError):
    """A static argument that cannot be part of a cache key (JC1xx, JC2xx)."""


class StateArgumentRefused(StatefulError, TypeError):
    """A State passed through a traced argument or returned from the function (JC601)."""


class StateShapeError(StatefulError, ValueError):
    """A value of another structure, shape or dtype than the State holds (JC602)."""


class StateFromTrace(StatefulError, RuntimeError):
    """A State created inside a trace read after it, with no concrete value (JC603)."""


class TracerInState(StatefulError, RuntimeError):
    """A tracer would be stored in a State outside a StatefulFunction trace (JC604)."""


class StateUnderStaging(StatefulError, RuntimeError):
    """A StatefulFunction using States called under a plain ``jax.jit``, ``scan`` or ``cond`` (JC605)."""


class UnknownCacheKey(KeyError):
    """A cache key this StatefulFunction has not traced (or has evicted)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def found(rule: Rule, leaf: str, **fields: Any) -> Violation:
    """A violation of ``rule`` at ``leaf`` (an argument path, an output path, a State)."""
    return violation(rule, leaf=leaf, **fields)
