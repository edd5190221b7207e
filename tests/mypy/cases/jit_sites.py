"""jax.jit call sites judged with mypy's types: static arguments of jitted functions defined in jit_lib.py,
and bound methods jitted again and again (receivers from this module, jit_lib.py and pydantic)."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pydantic

from tests.mypy.cases.jit_lib import Config, FrozenConfig, Trainer, by_name, by_number, called_decorator, filtered

x = jnp.ones(3)

# Static positions, across modules: the type of what is passed must hash by value.
by_name(x, config=FrozenConfig(3))
by_name(x, config=(1, 2))
by_name(x, config=Config(3))  # mypy-expect: jitcheck-setting # mypy-says: "Config(3)" used as static argument "config" of "by_name" (jax.jit) cannot be a jit cache key # mypy-says: JC203 (
by_name(x, Config(3))  # mypy-expect: jitcheck-setting # mypy-says: static argument "config"
by_name(Config(3), config=None)
by_number(x, (64, 64))
by_number(x, [64, 64])  # mypy-expect: jitcheck-setting # mypy-says: JC202 ( # mypy-says: is a list
by_number(x, np.ones(3))  # mypy-expect: jitcheck-setting # mypy-says: JC201 ( # mypy-says: it is an array
by_number(x, sizes={"a": 1})  # mypy-expect: jitcheck-setting # mypy-says: JC202 (
by_number(x, ((1, 2), FrozenConfig(1)))
by_number(x, (1, Config(1)))  # mypy-expect: jitcheck-setting # mypy-says: "Config" (an item of the tuple) is not frozen
called_decorator(x, [1])  # mypy-expect: jitcheck-setting # mypy-says: static argument "table" of "called_decorator"
called_decorator(x, "table")
filtered(x, Config(3))  # mypy-expect: jitcheck-setting # mypy-says: (eqx.filter_jit) # mypy-says: JC203 (
filtered(x, [1, 2])
filtered(x, FrozenConfig(3))


class Model:
    def apply(self, x: jax.Array) -> jax.Array:
        return x

    def __init__(self) -> None:
        self.fast = jax.jit(self.apply)

    def run(self, x: jax.Array) -> None:
        jax.jit(self.apply)(x)  # mypy-expect: jitcheck-body # mypy-says: Bound method "self.apply" of "Model" is jitted anew on every call of "run" # mypy-says: JC101 (

    def run_once(self, x: jax.Array) -> None:
        self.fast(x)


class Settings(pydantic.BaseModel):
    scale: float


def train(trainer: Trainer, batches: list[jax.Array]) -> None:
    for batch in batches:
        jax.jit(trainer.step)(batch)  # mypy-expect: jitcheck-body # mypy-says: Bound method "trainer.step" of "Trainer" is jitted anew on every loop iteration
    step = jax.jit(trainer.step)
    for batch in batches:
        step(batch)


def pmapped(trainer: Trainer, x: jax.Array) -> None:
    jax.pmap(trainer.step)(x)  # mypy-expect: jitcheck-body # mypy-says: of "Trainer" is jitted anew on every call of "pmapped"


def installed(settings: Settings, items: list[int]) -> None:
    while items:
        items.pop()
        jax.jit(settings.model_dump)  # mypy-expect: jitcheck-body # mypy-says: Bound method "settings.model_dump" of "Settings" is jitted anew on every loop iteration
    base = pydantic.BaseModel()
    jax.jit(base.model_copy)()  # mypy-expect: jitcheck-body # mypy-says: of "BaseModel"


module_level = jax.jit(Trainer().step)(x)
partial_jit = functools.partial(jax.jit, static_argnums=0)
