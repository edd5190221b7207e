"""The input pipeline, built as one jitcheck graph."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from jitcheck import ValuePartial, JitGraph, NestingGraph, NodeDefinition, OrderedMap
from lint_project.config import ModelConfig, TrainConfig
from lint_project.stages import stage
from typing import Any


def normalize(image: Array, mean: float, std: float) -> Array:
    return (image - mean) / std


def crop(image: Array, size: tuple[int, int]) -> Array:
    return image[: size[0], : size[1]]


def shift(image: Array, offset: Array) -> Array:
    return image + offset


def flatten(image: Array, config: ModelConfig) -> Array:
    return jnp.reshape(image, (-1,))[: config.hidden]


def schedule(image: Array, config: TrainConfig) -> Array:
    return image * config.learning_rate


class Augmenter:
    """Random-free augmentations as methods (which make poor node bodies)."""

    def __init__(self, flip: bool) -> None:
        self.flip = flip

    def apply(self, image: Array) -> Array:
        return image[::-1] if self.flip else image

    def node(self) -> NodeDefinition[str]:
        return NodeDefinition(self.apply, inputs=("image",), outputs=("augmented",))  # mypy-expect: jitcheck-body


def _module_lambda(flat: Any) -> Any:
    return flat * 2.0


PIPELINE = JitGraph(
    NestingGraph(
        OrderedMap(
            {
                "normalize": NodeDefinition(
                    normalize, inputs=("raw",), outputs=("image",), settings={"mean": 0.5, "std": 0.25}
                ),
                "crop": NodeDefinition(
                    crop, inputs=("image",), outputs=("cropped",), settings={"size": (24, 24)}  # mypy-expect: dict-item, jitcheck-setting
                ),
                "shift": NodeDefinition(
                    shift, inputs=("cropped",), outputs=("shifted",), settings=OrderedMap({"offset": np.zeros(3)})  # mypy-expect: dict-item, jitcheck-setting
                ),
                "flatten": NodeDefinition(
                    flatten, inputs=("shifted",), outputs=("flat",), settings=OrderedMap({"config": ModelConfig()})
                ),
                "scale": NodeDefinition(_module_lambda, inputs=("flat",), outputs=("scaled",)),  # mypy-expect: jitcheck-body
                # TrainConfig is a mutable dataclass defined in another module: the static
                # pass finds it through the project index (no fix across files); mypy's
                # plugin and the runtime checks report it too.
                "rate": NodeDefinition(
                    schedule, inputs=("scaled",), outputs=("out",), settings={"config": TrainConfig()}  # mypy-expect: jitcheck-setting
                ),
            }
        )
    )
)

SIZES = stage(crop, ("image",), ("cropped",), settings={"size": (24, 24)})
BAD_SIZES = stage(ValuePartial(crop, size=(24, 24)), ("image",), ("cropped",))
