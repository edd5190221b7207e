"""The training loop: gradient steps, jitted the right and the wrong ways."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import jax
import jax.numpy as jnp
from jax import Array

from lint_project.config import ModelConfig
from lint_project.model import Params, forward
from jitcheck import ValuePartial
from typing import Any

CONFIG = ModelConfig()
LAYER_SIZES = [32, 32, 10]


def loss_fn(params: Params, x: Array, y: Array) -> Array:
    return jnp.mean((forward(params, x, CONFIG) - y) ** 2)


def sgd_update(params: Params, grads: Params, lr: float) -> Params:
    updated: Params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    return updated


apply_update = jax.jit(sgd_update, static_argnames=("lr",))


def _train_lambda(p: Any, g: Any) -> Any:
    return sgd_update(p, g, 0.1)


def train(params: Params, batches: Iterable[tuple[Array, Array]]) -> Params:
    for x, y in batches:
        grads = jax.grad(loss_fn)(params, x, y)
        params = jax.jit(_train_lambda)(params, grads)
        loss = jax.jit(loss_fn)(params, x, y)
        params = jax.jit(lambda p: p)(params)  # noqa: JC104
        del loss
    return params


def train_step(params: Params, x: Array, y: Array, lr: float) -> Params:
    def update(p: Params, g: Params) -> Params:
        return sgd_update(p, g, lr)

    grads = jax.grad(loss_fn)(params, x, y)
    new_params: Params = jax.jit(update)(params, grads)
    return new_params


def make_train_step(lr: float) -> Callable[[Params, Params], Params]:
    def update(p: Params, g: Params) -> Params:
        return sgd_update(p, g, lr)

    return jax.jit(update)


def fit(params: Params, batches: list[tuple[Array, Array]], lr: float) -> Params:
    step = jax.jit(lambda p, g: sgd_update(p, g, lr))
    for x, y in batches:
        params = step(params, jax.grad(loss_fn)(params, x, y))
    return params


def evaluate_all(params: Params, x: Array) -> Array:
    @jax.jit
    def score(inputs: Array) -> Array:
        return forward(params, inputs, CONFIG)

    result: Array = score(x)
    return result


def updates(params: Params, grads: Params) -> list[Params]:
    return [
        apply_update(params, grads, lr=0.01),
        apply_update(params, grads, lr=jnp.array(0.01)),
    ]


def scale(factor: float, x: Array) -> Array:
    return factor * x


def apply_fn(fn: Callable[[Array], Array], x: Array) -> Array:
    return fn(x)


run_fn = jax.jit(apply_fn, static_argnums=0)


def scaled(x: Array) -> Array:
    y: Array = run_fn(ValuePartial(scale, 2.0), x)  # mypy-expect: no-untyped-call
    return y


def _layered_lambda(v: Any) -> Any:
    return v


def layered(x: Array) -> Array:
    same: Array = run_fn(_layered_lambda, x)
    wide: Array = jax.jit(forward, static_argnums=2)(init(), x, LAYER_SIZES)
    return same + wide


def init() -> Params:
    return {"w1": jnp.ones((4, 32)), "w2": jnp.ones((32, 10))}
