"""Module-level bodies and builders shared by the core tests (module level, so they are good keys)."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

import jax
import jax.numpy as jnp

from jitcheck import JitGraph, NestingGraph, NodeDefinition


def scale(x: jax.Array, *, factor: float) -> jax.Array:
    return x * factor


def add(x: jax.Array, y: jax.Array) -> jax.Array:
    return x + y


def split(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return x + 1, x * 2


def matmul(x: jax.Array, w: jax.Array) -> jax.Array:
    return x @ w


def tree_out(x: jax.Array) -> dict[str, jax.Array]:
    return {"sum": jnp.sum(x), "double": x * 2}


class Stage(enum.Enum):
    ENCODE = "encode"
    DECODE = "decode"


@dataclasses.dataclass(frozen=True)
class Name:
    text: str


def two_level() -> JitGraph[Any, str]:
    """A graph with a nested graph: x -> xs -> (p, q) -> out."""
    inner = NestingGraph(
        {
            "scale": NodeDefinition(scale, ("x",), ("xs",), {"factor": 2.0}),
            "split": NodeDefinition(split, ("xs",), ("p", "q")),
        }
    )
    return JitGraph(NestingGraph({"inner": inner, "sum": NodeDefinition(add, ("p", "q"), ("out",))}))
