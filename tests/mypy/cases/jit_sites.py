"""jax.jit and jax.pmap call sites judged with mypy's types: static arguments of jitted and pmapped
functions defined in jit_lib.py and here, and bound methods jitted again and again (receivers
from this module, jit_lib.py and pydantic)."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pydantic

from tests.mypy.cases.jit_lib import (
    Config,
    FrozenConfig,
    Trainer,
    by_name,
    by_number,
    called_decorator,
    filtered,
    pmapped,
    pmapped_plain,
    pmapped_third,
)

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

# jax.pmap's static_broadcasted_argnums: the same judgement, across modules and in this one.
pmapped(x, (64, 64))
pmapped(x, FrozenConfig(3))
pmapped(x, [64, 64])  # mypy-expect: jitcheck-setting # mypy-says: "[64, 64]" used as static argument "sizes" of "pmapped" (jax.pmap) cannot be a jit cache key # mypy-says: JC202 (
pmapped(x, sizes=Config(3))  # mypy-expect: jitcheck-setting # mypy-says: static argument "sizes" of "pmapped" (jax.pmap) # mypy-says: JC203 ( # mypy-says: Fix:
pmapped(Config(3), None)
pmapped_third(x, x, np.ones(3))  # mypy-expect: jitcheck-setting # mypy-says: static argument "config" of "pmapped_third" (jax.pmap) # mypy-says: JC201 (
pmapped_third(x, x, config="fine")
pmapped_plain(x, [1, 2])
pmapped.lower(x, (64, 64))
reveal_type(pmapped)  # mypy-says: Revealed type is "jax._src.pjit.JitWrapped"
reveal_type(pmapped_plain)  # mypy-says: Revealed type is "Any"


@functools.partial(jax.pmap, static_broadcasted_argnums=(1,))
def local_pmapped(x: jax.Array, table: object) -> jax.Array:
    return x


local_pmapped(x, {"a": 1})  # mypy-expect: jitcheck-setting # mypy-says: static argument "table" of "local_pmapped" (jax.pmap) # mypy-says: JC202 (
local_pmapped(x, "table")


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


def pmap_called(trainer: Trainer, x: jax.Array) -> None:
    jax.pmap(trainer.step)(x)  # mypy-expect: jitcheck-body # mypy-says: of "Trainer" is jitted anew on every call of "pmap_called"


def pmap_loop(trainer: Trainer, batches: list[jax.Array]) -> None:
    for batch in batches:
        jax.pmap(trainer.step, axis_name="batch")(batch)  # mypy-expect: jitcheck-body # mypy-says: Bound method "trainer.step" of "Trainer" is jitted anew on every loop iteration # mypy-says: "jax.pmap" wrapper
    step = jax.pmap(trainer.step)
    for batch in batches:
        step(batch)


def installed(settings: Settings, items: list[int]) -> None:
    while items:
        items.pop()
        jax.jit(settings.model_dump)  # mypy-expect: jitcheck-body # mypy-says: Bound method "settings.model_dump" of "Settings" is jitted anew on every loop iteration
    base = pydantic.BaseModel()
    jax.jit(base.model_copy)()  # mypy-expect: jitcheck-body # mypy-says: of "BaseModel"


module_level = jax.jit(Trainer().step)(x)
partial_jit = functools.partial(jax.jit, static_argnums=0)
