"""What a State may hold, and how a new value is made to fit the one it replaces.

A State holds a pytree of arrays (jax or numpy) and numbers. Weakly typed leaves
(Python scalars, weakly typed jax arrays) are stored strongly typed, so a State's
dtype never depends on how its value was spelled and the traced program computes
exactly what eager code computes. A write keeps the structure, shapes and dtypes;
a weakly typed value (``state.value = 0.0``) is cast to the State's dtype when jax
would promote it to that dtype anyway.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jitcheck import rules
from jitcheck.stateful.errors import StateShapeError, TracerInState, found
from jitcheck.stateful.jaxinternals import ArrayImpl, Tracer

_NUMBERS = (bool, int, float, complex)


def flatten(value: Any) -> tuple[list[Any], Any]:
    """``jax.tree_util.tree_flatten``, its tree typed loosely (jax's stub types it oddly)."""
    leaves, tree = jax.tree_util.tree_flatten(value)
    return leaves, tree


def structure(value: Any) -> Any:
    """``jax.tree_util.tree_structure``, typed loosely."""
    return jax.tree_util.tree_structure(value)


def is_data_leaf(leaf: object) -> bool:
    """True for what a State (or a traced argument) may hold at a leaf: arrays and numbers."""
    return isinstance(leaf, (jax.Array, np.ndarray, np.number, np.bool_, Tracer, *_NUMBERS))


def aval_of(leaf: Any) -> Any:
    """The abstract value (shape, dtype, weak type) of an array, tracer or number."""
    if type(leaf) is ArrayImpl or isinstance(leaf, Tracer):
        return leaf.aval
    return jax.typeof(leaf)


def strong_aval(leaf: Any) -> Any:
    """``leaf``'s abstract value, strongly typed: what a State is traced as."""
    aval = aval_of(leaf)
    return aval.update(weak_type=False) if getattr(aval, "weak_type", False) else aval


def short(aval: Any) -> str:
    """``f32[3]`` for an abstract value."""
    text = aval.str_short(short_dtypes=True) if hasattr(aval, "str_short") else str(aval)
    return str(text)


def describe(value: Any) -> str:
    """A value's structure with each leaf as ``f32[3]`` (``{'w': f32[3,4], 'b': f32[4]}``)."""
    leaves, treedef = flatten(value)
    if not leaves and treedef.num_nodes == 1:
        return repr(value)
    shown = [_Shown(short(aval_of(leaf)) if is_data_leaf(leaf) else type(leaf).__name__) for leaf in leaves]
    return repr(jax.tree_util.tree_unflatten(treedef, shown))


def describe_avals(avals: Any) -> str:
    """A pytree of abstract values shown like :func:`describe` shows a value."""
    leaves, treedef = flatten(avals)
    return repr(jax.tree_util.tree_unflatten(treedef, [_Shown(short(aval)) for aval in leaves]))


class _Shown:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def has_tracer(value: Any) -> bool:
    """True when some leaf of ``value`` is a jax tracer."""
    if type(value) is ArrayImpl:
        return False
    return any(isinstance(leaf, Tracer) for leaf in jax.tree_util.tree_leaves(value))


def _strong_leaf(leaf: Any) -> Any:
    if isinstance(leaf, _NUMBERS):
        return jax.lax.convert_element_type(leaf, jnp.result_type(leaf))
    if getattr(leaf, "weak_type", False):
        return jax.lax.convert_element_type(leaf, leaf.dtype)
    return leaf


def admit(value: Any, state: str) -> Any:
    """``value`` checked to be a pytree of arrays and numbers, its weak leaves made strong.

    Raises TypeError naming the first leaf that is not data, with its path.
    """
    leaves_with_paths, treedef = jax.tree_util.tree_flatten_with_path(value)
    for path, leaf in leaves_with_paths:
        if not is_data_leaf(leaf):
            where = f"at {jax.tree_util.keystr(path)}" if path else "itself"
            raise TypeError(
                f"State {state}: the value {where} is a {type(leaf).__name__}; a State holds a pytree of "
                "jax or numpy arrays and Python or numpy numbers. Keep other data outside the State "
                "(or pass it as a static argument)"
            )
    if type(value) is ArrayImpl and not value.weak_type:
        return value
    return jax.tree_util.tree_unflatten(treedef, [_strong_leaf(leaf) for _, leaf in leaves_with_paths])


def conform(state: str, old: Any, new: Any) -> Any:
    """``new`` as a replacement of ``old``: same structure, shapes and dtypes, strongly typed.

    A weakly typed leaf (``0.0``) is cast to the old leaf's dtype when jax would
    promote it to that dtype; anything else of another structure, shape or dtype is
    refused with `StateShapeError` (JC602).
    """
    if isinstance(new, Tracer) and isinstance(old, Tracer):
        old_aval, new_aval = old.aval, new.aval  # the common write inside a trace
        if old_aval.shape == new_aval.shape and old_aval.dtype == new_aval.dtype and not new_aval.weak_type:
            return new
    old_leaves, old_tree = flatten(old)
    new_leaves, new_tree = flatten(new)
    if old_tree != new_tree:
        raise _shape_error(state, old, new)
    fitted = []
    for old_leaf, new_leaf in zip(old_leaves, new_leaves):
        if not is_data_leaf(new_leaf):
            raise _shape_error(state, old, new)
        old_aval, new_aval = aval_of(old_leaf), aval_of(new_leaf)
        if old_aval.shape != new_aval.shape:
            raise _shape_error(state, old, new)
        if old_aval.dtype != new_aval.dtype:
            weak = isinstance(new_leaf, _NUMBERS) or new_aval.weak_type
            if not weak or jnp.result_type(new_leaf, old_aval.dtype) != old_aval.dtype:
                raise _shape_error(state, old, new)
            new_leaf = jax.lax.convert_element_type(new_leaf, old_aval.dtype)
        elif new_aval.weak_type:
            new_leaf = jax.lax.convert_element_type(new_leaf, new_aval.dtype)
        fitted.append(new_leaf)
    if len(fitted) == 1 and old_tree.num_leaves == 1 and old_tree.num_nodes == 1:
        return fitted[0]
    return jax.tree_util.tree_unflatten(old_tree, fitted)


def _shape_error(state: str, old: Any, new: Any) -> StateShapeError:
    return StateShapeError(
        f"State {state}",
        [found(rules.STATE_SHAPE_CHANGED, f"State {state}", state=state, expected=describe(old), got=describe(new))],
    )


def refuse_tracer(state: str, value: Any, where: str, transformation: str = "a jax transformation") -> None:
    """Raise `TracerInState` (JC604) when ``value`` holds a tracer and no StatefulFunction collects it."""
    if has_tracer(value):
        raise TracerInState(
            f"State {state}",
            [
                found(
                    rules.TRACER_IN_STATE,
                    f"State {state}",
                    state=state,
                    transformation=transformation,
                    where=f"{where}, so it would hold a tracer that dies with that transformation",
                    fix="write states inside a function wrapped in jitcheck.StatefulFunction (it collects "
                    "the writes), or thread the value through the transformation as an argument and result",
                )
            ],
        )
