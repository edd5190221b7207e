"""Jitted and pmapped functions with static arguments, and a class with methods, used from jit_sites.py (another module)."""

from __future__ import annotations

import dataclasses
import functools

import equinox as eqx
import jax


@dataclasses.dataclass
class Config:
    width: int


@dataclasses.dataclass(frozen=True)
class FrozenConfig:
    width: int


@functools.partial(jax.jit, static_argnames=("config",))
def by_name(x: jax.Array, config: object) -> jax.Array:
    return x


@functools.partial(jax.jit, static_argnums=(1,))
def by_number(x: jax.Array, sizes: object) -> jax.Array:
    return x


@jax.jit(static_argnums=1)
def called_decorator(x: jax.Array, table: object) -> jax.Array:
    return x


@functools.partial(jax.pmap, axis_name="batch", static_broadcasted_argnums=(1,))
def pmapped(x: jax.Array, sizes: object) -> jax.Array:
    return x


@functools.partial(jax.pmap, static_broadcasted_argnums=2)
def pmapped_third(x: jax.Array, y: jax.Array, config: object) -> jax.Array:
    return x


@functools.partial(jax.pmap, axis_name="batch")
def pmapped_plain(x: jax.Array, config: object) -> jax.Array:
    return x


@eqx.filter_jit
def filtered(x: jax.Array, config: object) -> jax.Array:
    return x


class Trainer:
    def step(self, x: jax.Array) -> jax.Array:
        return x
