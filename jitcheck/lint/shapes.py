"""Which arguments of numpy's and jax.numpy's array constructors set the size of the array they build.

An array built in a loop whose size reads what changes on each iteration (``np.arange(npix(nside))``
in ``for nside in sizes:``) has another shape on each pass, so a wrapper called on it compiles another
program each time, whatever is hoisted: the loop's sameness rule (:mod:`.sameness`) asks this module.
Only size arguments count: ``np.linspace(0, t, 100)`` over ``t`` is data of one shape.
"""

from __future__ import annotations

from typing import Final

import libcst as cst

_SIZE_ARGUMENTS: Final[dict[str, tuple[tuple[int, ...], tuple[str, ...]]]] = {
    "zeros": ((0,), ("shape",)),
    "ones": ((0,), ("shape",)),
    "empty": ((0,), ("shape",)),
    "full": ((0,), ("shape",)),
    "arange": ((0, 1, 2), ("start", "stop", "step")),
    "linspace": ((2,), ("num",)),
    "logspace": ((2,), ("num",)),
    "geomspace": ((2,), ("num",)),
    "eye": ((0, 1), ("N", "M")),
    "identity": ((0,), ("n",)),
    "tri": ((0, 1), ("N", "M")),
}
"""By constructor name: the positions and keywords of the arguments that set the built array's size."""

SIZED_CONSTRUCTORS: Final = frozenset(f"{module}.{name}" for module in ("numpy", "jax.numpy") for name in _SIZE_ARGUMENTS)
"""The qualified names of the constructors :func:`size_arguments` knows."""


def size_arguments(call: cst.Call, qualified: str) -> list[cst.BaseExpression]:
    """The arguments of ``call``, a call of the constructor ``qualified`` (one of :data:`SIZED_CONSTRUCTORS`),
    that set the size of the array it builds."""
    positions, keywords = _SIZE_ARGUMENTS[qualified.rsplit(".", 1)[-1]]
    found: list[cst.BaseExpression] = []
    index = 0
    for arg in call.args:
        if arg.star:
            found.append(arg.value)  # `*shape`: any position
        elif arg.keyword is None:
            if index in positions:
                found.append(arg.value)
            index += 1
        elif arg.keyword.value in keywords:
            found.append(arg.value)
    return found


__all__ = ["SIZED_CONSTRUCTORS", "size_arguments"]
