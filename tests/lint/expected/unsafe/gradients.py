"""Gradients and a stateful trainer: transformations and StatefulFunctions built the right and the wrong ways."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

import jax
import jax.numpy as jnp
from jax import Array

from jitcheck import State, StatefulFunction
from lint_project.config import ModelConfig
from lint_project.model import Params, forward

CONFIG = ModelConfig()


def loss_fn(params: Params, x: Array, y: Array, l2: float = 0.0) -> Array:
    penalty = sum(jnp.sum(w**2) for w in params.values())
    return jnp.mean((forward(params, x, CONFIG) - y) ** 2) + l2 * penalty


grad_fn = jax.jit(jax.grad(loss_fn))
loss_and_grad = jax.jit(jax.value_and_grad(loss_fn), static_argnames=("l2",))
per_example_grads = jax.grad(loss_fn)


def sgd(params: Params, grads: Params) -> Params:
    updated: Params = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
    return updated


def train(params: Params, batches: Iterable[tuple[Array, Array]]) -> Params:
    for x, y in batches:
        step = jax.jit(jax.value_and_grad(functools.partial(loss_fn, l2=1e-4)))
        _, grads = step(params, x, y)
        params = sgd(params, grads)
    return params


def gradient(params: Params, x: Array, y: Array) -> Params:
    grads: Params = jax.jit(jax.grad(loss_fn))(params, x, y)
    return grads


def batched_gradients(params: Params, xs: Array, ys: Array) -> Params:
    grads: Params = jax.jit(jax.vmap(jax.grad(loss_fn), in_axes=(None, 0, 0)))(params, xs, ys)
    return grads


def good_gradients(params: Params, batches: Iterable[tuple[Array, Array]]) -> list[Params]:
    """Look-alikes: built once, or a module-level gradient jitted (one cache entry)."""
    step = jax.jit(jax.grad(loss_fn))
    found: list[Params] = [step(params, x, y) for x, y in batches]
    found.append(grad_fn(params, *next(iter(batches))))
    found.append(jax.jit(per_example_grads)(params, *next(iter(batches))))
    _, grads = loss_and_grad(params, *next(iter(batches)), l2=1e-4)
    found.append(grads)
    return found


def make_gradient(l2: float) -> Callable[[Params, Array, Array], Params]:
    """A factory: the jitted gradient is returned, built once per use."""
    fn: Callable[[Params, Array, Array], Params] = jax.jit(jax.grad(functools.partial(loss_fn, l2=l2)))
    return fn


def module_step(params: Params, x: Array, y: Array) -> Array:
    loss: Array = loss_fn(params, x, y)
    return loss


class Trainer:
    """Holds the parameters in a State; one stateful step per call."""

    def __init__(self, params: Params) -> None:
        self.params = State(params, name="params")
        self.step_fn = StatefulFunction(self.step)
        self.scaled_fn = StatefulFunction(self.scaled, static_argnames="factor")

    def step(self, x: Array, y: Array) -> Array:
        loss, grads = jax.value_and_grad(loss_fn)(self.params.value, x, y)
        self.params.value = sgd(self.params.value, grads)
        result: Array = loss
        return result

    def scaled(self, x: Array, factor: tuple[float, ...]) -> Array:
        result: Array = x * jnp.asarray(factor)
        return result

    def train_step(self, x: Array, y: Array) -> Array:
        loss: Array = StatefulFunction(self.step)(x, y)
        return loss

    def good_step(self, x: Array, y: Array) -> Array:
        loss: Array = self.step_fn(x, y) + self.scaled_fn(x, factor=(1.0, 2.0))
        return loss

    def bad_factor(self, x: Array) -> Array:
        result: Array = self.scaled_fn(x, (1.0, 2.0))
        return result


def evaluate(params: Params, x: Array, y: Array) -> Array:
    loss: Array = StatefulFunction(module_step)(params, x, y)
    return loss
