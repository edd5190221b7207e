"""What makes a value a good jit cache key, leaf by leaf, and the type-strict key of a value.

A cache key is good when it hashes and when an equal value built again is equal
with an equal hash. :func:`key_problems` walks a value (a node, a static argument)
through the containers that compare by value and yields, for each leaf that fails,
its path and the rule it breaks. The graph checks, `StatefulFunction` and the debug
layer all judge keys with it, so they agree.

:func:`strict_key` is the other half: the value every key jitcheck builds (a graph's
hash and equality, `ValuePartial`, `OrderedMap`, a StatefulFunction's static
arguments) compares by. ``2``, ``2.0`` and ``True`` are equal in Python but trace to
different programs, so, as in ``jax.jit``, they are three keys; here also inside
containers (``(1, 2)`` and ``(1.0, 2)`` are two keys).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import sys
import types
import weakref
from collections.abc import Callable, Hashable, Iterator, Mapping
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


def _hashes_by_identity(value: object) -> bool:
    """True for an instance whose class keeps ``object``'s ``__eq__`` and ``__hash__``:
    as a key it stands for the object, never for what the object holds."""
    cls = type(value)
    return cls.__eq__ is object.__eq__ and cls.__hash__ is object.__hash__


_WRAPPER_FOUND: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


def _held_by_a_module(value: object) -> bool:
    """True when some imported module holds ``value`` at its top level (looked up once per object).

    A wrapper (``batched = jax.vmap(jnp.dot)`` at module level) copies the name and
    module of what it wraps, so it is not found under its own ``__module__``.
    """
    try:
        return _WRAPPER_FOUND[value]
    except (KeyError, TypeError):
        pass
    found = False
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if isinstance(namespace, dict) and any(candidate is value for candidate in list(namespace.values())):
            found = True
            break
    try:
        _WRAPPER_FOUND[value] = found
    except TypeError:
        pass
    return found


def wrapper_origin(value: types.FunctionType) -> str | None:
    """``jax.vmap(dot)`` for a function a transformation or decorator built around another
    (it has ``__wrapped__`` and its code is a closure of the builder), else None."""
    wrapped = getattr(value, "__wrapped__", None)
    if wrapped is None:
        return None
    code_names = [value.__code__.co_qualname]
    for cell in value.__closure__ or ():
        try:
            inner = cell.cell_contents
        except ValueError:
            continue
        if isinstance(inner, types.FunctionType):
            code_names.append(inner.__code__.co_qualname)
    builders = [name.split(".<locals>")[0] for name in code_names if ".<locals>" in name]
    builders = [b for b in builders if b != "api_boundary"] or builders
    if not builders:
        return None
    module = value.__globals__.get("__name__", "")
    for closure in value.__closure__ or ():
        try:
            inner = closure.cell_contents
        except ValueError:
            continue
        if isinstance(inner, types.FunctionType) and inner.__code__.co_qualname.startswith(builders[0] + "."):
            module = inner.__globals__.get("__name__", module)
    package = "jax" if module == "jax" or module.startswith("jax.") else module
    return f"{package}.{builders[0]}({describe(wrapped)})"


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
            origin = wrapper_origin(value)
            if origin is not None:
                if _held_by_a_module(value):
                    return None
                transformation = origin.split("(")[0]
                return rules.TRANSFORMATION_REBUILT, {"subject": origin, "transformation": transformation}
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


_WALKERS: tuple[tuple[type, Callable[[Any], Iterator[tuple[str, object]]]], ...] = ()
"""Classes of jitcheck's own value-compared containers (`ValuePartial`) and how to walk their parts."""

_STATE_HOLDERS: tuple[type, ...] = ()
"""Mutable classes compared by identity whose value a cache key never sees (`jitcheck.State`)."""


def walked_by(cls: type, parts: Callable[[Any], Iterator[tuple[str, object]]]) -> None:
    """Register how :func:`key_problems` walks an instance of ``cls``: ``parts(value)`` yields
    ``(path suffix, part)`` pairs. Lets a module above this one (`ValuePartial`) be walked
    without this module importing it."""
    global _WALKERS
    _WALKERS = (*_WALKERS, (cls, parts))


