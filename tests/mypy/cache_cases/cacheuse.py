"""Uses the classes of cachelib as labels: the same findings whether cachelib is fresh or cached."""

from __future__ import annotations

from cachelib import (
    AttrSName,
    AttrsHashed,
    AttrsName,
    EqOnly,
    FrozenByKeyword,
    FrozenHoldingList,
    FrozenModel,
    HashNone,
    IdentityName,
    Model,
    MutableName,
    RecordWithEq,
    SubOfFrozen,
    UnsafeHashName,
)

from jitcheck import JitGraph

identity: JitGraph[IdentityName, str]
unsafe: JitGraph[UnsafeHashName, str]
mutable: JitGraph[MutableName, str]  # mypy-expect: jitcheck-label # mypy-says: it is not frozen
holding: JitGraph[FrozenHoldingList, str]  # mypy-expect: jitcheck-label # mypy-says: (field "parts" of "FrozenHoldingList") is a list
eq_only: JitGraph[EqOnly, str]  # mypy-expect: jitcheck-label # mypy-says: it defines "__eq__" but not "__hash__"
hash_none: JitGraph[HashNone, str]  # mypy-expect: type-var, jitcheck-label # mypy-says: it sets "__hash__" to None
record: JitGraph[RecordWithEq, str]  # mypy-expect: jitcheck-label # mypy-says: it defines "__eq__" but not "__hash__"
attrs_name: JitGraph[AttrsName, str]  # mypy-expect: type-var, jitcheck-label # mypy-says: it is not frozen # mypy-says: Fix: declare "AttrsName" with "@attrs.frozen"
attrs_hashed: JitGraph[AttrsHashed, str]
attr_s: JitGraph[AttrSName, str]  # mypy-expect: type-var, jitcheck-label # mypy-says: Fix: declare "AttrSName" with "@attr.s(frozen=True)"
model: JitGraph[Model, str]  # mypy-expect: jitcheck-label # mypy-says: Fix: set "model_config = ConfigDict(frozen=True)" in "Model"
frozen_model: JitGraph[FrozenModel, str]
frozen_by_keyword: JitGraph[FrozenByKeyword, str]
sub_of_frozen: JitGraph[SubOfFrozen, str]

# typeshed's classes, judged from mypy's symbols cold and warm alike: slice's
# `__hash__: ClassVar[None]` is written under a version check (hashable from 3.12 on).
sliced: JitGraph[slice[int, int, int], str]  # mypy-expect: type-var, jitcheck-label # mypy-says: it sets "__hash__" to None
ranged: JitGraph[range, str]
