"""What makes a value a good jit cache key, leaf by leaf.

A cache key is good when it hashes and when an equal value built again is equal
with an equal hash. :func:`key_problems` walks a value (a node, a static argument)
through the containers that compare by value and yields, for each leaf that fails,
its path and the rule it breaks. The graph checks, `StatefulFunction` and the debug
layer all judge keys with it, so they agree.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import sys
import types
from collections.abc import Hashable, Iterator, Mapping
from typing import Any, NamedTuple

import jax
import jax.tree_util
import numpy as np

from jitcheck import rules
from jitcheck.rules import Rule

_ATOMS = (str, bytes, int, float, complex, bool, type(None), range, enum.Enum, np.dtype, np.generic, type(Ellipsis))


_EXACT_ATOMS = frozenset({str, int, float, bool, bytes, complex, type(None)})


class KeyProblem(NamedTuple):
    """One leaf of a value that is not a good cache key: where, which rule, and the message fields."""

    path: str
    rule: Rule
    fields: dict[str, object]


def is_array(value: object) -> bool:
    """True for numpy and jax arrays (tracers included): data, never a static key."""
    return isinstance(value, (np.ndarray, jax.Array)) or isinstance(value, jax.core.Tracer)


def findable(value: object) -> bool:
    """True when ``value`` is a module-level object: found again by its module and name.

    Such an object (a module-level function, a class, a singleton instance) is the
    same object every time a graph is rebuilt, so identity comparison is harmless.
    """
    module = sys.modules.get(getattr(value, "__module__", None) or "")
    if module is None:
        return False
    qualname = getattr(value, "__qualname__", None)
    if isinstance(qualname, str) and "<" not in qualname:
        found: object = module
        for part in qualname.split("."):
            found = getattr(found, part, None)
            if found is None:
                break
        if found is value:
            return True
    return any(candidate is value for candidate in list(vars(module).values()))


def _compares_by_identity(value: object) -> bool:
    return type(value).__eq__ is object.__eq__


def describe(value: object) -> str:
    """A short name of a callable or value for messages (``Trainer.step``, ``partial(scale)``)."""
    if isinstance(value, functools.partial):
        return f"partial({describe(value.func)}, ...)"
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if isinstance(name, str):
        return name
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def callable_problem(value: object) -> tuple[Rule, dict[str, object]] | None:
    """The rule a callable breaks as a cache key (bound method, partial, lambda, closure), or None."""
    if isinstance(value, jax.tree_util.Partial):
        return rules.TREE_UTIL_PARTIAL, {"subject": describe(value), "args": _partial_args(value)}
    if isinstance(value, functools.partial):
        return rules.FUNCTOOLS_PARTIAL, {"subject": describe(value), "args": _partial_args(value)}
    if isinstance(value, (types.MethodType, types.BuiltinMethodType)):
        receiver = getattr(value, "__self__", None)
        if receiver is None or isinstance(receiver, (type, types.ModuleType)):
            return None
        if isinstance(value, types.MethodType) and findable(receiver):
            return None
        return rules.BOUND_METHOD, {"subject": describe(value)}
    if isinstance(value, types.FunctionType):
        if value.__name__ == "<lambda>":
            return rules.LAMBDA, {"subject": describe(value)}
        if "<locals>" in value.__qualname__ or not findable(value):
            return rules.NESTED_FUNCTION, {"subject": value.__qualname__}
    return None


def _partial_args(value: functools.partial[Any]) -> str:
    parts = [describe(value.func)]
    parts += [repr(a) for a in value.args]
    parts += [f"{k}={v!r}" for k, v in value.keywords.items()]
    text = ", ".join(parts)
    return text if len(text) <= 80 else describe(value.func) + ", ..."


def _unhashable_problem(value: object) -> tuple[Rule, dict[str, object]]:
    kind = type(value).__name__
    if isinstance(value, (list, dict, set)):
        return rules.MUTABLE_CONTAINER_STATIC, {"kind": kind}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        params = getattr(type(value), "__dataclass_params__", None)
        if params is not None and not params.frozen:
            return rules.MUTABLE_DATACLASS, {"type": kind}
    if type(value).__module__ != "builtins" and _defines(type(value), "__eq__") and type(value).__hash__ is None:
        return rules.EQ_WITHOUT_HASH, {"type": kind}
    try:
        hash(value)
    except TypeError as error:
        return rules.UNHASHABLE_VALUE, {"type": kind, "reason": str(error)}
    return rules.UNHASHABLE_VALUE, {"type": kind, "reason": "its __hash__ is None"}


def _defines(cls: type, name: str) -> bool:
    """True when a class of ``cls``'s hierarchy other than ``object`` defines ``name``."""
    return any(name in klass.__dict__ for klass in cls.__mro__ if klass is not object)


