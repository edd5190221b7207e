"""The one catalogue of jitcheck's rule codes, messages and fixes.

Every layer of jitcheck (the static pass, the mypy plugin, the runtime checks and
the debug layer) reports a finding as one of these rules, so a user sees the same
code, the same explanation and the same fix wherever the problem is caught.

This module imports nothing but the standard library: the mypy plugin and the
linter load it without paying for jax.
"""

from __future__ import annotations

import dataclasses
import string
from collections.abc import Iterator, Mapping
from enum import Enum
from typing import Final


class Layer(str, Enum):
    """Where a rule is detected."""

    STATIC = "static"
    MYPY = "mypy"
    RUNTIME = "runtime"


STATIC: Final = Layer.STATIC
MYPY: Final = Layer.MYPY
RUNTIME: Final = Layer.RUNTIME


@dataclasses.dataclass(frozen=True)
class Rule:
    """One rule: its code, what it detects, why that is bad, and how to fix it.

    ``message`` and ``help`` are ``str.format`` templates; their fields are filled
    by the layer that reports the finding (see :meth:`Rule.format`). Missing
    fields are left readable rather than raising, so a message never fails to
    render.
    """

    code: str
    name: str
    title: str
    message: str
    help: str
    why: str
    example: str
    fixed: str
    layers: frozenset[Layer]
    autofix: str | None = None
    """``"safe"``, ``"unsafe"`` or ``None``: what the static pass's codemod offers."""
    jitted_help: str | None = None
    """The help when the finding is the function handed to a ``jax.jit`` rebuilt where it
    is called: there ``jax.jit`` keys on the function object, so advice that makes the
    callable compare by value (``ValuePartial``) does not help, and this line says what does."""
    default: bool = True
    """False for a lower-confidence rule the user opts into (``extend-select``)."""

    def format(self, **fields: object) -> str:
        """The message with ``fields`` filled in."""
        return _fill(self.message, fields)

    def format_help(self, **fields: object) -> str:
        """The help line with ``fields`` filled in."""
        return _fill(self.help, fields)

    def format_jitted_help(self, **fields: object) -> str:
        """The help line for the function of a rebuilt ``jax.jit`` (the plain help when there is none)."""
        return _fill(self.jitted_help or self.help, fields)

    @property
    def mypy_code(self) -> str:
        """The mypy error code this rule is reported under (``jitcheck-...``)."""
        return MYPY_CODES.get(self.code, "jitcheck")


class _Lenient(dict[str, object]):
    """A format mapping that renders a missing field as ``{field}``."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _fill(template: str, fields: Mapping[str, object]) -> str:
    return string.Formatter().vformat(template, (), _Lenient(fields))


def _rule(
    code: str,
    name: str,
    title: str,
    *,
    message: str,
    help: str,
    why: str,
    example: str,
    fixed: str,
    layers: tuple[Layer, ...],
    autofix: str | None = None,
    jitted_help: str | None = None,
    default: bool = True,
) -> Rule:
    return Rule(
        code=code,
        name=name,
        title=title,
        message=message,
        help=help,
        why=why.strip(),
        example=example.strip("\n"),
        fixed=fixed.strip("\n"),
        layers=frozenset(layers),
        autofix=autofix,
        jitted_help=jitted_help,
        default=default,
    )


UNREADABLE_FILE = _rule(
    "JC000",
    "unreadable-file",
    "A file that could not be checked",
    message="could not check {what}: {reason}",
    help="{fix}",
    why="""
A file that does not parse (reported where Python reports the error), is not
UTF-8, is too large, holds an expression deeper than `max-expression-depth`,
takes longer than `file-timeout`, crashes the worker process checking it, or is a
broken link cannot be checked; nor can a missing path or an unreadable folder.
jitcheck reports each once and goes on with the other files rather than stopping
the whole run. In a notebook, a code cell that does not parse is reported at its
error ("could not check this cell") and left out; the other cells are checked.
""",
    example="""
