"""Shapes of values, for tracing and for messages: ``jax.ShapeDtypeStruct`` per array leaf.

Shared by the graphs (a failed body's message shows its input shapes) and `Traced`
(which traces at these shapes), so neither imports the other for them.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.tree_util
import numpy as np

from jitcheck.core.keys import is_array


def shape_dtype(shape: tuple[int, ...], dtype: Any, *, weak_type: bool = False) -> jax.ShapeDtypeStruct:
    """A ``jax.ShapeDtypeStruct`` (typed wrapper: jax leaves its constructor unannotated)."""
    return jax.ShapeDtypeStruct(shape, dtype, weak_type=weak_type)  # type: ignore[no-untyped-call]


def shape_of(value: Any) -> Any:
    """``value`` with every array (or tracer) leaf replaced by its ``ShapeDtypeStruct``.

    Python numbers become weakly typed scalars, as jax would trace them; other leaves
    stay as they are.
    """

    def leaf(x: Any) -> Any:
        if isinstance(x, jax.ShapeDtypeStruct):
            return x
        if is_array(x) or isinstance(x, np.generic):
            aval = jax.typeof(x)
            return shape_dtype(aval.shape, aval.dtype, weak_type=getattr(aval, "weak_type", False))
        return x

    return jax.tree_util.tree_map(leaf, value)


def short_shape(value: Any) -> str:
    """``value``'s shapes in brief for messages: ``float32[3, 4]`` per array leaf."""

    def leaf(x: Any) -> Any:
        if isinstance(x, jax.ShapeDtypeStruct):
            return f"{x.dtype}{list(x.shape)}"
        return x

    return str(jax.tree_util.tree_map(leaf, shape_of(value)))


__all__ = ["shape_dtype", "shape_of", "short_shape"]
