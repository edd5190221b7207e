"""Which classes are jitcheck graphs, and which of their type parameters are Labels and Places.

A type parameter is a Label when it is jitcheck's ``N`` and a Place when it is
jitcheck's ``V`` (the TypeVars of ``jitcheck.core.names``): that covers
`NodeDefinition`, `NestingGraph`, `CallableGraph`, `JitGraph`, `GraphWithValues`,
`Traced`, wherever they are imported from, and any user subclass, whose own type
parameters are mapped onto them through the MRO. The ``graph-classes`` option adds
classes with roles written out.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final

from mypy.maptype import map_instance_to_supertype
from mypy.nodes import TypeInfo
from mypy.types import Instance, Type

LABEL: Final = "Label"
PLACE: Final = "Place"

ROLE_OF_TYPEVAR: Final = {"jitcheck.core.names.N": LABEL, "jitcheck.core.names.V": PLACE}
"""jitcheck's TypeVars, by full name, and the role they give a type parameter."""

_BOTH = (LABEL, PLACE)
GRAPH_CLASSES: Final[dict[str, tuple[str | None, ...]]] = {
    f"{module}.{name}": roles
    for name, roles in {
        "NodeDefinition": (PLACE,),
        "NestingGraph": _BOTH,
        "CallableGraph": _BOTH,
        "JitGraph": _BOTH,
        "GraphWithValues": (None, PLACE),
        "Traced": _BOTH,
    }.items()
    for module in ("jitcheck", "jitcheck.core", "jitcheck.core.graphs", "jitcheck.core.traced")
}
"""jitcheck's graph classes by full name (where they are defined, or re-exported should
they move), with the role of each type parameter; the TypeVars find them as well."""

VALUE_PARTIAL: Final = "jitcheck.core.partial.ValuePartial"
NODE_MAPS: Final = frozenset({"jitcheck.core.frozen.OrderedMap", "jitcheck.core.frozen.frozen_map", "builtins.dict"})
"""Calls whose arguments a graph's nodes are written inside (``OrderedMap({...})``)."""

NODE_MAPPINGS: Final = frozenset({"nodes", "graph"})
"""Graph constructor parameters that take the mapping of labels to nodes."""

Roles = tuple[str | None, ...]


def own_roles(info: TypeInfo, extra: Mapping[str, Roles]) -> Roles | None:
    """The roles of ``info``'s own type parameters, or None when none is a Label or Place."""
    configured = extra.get(info.fullname) or GRAPH_CLASSES.get(info.fullname)
    if configured is not None:
        return configured
    roles = tuple(ROLE_OF_TYPEVAR.get(tv.fullname) for tv in info.defn.type_vars)
    return roles if any(roles) else None


def is_graph_class(info: TypeInfo, extra: Mapping[str, Roles]) -> bool:
    """True for a class with a Label or Place parameter somewhere in its MRO."""
    return any(own_roles(base, extra) is not None for base in info.mro)


def is_node_class(info: TypeInfo) -> bool:
    """True for `NodeDefinition` and its subclasses (classes with a node body)."""
    return any(base.name == "NodeDefinition" and base.fullname.startswith("jitcheck.") for base in info.mro)


def role_arguments(instance: Instance, extra: Mapping[str, Roles]) -> Iterator[tuple[str, Type, TypeInfo]]:
    """Each (role, type argument, class declaring the role) of a graph instance, once per role and type.

    A subclass's arguments are mapped onto each base that declares roles, so
    ``MyGraph[Name]`` of ``class MyGraph(JitGraph[M, str])`` yields ``Name`` as a Label
    and ``str`` as a Place.
    """
    seen: set[tuple[str, str]] = set()
    for base in instance.type.mro:
        roles = own_roles(base, extra)
        if roles is None:
            continue
        mapped = instance if base is instance.type else map_instance_to_supertype(instance, base)
        for role, arg in zip(roles, mapped.args):
            if role is None:
                continue
            key = (role, str(arg))
            if key not in seen:
                seen.add(key)
                yield role, arg, base


__all__ = [
    "LABEL",
    "GRAPH_CLASSES",
    "NODE_MAPPINGS",
    "NODE_MAPS",
    "PLACE",
    "ROLE_OF_TYPEVAR",
    "VALUE_PARTIAL",
    "is_graph_class",
    "is_node_class",
    "own_roles",
    "role_arguments",
]
