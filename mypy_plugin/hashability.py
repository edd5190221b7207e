"""Whether a mypy type can be part of a jit cache key, and if not, why.

A cache key must hash and compare by value. mypy's ``Hashable`` bound refuses only
types whose stub declares ``__hash__`` None (list, dict, set); :func:`problems`
also refuses what it lets through: non-frozen dataclasses (mypy issue 11463),
classes defining ``__eq__`` without ``__hash__``, numpy and jax arrays, and any of
these inside tuples, frozensets, `OrderedMap` and frozen dataclass fields.

The judgment walks a class's MRO as Python resolves ``__hash__``: the first class
that says something about it (defines it, sets it to None, is a dataclass that
generates or clears it, defines ``__eq__`` alone) decides.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Final

from mypy.expandtype import expand_type_by_instance
from mypy.maptype import map_instance_to_supertype
from mypy.nodes import TypeInfo, Var
from mypy.options import Options
from mypy.types import (
    Instance,
    LiteralType,
    TupleType,
    Type,
    TypedDictType,
    TypeVarType,
    UnionType,
    get_proper_type,
)

from jitcheck import rules
from jitcheck.rules import Rule
from mypy_plugin.facts import DATACLASS, PYDANTIC, ClassFacts, DataclassParams, class_facts, model_frozen
from mypy_plugin.source import type_text

ARRAY_CLASSES: Final = frozenset(
    {
        "numpy.ndarray",
        "jax.Array",
        "jax._src.basearray.Array",
        "jax._src.core.Tracer",
    }
)
"""Array types: unhashable, compared elementwise, never a static key."""

MUTABLE_CONTAINERS: Final = {"builtins.list": "list", "builtins.dict": "dict", "builtins.set": "set"}
"""Containers that do not hash, by full name, with the word messages use."""

_ORDERED_MAP: Final = "jitcheck.core.frozen.OrderedMap"
_ITEM_CONTAINERS: Final = {"builtins.tuple": "tuple", "builtins.frozenset": "frozenset", _ORDERED_MAP: "OrderedMap"}
"""Immutable containers that hash through their items: their items are judged too."""


@dataclasses.dataclass(frozen=True)
class Env:
    """What the judgment needs from mypy besides the type: how to print types, and stubs."""

    options: Options
    is_stub: Callable[[str], bool]
    """Whether the module of this name is a stub (``.pyi``)."""
    is_library: Callable[[str], bool]
    """Whether it is a module of typeshed or an installed package: its unrecorded classes are judged from mypy's symbols."""


@dataclasses.dataclass(frozen=True)
class Unhashable:
    """One part of a type that keeps it from being a cache key."""

    offender: str
    """The type at fault, as mypy prints it."""
    what: str
    """What is wrong, short, as a predicate of the offender (``is not frozen``, ``is a list``)."""
    because: str
    """Why that keeps it from hashing by value (a clause, for a note)."""
    rule: Rule | None
    """The catalogue rule for this kind of value (JC201-JC204), None for another unhashable class."""
    fields: dict[str, object] = dataclasses.field(default_factory=dict, hash=False)
    """Message fields for ``rule`` (``kind``, ``type``)."""
    path: tuple[str, ...] = ()
    """How the offender is reached from the judged type, outermost first (``an item of the tuple``)."""
    fix_text: str | None = None
    """The fix for this offender, when it is more specific than the rule's help."""

    def inside(self, step: str) -> Unhashable:
        """The same problem, one container further out."""
        return dataclasses.replace(self, path=(step, *self.path))

    @property
    def why(self) -> str:
        """``is an array, and arrays are unhashable ...``: the predicate and its reason."""
        return f"{self.what}: {self.because}"

    @property
    def subject(self) -> str:
        """```ndarray` (an item of the tuple)``: the offender and where it is."""
        where = f" ({', in '.join(reversed(self.path))})" if self.path else ""
        return f"`{self.offender}`{where}"

    @property
    def reason(self) -> str:
        """The whole explanation: ``` `ndarray` (an item of the tuple) is an array: ...```."""
        return f"{self.subject} {self.why}"

    @property
    def fix(self) -> str | None:
        """The rule's help for this offender, when the rule has a specific one."""
        if self.fix_text is not None:
            return self.fix_text
        if self.rule in (rules.MUTABLE_CONTAINER_STATIC, rules.EQ_WITHOUT_HASH):
            return self.rule.format_help(**self.fields)
        return None


