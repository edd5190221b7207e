"""Losses, as graph nodes and as jitted functions."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import jax
import jax.numpy as jnp
from jax import Array

from jitcheck import NodeDefinition, ValuePartial
from lint_project.stages import stage


def weighted_mse(pred: Array, target: Array, weight: float) -> Array:
    return weight * jnp.mean((pred - target) ** 2)


def cross_entropy(logits: Array, labels: Array) -> Array:
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * labels, axis=-1))


@partial(jax.jit, static_argnums=(2,))
def scaled_loss(pred: Array, target: Array, scale: float) -> Array:
    return scale * jnp.mean((pred - target) ** 2)


mse_node = NodeDefinition(ValuePartial(weighted_mse, weight=0.5), inputs=("pred", "target"), outputs=("loss",))  # mypy-expect: jitcheck-body
value_node = NodeDefinition(ValuePartial(weighted_mse, weight=0.5), inputs=("pred", "target"), outputs=("loss",))
entropy_node = NodeDefinition(cross_entropy, inputs=("logits", "labels"), outputs=("loss",))
stage_node = stage(ValuePartial(weighted_mse, weight=2.0), ("pred", "target"), ("loss",))


def make_loss(weight: float) -> Callable[[Array, Array], Array]:
    return partial(weighted_mse, weight=weight)


def evaluate(pred: Array, target: Array) -> Array:
    loss: Array = scaled_loss(pred, target, 0.5)
    return loss


def evaluate_many(pred: Array, target: Array) -> Array:
    loss: Array = scaled_loss(pred, target, [0.5, 1.0])
    return loss
