"""The fingerprint of a traced computation, from the jaxpr jax already made: constants count by shape and dtype only.

Two traces with equal fingerprints are the same program up to the values baked into
it (closed-over arrays, Python scalars that became literals). `fingerprint` walks a
``ClosedJaxpr`` once (sub-jaxprs of ``pjit``, ``scan``, ``cond`` included) and
digests its structure (primitives, their parameters, variable wiring, every aval)
into one digest, and the baked-in constant values into another, so the recorder can
tell "the same program compiled again" from "a different program", and a recompile
whose only difference is its constants. It never traces anything itself.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Iterable
from typing import Any

import numpy as np
from jax._src import core

_SIMPLE = (str, int, float, bool, complex, bytes, type(None), np.dtype, enum.Enum, np.generic)
_CONSTANT_BYTES = 1 << 24
"""Of a large baked-in array, the first this many bytes go into the constants digest."""


class _Digests:
    """The parts of the structure digest and the constants digest of one walk (hashed once, at the end)."""

    __slots__ = ("structure", "constants")

    def __init__(self) -> None:
        self.structure: list[str] = []
        self.constants = hashlib.blake2b(digest_size=12)

    def text(self, value: str) -> None:
        self.structure.append(value)

    def constant(self, value: Any) -> None:
        if type(value) in (int, float, bool, complex):
            self.constants.update(f"{type(value).__name__}:{value!r}\x00".encode())
            return
        try:
            array = np.asarray(value)
            self.constants.update(str(array.dtype).encode())
            self.constants.update(repr(array.shape).encode())
            data = array.tobytes() if array.nbytes <= _CONSTANT_BYTES else array.reshape(-1).view(np.uint8)[:_CONSTANT_BYTES].tobytes()
            self.constants.update(data)
        except Exception:  # not an array (an opaque object): by type and repr
            self.constants.update(f"{type(value).__qualname__}:{value!r}".encode("utf-8", "replace"))
        self.constants.update(b"\x00")

    def structure_digest(self) -> str:
        return hashlib.blake2b("\x00".join(self.structure).encode("utf-8", "replace"), digest_size=12).hexdigest()


_AVALS: dict[tuple[Any, ...], str] = {}


def _aval(value: Any) -> str:
    """An aval as text (``float32[4]``, weak types marked), kept per (type, shape, dtype, weak type): jax's str is slow."""
    aval = getattr(value, "aval", None)
    if aval is None:
        return type(value).__qualname__
    try:
        key = (type(aval), getattr(aval, "shape", None), getattr(aval, "dtype", None), getattr(aval, "weak_type", None))
        text = _AVALS.get(key)
    except TypeError:  # an aval with unhashable parts
        return str(aval)
    if text is None:
        if len(_AVALS) > 4096:
            _AVALS.clear()
        text = _AVALS[key] = str(aval) + (" weak" if key[3] else "")
    return text


def _param(value: Any, digests: _Digests) -> None:
    if isinstance(value, core.ClosedJaxpr):
        _closed(value, digests)
    elif isinstance(value, core.Jaxpr):
        _jaxpr(value, digests)
    elif isinstance(value, (tuple, list)):
        digests.text(f"({len(value)}")
        for item in value:
            _param(item, digests)
        digests.text(")")
    elif isinstance(value, _SIMPLE):
        digests.text(repr(value))
    elif callable(value):
        digests.text("fn:" + str(getattr(value, "__qualname__", type(value).__qualname__)))
    else:  # shardings, meshes, effects: their kind only (their reprs may hold addresses)
        digests.text("obj:" + type(value).__qualname__)


def _jaxpr(jaxpr: core.Jaxpr, digests: _Digests) -> None:
    names: dict[int, int] = {}

    def bind(variables: Iterable[Any]) -> None:
        for var in variables:
            names[id(var)] = len(names)
            digests.text(_aval(var))

    def use(var: Any) -> None:
        if isinstance(var, core.Literal):
            digests.text("lit:" + _aval(var))
            digests.constant(var.val)
        else:
            digests.text(f"v{names.get(id(var), -1)}")

    digests.text("{")
    bind(jaxpr.constvars)
    digests.text("|")
    bind(jaxpr.invars)
    for eqn in jaxpr.eqns:
        digests.text(eqn.primitive.name)
        for var in eqn.invars:
            use(var)
        for key in sorted(eqn.params):
            digests.text(key)
            _param(eqn.params[key], digests)
        digests.text("->")
        bind(eqn.outvars)
    digests.text("=>")
    for var in jaxpr.outvars:
        use(var)
    digests.text("}")


def _closed(closed: core.ClosedJaxpr, digests: _Digests) -> None:
    _jaxpr(closed.jaxpr, digests)
    for value in closed.consts:
        digests.constant(value)


def fingerprint(closed: core.ClosedJaxpr, statics: Iterable[tuple[str, object]] = ()) -> tuple[str, str]:
    """The structure digest (with the static arguments' paths and types) and the constants digest, as hex.

    The jaxpr's input avals are part of the structure; the static arguments count
    by their type only, since their values reach the program as its structure or
    its constants.
    """
    digests = _Digests()
    for path, value in statics:
        digests.text(f"static {path}: {type(value).__module__}.{type(value).__qualname__}")
    _closed(closed, digests)
    return digests.structure_digest(), digests.constants.hexdigest()


__all__ = ["fingerprint"]
