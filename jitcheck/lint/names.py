"""The qualified names the static pass recognises, and what each one means.

Every check starts from a call whose callee *resolves* (through the module's
imports, by libcst's scope analysis) to one of these names, so ``from jax import
jit as j`` is found and a local function that happens to be called ``jit`` is not.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Final, Literal

Keys = Literal["identity", "equality", "value", "wrapper"]
"""How a wrapper finds its function's traces again when it is wrapped anew.

``"identity"``: by the function object (``jax.jit``: a new function is a new key);
``"equality"``: by the function's own ``==`` and hash (``jax.pmap``): a bound method of the
same receiver object is found again (jax 0.10.2: three ``jax.pmap(obj.f)`` of one object,
one trace; of three objects, three), while a ``functools.partial``, a lambda or a nested
``def`` built anew is a new key, as under ``jax.jit``;
``"value"``: by equality and hash of the function flattened as a pytree (``equinox.filter_jit``
hashes the function as a static leaf, so a bound method of the same receiver is found again,
and a pytree partial by its parts); ``"wrapper"``: never, the cache lives in the wrapper
object (a ``StatefulFunction``).
"""

_TRACING_METHODS: Final = frozenset({"lower", "trace", "eval_shape"})


@dataclasses.dataclass(frozen=True)
class Wrapper:
    """A jit-like wrapper: which keywords name its static arguments, and how it keys its cache."""

    name: str
    static_argnums: str | None = "static_argnums"
    static_argnames: str | None = "static_argnames"
    keys: Keys = "identity"
    positional: tuple[str, ...] = ()
    """The options it also takes by position after the function (``StatefulFunction(f, (1,))``)."""
    tracing_methods: frozenset[str] = _TRACING_METHODS
    """Methods that trace (and run) the function when called on a wrapper built right there."""
    static_all: bool = False
    """Every argument that is not an array is static, keyed by hash and ``==`` (equinox's ``filter_jit``): a
    callable passed is part of the cache key, as a declared static argument is."""


STATEFUL_FUNCTIONS: Final = frozenset(
    {
        "jitcheck.StatefulFunction",
        "jitcheck.stateful.StatefulFunction",
        "jitcheck.stateful.function.StatefulFunction",
        "brainstate.transform.StatefulFunction",
        "brainstate.transform._make_jaxpr.StatefulFunction",
    }
)
"""jitcheck's and brainstate's ``StatefulFunction``: a trace cache per wrapper object.

(brainstate 0.5 has no ``brainstate.compile``; its ``StatefulFunction`` lives in
``brainstate.transform``.) ``make_jaxpr`` is left out of their tracing methods on
purpose: it is the explicit "trace this now" request, which brainstate's own control
flow (``cond``, ``scan``, ``while_loop``) makes on every call, as ``jax.make_jaxpr`` does.
"""

JIT_WRAPPERS: Final[Mapping[str, Wrapper]] = {
    "jax.jit": Wrapper("jax.jit"),
    "jax.pmap": Wrapper("jax.pmap", static_argnums="static_broadcasted_argnums", static_argnames=None, keys="equality"),
    "jax.experimental.pjit.pjit": Wrapper("pjit"),
    "equinox.filter_jit": Wrapper("equinox.filter_jit", static_argnums=None, static_argnames=None, keys="value",
                                  static_all=True),
    "flax.nnx.jit": Wrapper("flax.nnx.jit"),
    "brainpy.math.jit": Wrapper("brainpy.math.jit"),
    "brainstate.transform.jit": Wrapper("brainstate.transform.jit"),
    "brainstate.transform._jit.jit": Wrapper("brainstate.transform.jit"),
    # By position after the function: jitcheck's seed order is (static_argnums, axis_env, ...),
    # with static_argnames keyword-only; brainstate's is (static_argnums, static_argnames, ...).
    **{
        name: Wrapper(name, keys="wrapper",
                      positional=("static_argnums",) if name.startswith("jitcheck.") else ("static_argnums", "static_argnames"),
                      tracing_methods=frozenset({"jaxpr_call", "jaxpr_call_auto"}))
        for name in sorted(STATEFUL_FUNCTIONS)
    },
}
"""Wrappers that trace and compile their function, keyed by qualified name."""

METHOD_WRAPPERS: Final[Mapping[str, Wrapper]] = {"variant": Wrapper("chex.variant")}
"""Wrappers called as a method of ``self`` in a module that imports their package: chex's
``self.variant(f, static_argnums=...)`` in a ``chex.TestCase`` jits ``f`` anew on every
call under the ``with_jit`` variant (and pmaps it under ``with_pmap``)."""


@dataclasses.dataclass(frozen=True)
class Transformation:
    """A function transformation: it takes a function and returns a function of the same arguments."""

    name: str
    rebuilds: bool
    """True when each call returns a new function object compared by identity (every jax
    transformation); False when the result compares by value (equinox's ``filter_*``
    modules compare their fields, so ``filter_grad(f)`` built twice is one key)."""
    keywords: tuple[str, ...] = ("fun",)
    """The keywords the function may be passed by, when not first by position."""


_JAX_TRANSFORMATIONS: Final = (
    "jax.grad", "jax.value_and_grad", "jax.vmap", "jax.checkpoint", "jax.remat", "jax.ad_checkpoint.checkpoint",
    "jax.ad_checkpoint.remat", "jax.jacfwd", "jax.jacrev", "jax.hessian", "jax.named_call",
)
_EQUINOX_TRANSFORMATIONS: Final = (
    "equinox.filter_grad", "equinox.filter_value_and_grad", "equinox.filter_vmap", "equinox.filter_checkpoint",
    "equinox.filter_jacfwd", "equinox.filter_jacrev", "equinox.filter_hessian",
)
_BRAINSTATE_TRANSFORMATIONS: Final = tuple(
    f"brainstate.transform.{name}" for name in ("grad", "vector_grad", "jacrev", "jacfwd", "hessian", "vmap", "checkpoint")
)
"""brainstate's transformations: each call returns a new ``GradientTransform`` (or mapped function) object, which
compares by identity."""
TRANSFORMATIONS: Final[Mapping[str, Transformation]] = {
    **{name: Transformation(name, rebuilds=True) for name in _JAX_TRANSFORMATIONS},
    **{name: Transformation(name, rebuilds=True, keywords=("fun", "func", "fn"))
       for name in _BRAINSTATE_TRANSFORMATIONS},
    **{name: Transformation(name, rebuilds=True, keywords=("f",))
       for name in ("jax.shard_map", "jax.experimental.shard_map.shard_map", "jax.experimental.checkify.checkify")},
    **{name: Transformation(name, rebuilds=False) for name in _EQUINOX_TRANSFORMATIONS},
}
"""Function transformations the pass looks through to the callable they wrap, by qualified name."""

TRACING_CALLS: Final = frozenset({
    *(f"jax.lax.{name}" for name in ("scan", "while_loop", "fori_loop", "cond", "switch", "map", "associative_scan",
                                     "custom_root", "custom_linear_solve")),
    "jax.make_jaxpr", "jax.eval_shape", "jax.custom_jvp", "jax.custom_vjp", "jax.linearize", "jax.vjp", "jax.jvp",
    "jax.xla_computation", "jax.experimental.ode.odeint", "jax.scipy.optimize.minimize", "equinox.filter_eval_shape",
    "equinox.filter_make_jaxpr", "equinox.internal.while_loop", "equinox.internal.scan",
})
"""Calls that trace the functions handed to them (a ``lax.scan`` body, ``jax.make_jaxpr``'s function) and never run
them as Python on their own: with the jit wrappers and :data:`TRANSFORMATIONS`, code reached only from there runs
only while an outer trace is made, and a jit inside it is inlined into that trace."""
NO_COMPILE_CALLS: Final = frozenset({"jax.make_jaxpr", "jax.eval_shape", "equinox.filter_eval_shape",
                                     "equinox.filter_make_jaxpr"})
"""Calls that trace what they are handed and never compile it: a jit handed to them compiles nothing."""
TRACING_LIBRARIES: Final = ("optimistix.", "jaxopt.", "diffrax.", "lineax.", "blackjax.")
"""Libraries whose solvers jit the objective, vector field or operator they are handed."""

WRAPS: Final = frozenset({"functools.wraps"})
"""``functools.wraps(f)(g)`` is ``g`` itself (with ``f``'s name): looked through to ``g``."""
UPDATE_WRAPPER: Final = frozenset({"functools.update_wrapper"})
"""``functools.update_wrapper(g, f)`` is ``g`` itself: looked through to ``g``."""

FUNCTOOLS_PARTIALS: Final = frozenset({"functools.partial"})
TREE_PARTIALS: Final = frozenset({"jax.tree_util.Partial", "jax.tree_util.tree_util.Partial"})
EQUINOX_PARTIALS: Final = frozenset({"equinox.Partial", "equinox._module.Partial", "equinox._module._prebuilt.Partial"})
EQUINOX_MODULES: Final = frozenset({"equinox.Module", "equinox._module.Module"})
"""equinox's ``Module``: a method read on an instance is itself a Module (a bound method holding the instance as a
field), which a wrapper that compares by value (``equinox.filter_jit``) finds again through equal fields, arrays by
shape and dtype; however often the instance is rebuilt, the same fields are the same cache key."""
"""``equinox.Partial``: a Module, compared and hashed by its fields (a static function and leaves)."""

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


def cache_named(name: str) -> bool:
    """True when a decorator's own (last) name says it caches (``compile_cache``, ``memoize``, ``cached``): a
    project's own caching decorator, read by its name as ``functools.cache`` is read by its qualified name."""
    lowered = name.lower()
    return "cache" in lowered or "memo" in lowered


def class_named(name: str) -> bool:
    """True when ``name`` is spelled as a class's, by the convention that class names are capitalised (``Model``,
    ``PSO``'s ``optim.PSO``; not a constant's name in capitals, ``MAX_STEPS``): calling it builds an object."""
    return name[:1].isupper() and not name.isupper()


CONSTRUCTOR_METHODS: Final = frozenset({"__init__", "__post_init__", "setup"})
"""Methods that run once per object: ``self.f = jax.jit(self.g)`` there is the recommended pattern."""

PARAMETERIZED_ROWS: Final[Mapping[str, str]] = {
    "absl.testing.parameterized.parameters": "rows",
    "absl.testing.parameterized.named_parameters": "named rows",
    "pytest.mark.parametrize": "argnames",
}
"""Test decorators that call the function once per row of literal arguments (absl's, pytest's): each
row names the values a parameter takes, as a call site would."""

COPIES: Final = frozenset({"copy.copy", "copy.deepcopy", "dataclasses.replace"})
"""Calls that return an object of their first argument's class (a copy, a dataclass with fields replaced)."""

FUNCTION_FIELDS: Final = frozenset({"apply", "init", "update", "allocate", "initialize"})
"""Attribute names JAX libraries give the function-valued fields of their records (haiku's ``Transformed.init``
and ``.apply``, optax's ``GradientTransformation.init`` and ``.update``, jax-md's ``NeighborListFns.allocate`` and
``.update``): read from an object the pass cannot type, such an attribute may be one function, found again."""


def function_field(name: str) -> bool:
    """True when an attribute called ``name`` may well hold a plain function rather than name a method: one of
    :data:`FUNCTION_FIELDS`, or spelled as a function held in a field (``apply_fn``, ``loss_func``, ``score_fn``)."""
    return name in FUNCTION_FIELDS or name.endswith(("fn", "_func", "_function"))


def step_like(name: str) -> bool:
    """True when a function called ``name`` is a step by the convention of JAX training and environment APIs
    (``step``, ``train_step``, ``training_step``, ``update_step``): its caller runs it once per step of a run."""
    return name == "step" or (name.endswith("_step") and not name.startswith("_"))


ONCE_FUNCTIONS: Final = frozenset({"main", "setUp", "setUpClass", "setUpModule"})
"""Functions a program or test runner calls once (with every ``test*`` function)."""

NOT_LIBRARY: Final = frozenset({
    "test", "tests", "testing", "example", "examples", "doc", "docs", "benchmark", "benchmarks", "script", "scripts",
    "application", "applications", "demo", "demos", "notebook", "notebooks", "tutorial", "tutorials", "experiments",
})
"""Folders whose modules are no library's API: what runs there is run by its own script, test or notebook."""

_HANDLER_WORDS: Final = ("handler", "callback", "listener")
_HANDLER_REGISTRATIONS: Final = frozenset({"mpl_connect", "connect", "bind", "subscribe", "observe", "interact",
                                           "FuncAnimation"})


def registers_handler(name: str) -> bool:
    """True when a call of the function or method named ``name`` registers the callables handed to it as event
    handlers, which an event loop runs once per event (``canvas.mpl_connect("key_press_event", f)``,
    ``window.reg_key_handler(f)``, ``FuncAnimation(fig, update)``, ``slider.observe(f)``): not ``atexit.register``."""
    lowered = name.lower()
    return name in _HANDLER_REGISTRATIONS or any(word in lowered for word in _HANDLER_WORDS)

BASE_TRIGGERS: Final = frozenset(
    {name.rsplit(".", 1)[-1] for name in (*JIT_WRAPPERS, *NODE_CONSTRUCTORS, *GRAPH_CONSTRUCTORS, *METHOD_WRAPPERS)}
)
PARTIAL_TRIGGERS: Final = frozenset({"partial", "Partial"})
TRANSFORMATION_TRIGGERS: Final = frozenset(
    {name.rsplit(".", 1)[-1] for name in (*TRANSFORMATIONS, *WRAPS, *UPDATE_WRAPPER)}
)
"""The last names of the transformations (what the ``ast`` prefilter can see)."""
OWN_CACHE_TRIGGERS: Final = frozenset(name.rsplit(".", 1)[-1] for name in STATEFUL_FUNCTIONS)


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
    "cache_named",
    "class_named",
    "DATACLASS_DECORATORS",
    "EQUINOX_MODULES",
    "EQUINOX_PARTIALS",
    "FUNCTION_FIELDS",
    "FUNCTOOLS_PARTIALS",
    "GRAPH_CONSTRUCTORS",
    "JIT_WRAPPERS",
    "METHOD_WRAPPERS",
    "Keys",
    "function_field",
    "step_like",
    "NODE_CONSTRUCTORS",
    "NOT_LIBRARY",
    "ONCE_FUNCTIONS",
    "ORDERED_MAPS",
    "PARAMETERIZED_ROWS",
    "OWN_CACHE_TRIGGERS",
    "PARTIAL_TRIGGERS",
    "STATEFUL_FUNCTIONS",
    "NO_COMPILE_CALLS",
    "TRACING_CALLS",
    "TRACING_LIBRARIES",
    "TRANSFORMATIONS",
    "TRANSFORMATION_TRIGGERS",
    "TREE_PARTIALS",
    "Transformation",
    "UPDATE_WRAPPER",
    "VALUE_PARTIALS",
    "WRAPS",
    "Wrapper",
    "last_names",
]
