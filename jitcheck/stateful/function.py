"""`StatefulFunction`: trace a function once per cache key, collecting the States it uses.

The API is brainstate's ``StatefulFunction`` (so its users can switch), made
correct first: static arguments are judged as cache keys by the rules every
jitcheck layer shares, a State whose shape or dtype changed since a trace is
never run through that trace, no trace leaves a tracer in a State or in the
cache, and the cache is bounded and thread-safe. The cache-hit path of a call is
kept to a key lookup and one ``jax.jit`` dispatch of the compiled jaxpr.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, Literal, overload

import jax

from jitcheck import rules
from jitcheck.core.context import configuration_argument, trace_context
from jitcheck.core.events import ArgumentKey, aval_key, notify_trace
from jitcheck.core.keys import describe
from jitcheck.stateful import entry as entries
from jitcheck.stateful import jaxinternals, recording
from jitcheck.stateful.cache import BoundedCache
from jitcheck.stateful.entry import Entry, Stale
from jitcheck.stateful.errors import (
    StateArgumentRefused,
    StateShapeError,
    StateUnderStaging,
    UnknownCacheKey,
    found,
)
from jitcheck.stateful.keys import ArgumentSpec, CacheKey, Split
from jitcheck.stateful.manager import StateDictManager
from jitcheck.stateful.recording import Frame, Record
from jitcheck.stateful.state import State
from jitcheck.stateful.values import (
    aval_of,
    describe_avals,
    has_tracer,
    refuse_tracer,
    structure,
)
from jitcheck.stateful.values import describe as describe_value

_flatten: Callable[[Any], tuple[list[Any], Any]] = jax.tree_util.tree_flatten  # no wrapper: hit path
_ArrayImpl = jaxinternals.ArrayImpl
_EvalTrace = jaxinternals.EvalTrace
_TRACE_CONTEXT = jaxinternals.TRACE_CONTEXT
_CURRENT = recording.CURRENT
_NO_STATIC: tuple[tuple[int, Any], ...] = ()
_RETRIES = 8
_ONE_ARRAY = jax.tree_util.tree_structure((0,))
"""The tree of the arguments of a call with one array: what flattening ``(x,)`` gives."""


def _name(fun: Callable[..., Any]) -> str:
    """The function's name for messages: its qualified name, or its bare name for a nested one."""
    text = describe(fun)
    if "<locals>" in text:
        return str(getattr(fun, "__name__", text))
    return text


def _location(fun: Callable[..., Any]) -> str:
    code = getattr(fun, "__code__", None)
    if code is None:
        return ""
    return f" ({code.co_filename}:{code.co_firstlineno})"


