"""Calls the jitted functions of jitlib: the same findings whether jitlib is fresh or cached."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jitlib import Options, Stepper, jitted

jitted(jnp.ones(2), options=Options(1))  # mypy-expect: jitcheck-setting # mypy-says: static argument "options" of "jitted" (jax.jit)
jitted(jnp.ones(2), options=(1, 2))


def loop(stepper: Stepper, batches: list[jax.Array]) -> None:
    for batch in batches:
        jax.jit(stepper.step)(batch)  # mypy-expect: jitcheck-body # mypy-says: of "Stepper" is jitted anew on every loop iteration
