"""Generated modules with one planted bug: the shapes, the contexts they are planted in, and names.

A `Plan` says which bug shape goes where (the layers of code around it, outermost first,
and filler statements at each level); `render` writes it with a given naming, and says on
which line the bug is and how many times that line runs when `drive` runs the module.
The hypothesis strategies draw plans and namings for the metamorphic tests.
"""

from __future__ import annotations

import builtins
import dataclasses
import keyword
import sys
import types
from typing import Any

from hypothesis import strategies as st

# Every identifier the generated code defines, by role; a naming maps each role to a name.
ROLES = (
    "TRACES", "scale", "double", "apply", "step", "count", "cstep", "Options", "FrozenOptions", "use", "ustep",
    "loss", "gstep", "x", "y", "v", "inner", "outer", "Holder", "method", "i", "a", "b", "helper", "Box",
)

HEADER = """\
import dataclasses
import functools

import jax
import jax.numpy as jnp
from jax.tree_util import Partial
from jitcheck import ValuePartial

{TRACES} = []


def {scale}({x}, factor):
    {TRACES}.append("scale")
    return {x} * factor


def {double}({v}):
    {TRACES}.append("double")
    return {v} * 2


def {apply}(fn, {x}):
    {TRACES}.append("apply")
    return fn({x})


{step} = jax.jit({apply}, static_argnums=0)


def {count}({x}, names):
    {TRACES}.append("count")
    return {x} * len(names)


{cstep} = jax.jit({count}, static_argnums=1)


@dataclasses.dataclass
class {Options}:
    depth: int


@dataclasses.dataclass(frozen=True)
class {FrozenOptions}:
    depth: int


def {use}({x}, options):
    {TRACES}.append("use")
    return {x} * options.depth


{ustep} = jax.jit({use}, static_argnums=1)


def {loss}({x}):
    {TRACES}.append("loss")
    return jnp.sum({x} * {x})


{gstep} = jax.jit(jax.grad({loss}))
{x} = jnp.ones(3)
"""


@dataclasses.dataclass(frozen=True)
class Shape:
    """A bug shape: its bad statements, its fixed twin, the rule it breaks, and the planted function jax traces."""

    code: str
    bad: str
    fixed: str
    traced: str
    autofix: bool  # jitcheck --fix (safe) rewrites it


SHAPES = {
    "JC102": Shape("JC102", "{y} = {step}(functools.partial({scale}, factor=2.0), {x})", "{y} = {step}(ValuePartial({scale}, factor=2.0), {x})", "apply", True),
    "JC103": Shape("JC103", "{y} = {step}(Partial({scale}, factor=2.0), {x})", "{y} = {step}(ValuePartial({scale}, factor=2.0), {x})", "apply", True),
    "JC104": Shape("JC104", "{y} = jax.jit(lambda {v}: {double}({v}))({x})", "{y} = jax.jit({double})({x})", "double", True),
    "JC105": Shape("JC105", "def {inner}({v}):\n    return {double}({v})\n{y} = jax.jit({inner})({x})", "{y} = jax.jit({double})({x})", "double", False),
    "JC202": Shape("JC202", "{y} = {cstep}({x}, [1, 2])", "{y} = {cstep}({x}, (1, 2))", "count", False),
    "JC203": Shape("JC203", "{y} = {ustep}({x}, {Options}(3))", "{y} = {ustep}({x}, {FrozenOptions}(3))", "use", False),
    "JC701": Shape("JC701", "{y} = jax.jit(jax.grad({loss}))({x})", "{y} = {gstep}({x})", "loss", False),
}

# Statements that draw no finding, put around the bug at every level. Those that call a
# planted function use the fixed twin's cache key, so a fixed module still traces it once.
FILLERS = (
    "{a} = 1",
    "{a} = [{b}, 2] if False else ({a} if False else 3)",
    "{a} = {{'k': 1}}",
    "# a comment about {a}",
    "{a} = jax.jit({double})({x})",
    "{a} = {cstep}({x}, (1, 2))",
    "{a} = {step}(ValuePartial({scale}, factor=2.0), {x})",
    "{a} = {gstep}({x})",
    "{a} = {ustep}({x}, {FrozenOptions}(3))",
    "def {helper}({b}):\n    return {b} + 1",
    "class {Box}:\n    VALUE = 1",
)

CALLS_PLANTED = frozenset(i for i, text in enumerate(FILLERS) if "{x}" in text)


def alone(plan: "Plan") -> "Plan":
    """``plan`` without the fillers that call a planted function: jax's trace count is then the planted line's."""
    return dataclasses.replace(plan, fillers=tuple(tuple(i for i in level if i not in CALLS_PLANTED) for level in plan.fillers))


# The layers a bug may sit in. A "loop" runs its body 3 times; "if" once; a function
# layer is called twice by `drive` when outermost, once per call of its enclosing code
# otherwise. "test" (a test function, code that runs once) is always followed by a loop.
LAYERS = ("function", "method", "loop", "if", "nested", "test")


@dataclasses.dataclass(frozen=True)
class Plan:
    shape: str
    layers: tuple[str, ...]
    fillers: tuple[tuple[int, ...], ...]  # filler indexes before the bug, per level (len(layers) + 1 levels)


@dataclasses.dataclass(frozen=True)
class Rendered:
    source: str
    line: int  # the line of the finding (the jitting statement)
    runs: int  # how many times that line runs under `drive`
    entry: str  # what `drive` calls: "" (module level), "name" or "Class.method"


