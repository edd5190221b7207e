"""Cache keys of a StatefulFunction: which arguments are static, and what a call is keyed on.

`ArgumentSpec` binds ``static_argnums`` and ``static_argnames`` through the
function's signature once, at construction (a parameter named static is static
however it is passed; negative indices count from the end). A call's `CacheKey` is
its static arguments by value plus the tree structure and abstract values (shape,
dtype, weak type) of its dynamic leaves, as ``jax.jit`` keys its own cache.

The fast key (:meth:`ArgumentSpec.fast_key`) only computes; it raises
AttributeError or TypeError on anything unusual, and the caller then asks
:meth:`ArgumentSpec.checked_key`, which names every bad argument (a State passed
through a traced argument, JC601; a static argument that is not a good cache key,
judged by :func:`jitcheck.core.keys.key_problems`; a leaf that is not an array).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import jax
import numpy as np

from jitcheck import rules
from jitcheck.core.events import ArgumentKey, traced_argument_keys
from jitcheck.core.keys import key_problems, strict
from jitcheck.core.violations import Violation
from jitcheck.stateful.errors import StateArgumentRefused, StaticArgumentRefused, found
from jitcheck.stateful.jaxinternals import Tracer
from jitcheck.stateful.state import State
from jitcheck.stateful.values import short

_flatten = jax.tree_util.tree_flatten
_TRACEABLE = (jax.Array, np.ndarray, np.number, np.bool_, bool, int, float, complex, jax.ShapeDtypeStruct, Tracer)


class CacheKey(NamedTuple):
    """The key a call is cached under.

    ``static_args``: ``(position, value)`` of each static positional argument;
    ``static_kwargs``: ``(name, value)`` of each static keyword argument, sorted,
    or None for a call without keyword arguments; each static value as
    :func:`jitcheck.core.keys.strict` keys it (``2``, ``2.0`` and ``True`` are three
    keys, as in ``jax.jit``; it prints as the value); ``tree``: the pytree structure of
    the dynamic arguments; ``avals``: the abstract value of each dynamic leaf.
    """

    static_args: tuple[tuple[int, Any], ...]
    static_kwargs: tuple[tuple[str, Any], ...] | None
    tree: Any
    avals: tuple[Any, ...]

    def describe(self) -> str:
        """The key in words, for messages: static values, then the dynamic shapes."""
        parts = [f"args[{i}]={v!r}" for i, v in self.static_args]
        parts += [f"{k}={v!r}" for k, v in self.static_kwargs or ()]
        shapes = ", ".join(short(a) for a in self.avals)
        parts.append(f"dynamic ({shapes})" if self.avals else "no dynamic leaves")
        return "; ".join(parts)


class Split(NamedTuple):
    """A call's arguments, separated into static and dynamic ones."""

    static_args: tuple[tuple[int, Any], ...]
    static_kwargs: tuple[tuple[str, Any], ...] | None
    dynamic_args: tuple[Any, ...]
    dynamic_positions: tuple[int, ...]
    dynamic_kwargs: dict[str, Any] | None

    def traced(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The dynamic arguments as ``jax.make_jaxpr`` takes them: ``(args, kwargs)``."""
        return self.dynamic_args, dict(self.dynamic_kwargs or {})

    def rebuild(self, dynamic_args: tuple[Any, ...]) -> tuple[Any, ...]:
        """The positional arguments with the static ones put back in place."""
        if not self.static_args:
            return dynamic_args
        total = len(dynamic_args) + len(self.static_args)
        static = dict(self.static_args)
        rest = iter(dynamic_args)
        return tuple(static[i] if i in static else next(rest) for i in range(total))


_NO_STATIC: tuple[tuple[int, Any], ...] = ()


def _strict_pairs(pairs: tuple[tuple[Any, Any], ...] | None) -> tuple[tuple[Any, Any], ...] | None:
    """``(position or name, value)`` pairs with each value keyed type-strictly."""
    if not pairs:
        return pairs
    return tuple([(where, strict(value)) for where, value in pairs])


def _ensure_ints(value: int | Iterable[int] | None) -> tuple[int, ...]:
    if value is None:
        return ()
    if isinstance(value, int):
        if isinstance(value, bool):
            raise TypeError(f"static_argnums must be ints, got {value!r}")
        return (value,)
    items = tuple(value)
    bad = [v for v in items if not isinstance(v, int) or isinstance(v, bool)]
    if bad:
        raise TypeError(f"static_argnums must be ints, got {bad[0]!r} in {items!r}")
    return items


def _ensure_strs(value: str | Iterable[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    items = tuple(value)
    bad = [v for v in items if not isinstance(v, str)]
    if bad:
        raise TypeError(f"static_argnames must be strs, got {bad[0]!r} in {items!r}")
    return items


@dataclasses.dataclass(frozen=True)
class ArgumentSpec:
    """Which arguments of a function are static, bound through its signature.

    ``positions``: non-negative static positions; ``from_end``: negative ones, kept
    only for a function taking ``*args`` (resolved per call); ``names``: the static
    keyword names.
    """

    function: str
    subject: str
    """How refusals name the function: ``StatefulFunction `step` (model.py:12)``."""
    positions: frozenset[int]
    from_end: frozenset[int]
    names: frozenset[str]

    @property
    def plain(self) -> bool:
        """True when no positional argument is static."""
        return not self.positions and not self.from_end

    @classmethod
    def build(
        cls,
        fun: Callable[..., Any],
        function: str,
        subject: str,
        static_argnums: int | Iterable[int] | None,
        static_argnames: str | Iterable[str] | None,
    ) -> ArgumentSpec:
        """Bind the static arguments of ``fun`` through its signature (when it has one)."""
        nums = _ensure_ints(static_argnums)
        names = _ensure_strs(static_argnames)
        if not nums and not names:
            return cls(function, subject, frozenset(), frozenset(), frozenset())
        try:
            signature: inspect.Signature | None = inspect.signature(fun)
        except (TypeError, ValueError):
            signature = None
        if signature is None:
            return cls(
                function,
                subject,
                frozenset(i for i in nums if i >= 0),
                frozenset(i for i in nums if i < 0),
                frozenset(names),
            )
        params = list(signature.parameters.values())
        kinds = inspect.Parameter
        positional = [p for p in params if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)]
        varargs = any(p.kind is kinds.VAR_POSITIONAL for p in params)
        varkw = any(p.kind is kinds.VAR_KEYWORD for p in params)
        count = len(positional)
        listed = ", ".join(p.name for p in positional) or "none"
        positions: set[int] = set()
        from_end: set[int] = set()
        for i in nums:
            if varargs:
                (positions if i >= 0 else from_end).add(i)
                continue
            if not -count <= i < count:
                raise ValueError(
                    f"static_argnums contains {i}, but `{function}` takes {count} positional "
                    f"parameter{'s' if count != 1 else ''} ({listed}); an index must be in "
                    f"[{-count}, {count - 1}] (negative indices count from the end)"
                )
            positions.add(i % count)
        keyword_names = {p.name for p in params if p.kind in (kinds.POSITIONAL_OR_KEYWORD, kinds.KEYWORD_ONLY)}
        static_names = set(names)
        for name in names:
            if name in keyword_names:
                continue
            only = next((p for p in positional if p.name == name and p.kind is kinds.POSITIONAL_ONLY), None)
            if only is not None:
                raise ValueError(
                    f"static_argnames contains {name!r}, a positional-only parameter of `{function}`; "
                    f"name it by position instead: static_argnums={positional.index(only)}"
                )
            if not varkw:
                known = ", ".join(sorted(keyword_names)) or "none"
                raise ValueError(
                    f"static_argnames contains {name!r}, which is not a parameter of `{function}` "
                    f"(its keyword parameters: {known})"
                )
        for index, param in enumerate(positional):
            if param.name in static_names and param.kind is kinds.POSITIONAL_OR_KEYWORD:
                positions.add(index)
            if index in positions and param.kind is kinds.POSITIONAL_OR_KEYWORD:
                static_names.add(param.name)
        return cls(function, subject, frozenset(positions), frozenset(from_end), frozenset(static_names))

    def static_positions(self, count: int) -> frozenset[int]:
        """The static positions of a call with ``count`` positional arguments."""
        if not self.from_end:
            return self.positions
        return self.positions | {i + count for i in self.from_end if i + count >= 0}

    def split(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Split:
        """Separate a call's arguments into static and dynamic ones."""
        if self.plain:
            static_args = _NO_STATIC
            dynamic_args = args
            dynamic_positions = tuple(range(len(args)))
        else:
            static = self.static_positions(len(args))
            static_args = tuple((i, a) for i, a in enumerate(args) if i in static)
            dynamic_args = tuple(a for i, a in enumerate(args) if i not in static)
            dynamic_positions = tuple(i for i in range(len(args)) if i not in static)
        if not kwargs:
            return Split(static_args, None, dynamic_args, dynamic_positions, None)
        names = self.names
        static_kwargs = tuple(sorted((k, v) for k, v in kwargs.items() if k in names))
        dynamic_kwargs = {k: v for k, v in kwargs.items() if k not in names}
        return Split(static_args, static_kwargs, dynamic_args, dynamic_positions, dynamic_kwargs)

    def fast_key(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], list[Any]]:
        """The cache key of a call and its dynamic leaves, computed only.

        Raises TypeError (a leaf jax cannot trace, a State, or an unhashable static
        value when the key is hashed); the caller then uses :meth:`checked_key` for
        the same call, which names the problem.
        """
        split = self.split(args, kwargs)
        if split.dynamic_kwargs is None:
            leaves, tree = _flatten(split.dynamic_args)
        else:
            leaves, tree = _flatten((split.dynamic_args, split.dynamic_kwargs))
        try:
            avals = tuple([leaf.aval for leaf in leaves])
        except AttributeError:  # numbers, numpy arrays
            avals = tuple([jax.typeof(leaf) for leaf in leaves])
        return (_strict_pairs(split.static_args), _strict_pairs(split.static_kwargs), tree, avals), leaves

    def checked_key(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[CacheKey, list[Any], Split]:
        """The cache key of a call, its dynamic leaves and its split, every argument checked.

        Raises `StaticArgumentRefused` for static arguments that are not good cache
        keys, `StateArgumentRefused` (JC601) for States among the dynamic arguments,
        and TypeError naming a dynamic leaf that is not an array or number.
        """
        split = self.split(args, kwargs)
        if split.static_args or split.static_kwargs:
            problems = list(self.static_violations(split))
            if problems:
                raise StaticArgumentRefused(self.subject, problems)
        target: Any = split.dynamic_args if split.dynamic_kwargs is None else (split.dynamic_args, split.dynamic_kwargs)
        leaves, tree = _flatten(target)
        if not all(isinstance(leaf, _TRACEABLE) and not isinstance(leaf, State) for leaf in leaves):
            self._refuse_dynamic(split)
        key = CacheKey(
            _strict_pairs(split.static_args),  # type: ignore[arg-type]
            _strict_pairs(split.static_kwargs),
            tree,
            tuple([jax.typeof(leaf) for leaf in leaves]),
        )
        return key, leaves, split

    def _refuse_dynamic(self, split: Split) -> None:
        """Raise for the States and untraceable values among the dynamic leaves, naming each path."""
        paths, leaves, _ = self.dynamic_leaves(split)
        states = [
            found(rules.STATE_AS_ARGUMENT, path, where=f"passed as the traced argument {path} of `{self.function}`")
            for path, leaf in zip(paths, leaves)
            if isinstance(leaf, State)
        ]
        if states:
            raise StateArgumentRefused(self.subject, states)
        for path, leaf in zip(paths, leaves):
            if not isinstance(leaf, _TRACEABLE):
                raise TypeError(
                    f"argument {path} of `{self.function}` is a {type(leaf).__name__}, which jax cannot trace; "
                    f"pass arrays, numbers or ShapeDtypeStructs (or containers of them), or make the argument "
                    f"static with {self._static_hint(path)}"
                )

    def _static_hint(self, path: str) -> str:
        if path.startswith("args["):
            return f"static_argnums={path[5:path.index(']')]}"
        if path.startswith("kwargs["):
            return f"static_argnames={path[7:path.index(']')]}"
        return "static_argnums/static_argnames"

    def static_violations(self, split: Split) -> Iterable[Violation]:
        """A violation for every leaf of a static argument that is not a good cache key."""
        statics = [(f"args[{i}]", value) for i, value in split.static_args]
        statics += [(f"kwargs[{k!r}]", value) for k, value in split.static_kwargs or ()]
        for path, value in statics:
            # A State may be a static argument here: the trace records every State it reads.
            problems = [p for p in key_problems(value, path) if p.rule is not rules.STATE_AS_SETTING]
            for problem in problems:
                fields = dict(problem.fields)
                fields.setdefault("subject", f"`{problem.path}`")
                fields["position"] = f"the static argument {path} of `{self.function}`"
                yield found(problem.rule, problem.path, **fields)
            if not problems:
                try:
                    hash(value)
                except TypeError as error:
                    yield found(
                        rules.UNHASHABLE_VALUE,
                        path,
                        subject=f"`{path}`",
                        type=type(value).__name__,
                        position=f"the static argument {path} of `{self.function}`",
                        reason=str(error),
                    )

    def dynamic_leaves(self, split: Split) -> tuple[list[str], list[Any], Any]:
        """The path (``args[1]['w']``), value and tree structure of every dynamic leaf."""
        target: Any = split.dynamic_args if split.dynamic_kwargs is None else (split.dynamic_args, split.dynamic_kwargs)
        with_paths, tree = jax.tree_util.tree_flatten_with_path(target)
        paths = []
        for path, _ in with_paths:
            if split.dynamic_kwargs is None:
                head, rest = path[0], path[1:]
                position = split.dynamic_positions[head.idx]
                paths.append(f"args[{position}]" + jax.tree_util.keystr(rest))
            elif path[0].idx == 0:
                position = split.dynamic_positions[path[1].idx]
                paths.append(f"args[{position}]" + jax.tree_util.keystr(path[2:]))
            else:
                paths.append("kwargs" + jax.tree_util.keystr(path[1:]))
        return paths, [leaf for _, leaf in with_paths], tree

    def trace_arguments(self, split: Split) -> tuple[tuple[str, ArgumentKey], ...]:
        """The arguments of a trace as the debug layer's retrace watch reads them."""
        found_keys: list[tuple[str, ArgumentKey]] = []
        found_keys += [(f"args[{i}]", ArgumentKey("static", v)) for i, v in split.static_args]
        found_keys += [(f"kwargs[{k!r}]", ArgumentKey("static", v)) for k, v in split.static_kwargs or ()]
        for position, arg in zip(split.dynamic_positions, split.dynamic_args):
            found_keys += traced_argument_keys(f"args[{position}]", arg)
        for name, arg in (split.dynamic_kwargs or {}).items():
            found_keys += traced_argument_keys(f"kwargs[{name!r}]", arg)
        return tuple(found_keys)


