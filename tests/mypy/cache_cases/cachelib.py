"""Classes judged from mypy's cache in the second run of test_mypy_plugin_cache.py."""

from __future__ import annotations

import dataclasses

import attr
import attrs
import pydantic

import jitcheck


@dataclasses.dataclass(eq=False)
class IdentityName:
    text: str


@dataclasses.dataclass(unsafe_hash=True)
class UnsafeHashName:
    text: str


@dataclasses.dataclass
class MutableName:
    text: str


@dataclasses.dataclass(frozen=True)
class FrozenHoldingList:
    parts: list[int]


class EqOnly:
    def __eq__(self, other: object) -> bool:
        return other is self


class HashNone:
    __hash__ = None  # type: ignore[assignment]


class RecordWithEq(jitcheck.Frozen):
    name: str

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RecordWithEq) and other.name == self.name


@attrs.define
class AttrsName:
    text: str


@attrs.define(hash=True)
class AttrsHashed:
    text: str


@attr.s
class AttrSName:
    text: str = attr.ib()


class Model(pydantic.BaseModel):
    text: str


class FrozenModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True)
    text: str


class FrozenByKeyword(pydantic.BaseModel, frozen=True):
    text: str


class SubOfFrozen(FrozenModel):
    other: int