def broken(:   # a syntax error
    ...
""",
    fixed="""
def fixed():
    ...
""",
    layers=(STATIC,),
)

BOUND_METHOD = _rule(
    "JC101",
    "bound-method",
    "A bound method used as a cache key",
    message="bound method `{subject}` used as {position}: it compares its receiver by identity, so every rebuild is a new jit cache key",
    help="pass a module-level function (or a staticmethod) and hand the receiver's data in as arguments or settings; or build the jitted wrapper once, in `__init__`",
    why="""
A bound method is equal to another only when both receivers are the *same object*
(`a.f == b.f` is `a is b and ...`). `jax.jit` keys its cache on the function and
hashes static arguments, so `jax.jit(self.step)` built per call, or a graph whose
node body is `self.step`, is a new cache key for every new receiver: jax traces
and compiles again, silently, every time.
""",
    example="""
class Trainer:
    def step(self, x):
        return x * 2

    def run(self, x):
        return jax.jit(self.step)(x)   # a new wrapper, a new trace, every call
""",
    fixed="""
def step(x):
    return x * 2

class Trainer:
    def run(self, x):
        return jax.jit(step)(x)        # one module-level function: one cache entry
""",
    layers=(STATIC, MYPY, RUNTIME),
)

FUNCTOOLS_PARTIAL = _rule(
    "JC102",
    "functools-partial",
    "functools.partial used as a cache key",
    message="`functools.partial` `{subject}` used as {position}: partial objects compare by identity, so every rebuild is a new jit cache key",
    help="use `jitcheck.ValuePartial({args})`, which compares and hashes by its function and arguments",
    jitted_help="build the jitted wrapper of the function once (`jax.jit({function})` at module level or in `__init__`) and pass the bound values ({bound}) as arguments on each call, listed in `static_argnames` if they must be static; a `ValuePartial` here would still recompile, since `jax.jit` keys on the function object",
    why="""
`functools.partial` defines no `__eq__` or `__hash__` of its own: two partials of
the same function and arguments are different keys. As a jitted callable, a node
body or a static argument, a partial rebuilt per call makes jax retrace and
recompile every time (jax issues 9672, 15338). As a node body or a static argument,
`jitcheck.ValuePartial` is the fix (it compares and hashes by value); as the function
handed to a `jax.jit` rebuilt per call it is not (jax keys on the function object:
five rebuilds, five compiles, either way), so there the fix is one jitted wrapper of
the plain function, built once, with the bound values passed as arguments.
""",
    example="""
from functools import partial

def scale(x, factor):
    return x * factor

node = NodeDefinition(partial(scale, factor=2.0), inputs=("x",), outputs=("y",))
""",
    fixed="""
from jitcheck import ValuePartial

node = NodeDefinition(ValuePartial(scale, factor=2.0), inputs=("x",), outputs=("y",))
""",
    layers=(STATIC, MYPY, RUNTIME),
    autofix="safe",
)

TREE_UTIL_PARTIAL = _rule(
    "JC103",
    "tree-util-partial",
    "jax.tree_util.Partial used as a cache key",
    message="`jax.tree_util.Partial` `{subject}` used as {position}: it is a functools.partial, compared by identity, so every rebuild is a new jit cache key",
    help="use `jitcheck.ValuePartial({args})` for static, hashable arguments; pass array arguments as traced inputs instead",
    jitted_help="build the jitted wrapper of the function once (`jax.jit({function})` at module level or in `__init__`) and pass the bound values ({bound}) as arguments on each call, listed in `static_argnames` if they must be static; a `ValuePartial` here would still recompile, since `jax.jit` keys on the function object",
    why="""
`jax.tree_util.Partial` subclasses `functools.partial` to be a pytree, but it
inherits identity comparison: as a static argument, node body or jitted callable it
is a new cache key each time it is built. Its array arguments are also opaque to a
graph that wants to name every value it uses.
""",
    example="""
from jax.tree_util import Partial

step = jax.jit(run, static_argnums=0)
step(Partial(scale, 2.0), x)       # a new Partial every call: a retrace every call
""",
    fixed="""
from jitcheck import ValuePartial

step(ValuePartial(scale, 2.0), x)  # equal and equal-hashing when rebuilt
""",
    layers=(STATIC, MYPY, RUNTIME),
    autofix="safe",
)

LAMBDA = _rule(
    "JC104",
    "lambda",
    "A lambda used as a cache key",
    message="lambda used as {position}: a lambda is a new object each time it is evaluated, so every rebuild is a new jit cache key",
    help="define it once with `def` at module level, or once where what it reads is fixed (before the loop), and pass that function",
    why="""
Each evaluation of a `lambda` creates a new function object, compared by identity.
`jax.jit(lambda x: ...)(x)` in a loop or a function body, or a lambda as a node
body, is a new cache key each time: jax retraces and recompiles on every call.
""",
    example="""
for batch in batches:
    y = jax.jit(lambda x: x * 2)(batch)   # traced and compiled every iteration
""",
    fixed="""
def double(x):
    return x * 2

for batch in batches:
    y = jax.jit(double)(batch)            # one cache entry
""",
    layers=(STATIC, MYPY, RUNTIME),
    autofix="safe",
)

NESTED_FUNCTION = _rule(
    "JC105",
    "nested-function",
    "A nested function or closure used as a cache key",
    message="nested function `{subject}` used as {position}: a `def` inside a function is a new object on every call of its parent, so every call is a new jit cache key",
    help="move `{subject}` to module level and pass what it captures as arguments or settings",
    why="""
A function defined inside another function (a closure) is created anew each time
the outer function runs, and functions compare by identity. Jitting it, or using it
as a node body or static argument, gives jax a new cache key on every call.
""",
    example="""
def train_step(params, x, lr):
    def update(p, g):
        return p - lr * g
    return jax.jit(update)(params, grad(x))
""",
    fixed="""
def update(p, g, lr):
    return p - lr * g

def train_step(params, x, lr):
    return jax.jit(update)(params, grad(x), lr)
""",
    layers=(STATIC, MYPY, RUNTIME),
)

IDENTITY_CALLABLE = _rule(
    "JC106",
    "identity-compared-callable",
    "A callable object compared by identity",
    message="`{subject}` used as {position} is an instance of `{type}`, which compares by identity and cannot be found again by name, so a rebuild is a new jit cache key",
    help="make `{type}` a frozen dataclass (or subclass `jitcheck.Frozen`) so that equal instances are equal keys",
    why="""
An object whose class defines no `__eq__` is equal only to itself. Unless it is a
module-level singleton, building it again (a new model object, a new callable
instance) gives jax a new key, and it retraces.
""",
    example="""
class Scale:
    def __init__(self, factor):
        self.factor = factor
    def __call__(self, x):
        return x * self.factor

node = NodeDefinition(Scale(2.0), inputs=("x",), outputs=("y",))
""",
    fixed="""
@dataclasses.dataclass(frozen=True)
class Scale:
    factor: float
    def __call__(self, x):
        return x * self.factor
""",
    layers=(RUNTIME,),
)

UNRESOLVED_METHOD = _rule(
    "JC107",
    "unresolved-method-in-loop",
    "An attribute of an object of unknown type jitted in a loop",
    message="`{subject}` used as {position}: the pass cannot tell what `{receiver}` is, and if `{subject}` is a method {each} jits a new bound method, a new jit cache key",
    help="build the jitted wrapper once, {hoist} (`{name} = jax.jit({subject})`), and call `{name}` {use}: right whatever `{subject}` turns out to be",
    why="""
`jax.jit(m.predict)` written inside a loop jits a new bound method on every iteration
when `predict` is a method (a bound method is a new object each time it is read, and
`jax.jit` keys on the function object): every iteration traces and compiles again. The
pass reports a bound method it can prove under JC101; this rule covers a receiver
whose type it cannot resolve (a parameter without annotation, an object from a
library it cannot read). Re-wrapped on every pass, a method traces again even when the
receiver is the same object, and an attribute jitted on an object is a method far more
often than a function held in a field, so the rule reports it by default; only the
names records give their function fields (`opt.update`, `net.apply`, `state.apply_fn`,
`init`, `allocate`, a name ending in `fn`) stay a guess, shown with `--preview`.
The same holds outside a loop when the function that jits it is shown to run again (a
public `step`, called once per step of a training or environment loop): the wrapper is
then built once where the object is made (`__init__`). Hoisting the wrapper is right in
every case. Ignore it with
`ignore = ["JC107"]` in `[tool.jitcheck]`.
""",
    example="""
def evaluate(m, batches):
    for batch in batches:
        yield jax.jit(m.predict)(batch)   # a new bound method, a new compile, per batch
""",
    fixed="""
def evaluate(m, batches):
    predict = jax.jit(m.predict)          # built once: one cache entry
    for batch in batches:
        yield predict(batch)
""",
    layers=(STATIC,),
)

ARRAY_STATIC = _rule(
    "JC201",
    "array-static",
    "An array used as a static value",
    message="array {subject} used as {position}: arrays are unhashable, and a static value must be hashed for the cache key",
    help="pass the array as a traced (dynamic) input; if it is truly a constant, use a tuple of Python scalars",
    why="""
`jax.jit` hashes static arguments to find the compiled program. numpy and jax
arrays are not hashable (and compare elementwise), so an array as a static argument
or node setting fails, or, hidden in an object hashed by identity, silently makes
a new key each time. An array is data: it belongs among the traced inputs. A
parameter of a jitted function handed on as another jitted function's static argument
is one too: a tracer while the outer body is traced, which jax refuses to hash
("Non-hashable static arguments are not supported").
""",
    example="""
f = jax.jit(apply, static_argnums=1)
f(x, jnp.array([1, 2, 3]))
""",
    fixed="""
f = jax.jit(apply)
f(x, jnp.array([1, 2, 3]))          # traced, or: static_argnums=1 with (1, 2, 3)
""",
    layers=(STATIC, MYPY, RUNTIME),
)

MUTABLE_CONTAINER_STATIC = _rule(
    "JC202",
    "mutable-container-static",
    "A list, dict or set used as a static value",
    message="{kind} {subject} used as {position}: lists, dicts and sets are unhashable, so they cannot be part of a jit cache key",
    help="use an immutable equivalent: a tuple instead of a list, `jitcheck.OrderedMap` or a tuple of pairs instead of a dict, a frozenset instead of a set",
    why="""
Static arguments and node settings are hashed into the cache key. A list, dict or
set raises `TypeError: unhashable type` at the first call, or is refused by
jitcheck's graph checks; its immutable counterpart hashes by value.
""",
    example="""
step = jax.jit(model, static_argnames="layers")
step(x, layers=[64, 64, 10])
""",
    fixed="""
step(x, layers=(64, 64, 10))
""",
    layers=(STATIC, MYPY, RUNTIME),
    autofix="unsafe",
)

MUTABLE_DATACLASS = _rule(
    "JC203",
    "mutable-dataclass",
    "A non-frozen dataclass used as a cache key",
    message="`{subject}` is an instance of the non-frozen dataclass `{type}` used as {position}: `@dataclass` with `eq=True, frozen=False` sets `__hash__` to None, so it cannot be part of a jit cache key",
    help="declare `{type}` with `@dataclass(frozen=True)` (or subclass `jitcheck.Frozen`)",
    why="""
A dataclass with `eq=True` (the default) and `frozen=False` gets `__hash__ = None`:
its instances are unhashable at runtime. Type checkers still accept it where a
`Hashable` is expected (mypy issue 11463), so the error appears only at the first
jitted call.
""",
    example="""
@dataclasses.dataclass
class Config:
    width: int

step(x, Config(64))      # TypeError at runtime: unhashable type 'Config'
""",
    fixed="""
@dataclasses.dataclass(frozen=True)
class Config:
    width: int
""",
    layers=(STATIC, MYPY, RUNTIME),
    autofix="unsafe",
)

EQ_WITHOUT_HASH = _rule(
    "JC204",
    "eq-without-hash",
    "A class defining __eq__ without __hash__ used as a cache key",
    message="`{subject}` is an instance of `{type}`, which defines `__eq__` but not `__hash__`, used as {position}: Python sets its `__hash__` to None, so it cannot be part of a jit cache key",
    help="define `__hash__` on `{type}` consistently with its `__eq__` (or make it a frozen dataclass)",
    why="""
Defining `__eq__` in a class body without `__hash__` makes Python set `__hash__`
to None: instances become unhashable, which type checkers do not see.
""",
    example="""
class Shape:
    def __init__(self, dims):
        self.dims = dims
    def __eq__(self, other):
        return self.dims == other.dims
""",
    fixed="""
class Shape:
    ...
    def __hash__(self):
        return hash(self.dims)
""",
    layers=(STATIC, MYPY, RUNTIME),
)

UNHASHABLE_VALUE = _rule(
    "JC205",
    "unhashable-value",
    "An unhashable value in a cache key",
    message="{subject} of type `{type}` used as {position} does not hash: {reason}",
    help="replace it with a hashable, value-compared equivalent (a tuple, a frozen dataclass, `jitcheck.OrderedMap`)",
    why="""
Everything in a jit cache key is hashed. A value that does not hash fails at the
first jitted call; jitcheck names the leaf that fails before that.
""",
    example="""
NodeDefinition(body, inputs=("x",), outputs=("y",), settings={"sizes": bytearray(b"ab")})
""",
    fixed="""
NodeDefinition(body, inputs=("x",), outputs=("y",), settings={"sizes": b"ab"})
""",
    layers=(RUNTIME,),
)

IDENTITY_VALUE = _rule(
    "JC206",
    "identity-compared-value",
    "A value compared by identity in a cache key",
    message="{subject} used as {position} is an instance of `{type}`, which compares by identity, so an equal value built again is a different jit cache key",
    help="make `{type}` a frozen dataclass (or subclass `jitcheck.Frozen`) so that equal values are equal keys; an array it holds is data: hand it in as a graph input (a place) or a traced argument",
    why="""
A plain object hashes by its address. It hashes, so nothing fails, but a copy built
the same way is a different key: the graph, or the static argument, misses the
cache every time it is rebuilt.
""",
    example="""
class Options:
    def __init__(self, depth):
        self.depth = depth

NodeDefinition(body, inputs=("x",), outputs=("y",), settings={"options": Options(3)})
""",
    fixed="""
@dataclasses.dataclass(frozen=True)
class Options:
    depth: int
""",
    layers=(STATIC, RUNTIME),
)
CHANGING_STATIC = _rule(
    "JC207",
    "changing-static-value",
    "A static argument that takes a new value on every call",
    message="{position} is given `{subject}` at line {line}: it reads {source}, which {changes}; each new value is a new "
            "jit cache key, and `{callee}` uses `{param}` only as a number, so each is the same computation compiled again",
    help="make `{param}` a traced argument of `{callee}` (leave it out of `static_argnums`/`static_argnames`): "
         "it is used only in arithmetic, which works on a traced value",
    why="""
A static argument is part of the cache key: every value it takes compiles the
function again. A step counter, a loop index or an offset computed from one takes
a new value on (almost) every call, so the same program is compiled again and
again. When the function only does arithmetic with it, a traced argument gives the
same result with one compile.
""",
    example="""
@functools.partial(jax.jit, static_argnames="step")
def update(params, step):
    return params * 0.99 ** step

for step in range(1000):
    params = update(params, step)      # 1000 compiles
""",
    fixed="""
@jax.jit
def update(params, step):
    return params * 0.99 ** step       # one compile: step is traced
""",
    layers=(STATIC,),
)

IDENTITY_AUX = _rule(
    "JC208",
    "identity-aux-data",
    "A pytree whose aux data is new for every object, passed to a jitted function object after object",
    message="`{callee}` is given another `{type}` on each pass of {loop} (`{name}`): `{type}` keeps `{attribute}` "
            "in its pytree aux data, a new `{held}` for each object, compared by identity, so every object is a new "
            "jit cache key and `{callee}` compiles again for each",
    help="keep only settings compared by value in `{type}`'s aux data: return `{attribute}` among the children of "
         "its flatten function (register `{held}` as a pytree if it is not one), and any number that differs from "
         "object to object too, where jax traces them",
    why="""
jax hashes a pytree's aux data into the jit cache key and compares it with `==`.
A plain object made anew for each instance (a record, a cache) is equal only to
itself, so every instance is another key, even one built alike: a jitted function
called on one object after another traces and compiles once per object. Numbers
kept there are baked in as constants, so objects that differ only in them compile
again too. Returned among the children, the same values are traced: one compile
serves every object of that structure.
""",
    example="""
class Cell:
    def __init__(self, lo: float, hi: float):
        self.lo, self.hi, self.cache = lo, hi, Cache()

jax.tree_util.register_pytree_node(
    Cell, lambda c: ((), (c.lo, c.hi, c.cache)), ...)

@jax.jit
def width(cell: Cell):
    return cell.hi - cell.lo

widths = [width(cell) for cell in cells]      # one compile per cell
""",
    fixed="""
jax.tree_util.register_pytree_node(
    Cache, lambda c: ((c.values,), None), ...)

def _flatten(cell):
    return (cell.lo, cell.hi, cell.cache), None   # traced: one compile

jax.tree_util.register_pytree_node(Cell, _flatten, ...)
""",
    layers=(STATIC,),
)

LABEL_BOUND = _rule(
    "JC301",
    "label-not-cache-key",
    "A Label type that cannot be a jit cache key",
    message="`{type}` is not a valid Label of `{graph}`: {reason}",
    help="name nodes with str, int, enums, tuples of them or frozen dataclasses",
    why="""
Labels name the nodes of a graph, and the graph is a jit cache key: labels must
hash and compare by value. mypy's `Hashable` bound accepts non-frozen dataclasses,
classes defining `__eq__` alone and arrays, which all fail (or silently miss the
cache) at runtime.
""",
    example="""
@dataclasses.dataclass
class Name:
    text: str

graph: JitGraph[Name, str]
""",
    fixed="""
@dataclasses.dataclass(frozen=True)
class Name:
    text: str
""",
    layers=(MYPY, RUNTIME),
)

PLACE_BOUND = _rule(
    "JC302",
    "place-not-cache-key",
    "A Place type that cannot be a jit cache key",
    message="`{type}` is not a valid Place of `{graph}`: {reason}",
    help="name places with str, int, enums, tuples of them or frozen dataclasses",
    why="""
Places name the values flowing between nodes and are part of the graph's cache
key: they must hash and compare by value, like labels.
""",
    example="""
graph: JitGraph[str, list[int]]
""",
    fixed="""
graph: JitGraph[str, tuple[int, ...]]
""",
    layers=(MYPY, RUNTIME),
)

PRODUCED_TWICE = _rule(
    "JC401",
    "place-produced-twice",
    "A place produced by more than one node",
    message="place {place!r} is produced by {producers}: each place must have one producer",
    help="rename one of the outputs, so each place names one value",
    why="""
A place names one value. Two producers make the graph's result depend on the
order nodes happen to run in.
""",
    example="""
NestingGraph({"a": NodeDefinition(f, (), ("y",)), "b": NodeDefinition(g, (), ("y",))})
""",
    fixed="""
NestingGraph({"a": NodeDefinition(f, (), ("y_a",)), "b": NodeDefinition(g, (), ("y_b",))})
""",
    layers=(RUNTIME,),
)

CYCLE = _rule(
    "JC402",
    "cycle",
    "Nodes that depend on each other in a cycle",
    message="nodes form a cycle: {cycle}",
    help="break the cycle: one of these nodes must read a place that is an input of the graph, not an output of the cycle",
    why="""
A graph runs its nodes in dependency order; a cycle has no such order.
""",
    example="""
NestingGraph({"a": NodeDefinition(f, ("y",), ("x",)), "b": NodeDefinition(g, ("x",), ("y",))})
""",
    fixed="""
NestingGraph({"a": NodeDefinition(f, ("y0",), ("x",)), "b": NodeDefinition(g, ("x",), ("y",))})
""",
    layers=(RUNTIME,),
)

MISSING_OUTPUT = _rule(
    "JC403",
    "missing-output",
    "A declared output that no node produces",
    message="output {place!r} is declared but no node produces it",
    help="produce {place!r} in a node, or remove it from the graph's outputs",
    why="""
A graph's declared outputs are what callers read; one that nothing computes would
only fail later, at the first call.
""",
    example="""
NestingGraph({"a": NodeDefinition(f, ("x",), ("y",))}, outputs=("z",))
""",
    fixed="""
NestingGraph({"a": NodeDefinition(f, ("x",), ("y",))}, outputs=("y",))
""",
    layers=(RUNTIME,),
)

VALUES_UNLIKE_INPUTS = _rule(
    "JC404",
    "values-unlike-inputs",
    "Values that do not match a graph's free inputs",
    message="{problem}",
    help="hand in exactly one value per free input place of the graph: {inputs}",
    why="""
A graph computes every place from its free inputs, the places no node produces.
A missing value would fail in the middle of a run; a value for a place the graph
computes itself, or never reads, is a typo waiting to be debugged.
""",
    example="""
GraphWithValues(graph, {"x": x, "wieghts": w})     # graph reads "x" and "weights"
""",
    fixed="""
GraphWithValues(graph, {"x": x, "weights": w})
""",
    layers=(RUNTIME,),
)

RETURNED_UNLIKE = _rule(
    "JC501",
    "returned-unlike",
    "A node body that returned other outputs than declared",
    message="node {name} returned {got}, but declares {expected}",
    help="return exactly one value per declared output place (a tuple when there are several), or change the node's outputs",
    why="""
A node declares the places it computes. A body that returns another number of
values, or another structure, would silently shift values onto the wrong places.
""",
    example="""
NodeDefinition(lambda x: (x, x + 1), inputs=("x",), outputs=("y",))
""",
    fixed="""
NodeDefinition(two_values, inputs=("x",), outputs=("y", "z"))
""",
    layers=(RUNTIME,),
)

TRACE_FAILED = _rule(
    "JC502",
    "trace-failed",
    "A node body that fails at the shapes it is given",
    message="node {name} failed to trace at input shapes {shapes}: {error}",
    help="fix the body or the shapes handed in; the original exception is chained below",
    why="""
Tracing every graph once with `jax.make_jaxpr`, at import, finds shape and dtype
bugs in a body before any compute runs, with the node named.
""",
    example="""
def matmul(x, w):
    return x @ w          # (3, 4) @ (3, 4) fails

Traced(GraphWithValues(graph, {"x": jnp.ones((3, 4)), "w": jnp.ones((3, 4))}))
""",
    fixed="""
Traced(GraphWithValues(graph, {"x": jnp.ones((3, 4)), "w": jnp.ones((4, 2))}))
""",
    layers=(RUNTIME,),
)

RETRACE = _rule(
    "JC503",
    "retrace",
    "A function traced again for a new cache key",
    message="`{subject}` traced {count} times (limit {limit}): {changes}",
    help="{fix}",
    why="""
Every new cache key costs a trace and a compile. A function traced more often than
expected is almost always fed a rebuilt identity-compared callable, a changing
static value, or arrays of changing shape or dtype.
""",
    example="""
for step in range(100):
    train(jax.tree_util.Partial(loss, weight), batch)   # a new static key each step
""",
    fixed="""
loss_fn = ValuePartial(loss, weight)
for step in range(100):
    train(loss_fn, batch)
""",
    layers=(RUNTIME,),
)

STATE_AS_ARGUMENT = _rule(
    "JC601",
    "state-as-argument",
    "A State passed as a traced argument or returned",
    message="a State was {where}: states are collected by the trace, not passed through it",
    help="read and write the State inside the function and pass its value, not the State; a State may be a static argument",
    why="""
A StatefulFunction finds the states a function reads and writes while tracing it,
and threads their values through the jaxpr. A State passed as a traced argument
or returned would be a mutable object inside a pytree of arrays.
""",
    example="""
StatefulFunction(step)(weights_state, x)
""",
    fixed="""
StatefulFunction(step, static_argnums=0)(weights_state, x)   # or read it inside
""",
    layers=(RUNTIME,),
)

STATE_SHAPE_CHANGED = _rule(
    "JC602",
    "state-shape-changed",
    "A State written with another shape or dtype",
    message="State {state} holds {expected} and cannot be set to {got}",
    help="write a value of the same shape and dtype, or call `State.reset(value)` outside a trace to change it on purpose",
    why="""
A traced function's jaxpr fixes every state's shape and dtype; a write of another
shape would make the cached program wrong. Shape changes are explicit.
""",
    example="""
state.value = jnp.zeros((4,))        # the state held a (3,) array
""",
    fixed="""
state.reset(jnp.zeros((4,)))         # outside any trace: the next call re-traces
""",
    layers=(RUNTIME,),
)

STATE_FROM_TRACE = _rule(
    "JC603",
    "state-created-in-trace",
    "A State created inside a traced function",
    message="State {state} was created inside the trace of {function}: a trace runs once per cache key, not once per call, "
    "so later calls would not create it again, and a value computed in the trace cannot leave it",
    help="create the State outside the traced function (at module level, or where the model is built) and read or write "
    "it inside; or return the value from the function and carry it out as a new State after the call: "
    "`y = sf(x); cache = State(y)`",
    why="""
A traced function runs once per cache key; the compiled program runs at every call.
A State created while the function is traced (lazy initialisation) is created once,
its value computed by tracers that die with the trace: later calls neither create it
again nor update it, so the program returns what the first call computed, and the
State itself holds a dead tracer.
""",
    example="""
def step(x):
    if "cache" not in holder:
        holder["cache"] = State(jnp.zeros(3))
    ...
""",
    fixed="""
cache = State(jnp.zeros(3))

def step(x):
    ...
""",
    layers=(RUNTIME,),
)

# Stateful layer (jitcheck.stateful): a tracer that no StatefulFunction trace collects.
TRACER_IN_STATE = _rule(
    "JC604",
    "tracer-in-state",
    "A State written where no StatefulFunction trace collects the write",
    message="State {state} is written under {transformation}: {where}",
    help="{fix}",
    why="""
A StatefulFunction collects the values its function writes to states and hands
them back as concrete arrays after the call. Under any other transformation
(`jax.grad`, `jax.vmap` of a function that is not a StatefulFunction; under
`jax.jit`, `scan` or `cond` a StatefulFunction using States is refused first, JC605)
nothing collects them: the State would keep a tracer that is dead as soon as the
transformation returns, and the next read fails far from the cause (or, worse,
the tracer leaks into a cache). Inside a StatefulFunction, a State written in a
`lax.cond` branch, a `lax.scan` or `lax.while_loop` body (or a nested `jax.jit`) is
refused whatever the value: jax traces the body once, runs it zero times or many,
and the write would be made once, at trace time, even for a branch never taken.
""",
    example="""
counter = State(jnp.zeros(()))

def step(x):
    counter.value = counter.value + 1
    return x * 2

jax.vmap(StatefulFunction(step))(xs)   # the write happens under a plain jax.vmap
""",
    fixed="""
sf = StatefulFunction(step)
sf(x)                                  # a StatefulFunction compiles it already
# or, inside jax transformations, thread the values explicitly:
new_values, y = sf.jaxpr_call([counter.value], x)
""",
    layers=(RUNTIME,),
)


# Stateful layer: a State whose current value a staged program would keep as a constant.
STATE_UNDER_STAGING = _rule(
    "JC605",
    "state-under-staging",
    "A State used under a plain jax.jit, scan or cond",
    message="State {state} is {use} under {transformation}: {effect}",
    help="{fix}",
    why="""
`jax.jit`, `jax.pmap`, `lax.scan`, `lax.cond`, `lax.while_loop`, `jax.checkpoint`
and `jax.make_jaxpr` stage their function out into a program that jax caches by
the function and its arguments' shapes. A State read while such a program is
traced is not one of its arguments: its current value is baked into the program
as a constant, and the next call reuses the cached program with the old value, a
silent wrong result; a State written there is written once, while jax traces, and
never when the program runs again. A State read or written, and a StatefulFunction
using States called, under a staging transformation that does not collect the
States is therefore refused (eager `jax.grad` and `jax.vmap` read the States afresh
at every call, and are allowed).
""",
    example="""
w = State(jnp.ones(3))
sf = StatefulFunction(lambda x: w.value * x)
outer = jax.jit(lambda x: sf(x) + 1)
outer(x)
w.value = 10 * jnp.ones(3)
outer(x)                               # would still use the old w
""",
    fixed="""
outer = StatefulFunction(lambda x: sf(x) + 1)   # compiled too; w is an input at every call
outer(x)
# or pass the values through the jitted function explicitly:
@jax.jit
def outer(state_values, x):
    new_values, y = sf.jaxpr_call(state_values, x)
    return y + 1

outer([s.value for s in sf.get_states()], x)
""",
    layers=(RUNTIME,),
)


# Stateful layer: a State where a cache key stands for it but nothing records its reads.
STATE_AS_SETTING = _rule(
    "JC606",
    "state-as-setting",
    "A State used as a node setting or a static argument of a plain jax.jit",
    message="{subject} used as {position} is a State: the cache key stands for the State object, not its value, "
    "so the compiled program keeps the value the State had when it was traced",
    help="hand the State's value in as data (a graph input place, or a traced argument: `values={{'w': w.value}}`), "
    "or run the code in a jitcheck.StatefulFunction, which records every State it reads (a State may be a static "
    "argument there)",
    why="""
A State is mutable and compares by identity, so a cache key holding it is equal
after its value changes. A node body or jitted function that reads it outside a
StatefulFunction trace reads it once, while jax traces, and the compiled program
keeps that value: after `w.value = ...` the same graph, rebuilt, hits the cache and
returns the old result.
""",
    example="""
w = State(jnp.ones(2))
NodeDefinition(scale, ("x",), ("y",), settings={"s": w})
""",
    fixed="""
NodeDefinition(scale, ("x", "s"), ("y",))      # the value is an input place
graph.jit_call({"x": x, "s": w.value})
""",
    layers=(RUNTIME,),
)


# Debug layer (jitcheck.debug): findings made while a package is imported in debug mode.

ANNOTATION_VIOLATION = _rule(
    "JC504",
    "annotation-violation",
    "A value that breaks its type hint, caught by beartype at import",
    message="beartype refused a value while the module ran: {error}",
    help="{fix}",
    why="""
In debug mode beartype checks every annotated function, class and module-level
assignment of the hooked packages as they run, TypeVar bounds included. A graph
label or place annotated with a `Label`- or `Place`-bounded TypeVar that is not
hashable (a non-frozen dataclass, which mypy accepts) is refused where it is first
passed, at import, instead of deep inside a jitted call.
""",
    example="""
@dataclasses.dataclass
class Step:
    name: str

N = TypeVar("N", bound=Label)

def entry(label: N, node: NodeDefinition[str]) -> tuple[N, NodeDefinition[str]]: ...

FIRST = entry(Step("scale"), node)     # beartype: Step(...) is not Hashable
""",
    fixed="""
@dataclasses.dataclass(frozen=True)
class Step:
    name: str
""",
    layers=(RUNTIME,),
)

IMPORT_FAILED = _rule(
    "JC505",
    "import-failed",
    "A module that fails to import in debug mode",
    message="the module failed to import: {error}",
    help="fix the error (its traceback is printed with `--traceback`); the report goes on with the modules that import",
    why="""
The import report imports every module of a package to trace its graphs. A module
that raises something other than a jitcheck or beartype finding (a missing
dependency, a plain bug) cannot be checked, so it is reported rather than hidden.
""",
    example="""
import not_installed_dependency
""",
    fixed="""
# install the dependency, or fix the module so that it imports
""",
    layers=(RUNTIME,),
)

# Static pass (jitcheck.lint): wrappers rebuilt where they are called.

TRANSFORMATION_REBUILT = _rule(
    "JC701",
    "transformation-rebuilt",
    "A jax transformation rebuilt where it is jitted",
    message="`{subject}` used as {position}: `{transformation}` returns a new function object each time it is called, so every rebuild is a new jit cache key",
    help="build `{subject}` once, at module level or in `__init__` (better still, the whole jitted function), and use that object here",
    why="""
`jax.grad`, `jax.value_and_grad`, `jax.vmap`, `jax.checkpoint`, `jax.jacfwd`,
`jax.jacrev`, `jax.hessian`, `jax.named_call`, `jax.shard_map` and `checkify` return a
new function every time they are called, and `jax.jit` finds its traces by the
function object. `jax.jit(jax.grad(loss))` written where it is called is therefore a
new cache key on every call even though `loss` is one module-level function: jax
traces and compiles the gradient again each time (counted with `jax.monitoring`: five
calls, five traces, five compiles). equinox's `filter_grad`, `filter_vmap` and kin
return modules that compare by value, which `equinox.filter_jit` finds again, so they
are not reported.
""",
    example="""
def loss(params, x):
    return jnp.sum((params * x) ** 2)

for batch in batches:
    grads = jax.jit(jax.grad(loss))(params, batch)   # a new gradient function every step
""",
    fixed="""
grad_loss = jax.jit(jax.grad(loss))                  # built once: one cache entry

for batch in batches:
    grads = grad_loss(params, batch)
""",
    layers=(STATIC, RUNTIME),
)

STATEFUL_FUNCTION_REBUILT = _rule(
    "JC702",
    "stateful-function-rebuilt",
    "A StatefulFunction built where it is called",
    message="`{subject}` is built and called {where}: a StatefulFunction keeps its traces in the wrapper object, so each new wrapper traces `{function}` again",
    help="build the StatefulFunction once (at module level, or `self.step_fn = StatefulFunction(...)` in `__init__`) and call that object here",
    why="""
`jax.jit` shares its cache between every wrapper of the same function, but
`jitcheck.StatefulFunction` and brainstate's `StatefulFunction` keep their traced
jaxprs (and the States each trace found) in the wrapper object itself. A wrapper built
in a function body or a loop and called there starts empty every time: the function is
traced again on every call, even a module-level function called with arguments of the
same shapes.
""",
    example="""
def train_step(x):
    return StatefulFunction(step)(x)     # a new, empty cache on every call
""",
    fixed="""
step_fn = StatefulFunction(step)         # built once: traced once per cache key

def train_step(x):
    return step_fn(x)
""",
    layers=(STATIC,),
)

FACTORY_RESULT_REBUILT = _rule(
    "JC703",
    "factory-result-rebuilt",
    "A factory's fresh function jitted where it is called",
    message="`{subject}` used as {position}: `{factory}` returns a new {kind} on every call, so every rebuild is a new jit cache key",
    help="call `{factory}` once, before the loop, at module level or in `__init__`, and use that one function here: jitted once (`step = jax.jit(...)`), or passed as it is to a static argument",
    why="""
A factory such as `make_step(config)` that returns a nested `def`, a lambda or a
`functools.partial` returns a new function object on every call. `jax.jit(make_step(cfg))`
written in a loop or a function body is therefore a new cache key each time, and
jax traces and compiles again, even when `cfg` never changes.
""",
    example="""
def make_step(lr):
    def step(p, g):
        return p - lr * g
    return step

for batch in batches:
    params = jax.jit(make_step(0.1))(params, grad(batch))   # a compile per batch
""",
    fixed="""
step = jax.jit(make_step(0.1))                              # built once

for batch in batches:
    params = step(params, grad(batch))
""",
    layers=(STATIC,),
)

RULES: Final[tuple[Rule, ...]] = tuple(
    value for value in list(globals().values()) if isinstance(value, Rule)
)
"""Every rule, in code order."""

BY_CODE: Final[Mapping[str, Rule]] = {rule.code: rule for rule in RULES}
BY_NAME: Final[Mapping[str, Rule]] = {rule.name: rule for rule in RULES}

MYPY_CODES: Final[Mapping[str, str]] = {
    LABEL_BOUND.code: "jitcheck-label",
    PLACE_BOUND.code: "jitcheck-place",
    BOUND_METHOD.code: "jitcheck-body",
    FUNCTOOLS_PARTIAL.code: "jitcheck-body",
    TREE_UTIL_PARTIAL.code: "jitcheck-body",
    LAMBDA.code: "jitcheck-body",
    NESTED_FUNCTION.code: "jitcheck-body",
    ARRAY_STATIC.code: "jitcheck-setting",
    MUTABLE_CONTAINER_STATIC.code: "jitcheck-setting",
    MUTABLE_DATACLASS.code: "jitcheck-setting",
    EQ_WITHOUT_HASH.code: "jitcheck-setting",
}
"""The mypy error code each rule reported by the mypy plugin appears under."""

UNFROZEN: Final[Mapping[str, tuple[str, str]]] = {
    "dataclass": (
        "`@dataclass` with `eq=True, frozen=False` sets `__hash__` to None",
        "declare `{type}` with `@dataclass(frozen=True)` (or subclass `jitcheck.Frozen`)",
    ),
    "attrs": (
        "attrs sets `__hash__` to None on a class that compares by value and is not frozen",
        "declare `{type}` with `@attrs.frozen` (or `@attrs.define(frozen=True)`)",
    ),
    "attr.s": (
        "`@attr.s` sets `__hash__` to None on a class that compares by value and is not frozen",
        "declare `{type}` with `@attr.s(frozen=True)` (or `@attrs.frozen`)",
    ),
    "pydantic": (
        "a pydantic model hashes only when frozen; a mutable model's `__hash__` is None",
        "set `model_config = ConfigDict(frozen=True)` in `{type}`",
    ),
}
"""JC203's why and fix for each kind of class that generates `__hash__` only when frozen."""


def rule(code_or_name: str) -> Rule:
    """The rule with this code (``"JC101"``) or name (``"bound-method"``).

    Raises ``KeyError`` listing the known codes when there is none.
    """
    found = BY_CODE.get(code_or_name.upper()) or BY_NAME.get(code_or_name.lower())
    if found is None:
        known = ", ".join(r.code for r in RULES)
        raise KeyError(f"no jitcheck rule {code_or_name!r}; known codes: {known}")
    return found


def matching(selector: str) -> Iterator[Rule]:
    """Rules selected by a code prefix (``"JC1"``, ``"JC102"``), a name, or ``"ALL"``.

    Used by ``select``/``ignore`` configuration and ``# noqa`` comments.
    """
    text = selector.strip()
    if text.upper() == "ALL":
        yield from RULES
        return
    if text.lower() in BY_NAME:
        yield BY_NAME[text.lower()]
        return
    prefix = text.upper()
    yield from (r for r in RULES if r.code.startswith(prefix))


def format_diagnostic(path: str, line: int, column: int, code: str, message: str, help: str) -> str:
    """The one diagnostic format every layer prints: a location line and a help line."""
    return f"{path}:{line}:{column}: {code} {message}\n  help: {help}"