def problems(typ: Type, env: Env) -> list[Unhashable]:
    """Every reason ``typ`` cannot be (part of) a jit cache key; empty when it can.

    Types mypy cannot see through (``Any``, callables, type objects, protocols such
    as ``Hashable``) are given the benefit of the doubt.
    """
    return list(_problems(typ, env, frozenset()))


_MAX_DEPTH: Final = 12
"""How deep containers are followed: recursive aliases (``Tree = tuple["Tree", ...]``) end here."""


def _problems(typ: Type, env: Env, seen: frozenset[str], depth: int = 0) -> Iterator[Unhashable]:
    if depth > _MAX_DEPTH:
        return
    depth += 1
    proper = get_proper_type(typ)
    if isinstance(proper, LiteralType):
        proper = proper.fallback
    if isinstance(proper, Instance):
        yield from _instance_problems(proper, env, seen, depth)
    elif isinstance(proper, TupleType):
        for item in proper.items:
            yield from (p.inside("an item of the tuple") for p in _problems(item, env, seen, depth))
    elif isinstance(proper, TypedDictType):
        yield _container(proper.fallback, "dict", env)
    elif isinstance(proper, UnionType):
        for item in proper.items:
            yield from _problems(item, env, seen, depth)
    elif isinstance(proper, TypeVarType):
        step = f"the bound of `{proper.name}`"
        yield from (p.inside(step) for p in _problems(proper.upper_bound, env, seen, depth))
        for value in proper.values:
            yield from (p.inside(f"a value of `{proper.name}`") for p in _problems(value, env, seen, depth))


def _instance_problems(instance: Instance, env: Env, seen: frozenset[str], depth: int) -> Iterator[Unhashable]:
    for base in instance.type.mro:
        fullname = base.fullname
        if fullname == "builtins.object":
            return
        if fullname in ARRAY_CLASSES:
            yield Unhashable(
                type_text(instance, env.options),
                "is an array",
                "arrays are unhashable (they compare elementwise)",
                rules.ARRAY_STATIC,
            )
            return
        if fullname in MUTABLE_CONTAINERS:
            yield _container(instance, MUTABLE_CONTAINERS[fullname], env)
            return
        facts = class_facts(base, env.is_stub, env.is_library)
        if facts.is_protocol:
            return  # an interface: the classes passed where it is used are judged there
        frozen_model = model_frozen(base, env.is_stub, env.is_library) if facts.hash != "defined" else None
        if frozen_model is not None:
            if not frozen_model:
                yield _unfrozen(instance, base, DataclassParams(kind=PYDANTIC), env)
            return
        found = _class_verdict(instance, base, facts, env)
        if found is not None:
            yield found
            return
        if facts.hash == "defined" or (facts.dataclass is not None and facts.dataclass.generates_hash):
            # Hashes: now its parts, where they are hashed with it.
            yield from _part_problems(instance, base, facts, env, seen, depth)
            return


