"""The qualified names the static pass recognises, and what each one means.

Every check starts from a call whose callee *resolves* (through the module's
imports, by libcst's scope analysis) to one of these names, so ``from jax import
jit as j`` is found and a local function that happens to be called ``jit`` is not.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Final


@dataclasses.dataclass(frozen=True)
class Wrapper:
    """A jit-like wrapper: which keywords name its static arguments."""

    name: str
    static_argnums: str | None = "static_argnums"
    static_argnames: str | None = "static_argnames"


JIT_WRAPPERS: Final[Mapping[str, Wrapper]] = {
    "jax.jit": Wrapper("jax.jit"),
    "jax.pmap": Wrapper("jax.pmap", static_argnums="static_broadcasted_argnums", static_argnames=None),
    "jax.experimental.pjit.pjit": Wrapper("pjit"),
    "equinox.filter_jit": Wrapper("equinox.filter_jit", static_argnums=None, static_argnames=None),
    "flax.nnx.jit": Wrapper("flax.nnx.jit"),
}
"""Wrappers that trace and compile their function, keyed by qualified name."""

FUNCTOOLS_PARTIALS: Final = frozenset({"functools.partial"})
TREE_PARTIALS: Final = frozenset({"jax.tree_util.Partial", "jax.tree_util.tree_util.Partial"})

NODE_CONSTRUCTORS: Final = frozenset(
    {"jitcheck.NodeDefinition", "jitcheck.core.NodeDefinition", "jitcheck.core.graphs.NodeDefinition"}
)
"""Constructors called as ``NodeDefinition(body, inputs, outputs, settings)``."""

GRAPH_CONSTRUCTORS: Final = frozenset(
    f"{module}.{name}"
    for module in ("jitcheck", "jitcheck.core", "jitcheck.core.graphs")
    for name in ("JitGraph", "CallableGraph", "NestingGraph")
)
"""Graph constructors: recognised, their nodes are checked where they are built."""

ORDERED_MAPS: Final = frozenset({"jitcheck.OrderedMap", "jitcheck.core.OrderedMap", "jitcheck.core.frozen.OrderedMap"})
VALUE_PARTIALS: Final = frozenset({"jitcheck.ValuePartial", "jitcheck.core.ValuePartial", "jitcheck.core.partial.ValuePartial"})

_ARRAY_FUNCTIONS: Final = (
    "array asarray zeros ones full empty arange linspace logspace eye identity zeros_like "
    "ones_like full_like empty_like tri diag meshgrid stack concatenate"
).split()
ARRAY_FACTORIES: Final = frozenset(
    f"{module}.{name}" for module in ("numpy", "jax.numpy") for name in _ARRAY_FUNCTIONS
)
"""Calls that return an array (unhashable, so never a static value)."""

ARRAY_MODULES: Final = ("jax.random.", "numpy.random.")
"""Modules whose functions return arrays (``jax.random.normal``, ``numpy.random.rand``)."""

NOT_ARRAY_IN_RANDOM: Final = frozenset(
    {"numpy.random.default_rng", "numpy.random.seed", "numpy.random.RandomState", "numpy.random.Generator",
     "numpy.random.get_state", "numpy.random.set_state", "jax.random.key_data", "jax.random.key_impl"}
)

CONTAINER_BUILTINS: Final[Mapping[str, str]] = {"builtins.list": "list", "builtins.dict": "dict", "builtins.set": "set", "builtins.bytearray": "bytearray"}

DATACLASS_DECORATORS: Final = frozenset({"dataclasses.dataclass", "chex.dataclass"})
"""Decorators that make a class a dataclass, mutable unless ``frozen=True``."""

CACHING_DECORATORS: Final = frozenset(
    {"functools.cache", "functools.lru_cache", "functools.cached_property", "jax.util.cache", "jax._src.util.cache"}
)
"""A function under one of these runs once per distinct argument: what it builds is built once."""

CONSTRUCTOR_METHODS: Final = frozenset({"__init__", "__post_init__", "setup"})
"""Methods that run once per object: ``self.f = jax.jit(self.g)`` there is the recommended pattern."""

ONCE_FUNCTIONS: Final = frozenset({"main", "setUp", "setUpClass", "setUpModule"})
"""Functions a program or test runner calls once (with every ``test*`` function)."""

BASE_TRIGGERS: Final = frozenset(
    {name.rsplit(".", 1)[-1] for name in (*JIT_WRAPPERS, *NODE_CONSTRUCTORS, *GRAPH_CONSTRUCTORS)}
)
PARTIAL_TRIGGERS: Final = frozenset({"partial", "Partial"})


def last_names(qualified: Iterable[str]) -> frozenset[str]:
    """The last components of dotted names (what a call is spelled with, before aliasing)."""
    return frozenset(name.rsplit(".", 1)[-1] for name in qualified)


__all__ = [
    "ARRAY_FACTORIES",
    "ARRAY_MODULES",
    "BASE_TRIGGERS",
    "CACHING_DECORATORS",
    "CONSTRUCTOR_METHODS",
    "CONTAINER_BUILTINS",
    "DATACLASS_DECORATORS",
    "FUNCTOOLS_PARTIALS",
    "GRAPH_CONSTRUCTORS",
    "JIT_WRAPPERS",
    "NODE_CONSTRUCTORS",
    "ONCE_FUNCTIONS",
    "ORDERED_MAPS",
    "PARTIAL_TRIGGERS",
    "TREE_PARTIALS",
    "VALUE_PARTIALS",
    "Wrapper",
    "last_names",
]