def render(plan: Plan, names: dict[str, str], *, fixed: bool = False) -> Rendered:
    """The module of ``plan`` written with ``names``; the fixed twin when ``fixed``."""
    shape = SHAPES[plan.shape]
    header = HEADER.format(**names)
    lines = header.splitlines()
    indent = ""
    runs, entry = 1, ""
    outer_calls: list[tuple[str, str]] = []  # (indent, call) closing each nested function
    counter = 0

    def add(text: str) -> None:
        lines.extend(indent + part if part else part for part in text.splitlines())

    def fresh(role: str) -> str:
        nonlocal counter
        counter += 1
        return f"{names[role]}{counter}"

    for level, layer in enumerate(plan.layers):
        for index in plan.fillers[level]:
            add(FILLERS[index].format(**{**names, "a": fresh("a"), "helper": fresh("helper"), "Box": fresh("Box")}))
        if layer in ("function", "test", "nested"):
            name = fresh("outer") if layer != "test" else "test_" + fresh("outer")
            params = "" if layer == "test" else names["x"]
            if layer == "nested":
                outer_calls.append((indent, f"{name}({names['x']})"))
            elif not entry:
                entry, runs = name, runs * 2
            add(f"def {name}({params}):")
            indent += "    "
            if layer == "test":
                add(f"{names['x']} = jnp.ones(3)")
        elif layer == "method":
            holder = fresh("Holder")
            add(f"class {holder}:")
            indent += "    "
            add(f"def {names['method']}(self, {names['x']}):")
            indent += "    "
            if not entry:
                entry, runs = f"{holder}.{names['method']}", runs * 2
        elif layer == "loop":
            add(f"for {fresh('i')} in range(3):")
            indent += "    "
            runs *= 3
        elif layer == "if":
            add(f"if {names['x']} is not None:")
            indent += "    "
    for index in plan.fillers[len(plan.layers)]:
        add(FILLERS[index].format(**{**names, "a": fresh("a"), "helper": fresh("helper"), "Box": fresh("Box")}))
    statement = (shape.fixed if fixed else shape.bad).format(**names)
    add(statement)
    line = len(lines)  # the jitting statement is the bug's last line
    for call_indent, call in reversed(outer_calls):
        lines.append(call_indent + call)
    return Rendered("\n".join(lines) + "\n", line, runs, entry)


def drive(rendered: Rendered, names: dict[str, str]) -> dict[str, Any]:
    """Run the module: import it, then call its entry twice; returns its namespace."""
    module = types.ModuleType("planted_module")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    try:
        exec(compile(rendered.source, "planted_module.py", "exec"), module.__dict__)
    finally:
        del sys.modules[module.__name__]
    namespace = module.__dict__
    if rendered.entry:
        holder, _, method = rendered.entry.partition(".")
        target = getattr(namespace[holder](), method) if method else namespace[holder]
        for _ in range(2):
            if holder.startswith("test_"):
                target()
            else:
                target(namespace[names["x"]])
    return namespace


_RESERVED = set(keyword.kwlist) | set(keyword.softkwlist) | set(dir(builtins)) | {
    "jax", "jnp", "functools", "dataclasses", "Partial", "ValuePartial", "self", "main", "setup", "fn", "names",
    "options", "factor", "depth", "range", "VALUE",
}


def _usable(name: str) -> bool:
    return name not in _RESERVED and name.capitalize() not in _RESERVED and not name.startswith(("test", "setup", "main"))


# Letters only: ``render`` appends digits to make fresh names, which then never collide.
NAME = st.from_regex(r"[a-z]{2,8}", fullmatch=True).filter(_usable)


@st.composite
def namings(draw: st.DrawFn) -> dict[str, str]:
    """A name for every role, all distinct (classes capitalised)."""
    chosen = draw(st.lists(NAME, min_size=len(ROLES), max_size=len(ROLES), unique=True))
    return {role: name.capitalize() if role[0].isupper() else name for role, name in zip(ROLES, chosen)}


IDENTITY = {role: role for role in ROLES}


@st.composite
def layer_stacks(draw: st.DrawFn, outers: tuple[str, ...] = ("", "function", "method", "test")) -> tuple[str, ...]:
    """Layers outermost first, such that the bug's line runs again and again (a loop or a called function).

    A function, method or test function comes only outermost (``drive`` calls it); a
    nested function only inside a function; loops and ifs anywhere. A test function
    runs once, so a loop always follows it.
    """
    layers: list[str] = []
    outer = draw(st.sampled_from(outers))
    if outer:
        layers.append(outer)
    if outer == "test":
        layers.append("loop")
    for _ in range(draw(st.integers(0, 2))):
        layers.append(draw(st.sampled_from(("loop", "if", "nested") if outer else ("loop", "if"))))
    if not outer and "loop" not in layers:
        layers.append("loop")
    return tuple(layers)


def known_miss(shape: str, outer: str) -> bool:
    """Where the static pass is known to miss a retrace jax makes (tested apart, see test_lint_metamorphic).

    A function defined in a module-level loop (or if) and jitted there: jax traces it
    again on every iteration, but JC105 looks for functions nested in functions only.
    """
    return shape == "JC105" and outer == ""


@st.composite
def plans(draw: st.DrawFn, shapes: tuple[str, ...] = tuple(SHAPES), *, misses: bool | None = False) -> Plan:
    """A plan; with ``misses`` False none of the known misses, True only those, None any."""
    shape = draw(st.sampled_from(shapes))
    outers = tuple(o for o in ("", "function", "method", "test") if misses is None or known_miss(shape, o) == misses)
    layers = draw(layer_stacks(outers))
    fillers = tuple(tuple(draw(st.lists(st.integers(0, len(FILLERS) - 1), max_size=2))) for _ in range(len(layers) + 1))
    return Plan(shape, layers, fillers)


