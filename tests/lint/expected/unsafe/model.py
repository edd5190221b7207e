"""A two-layer perceptron: parameters, the forward pass, and a model object."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
from jax import Array

from lint_project.config import ModelConfig

Params = dict[str, Array]


def init_params(key: Array, config: ModelConfig, features: int) -> Params:
    k1, k2 = jax.random.split(key)
    return {
        "w1": jax.random.normal(k1, (features, config.hidden)) * 0.1,
        "w2": jax.random.normal(k2, (config.hidden, config.classes)) * 0.1,
    }


def forward(params: Params, x: Array, config: ModelConfig) -> Array:
    hidden = jax.nn.relu(x @ params["w1"])
    logits: Array = (hidden @ params["w2"])[..., : config.classes]
    return logits


forward_jit = jax.jit(forward, static_argnums=2)


@dataclasses.dataclass(frozen=True)
class Dropout:
    """Mutable (eq=True, frozen=False): instances do not hash."""

    rate: float = 0.1


@dataclasses.dataclass(frozen=True)
class FrozenDropout:
    rate: float = 0.1


class Warmup:
    """Compares by value but defines no ``__hash__``: instances do not hash."""

    def __init__(self, steps: int) -> None:
        self.steps = steps

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Warmup) and other.steps == self.steps


class HashedWarmup(Warmup):
    def __hash__(self) -> int:
        return hash(self.steps)


def regularized(params: Params, x: Array, dropout: Dropout | FrozenDropout, warmup: Warmup) -> Array:
    return x @ params["w1"] * (1 - dropout.rate) * warmup.steps


regularized_jit = jax.jit(regularized, static_argnums=(2,), static_argnames=("warmup",))


def run_configs(params: Params, x: Array) -> list[Array]:
    outputs = [
        forward_jit(params, x, ModelConfig(hidden=32)),
        regularized_jit(params, x, Dropout(0.2), warmup=HashedWarmup(10)),
        regularized_jit(params, x, FrozenDropout(0.2), warmup=Warmup(10)),
        regularized_jit(params, x, FrozenDropout(0.2), HashedWarmup(10)),
    ]
    return outputs


class Model:
    """Holds parameters; its jitted entry points are built once, in ``__init__``."""

    def __init__(self, config: ModelConfig, params: Params) -> None:
        self.config = config
        self.params = params
        self.apply_jit = jax.jit(self.apply)
        self.activation = jax.nn.relu

    def apply(self, x: Array) -> Array:
        return forward(self.params, x, self.config)

    def predict(self, x: Array) -> Array:
        y: Array = jax.jit(self.apply)(x)
        return y

    def predict_fast(self, x: Array) -> Array:
        y: Array = self.apply_jit(x)
        return y

    def activate(self, x: Array) -> Array:
        y: Array = jax.jit(self.activation)(x)
        return y

    def probabilities(self, x: Array) -> Array:
        y: Array = jax.jit(jax.nn.softmax)(self.apply(x))
        return y

    def norm(self, x: Array) -> Array:
        y: Array = jax.jit(jnp.linalg.norm)(x)
        return y


class Trainer:
    """Flax-style: jitted entry points built in ``setup``."""

    def setup(self) -> None:
        self.step = jax.jit(self.update)

    def update(self, x: Array) -> Array:
        return x * 0.9

    def run(self, x: Array) -> Array:
        y: Array = jax.jit(self.update)(x)  # noqa
        return y
