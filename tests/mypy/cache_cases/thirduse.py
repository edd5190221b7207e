"""Uses an installed package's classes as labels: the same findings whether thirdlib is fresh or cached."""

from __future__ import annotations

from thirdlib import ConditionalEq, EqOnly, FrozenRecord, Hashed, IdentityRecord, MutableRecord, NoHash, RegisteredEqOnly

from jitcheck import JitGraph

eq_only: JitGraph[EqOnly, str]  # mypy-expect: jitcheck-label # mypy-says: it defines "__eq__" but not "__hash__"
registered: JitGraph[RegisteredEqOnly, str]  # mypy-expect: jitcheck-label # mypy-says: it defines "__eq__" but not "__hash__"
hashed: JitGraph[Hashed, str]
no_hash: JitGraph[NoHash, str]  # mypy-expect: type-var, jitcheck-label # mypy-says: it sets "__hash__" to None
mutable: JitGraph[MutableRecord, str]  # mypy-expect: jitcheck-label # mypy-says: it is not frozen
frozen: JitGraph[FrozenRecord, str]
identity: JitGraph[IdentityRecord, str]
conditional: JitGraph[ConditionalEq, str]  # mypy-expect: jitcheck-label # mypy-says: it defines "__eq__" but not "__hash__"