def _class_verdict(instance: Instance, base: TypeInfo, facts: ClassFacts, env: Env) -> Unhashable | None:
    """The problem this class of the MRO creates, or None (it hashes, or says nothing)."""
    offender = type_text(instance, env.options)
    inherited = base is not instance.type
    if facts.hash == "defined":
        return None
    if facts.hash == "none":
        what = f"inherits `__hash__ = None` from `{base.name}`" if inherited else "sets `__hash__` to None"
        return Unhashable(offender, what, "so it is unhashable", None)
    params = facts.dataclass
    if params is not None:
        if params.generates_hash:
            return None
        if params.clears_hash:
            return _unfrozen(instance, base, params, env)
    if facts.defines_eq and not facts.is_stub:
        what = f"inherits `__eq__` without `__hash__` from `{base.name}`" if inherited else "defines `__eq__` but not `__hash__`"
        return Unhashable(
            offender,
            what,
            "Python sets the `__hash__` of a class defining `__eq__` alone to None",
            rules.EQ_WITHOUT_HASH,
            {"type": base.name},
        )
    return None


def _unfrozen(instance: Instance, base: TypeInfo, params: DataclassParams, env: Env) -> Unhashable:
    """JC203 for a dataclass, attrs class or pydantic model that is not frozen, with the fix for its kind."""
    because, fix = rules.UNFROZEN.get(params.kind, rules.UNFROZEN[DATACLASS])
    inherited = base is not instance.type
    return Unhashable(
        type_text(instance, env.options),
        f"inherits from `{base.name}`, which is not frozen" if inherited else "is not frozen",
        because,
        rules.MUTABLE_DATACLASS,
        {"type": base.name, "kind": params.kind},
        fix_text=fix.format(type=base.name),
    )


def _container(instance: Instance, kind: str, env: Env) -> Unhashable:
    return Unhashable(
        type_text(instance, env.options),
        f"is a {kind}",
        "lists, dicts and sets are unhashable",
        rules.MUTABLE_CONTAINER_STATIC,
        {"kind": kind},
    )


def _part_problems(instance: Instance, base: TypeInfo, facts: ClassFacts, env: Env, seen: frozenset[str], depth: int) -> Iterator[Unhashable]:
    """Problems of the parts a hashable instance hashes: container items, frozen dataclass fields."""
    for container, word in _ITEM_CONTAINERS.items():
        if any(b.fullname == container for b in instance.type.mro):
            mapped = map_instance_to_supertype(instance, _info(instance, container))
            for index, arg in enumerate(mapped.args):
                step = f"an item of the {word}"
                if container == _ORDERED_MAP:
                    step = "a key of the OrderedMap" if index == 0 else "a value of the OrderedMap"
                yield from (p.inside(step) for p in _problems(arg, env, seen, depth))
            return
    if facts.dataclass is None or base.fullname in seen:
        return
    inner_seen = seen | {base.fullname}
    for name, owner, field_type in _dataclass_fields(base):
        step = f"field `{name}` of `{base.name}`"
        expanded = expand_type_by_instance(field_type, map_instance_to_supertype(instance, owner))
        yield from (p.inside(step) for p in _problems(expanded, env, inner_seen, depth))


def _info(instance: Instance, fullname: str) -> TypeInfo:
    return next(b for b in instance.type.mro if b.fullname == fullname)


def _dataclass_fields(info: TypeInfo) -> Iterator[tuple[str, TypeInfo, Type]]:
    """A dataclass's fields (its own and inherited), each with the class declaring it and its type."""
    stored = info.metadata.get("dataclass")
    names = [a["name"] for a in stored["attributes"]] if stored is not None else list(info.names)
    for name in names:
        owner = info.get_containing_type_info(name)
        symbol = owner.names.get(name) if owner is not None else None
        node = symbol.node if symbol is not None else None
        if (
            owner is not None
            and isinstance(node, Var)
            and node.type is not None
            and not node.is_classvar
            and not name.startswith("__")
            # mypy's dataclass plugin makes frozen fields properties; without its
            # record, the fields are the annotated attributes of the body.
            and (stored is not None or not (node.is_inferred or node.is_property))
        ):
            yield name, owner, node.type


__all__ = ["ARRAY_CLASSES", "Env", "MUTABLE_CONTAINERS", "Unhashable", "problems"]
