"""The runtime library: graphs of named nodes that are jit cache keys, and their traces.

Submodules, each with one job: `names` (Label, Place), `frozen` (Frozen,
OrderedMap), `violations` (Violation and the errors), `checking` (checks per level,
``unchecked``), `keys` (what makes a good cache key, leaf by leaf, and the
type-strict key of a value), `memo` (bounded memos of keys and check results),
`partial` (ValuePartial), `graphs` (nodes and graphs), `traced` (GraphWithValues,
Traced).
"""

from jitcheck.core.checking import PerLevel, unchecked
from jitcheck.core.frozen import Frozen, OrderedMap
from jitcheck.core.graphs import (
    CallableGraph,
    JitGraph,
    NestingGraph,
    NodeDefinition,
    check_hashable,
    check_reassembles,
)
from jitcheck.core.names import Label, N, Place, V
from jitcheck.core.partial import ValuePartial
from jitcheck.core.traced import GraphWithValues, Traced, check_traced_callable, check_traces
from jitcheck.core.violations import LabelRefused, Refused, ReturnedUnlike, TraceFailed, ValuesUnlike, Violation

__all__ = [
    "CallableGraph",
    "Frozen",
    "GraphWithValues",
    "JitGraph",
    "Label",
    "N",
    "NestingGraph",
    "LabelRefused",
    "NodeDefinition",
    "OrderedMap",
    "PerLevel",
    "Place",
    "Refused",
    "ReturnedUnlike",
    "TraceFailed",
    "Traced",
    "V",
    "ValuePartial",
    "ValuesUnlike",
    "Violation",
    "check_hashable",
    "check_reassembles",
    "check_traced_callable",
    "check_traces",
    "unchecked",
]