def holds_state(cls: type) -> None:
    """Register ``cls`` as a mutable holder of values (`jitcheck.State`): refused (JC606) in a
    cache key, where only its identity would be keyed."""
    global _STATE_HOLDERS
    _STATE_HOLDERS = (*_STATE_HOLDERS, cls)


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
    for cls, parts in _WALKERS:
        if isinstance(value, cls):
            return parts(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        params = getattr(type(value), "__dataclass_params__", None)
        if params is not None and params.frozen and type(value).__hash__ is not None:
            return ((f".{f.name}", getattr(value, f.name)) for f in dataclasses.fields(value) if f.compare)
    return None


def _uncompared(value: object) -> Iterator[tuple[str, object]]:
    """The fields of a frozen dataclass left out of its equality (``compare=False``), with their paths.

    The key cannot see them, so data in them (an array, a State) would be baked into
    a program that an equal value built with other data reuses.
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if not f.compare:
                yield f".{f.name}", getattr(value, f.name, None)


_DATA_RULES = frozenset({rules.ARRAY_STATIC, rules.STATE_AS_SETTING})


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
    if isinstance(value, _STATE_HOLDERS):
        yield KeyProblem(path, rules.STATE_AS_SETTING, {"subject": f"`{path}`"})
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
        for suffix, child in _uncompared(value):
            yield from (p for p in key_problems(child, path + suffix) if p.rule in _DATA_RULES)
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
    if not _compares_by_identity(value):
        return
    kind = type(value).__qualname__
    if callable_position or callable(value):
        if not findable(value):
            yield KeyProblem(path, rules.IDENTITY_CALLABLE, {"subject": path, "type": kind})
    elif _hashes_by_identity(value) or not findable(value):
        # Even a module-level object: the key stands for the object, not for what it
        # holds, so a change to its attributes would never reach the compiled program.
        yield KeyProblem(path, rules.IDENTITY_VALUE, {"subject": f"`{path}`", "type": kind})


# ---- type-strict keys -------------------------------------------------------------------


class _Tag:
    """A marker heading the key of a container, so no leaf's key can equal it.

    One object per kind, compared by identity; a copy or a pickle of a key finds the
    same object again (by its module-level name), so a copied key stays equal.
    """

    __slots__ = ("name", "global_name")

    def __init__(self, name: str, global_name: str) -> None:
        self.name = name
        self.global_name = global_name

    def __repr__(self) -> str:
        return f"<{self.name}>"

    def __reduce__(self) -> str:
        return self.global_name


_TUPLE = _Tag("tuple", "_TUPLE")
_LIST = _Tag("list", "_LIST")
_SET = _Tag("set", "_SET")
_MAP = _Tag("map", "_MAP")
_ORDERED = _Tag("ordered", "_ORDERED")
_FIELDS = _Tag("fields", "_FIELDS")


class ArrayKey:
    """An array's part of a key: equal to an array of the same type, shape, dtype and
    elements; a tracer only to itself. Never hashes (arrays are data, not static keys),
    and comparing never raises."""

    __slots__ = ("array",)

    def __init__(self, array: Any) -> None:
        self.array = array

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ArrayKey):
            return NotImplemented
        a, b = self.array, other.array
        if a is b:
            return True
        if type(a) is not type(b) or isinstance(a, jax.core.Tracer):
            return False
        try:
            return bool(a.shape == b.shape and a.dtype == b.dtype and np.array_equal(np.asarray(a), np.asarray(b)))
        except Exception:  # deleted buffers, arrays spread over devices that cannot be read back
            return False

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ArrayKey({type(self.array).__name__} {getattr(self.array, 'dtype', '?')}{list(getattr(self.array, 'shape', ()))})"


def _itself(value: Any) -> Any:
    return value


def _tagged(value: Any) -> Any:
    return (type(value), value)


def _tuple(value: Any) -> Any:
    return (_TUPLE, type(value), *map(strict_key, value))


def _list(value: Any) -> Any:
    return (_LIST, type(value), [strict_key(item) for item in value])


def _set(value: Any) -> Any:
    try:
        items: Any = frozenset(map(strict_key, value))
    except TypeError:  # an unhashable member: the key does not hash either
        items = [strict_key(item) for item in value]
    return (_SET, type(value), items)


def ordered_key(value: Any) -> Any:
    """The key of an ordered mapping (`OrderedMap`): its class, then each key and item, in order."""
    parts: list[Any] = [_ORDERED, type(value)]
    for key, item in value.items():
        parts.append(strict_key(key))
        parts.append(strict_key(item))
    return tuple(parts)


def _mapping(value: Any) -> Any:
    return (_MAP, type(value), {strict_key(key): strict_key(item) for key, item in value.items()})


def _hashable_mapping(value: Any) -> Any:
    try:
        return (_MAP, type(value), frozenset((strict_key(key), strict_key(item)) for key, item in value.items()))
    except TypeError:
        return _mapping(value)


def _fields(value: Any) -> Any:
    return (_FIELDS, type(value), *[strict_key(getattr(value, f.name)) for f in dataclasses.fields(value) if f.compare])


def _array(value: Any) -> Any:
    return ArrayKey(value)


_KINDS: dict[type, Callable[[Any], Any]] = {
    str: _itself,
    int: _tagged,
    float: _tagged,
    bool: _tagged,
    complex: _tagged,
    bytes: _tagged,
    type(None): _itself,
    tuple: _tuple,
    list: _list,
    dict: _mapping,
    frozenset: _set,
    set: _set,
    types.FunctionType: _itself,
    types.BuiltinFunctionType: _itself,
}

_STRICT_THEMSELVES: tuple[type, ...] = ()
"""Classes whose own equality is type-strict (`Frozen`, `ValuePartial`, `OrderedMap`), registered by them."""


def compares_strictly(cls: type) -> type:
    """Register ``cls`` as a class whose own ``==`` is type-strict: its instances are their own keys."""
    global _STRICT_THEMSELVES
    _STRICT_THEMSELVES = (*_STRICT_THEMSELVES, cls)
    _KINDS.clear()
    _KINDS.update(_BASE_KINDS)
    return cls


_KEYED_BY: tuple[tuple[type, Callable[[Any], Any]], ...] = ()
"""Classes keyed by their own rule (`OrderedMap`: its items in order), registered by their modules."""


def keyed_by(cls: type, kind: Callable[[Any], Any]) -> None:
    """Register ``kind`` as the :func:`strict_key` of instances of ``cls`` and its subclasses."""
    global _KEYED_BY
    _KEYED_BY = (*_KEYED_BY, (cls, kind))
    _KINDS.clear()
    _KINDS.update(_BASE_KINDS)


def _kind_of(cls: type) -> Callable[[Any], Any]:
    for base, kind in _KEYED_BY:
        if issubclass(cls, base):
            return kind
    if any(issubclass(cls, base) and getattr(cls, "__eq__") is getattr(base, "__eq__") for base in _STRICT_THEMSELVES):
        return _itself
    if issubclass(cls, (np.ndarray, jax.Array, jax.core.Tracer)):
        return _array
    if cls.__eq__ is object.__eq__:
        return _itself  # compared by identity: equal only to itself, whatever its type
    if issubclass(cls, tuple):
        return _tuple
    if issubclass(cls, (frozenset, set)):
        return _set
    if issubclass(cls, list):
        return _list
    if issubclass(cls, Mapping):
        return _hashable_mapping if cls.__hash__ is not None else _mapping
    if dataclasses.is_dataclass(cls):
        params = getattr(cls, "__dataclass_params__", None)
        if params is not None and params.eq:
            return _fields
    return _tagged


_BASE_KINDS = dict(_KINDS)


def strict_key(value: Any) -> Any:
    """The key ``value`` compares by, type-strictly, as ``jax.jit`` compares static values.

    Numbers, bytes and other leaves become ``(type, value)``; tuples, lists,
    sets, mappings and dataclasses compared by their fields are walked, their own
    types kept; strings, objects compared by identity and jitcheck's own records
    (already type-strict) stand for themselves; arrays become an `ArrayKey`. Two
    values are the same key when their keys are equal: ``2``, ``2.0``, ``True``,
    ``np.int32(2)`` are four keys, ``(1, 2)`` and ``(1.0, 2)`` two. The key hashes
    exactly when the value does.
    """
    cls = type(value)
    kind = _KINDS.get(cls)
    if kind is None:
        kind = _KINDS[cls] = _kind_of(cls)
    return kind(value)


def keys_equal(a: Any, b: Any) -> bool:
    """``a == b`` for two keys, never raising: a comparison that fails is unequal."""
    if a is b:
        return True
    try:
        return bool(a == b)
    except Exception:
        return False


class Strict:
    """A value that compares by its :func:`strict_key` and prints as the value.

    ``Strict(2) == 2`` and ``Strict(2) == Strict(2)``, but ``Strict(2) != 2.0``. It
    hashes as the value does (``2``, ``2.0`` and ``True`` share a hash bucket and
    stay apart by equality), so equal means equal hash with wrapped and plain
    values alike.
    """

    __slots__ = ("value", "key", "_hash")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.key = strict_key(value)
        self._hash: int | None = None

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Strict):
            return keys_equal(self.key, other.key)
        return keys_equal(self.key, strict_key(other))

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self.value)
        return self._hash

    def __repr__(self) -> str:
        return repr(self.value)


def strict(value: Any) -> Any:
    """``value`` itself when its own ``==`` is type-strict (a str, an object compared by
    identity, a jitcheck record), else a `Strict` wrapper: a dictionary key that keeps
    ``2``, ``2.0`` and ``True`` apart."""
    cls = type(value)
    kind = _KINDS.get(cls)
    if kind is None:
        kind = _KINDS[cls] = _kind_of(cls)
    return value if kind is _itself else Strict(value)


__all__ = [
    "ArrayKey",
    "KeyProblem",
    "Strict",
    "callable_problem",
    "compares_strictly",
    "describe",
    "findable",
    "holds_state",
    "keyed_by",
    "ordered_key",
    "walked_by",
    "is_array",
    "key_problems",
    "keys_equal",
    "strict",
    "strict_key",
]
