"""`ValuePartial`: partial application that is a good jit cache key.

``functools.partial`` compares by identity, so a partial rebuilt per call is a new
cache key each time. A ``ValuePartial`` is equal to another when its function and
arguments are equal, and hashes accordingly: use it as a node body or a static
argument wherever you would write ``functools.partial``.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator, Mapping
from types import FunctionType
from typing import Any, Generic, TypeVar

from jitcheck.core.keys import compares_strictly, keys_equal, strict_key, walked_by

R = TypeVar("R")


class ValuePartial(Generic[R]):
    """``func`` with some arguments fixed, compared and hashed by value.

    ``ValuePartial(f, 2, scale=3.0)(x)`` calls ``f(2, x, scale=3.0)``, like
    ``functools.partial``. Two ``ValuePartial`` are equal when their functions are
    equal and their positional and keyword arguments are equal (keyword order does
    not matter); the hash follows, so it is a valid node body and static argument
    as long as its arguments are hashable. Arguments compare type-strictly, as
    ``jax.jit`` compares static values: ``ValuePartial(f, 2)`` and
    ``ValuePartial(f, 2.0)`` are two keys (see :func:`jitcheck.core.keys.strict_key`).
    Nested ``ValuePartial`` of the same function are flattened, as
    ``functools.partial`` does.
    """

    __slots__ = ("func", "args", "keywords", "_hash", "_strict", "__weakref__")

    func: Callable[..., R]
    args: tuple[Any, ...]
    keywords: Mapping[str, Any]
    _hash: int | None
    _strict: tuple[Any, ...] | None

    def __init__(self, func: Callable[..., R], /, *args: Any, **keywords: Any) -> None:
        if not callable(func):
            raise TypeError(f"ValuePartial needs a callable first argument, got {type(func).__name__}")
        if isinstance(func, ValuePartial):
            args = func.args + args
            keywords = {**func.keywords, **keywords}
            func = func.func
        object.__setattr__(self, "func", func)
        object.__setattr__(self, "args", tuple(args))
        object.__setattr__(self, "keywords", types.MappingProxyType(dict(sorted(keywords.items()))))
        object.__setattr__(self, "_hash", None)
        object.__setattr__(self, "_strict", None)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"ValuePartial is immutable; cannot set {name!r}")

    def __call__(self, /, *args: Any, **keywords: Any) -> R:
        return self.func(*self.args, *args, **{**self.keywords, **keywords})

    def _key(self) -> tuple[Any, ...]:
        """The type-strict key: the function, the arguments and the keywords, each by :func:`strict_key`."""
        key: tuple[Any, ...] | None = self._strict
        if key is None:
            func, args = self.func, self.args
            parts: list[Any] = [type(self), func if type(func) is FunctionType else strict_key(func), strict_key(args) if args else ()]
            for name, value in self.keywords.items():
                parts.append(name)
                kind = type(value)
                parts.append(value if kind is str else (kind, value) if kind is float or kind is int else strict_key(value))
            key = tuple(parts)
            object.__setattr__(self, "_strict", key)
        return key

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, ValuePartial):
            return NotImplemented
        return keys_equal(self._key(), other._key())

    def __hash__(self) -> int:
        cached: int | None = self._hash
        if cached is None:
            cached = hash(self._key())
            object.__setattr__(self, "_hash", cached)
        return cached

    def __repr__(self) -> str:
        parts = [getattr(self.func, "__qualname__", repr(self.func))]
        parts += [repr(a) for a in self.args]
        parts += [f"{k}={v!r}" for k, v in self.keywords.items()]
        return f"ValuePartial({', '.join(parts)})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.func, self.args, dict(self.keywords)))


compares_strictly(ValuePartial)


def _parts(value: ValuePartial[Any]) -> Iterator[tuple[str, object]]:
    """The function, then each argument, with their paths (how :func:`key_problems` walks it)."""
    yield ".func", value.func
    for i, arg in enumerate(value.args):
        yield f".args[{i}]", arg
    for name, arg in value.keywords.items():
        yield f".keywords[{name!r}]", arg


walked_by(ValuePartial, _parts)


def _rebuild(func: Callable[..., Any], args: tuple[Any, ...], keywords: dict[str, Any]) -> ValuePartial[Any]:
    return ValuePartial(func, *args, **keywords)


__all__ = ["ValuePartial"]
