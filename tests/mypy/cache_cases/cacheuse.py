"""Uses the classes of cachelib as labels: the same findings whether cachelib is fresh or cached."""

from __future__ import annotations

from cachelib import EqOnly, FrozenHoldingList, HashNone, IdentityName, MutableName, RecordWithEq, UnsafeHashName

from jitcheck import JitGraph

identity: JitGraph[IdentityName, str]
unsafe: JitGraph[UnsafeHashName, str]
mutable: JitGraph[MutableName, str]  # mypy-expect: jitcheck-label # mypy-says: it is a non-frozen dataclass
holding: JitGraph[FrozenHoldingList, str]  # mypy-expect: jitcheck-label # mypy-says: (field `parts` of `FrozenHoldingList`) is a list
eq_only: JitGraph[EqOnly, str]  # mypy-expect: jitcheck-label # mypy-says: it defines `__eq__` but not `__hash__`
hash_none: JitGraph[HashNone, str]  # mypy-expect: type-var, jitcheck-label # mypy-says: it sets `__hash__` to None
record: JitGraph[RecordWithEq, str]  # mypy-expect: jitcheck-label # mypy-says: it defines `__eq__` but not `__hash__`
