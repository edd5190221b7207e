"""Jitted functions and a receiver class, read from mypy's cache in the second run of test_mypy_plugin_cache.py."""

from __future__ import annotations

import dataclasses
import functools

import jax


@dataclasses.dataclass
class Options:
    depth: int


@functools.partial(jax.jit, static_argnames=("options",))
def jitted(x: jax.Array, options: object) -> jax.Array:
    return x


class Stepper:
    def step(self, x: jax.Array) -> jax.Array:
        return x