def _children(value: object) -> Iterator[tuple[str, object]] | None:
    """The parts of a value-compared container, with their path suffixes, or None for a leaf."""
    if isinstance(value, tuple):
        if hasattr(value, "_fields"):
            return ((f".{name}", item) for name, item in zip(value._fields, value))
        return ((f"[{i}]", item) for i, item in enumerate(value))
    if isinstance(value, frozenset):
        return ((f"{{{item!r}}}", item) for item in value)
    if isinstance(value, Mapping) and isinstance(value, Hashable) and type(value).__hash__ is not None:
        return ((f"[{key!r}]", item) for key, item in value.items())
    if isinstance(value, functools.partial):
        return None
    from jitcheck.core.partial import ValuePartial

    if isinstance(value, ValuePartial):
        head = [(".func", value.func)]
        head += [(f".args[{i}]", a) for i, a in enumerate(value.args)]
        head += [(f".keywords[{k!r}]", v) for k, v in value.keywords.items()]
        return iter(head)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        params = getattr(type(value), "__dataclass_params__", None)
        if params is not None and params.frozen and type(value).__hash__ is not None:
            return ((f".{f.name}", getattr(value, f.name)) for f in dataclasses.fields(value) if f.compare)
    return None


def key_problems(value: object, path: str, *, callable_position: bool = False) -> Iterator[KeyProblem]:
    """Every leaf of ``value`` that makes it a bad jit cache key, with its path.

    Walks tuples, frozensets, hashable mappings, frozen dataclasses and
    `ValuePartial`s; refuses arrays anywhere, unhashable leaves, and leaves that
    compare by identity and would be new objects when rebuilt (bound methods,
    partials, lambdas, nested functions, and instances of classes without
    ``__eq__`` that are not module-level objects). ``callable_position`` says the
    value is called (a node body): an identity-compared instance is then reported
    as a callable.
    """
    if type(value) in _EXACT_ATOMS:
        return
    if is_array(value):
        yield KeyProblem(path, rules.ARRAY_STATIC, {"subject": f"`{path}`", "shape": getattr(value, "shape", None)})
        return
    if isinstance(value, _ATOMS) or isinstance(value, type) or isinstance(value, types.ModuleType):
        return
    problem = callable_problem(value)
    if problem is not None:
        rule, fields = problem
        yield KeyProblem(path, rule, fields)
        if isinstance(value, functools.partial):
            for i, arg in enumerate(value.args):
                yield from (p for p in key_problems(arg, f"{path}.args[{i}]") if p.rule is rules.ARRAY_STATIC)
            for name, arg in value.keywords.items():
                yield from (p for p in key_problems(arg, f"{path}.keywords[{name!r}]") if p.rule is rules.ARRAY_STATIC)
        return
    children = _children(value)
    if children is not None:
        first = True
        for suffix, child in children:
            yield from key_problems(child, path + suffix, callable_position=callable_position and first and suffix == ".func")
            first = False
        return
    try:
        hashable = type(value).__hash__ is not None
        if hashable:
            hash(value)
    except TypeError:
        hashable = False
    if not hashable:
        rule, fields = _unhashable_problem(value)
        fields.setdefault("subject", f"`{path}`")
        yield KeyProblem(path, rule, fields)
        return
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return
    if _compares_by_identity(value) and not findable(value):
        kind = type(value).__qualname__
        if callable_position or callable(value):
            yield KeyProblem(path, rules.IDENTITY_CALLABLE, {"subject": path, "type": kind})
        else:
            yield KeyProblem(path, rules.IDENTITY_VALUE, {"subject": f"`{path}`", "type": kind})


__all__ = ["KeyProblem", "callable_problem", "describe", "findable", "is_array", "key_problems"]