class StatefulFunction:
    """Trace ``fun`` once per cache key, finding the States it reads and writes.

    ``StatefulFunction(fun, static_argnums=(), axis_env=None, abstracted_axes=None,
    state_returns=('read', 'write'), cache_type=None, *, static_argnames=(),
    name=None, maxsize=128)``: the seed's positional order; the extras keyword-only.

    Calling it (or `jaxpr_call_auto`) runs the traced program with the States'
    current values and writes the written States back. `jaxpr_call` runs it with
    explicit state values instead, so it composes with ``jax.jit``, ``jax.grad`` and
    ``jax.vmap``. Static arguments are keyed by value and must be good cache keys;
    dynamic arguments by tree structure, shape, dtype and weak type. ``maxsize``
    bounds the cache (least recently used first out). ``abstracted_axes`` must stay
    None (jax 0.10 has no dynamic shapes); ``cache_type`` may be None or ``'jit'``,
    both meaning the key above.
    """

    def __init__(
        self,
        fun: Callable[..., Any],
        static_argnums: int | Iterable[int] = (),
        axis_env: Sequence[tuple[Hashable, int]] | None = None,
        abstracted_axes: Any | None = None,
        state_returns: str | tuple[str, ...] = ("read", "write"),
        cache_type: str | None = None,
        *,
        static_argnames: str | Iterable[str] = (),
        name: str | None = None,
        maxsize: int = 128,
    ) -> None:
        if not callable(fun):
            raise TypeError(f"StatefulFunction needs a callable, got {type(fun).__name__} {fun!r}")
        self.fun = fun
        self.name = name if name is not None else _name(fun)
        if abstracted_axes is not None:
            raise ValueError(
                f"StatefulFunction `{self.name}`: abstracted_axes={abstracted_axes!r} is not supported. "
                f"jax {jax.__version__} has no dynamic shapes, so no axis can be abstracted; the parameter "
                "exists only for compatibility with brainstate's StatefulFunction. Pass None (the default): "
                "each new shape is traced once under its own cache key"
            )
        if cache_type not in (None, "jit"):
            raise ValueError(
                f"StatefulFunction `{self.name}`: cache_type={cache_type!r} is not known; pass None or 'jit' "
                "(both key the cache on the static arguments and the dynamic arguments' shapes and dtypes)"
            )
        self.state_returns = self._state_returns(state_returns)
        self._where = _location(fun)
        self._spec = ArgumentSpec.build(
            fun, self.name, f"StatefulFunction `{self.name}`{self._where}", static_argnums, static_argnames
        )
        self.static_argnums: tuple[int, ...] = tuple(sorted(self._spec.positions)) + tuple(sorted(self._spec.from_end))
        self.static_argnames: tuple[str, ...] = tuple(sorted(self._spec.names))
        self.axis_env: tuple[tuple[Hashable, int], ...] | None = self._axis_env(axis_env)
        self.abstracted_axes = None
        self.cache_type = cache_type
        self._plain = self._spec.plain
        self._cache: BoundedCache[Entry] = BoundedCache(maxsize)
        self._elsewhere: BoundedCache[Entry] = BoundedCache(maxsize)
        """Entries traced under another jax configuration, by (key, trace context): a switch back finds them."""
        self._slots, self._clock = self._cache.hit_path()
        self._lock = threading.RLock()
        self._traces = 0

    @property
    def maxsize(self) -> int:
        """The most cache entries kept."""
        return self._cache.maxsize

    def _axis_env(self, value: Any) -> tuple[tuple[Hashable, int], ...] | None:
        if value is None:
            return None
        pairs = None if isinstance(value, (str, bytes)) else _pairs(value)
        if pairs is None:
            raise TypeError(
                f"StatefulFunction `{self.name}`: axis_env={value!r} is not a sequence of (axis name, size) pairs. "
                "axis_env is the third positional parameter, as in the seed's signature; static argument names "
                "go by keyword: StatefulFunction(fun, static_argnames=...)"
            )
        return pairs

    def _state_returns(self, value: str | tuple[str, ...]) -> tuple[str, ...]:
        chosen = (value,) if isinstance(value, str) else tuple(value)
        unknown = [v for v in chosen if v not in entries.STATE_RETURNS]
        if unknown or not chosen:
            raise ValueError(
                f"StatefulFunction `{self.name}`: state_returns={value!r}; use 'read', 'write' or ('read', 'write')"
            )
        return tuple(v for v in entries.STATE_RETURNS if v in chosen)

    def __repr__(self) -> str:
        return f"StatefulFunction({self.name}, cached={len(self._cache)}/{self._cache.maxsize})"

    # ---- the cache key ---------------------------------------------------------------

    def get_arg_cache_key(self, *args: Any, **kwargs: Any) -> CacheKey:
        """The cache key of a call with these arguments (every argument checked).

        Static arguments by value, the dynamic ones by tree structure and abstract
        value. A static argument that is not a good cache key (an array, a list, a
        bound method, a functools.partial, a lambda, ...) is refused with
        `StaticArgumentRefused` naming it; a State among the dynamic arguments with
        `StateArgumentRefused` (JC601).
        """
        return self._spec.checked_key(args, kwargs)[0]

    # ---- tracing ---------------------------------------------------------------------

    @overload
    def make_jaxpr(self, *args: Any, return_shape: Literal[False] = False, **kwargs: Any) -> StatefulFunction: ...

    @overload
    def make_jaxpr(self, *args: Any, return_shape: Literal[True], **kwargs: Any) -> tuple[Any, Any]: ...

    def make_jaxpr(self, *args: Any, return_shape: bool = False, **kwargs: Any) -> StatefulFunction | tuple[Any, Any]:
        """Trace at these arguments (arrays, numbers, ShapeDtypeStructs, containers of them).

        Records the jaxpr, output shapes and tree, and the States read and written,
        under the arguments' cache key; nothing is traced when that key is cached and
        its States still have the shapes and dtypes it was traced at. Returns self
        (for chaining, as brainstate does); with ``return_shape=True``, the pair
        ``(ClosedJaxpr, output shapes)``: the jaxpr of `get_jaxpr` and a pytree of
        ``jax.ShapeDtypeStruct`` shaped like the function's output, as the seed and
        ``jax.make_jaxpr`` describe. ``return_shape`` is this method's own keyword,
        never passed on to the function.
        """
        key, _, split = self._spec.checked_key(args, kwargs)
        current = self._cache.get(key)
        if current is None or self._is_stale(current):
            current = self._retrace(key, split, current)
        if return_shape:
            return current.public_jaxpr(), current.out_shapes()[0]
        return self

    def compile_and_get_states_by_static_args(self, *args: Any, **kwargs: Any) -> tuple[State, ...]:
        """Trace at these arguments if needed; the States the function reads and writes."""
        key, _, split = self._spec.checked_key(args, kwargs)
        current = self._cache.get(key)
        if current is None or self._is_stale(current):
            current = self._retrace(key, split, current)
        return current.states

    def _is_stale(self, entry: Entry) -> bool:
        """True when jax's configuration changed since the entry's trace, or some State no longer
        has the structure, shapes or dtypes the entry traced."""
        if entry.context != trace_context():
            return True
        frame = _CURRENT.get()
        for state, avals in zip(entry.record.states, entry.record.avals):
            value = frame.peek(state) if frame is not None else state._concrete()
            leaves, tree = _flatten(value)
            traced, traced_tree = _flatten(avals)
            if tree != traced_tree:
                return True
            for leaf, want in zip(leaves, traced):
                aval = aval_of(leaf)
                if aval.shape != want.shape or aval.dtype != want.dtype:
                    return True
        return False

    def _retrace(self, key: CacheKey, split: Split, stale: Entry | None) -> Entry:
        """Trace ``key`` unless another thread already replaced ``stale`` with a valid entry.

        The new entry replaces the old in one step, so a concurrent reader finds the
        old entry or the new one, never none. A trace that fails stores nothing.
        """
        with self._lock:
            current = self._cache.peek(key)
            if current is not None and current is not stale and not self._is_stale(current):
                return current
            context = trace_context()
            if current is not None and current.context != context:
                self._elsewhere.put((key, current.context), current)
            kept = self._elsewhere.peek((key, context))
            if kept is not None and not self._is_stale(kept):
                self._cache.put(key, kept)
                return kept
            fresh = self._trace(split, context)
            if fresh.cacheable:
                self._cache.put(key, fresh)
            return fresh

    def _trace(self, split: Split, context: tuple[Any, ...]) -> Entry:
        """Trace the function at ``split``'s arguments; ``context``: jax's configuration now (the entry's key)."""
        parent = _CURRENT.get()
        fun = self.fun
        owner = self.name
        static_kwargs = dict(split.static_kwargs or ())
        found: list[tuple[Record, Any]] = []

        def traced(dynamic_args: tuple[Any, ...], dynamic_kwargs: dict[str, Any]) -> tuple[Any, list[Any]]:
            frame = Frame(owner, jaxinternals.current_trace(), parent)
            token = _CURRENT.set(frame)
            try:
                out = fun(*split.rebuild(dynamic_args), **dynamic_kwargs, **static_kwargs)
                out_leaves, out_tree = _flatten(out)
                if any(isinstance(leaf, State) for leaf in out_leaves):
                    self._refuse_returned_states(out)
                written_values = frame.written_values()
                found.append((frame.record(), out_tree))
                return out, written_values
            finally:
                _CURRENT.reset(token)
                frame.close()

        traced.__name__ = traced.__qualname__ = owner.replace("<", "").replace(">", "")
        dynamic_args, dynamic_kwargs = split.traced()
        closed = jax.make_jaxpr(traced, axis_env=self.axis_env)(dynamic_args, dynamic_kwargs)
        record, out_tree = found[0]
        n_args = len(closed.in_avals) - sum(len(jax.tree_util.tree_leaves(avals)) for avals in record.avals)
        fresh = entries.build(self.name, closed, out_tree, record, n_args, self.state_returns, context)
        self._traces += 1
        # Counted under the function it wraps, so a StatefulFunction rebuilt per call is seen retracing.
        notify_trace(
            self,
            self.name,
            lambda: (*self._spec.trace_arguments(split), *_state_arguments(record), configuration_argument(context)),
            wraps=fun,
        )
        return fresh

    def _refuse_returned_states(self, out: Any) -> None:
        with_paths, _ = jax.tree_util.tree_flatten_with_path(out)
        returned = [
            found(
                rules.STATE_AS_ARGUMENT,
                f"output{jax.tree_util.keystr(path)}",
                where=f"returned from `{self.name}` at output{jax.tree_util.keystr(path)}",
            )
            for path, leaf in with_paths
            if isinstance(leaf, State)
        ]
        if returned:
            raise StateArgumentRefused(self._spec.subject, returned)

    # ---- reading the cache -----------------------------------------------------------

    def _entry(self, cache_key: Hashable) -> Entry:
        if cache_key == () and len(self._cache) == 1:
            only = self._cache.peek(self._cache.keys()[0])
            if only is not None:
                return only
        found_entry = self._cache.peek(cache_key)
        if found_entry is not None:
            return found_entry
        known = self._cache.keys()
        if not known:
            listed = "none: it has not been traced (call make_jaxpr or the function first)"
        else:
            listed = "\n".join(f"  {CacheKey(*k).describe()}" for k in known)  # type: ignore[misc]
            listed = f"{len(known)}:\n{listed}"
        shown = cache_key.describe() if isinstance(cache_key, CacheKey) else repr(cache_key)
        raise UnknownCacheKey(
            f"StatefulFunction `{self.name}` has no trace under the cache key {shown}; "
            f"get a key with get_arg_cache_key(*args, **kwargs). Known keys: {listed}"
        )

    def get_jaxpr(self, cache_key: Hashable = ()) -> Any:
        """The ClosedJaxpr traced under ``cache_key`` (the default: the only one cached).

        Its inputs are the dynamic leaves, then the leaves of every State of
        `get_states` in order; its outputs the function's leaves, then the leaves of
        the States ``state_returns`` selects, in the same order.
        """
        return self._entry(cache_key).public_jaxpr()

    def get_out_shapes(self, cache_key: Hashable = ()) -> Any:
        """``(output shapes, [shapes of the States returned])`` as ShapeDtypeStructs."""
        return self._entry(cache_key).out_shapes()

    def get_out_treedef(self, cache_key: Hashable = ()) -> Any:
        """The tree that unflattens the jaxpr's outputs into ``(output, [State values])``."""
        return self._entry(cache_key).out_treedef()

    def get_states(self, cache_key: Hashable = ()) -> tuple[State, ...]:
        """Every State the function reads or writes, in the order it first used them."""
        return self._entry(cache_key).states

    def get_read_states(self, cache_key: Hashable = ()) -> tuple[State, ...]:
        """The States the function reads and never writes."""
        return self._entry(cache_key).read_states

    def get_write_states(self, cache_key: Hashable = ()) -> tuple[State, ...]:
        """The States the function writes."""
        return self._entry(cache_key).write_states

    def states(self, cache_key: Hashable = ()) -> tuple[State, ...]:
        """The States the function reads and writes (the seed's name for `get_states`)."""
        return self._entry(cache_key).states

    def to_state_manager(self, cache_key: Hashable = ()) -> StateDictManager:
        """The States of `states` in a `StateDictManager`, keyed by name (by id where a name is missing or shared).

        Read all their values with ``collect_values()``, set them with
        ``assign_values(values)``; the States are the same objects the function uses.
        """
        return StateDictManager.of(self._entry(cache_key).states)

    def clear_cache(self) -> None:
        """Forget every trace."""
        self._cache.clear()
        self._elsewhere.clear()

    def cache_info(self) -> dict[str, int]:
        """``size`` and ``maxsize`` of the cache, and ``traces``: how often the function was traced."""
        return {"size": len(self._cache), "maxsize": self._cache.maxsize, "traces": self._traces}

    # ---- calling ---------------------------------------------------------------------

    def _lookup(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Entry, CacheKey, list[Any], Split]:
        key, leaves, split = self._spec.checked_key(args, kwargs)
        current = self._cache.get(key)
        if current is None:
            current = self._retrace(key, split, None)
        return current, key, leaves, split

    def jaxpr_call(self, state_vals: Sequence[Any], *args: Any, **kwargs: Any) -> tuple[tuple[Any, ...], Any]:
        """Run the traced program with explicit State values: ``(new State values, output)``.

        ``state_vals`` holds one value per State of `get_states`, in order. The new
        values come back for the States ``state_returns`` selects, in the same order
        (a State only read comes back as it was given). Pure: no State is read or
        written, so it works under ``jax.jit``, ``jax.grad`` and ``jax.vmap``.
        """
        entry, key, leaves, split = self._lookup(args, kwargs)
        for _ in range(_RETRIES):
            flat = self._explicit_state_leaves(entry, state_vals)
            try:
                results = entry.program(*leaves, *flat)
            except Stale as stale:
                if self._is_stale(entry):
                    entry = self._retrace(key, split, entry)
                    continue
                raise self._explicit_mismatch(entry, state_vals, stale) from None
            out = entry.output(results)
            new_values: list[Any] = []
            written = iter(entry.written)
            for given, was_written, returned in zip(state_vals, entry.record.written, entry.returned):
                value = given
                if was_written:
                    slot = next(written)
                    value = slot.tree.unflatten(results[slot.start : slot.stop])
                if returned:
                    new_values.append(value)
            return tuple(new_values), out
        raise self._unsettled()

    def _explicit_state_leaves(self, entry: Entry, state_vals: Sequence[Any]) -> list[Any]:
        states = entry.states
        if isinstance(state_vals, (str, bytes)) or not isinstance(state_vals, Sequence):
            raise TypeError(
                f"jaxpr_call of `{self.name}` takes the State values as a list or tuple (one per State of "
                f"get_states, in order), got {type(state_vals).__name__}"
            )
        if len(state_vals) != len(states):
            raise ValueError(
                f"jaxpr_call of `{self.name}` got {len(state_vals)} state value{'s' if len(state_vals) != 1 else ''}, "
                f"expected {len(states)}: one per State of get_states(key), in order: "
                f"[{', '.join(s.label for s in states)}]"
            )
        missing = [i for i, value in enumerate(state_vals) if value is None]
        if missing:
            index = missing[0]
            raise ValueError(
                f"jaxpr_call of `{self.name}`: state_vals[{index}] is None; every one of the {len(states)} "
                f"States needs a value (state_vals[{index}] is for State {states[index].label}"
                + (f"; None also at {missing[1:]}" if len(missing) > 1 else "")
                + ")"
            )
        flat, tree = _flatten(list(state_vals))
        if tree != entry.state_tree:
            for index, (value, avals) in enumerate(zip(state_vals, entry.record.avals)):
                if structure(value) != structure(avals):
                    raise self._explicit_mismatch(entry, state_vals, Stale(-1, None, ""), index)
        return flat

    def _explicit_mismatch(
        self, entry: Entry, state_vals: Sequence[Any], stale: Stale, index: int | None = None
    ) -> StateShapeError:
        if index is None:
            leaf = stale.index - entry.n_args
            counts = [structure(a).num_leaves for a in entry.record.avals]
            index = 0
            while index < len(counts) - 1 and leaf >= counts[index]:
                leaf -= counts[index]
                index += 1
        state = entry.states[index]
        avals = entry.record.avals[index]
        expected = describe_avals(avals)
        return StateShapeError(
            f"jaxpr_call of `{self.name}`",
            [
                found(
                    rules.STATE_SHAPE_CHANGED,
                    f"state_vals[{index}]",
                    state=f"{state.label} (state_vals[{index}])",
                    expected=expected,
                    got=describe_value(state_vals[index]),
                )
            ],
        )

    def jaxpr_call_auto(self, *args: Any, **kwargs: Any) -> Any:
        """Call with the States' current values; write the written States back; return the output."""
        # The cache-hit path: a key, a lookup, one jax.jit dispatch. Anything unusual
        # (a miss, a State that changed shape, a nested trace, an odd argument) takes
        # the checked path below, which explains every refusal.
        try:
            if self._plain and not kwargs:
                if len(args) == 1 and type(args[0]) is _ArrayImpl:  # the commonest call: one array
                    leaves = [args[0]]
                    key: Any = (_NO_STATIC, None, _ONE_ARRAY, (args[0].aval,))
                else:
                    leaves, tree = _flatten(args)
                    try:
                        avals = tuple([leaf.aval for leaf in leaves])
                    except AttributeError:  # numbers, numpy arrays: slower, still exact
                        avals = tuple([jax.typeof(leaf) for leaf in leaves])
                    key = (_NO_STATIC, None, tree, avals)
            else:
                key, leaves = self._spec.fast_key(args, kwargs)
            slot = self._slots.get(key)
        except (AttributeError, TypeError):
            slot = None
        if slot is None or _CURRENT.get() is not None or type(_TRACE_CONTEXT.trace) is not _EvalTrace:
            return self._call_auto(args, kwargs)
        slot.used = next(self._clock)
        entry = slot.value
        if entry.plain_states:
            leaves += [state._value for state in entry.states]
        else:
            state_leaves, state_tree = _flatten([state._value for state in entry.states])
            if state_tree != entry.state_tree:
                return self._call_auto(args, kwargs)
            leaves += state_leaves
        try:
            results = entry.program(*leaves)
        except (Stale, TypeError):
            return self._call_auto(args, kwargs)
        if entry.written:
            if len(results) > entry.n_out and type(results[entry.n_out]) is not _ArrayImpl:
                self._write_back(entry, results, None)  # a tracer: refused there
            elif entry.write_pairs:
                for state, index in entry.write_pairs:
                    state._value = results[index]
            else:
                for written in entry.written:
                    written.state._value = written.tree.unflatten(results[written.start : written.stop])
        if entry.single_out:
            return results[0]
        return entry.result_tree.unflatten(results[: entry.n_out])

    __call__ = jaxpr_call_auto

    def _call_auto(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The general path of a call: every argument checked, traced on a miss, stale entries traced again."""
        key, leaves, split = self._spec.checked_key(args, kwargs)
        frame = _CURRENT.get()
        entry = self._cache.get(key)
        for _ in range(_RETRIES):
            if entry is None:
                entry = self._retrace(key, split, None)
            if frame is None and entry.states:
                self._refuse_staging(entry)
            if frame is None:
                values = [state._concrete() for state in entry.states]
            else:
                values = [frame.read(state) for state in entry.states]
            flat, tree = _flatten(values)
            if tree != entry.state_tree:
                entry = self._retrace(key, split, entry)
                continue
            try:
                results = entry.program(*leaves, *flat)
            except Stale:
                entry = self._retrace(key, split, entry)
                continue
            self._write_back(entry, results, frame)
            return entry.output(results)
        raise self._unsettled()

    def _refuse_staging(self, entry: Entry) -> None:
        """Refuse (JC605) a call under a staging transformation that would bake the States' values in."""
        staging = jaxinternals.staging_trace()
        if staging is None:
            return
        states = entry.states
        labels = ", ".join(state.label for state in states)
        transformation = jaxinternals.staged_for(staging)
        shown = self.name if self.name.replace(".", "_").isidentifier() else "sf"
        fix = (
            f"call `{self.name}` outside {transformation.split(' of ')[0]} (a StatefulFunction is compiled already), "
            "or wrap the outer function in jitcheck.StatefulFunction instead of the plain transformation (it "
            "compiles it too, and passes every State in at each call), or pass the values in explicitly: "
            f"`new_values, out = {shown}.jaxpr_call(state_values, *args)` inside it, with state_values "
            f"(one per State of get_states(): [{labels}]) an argument of the jitted function"
        )
        raise StateUnderStaging(
            f"StatefulFunction `{self.name}`{self._where}",
            [
                found(
                    rules.STATE_UNDER_STAGING,
                    f"State {state.label}",
                    state=state.label,
                    use=f"used by `{self.name}` called",
                    transformation=transformation,
                    effect="the staged program would keep the value the State has now as a constant, and jax "
                    "reuses that program after the State changes",
                    fix=fix,
                )
                for state in states
            ],
        )

    def _write_back(self, entry: Entry, results: Sequence[Any], frame: Frame | None) -> None:
        new_values = [(slot.state, slot.tree.unflatten(results[slot.start : slot.stop])) for slot in entry.written]
        if frame is not None:
            for state, value in new_values:
                frame.write(state, value)
            return
        for state, value in new_values:
            if has_tracer(value):
                leaf = next(x for x in jax.tree_util.tree_leaves(value) if isinstance(x, jaxinternals.Tracer))
                refuse_tracer(
                    state.label,
                    value,
                    f"`{self.name}` writes it and was called under a jax transformation that is not a "
                    "StatefulFunction; nothing was written",
                    jaxinternals.transformation_of(leaf),
                )
        for state, value in new_values:
            state._value = value

    def _unsettled(self) -> RuntimeError:
        return RuntimeError(
            f"StatefulFunction `{self.name}`: the States it uses changed shape or dtype {_RETRIES} times while it "
            "was being called (another thread resetting them?); call it when they are settled"
        )


def _pairs(value: Any) -> tuple[tuple[Hashable, int], ...] | None:
    """``value`` as (axis name, positive size) pairs, or None when it is not such a sequence."""
    try:
        pairs = tuple(tuple(pair) for pair in value)
    except TypeError:
        return None
    for pair in pairs:
        if len(pair) != 2 or isinstance(pair[1], bool) or not isinstance(pair[1], int) or pair[1] < 1:
            return None
        try:
            hash(pair[0])
        except TypeError:
            return None
    return pairs


def _state_arguments(record: Record) -> tuple[tuple[str, ArgumentKey], ...]:
    entries_: list[tuple[str, ArgumentKey]] = []
    for state, avals in zip(record.states, record.avals):
        with_paths, _ = jax.tree_util.tree_flatten_with_path(avals)
        for path, aval in with_paths:
            entries_.append((f"state {state.label}{jax.tree_util.keystr(path)}", aval_key(aval)))
    return tuple(entries_)
