"""jitcheck: make JAX jit cache keys correct, statically, while type-checking, and at runtime.

The public names are loaded on first use, so ``import jitcheck.rules`` (as the mypy
plugin and the static pass do) does not import jax.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "CallableGraph": "jitcheck.core.graphs",
    "Frozen": "jitcheck.core.frozen",
    "GraphWithValues": "jitcheck.core.traced",
    "JitGraph": "jitcheck.core.graphs",
    "Label": "jitcheck.core.names",
    "NestingGraph": "jitcheck.core.graphs",
    "NodeDefinition": "jitcheck.core.graphs",
    "OrderedMap": "jitcheck.core.frozen",
    "Place": "jitcheck.core.names",
    "Refused": "jitcheck.core.violations",
    "ReturnedUnlike": "jitcheck.core.violations",
    "TraceFailed": "jitcheck.core.violations",
    "Traced": "jitcheck.core.traced",
    "ValuePartial": "jitcheck.core.partial",
    "Violation": "jitcheck.core.violations",
    "check_hashable": "jitcheck.core.graphs",
    "check_reassembles": "jitcheck.core.graphs",
    "unchecked": "jitcheck.core.checking",
}

if TYPE_CHECKING:
    from jitcheck.core.checking import unchecked
    from jitcheck.core.frozen import Frozen, OrderedMap
    from jitcheck.core.graphs import (
        CallableGraph,
        JitGraph,
        NestingGraph,
        NodeDefinition,
        check_hashable,
        check_reassembles,
    )
    from jitcheck.core.names import Label, Place
    from jitcheck.core.partial import ValuePartial
    from jitcheck.core.traced import GraphWithValues, Traced
    from jitcheck.core.violations import Refused, ReturnedUnlike, TraceFailed, Violation


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'jitcheck' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = [
    "CallableGraph",
    "Frozen",
    "GraphWithValues",
    "JitGraph",
    "Label",
    "NestingGraph",
    "NodeDefinition",
    "OrderedMap",
    "Place",
    "Refused",
    "ReturnedUnlike",
    "TraceFailed",
    "Traced",
    "ValuePartial",
    "Violation",
    "check_hashable",
    "check_reassembles",
    "unchecked",
]
