"""attrs classes and pydantic models, defined here: judged as they hash at runtime, with the fix for their kind."""

from __future__ import annotations

from typing import Protocol

import attr
import attrs
import pydantic

from jitcheck import JitGraph, NodeDefinition


@attrs.define
class Loose:
    text: str


@attrs.define(hash=True)
class HashedLoose:
    text: str


@attrs.define(unsafe_hash=True)
class UnsafeLoose:
    text: str


@attrs.frozen
class Tight:
    text: str


@attrs.define(frozen=True)
class TightToo:
    text: str


@attrs.define(eq=False)
class Identity:
    text: str


@attr.s
class OldStyle:
    text: str = attr.ib()


@attr.s(frozen=True)
class OldFrozen:
    text: str = attr.ib()


class Model(pydantic.BaseModel):
    text: str


class FrozenModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True)
    text: str


class FrozenDictModel(pydantic.BaseModel):
    model_config = {"frozen": True}
    text: str


class ThawedModel(FrozenModel):
    model_config = pydantic.ConfigDict(frozen=False)


class Comparable(Protocol):
    def __eq__(self, other: object) -> bool: ...


def body(x: int) -> int:
    return x


loose: JitGraph[Loose, str]  # mypy-expect: type-var, jitcheck-label # mypy-says: "Loose" is not a valid Label of "JitGraph": it is not frozen # mypy-says: Fix: declare "Loose" with "@attrs.frozen" (or "@attrs.define(frozen=True)")
hashed: JitGraph[HashedLoose, str]
unsafe: JitGraph[UnsafeLoose, str]
tight: JitGraph[Tight, Tight]
tight_too: JitGraph[TightToo, str]
identity: JitGraph[Identity, str]
old: JitGraph[OldStyle, str]  # mypy-expect: type-var, jitcheck-label # mypy-says: Fix: declare "OldStyle" with "@attr.s(frozen=True)"
old_frozen: JitGraph[OldFrozen, str]
model: JitGraph[str, Model]  # mypy-expect: jitcheck-place # mypy-says: "Model" is not a valid Place of "JitGraph": it is not frozen # mypy-says: Fix: set "model_config = ConfigDict(frozen=True)" in "Model"
frozen_model: JitGraph[FrozenModel, str]
frozen_dict_model: JitGraph[FrozenDictModel, str]
thawed: JitGraph[ThawedModel, str]  # mypy-expect: jitcheck-label # mypy-says: in "ThawedModel"

# A Protocol is an interface: the plugin judges the classes passed for it, not the
# Protocol; mypy itself refuses one without __hash__ for the Hashable bound.
comparable: JitGraph[Comparable, str]  # mypy-expect: type-var

# Settings: a mutable model is refused with the pydantic fix; a frozen one passes.
node_bad = NodeDefinition(body, ("x",), ("y",), settings={"cfg": Model(text="a")})  # mypy-expect: jitcheck-setting # mypy-says: cannot be a jit cache key: its type "Model" is not frozen # mypy-says: Fix: set "model_config = ConfigDict(frozen=True)" in "Model"
node_ok = NodeDefinition(body, ("x",), ("y",), settings={"cfg": FrozenModel(text="a"), "name": Tight("b")})
node_attrs = NodeDefinition(body, ("x",), ("y",), settings={"cfg": Loose("a")})  # mypy-expect: jitcheck-setting, dict-item # mypy-says: Fix: declare "Loose" with "@attrs.frozen"
