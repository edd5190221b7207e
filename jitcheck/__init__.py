"""jitcheck: make JAX jit cache keys correct, statically, while type-checking, and at runtime.

The public names are loaded on first use, so ``import jitcheck.rules`` (as the mypy
plugin and the static pass do) does not import jax.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jitcheck.lazy import lazy_exports

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
    "State": "jitcheck.stateful",
    "StateDictManager": "jitcheck.stateful",
    "StatefulFunction": "jitcheck.stateful",
    "TraceFailed": "jitcheck.core.violations",
    "Traced": "jitcheck.core.traced",
    "ValuePartial": "jitcheck.core.partial",
    "Violation": "jitcheck.core.violations",
    "check_hashable": "jitcheck.core.graphs",
    "check_reassembles": "jitcheck.core.graphs",
    "check_traced_callable": "jitcheck.core.traced",
    "check_traces": "jitcheck.core.traced",
    "unchecked": "jitcheck.core.checking",
}

if TYPE_CHECKING:
    # `X as X`: re-exported for type checkers (mypy --strict does not read the computed __all__).
    from jitcheck.core.checking import unchecked as unchecked
    from jitcheck.core.frozen import Frozen as Frozen, OrderedMap as OrderedMap
    from jitcheck.core.graphs import (
        CallableGraph as CallableGraph,
        JitGraph as JitGraph,
        NestingGraph as NestingGraph,
        NodeDefinition as NodeDefinition,
        check_hashable as check_hashable,
        check_reassembles as check_reassembles,
    )
    from jitcheck.core.names import Label as Label, Place as Place
    from jitcheck.core.partial import ValuePartial as ValuePartial
    from jitcheck.core.traced import (
        GraphWithValues as GraphWithValues,
        Traced as Traced,
        check_traced_callable as check_traced_callable,
        check_traces as check_traces,
    )
    from jitcheck.core.violations import (
        Refused as Refused,
        ReturnedUnlike as ReturnedUnlike,
        TraceFailed as TraceFailed,
        Violation as Violation,
    )
    from jitcheck.stateful import State as State
    from jitcheck.stateful import StateDictManager as StateDictManager
    from jitcheck.stateful import StatefulFunction as StatefulFunction


__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)


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
    "State",
    "StateDictManager",
    "StatefulFunction",
    "TraceFailed",
    "Traced",
    "ValuePartial",
    "Violation",
    "check_hashable",
    "check_reassembles",
    "check_traced_callable",
    "check_traces",
    "unchecked",
]

# Debug mode from the environment (JITCHECK_DEBUG, see docs/debug.md), switched on once the
# runtime core has loaded: the core itself never imports the debug layer. When the variable
# is unset this costs one dictionary look-up and imports nothing.
import os as _os

if _os.environ.get("JITCHECK_DEBUG"):
    from jitcheck.debug.switch import enable_when_core_loads as _enable_when_core_loads

    _enable_when_core_loads()
